"""figures.save writes every export with its data and sidecar; bad input is refused."""

import json

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from repcap import RepcapError
from repcap.base import io as rio
from repcap.book import figindex, figures


@pytest.fixture()
def figdir(tmp_path, monkeypatch):
    (tmp_path / "run").mkdir()
    tmp_path = tmp_path / "run"
    monkeypatch.setenv("REPCAP_FIGURE_DIR", str(tmp_path))
    monkeypatch.setenv("REPCAP_PROFILE", "smoke")
    monkeypatch.setenv("REPCAP_NOTEBOOK", "notebooks/00_x.py")
    (tmp_path.parent / "params.json").write_text(json.dumps({"k": 3}))
    monkeypatch.setenv("REPCAP_PARAMS_FILE", str(tmp_path.parent / "params.json"))
    (tmp_path.parent / "overrides.json").write_text(json.dumps({"k": 3}))  # as if run with -p k=3
    monkeypatch.setenv("REPCAP_OVERRIDES_FILE", str(tmp_path.parent / "overrides.json"))
    monkeypatch.setenv("REPCAP_GIT_REV", "abc123")
    return tmp_path


def test_save_writes_all_files_and_sidecar(figdir):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 2])
    side = figures.save("fig-x-line", fig, {"x": [0, 1], "y": [1, 2]}, {"caption": "Rises by one.", "seed": 7})
    for ext in ("png", "svg", "pdf", "csv", "json"):
        assert (figdir / f"fig-x-line.{ext}").stat().st_size > 0
    assert (figdir / "fig-x-line.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (figdir / "fig-x-line.pdf").read_bytes()[:5] == b"%PDF-"
    assert b"<svg" in (figdir / "fig-x-line.svg").read_bytes()[:2000]
    assert pd.read_csv(figdir / "fig-x-line.csv").to_dict("list") == {"x": [0, 1], "y": [1, 2]}
    on_disk = json.loads((figdir / "fig-x-line.json").read_text())
    assert on_disk == json.loads(json.dumps(side))
    assert on_disk["parameters"] == {"k": 3} and on_disk["profile"] == "smoke" and on_disk["seed"] == 7
    assert on_disk["git_revision"] == "abc123" and on_disk["notebook"] == "notebooks/00_x.py"
    assert on_disk["device"].startswith(("cpu", "cuda"))
    assert not list(figdir.glob(".*"))  # no temporary files left behind


@pytest.mark.parametrize("fig_id", ["fig_x", "Fig-a-b", "fig-", "x-a-b", "fig-a", "fig-a-b.png"])
def test_bad_figure_ids_are_refused(figdir, fig_id):
    fig, _ = plt.subplots()
    with pytest.raises(RepcapError, match="fig-<chapter>-<what>"):
        figures.save(fig_id, fig, {"x": [1]}, {"caption": "c"})


def test_caption_and_data_are_required(figdir):
    fig, _ = plt.subplots()
    with pytest.raises(RepcapError, match="caption"):
        figures.save("fig-a-b", fig, {"x": [1]})
    with pytest.raises(RepcapError, match="cannot be empty"):
        figures.save("fig-a-b", fig, pd.DataFrame(), {"caption": "c"})


def test_atomic_write_leaves_old_file_on_error(tmp_path):
    target = tmp_path / "a.txt"
    rio.write_text(target, "old")
    with pytest.raises(RuntimeError), rio.atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_figure_index_lists_figures_with_bibtex(figdir, tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "book" / "generated" / "figures").mkdir(parents=True)
    monkeypatch.setenv("REPCAP_ROOT", str(root))
    monkeypatch.setenv("REPCAP_FIGURE_DIR", str(root / "book" / "generated" / "figures"))
    fig, _ = plt.subplots()
    figures.save("fig-b-two", fig, {"x": [1]}, {"caption": "Second. More."})
    fig, _ = plt.subplots()
    figures.save("fig-a-one", fig, {"x": [1]}, {"caption": "First {braces} $x$. More."})
    text = figindex.write_figure_index(["fig-b-two", "fig-a-one"]).read_text()
    assert text.index("## fig-b-two") < text.index("## fig-a-one")
    assert "{numref}`fig-a-one` · computed and drawn by notebooks/00\\_x.py (smoke + k=3)" in text
    assert "@misc{repcap-fig-a-one," in text
    assert "title        = {{First} \\{braces\\} {$x$}}" in text
    for ext in ("svg", "png", "pdf", "csv", "json"):
        assert f"<figures/fig-a-one.{ext}>" in text


def test_bibtex_entries_are_ascii_safe_latex():
    import re as _re

    from pybtex.database import parse_string

    from repcap.book.figindex import bibtex_entry, latex_text, plain_latex

    side = {
        "fig_id": "fig-x-y",
        "caption": "σ against 1/√d: 100% of pairs_with ε ≤ 0.1 & μ² ≈ 1/m — #1. More.",
        "notebook": "notebooks/01_x.py",
        "profile": "quick",
        "git_revision": "abc",
        "created_unix": 1.8e9,
    }
    entry = bibtex_entry(side)
    assert entry.isascii()
    bib = parse_string(entry, "bibtex").entries["repcap-fig-x-y"]
    assert bib.fields["year"] == "2027"  # from the figure's build time, not a constant
    assert bib.fields["url"].endswith("book/generated/01_x.html#fig-x-y")
    title = bib.fields["title"]
    outside_math = _re.sub(r"\$[^$]*\$", "", title)
    assert not _re.search(r"(?<!\\)[%&#_]", outside_math), title  # every special escaped
    assert title.count("$") % 2 == 0 and r"{$\varepsilon$}" in title and r"{$\sqrt{d}$}" in title
    assert latex_text("50% & a_b") == r"50\% \& $a_{b}$"  # a subscript in a caption is math
    assert plain_latex("50% & a_b") == r"50\% \& a\_b"  # in a path or a parameter name, text


def test_alt_text_and_reproduce_command_come_from_the_sidecar():
    from repcap.book.figures import alt_text, figure_directive

    cap = "A `code` and *emphasis*: " + "word " * 100
    assert "`" not in alt_text(cap) and len(alt_text(cap)) <= 302
    md = figure_directive(
        "fig-a-b",
        "Caption here.",
        {"notebook": "notebooks/01_x.py", "profile": "smoke", "git_revision": "abc", "parameters": {}},
    )
    assert ":alt: Caption here." in md and "{download}`source <../../notebooks/01_x.py>`" in md
    assert "Rebuild: `repcap run notebooks/01_x.py --profile smoke" in md


def _labels(axis):
    return [t.get_text() for t in axis.get_ticklabels() if t.get_text()]


def test_log_ticks_keep_hand_set_labels_and_label_hand_set_ticks():
    """finish_axes gives log axes the book's labels, but ticks placed by hand get no extra minor
    labels, and labels set by hand stay as set."""
    fig, ax = plt.subplots()
    ax.plot([4, 32], [0.1, 2])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([4, 8, 16, 32])
    ax.set_xticklabels(["four", "8", "16", "32"])
    ax.minorticks_off()
    figures.finish_axes(fig)
    fig.canvas.draw()
    assert _labels(ax.xaxis) == ["four", "8", "16", "32"]
    assert ax.xaxis.get_minorticklocs().size == 0
    assert "0.5" in _labels(ax.yaxis) + [t.get_text() for t in ax.yaxis.get_minorticklabels()]
    fig2, ax2 = plt.subplots()
    ax2.plot([4, 32], [1, 2])
    ax2.set_xscale("log")
    ax2.set_xticks([4, 8, 16, 32])
    figures.finish_axes(fig2)
    fig2.canvas.draw()
    assert _labels(ax2.xaxis) == ["4", "8", "16", "32"]
    plt.close("all")


class _Found:
    def __init__(self, config, prov):
        self.config, self.provenance = config, prov


class _Lookup:
    experiment, scale = "yoder", "full"

    def __init__(self, found):
        self.found = found


def _yoder_lookup(root):
    """The shipped bundle's own Yoder entry, read as the JSON file (not through repcap.results.bundle)."""
    entry = json.loads((root / "data" / "runs" / "reference" / "yoder.json").read_text())["entries"][0]
    prov = {**entry["provenance"], "source": "bundle", "bundle": {"path": str(root / "data/runs/reference")}}
    return entry, _Lookup([_Found(entry["config"], prov)])


def test_a_bundle_figure_carries_the_runs_provenance(figdir):
    """A figure drawn from the reference bundle: the run's configuration, machine, commit and
    computing time, from the bundle file itself, and the command that recomputes it; the chapter
    run that drew it is kept apart."""
    from pathlib import Path

    from repcap.book.figindex import bibtex_entry
    from repcap.book.figures import bundle_provenance, figure_directive

    root = Path(__file__).resolve().parents[2]
    entry, lookup = _yoder_lookup(root)
    prov = bundle_provenance(lookup, "reference")
    fig, _ = plt.subplots()
    side = figures.save("fig-x-ref", fig, {"x": [1]}, {"caption": "The run. More."}, provenance=prov)
    assert side["parameters"] == entry["config"] and side["parameters"]["k"] == 10000
    assert side["compute_s"] == round(entry["provenance"]["seconds"], 3) > 3000
    assert side["device"] == entry["provenance"]["device"]
    assert side["computed"]["commits"] == [entry["provenance"]["commit"]]
    assert side["computed"]["recompute"] == "repcap bundle compute reference --only yoder"
    assert side["drawn_by"] == {
        "notebook": "notebooks/00_x.py",
        "profile": "smoke",
        "overrides": {"k": 3},
        "git_revision": "abc123",
        "device": side["drawn_by"]["device"],
        "parameters": {"k": 3},
    }
    md = figure_directive("fig-x-ref", "The run.", side)
    assert "Recompute: `repcap bundle compute reference --only yoder`" in md
    assert "56 min of computing" in md and entry["provenance"]["commit"][:12] in md
    # the chapter's own parameters (k = 3), not the run's (k = 10000)
    assert "Rebuild: `repcap run notebooks/00_x.py --profile smoke -p k=3`" in md
    assert "cpu (2 threads)" in bibtex_entry(side)
    assert bundle_provenance(None) is None and bundle_provenance(_Lookup([])) is None


def test_an_ordinary_figure_records_its_computing_time_not_a_wall_clock(figdir):
    fig, _ = plt.subplots()
    side = figures.save("fig-x-ct", fig, {"x": [1]}, {"caption": "C.", "compute_s": 12.5})
    assert side["compute_s"] == 12.5 and "wall_time_s" not in side and "computed" not in side
    assert side["parameters"] == {"k": 3} and side["drawn_by"]["profile"] == "smoke"


def test_bibtex_titles_are_whole_sentences_and_urls_absolute_with_a_base(tmp_path, monkeypatch):
    from pybtex.database import parse_string

    from repcap.book.figindex import base_url, bibtex_entry, first_sentence

    cap = "Liu et al. read Fig. 6e of the paper, e.g. the slope 1.5 at m = 10. The rest."
    assert first_sentence(cap) == "Liu et al. read Fig. 6e of the paper, e.g. the slope 1.5 at m = 10"
    side = {"fig_id": "fig-x-y", "caption": cap, "notebook": "notebooks/01_x.py", "created_unix": 1.8e9}
    bib = parse_string(bibtex_entry(side, "https://example.org/book/"), "bibtex").entries["repcap-fig-x-y"]
    assert bib.fields["url"] == "https://example.org/book/book/generated/01_x.html#fig-x-y"
    assert "{Fig.} 6e of the paper" in bib.fields["title"]  # capitals braced: no style lowers them
    (tmp_path / "_config.yml").write_text("html:\n  baseurl: https://example.org/b/\n")
    monkeypatch.setenv("REPCAP_ROOT", str(tmp_path))
    assert base_url() == "https://example.org/b"
    (tmp_path / "_config.yml").write_text("html:\n  baseurl: ''\n")
    assert base_url() == ""


def test_side_by_side_panels_get_a_stacked_phone_layout(figdir):
    """Two panels side by side: the phone layout (<id>.narrow.svg) stacks them in one column of
    NARROW_WIDTH inches, each with its tick labels; the wide files keep the original layout."""
    import re as _re

    fig, (a, b) = plt.subplots(1, 2, figsize=figures.size(3.2), sharey=True)
    a.plot([0, 1], [0, 1], label="one")
    b.plot([0, 1], [1, 0], label="two")
    fig.legend(*a.get_legend_handles_labels(), loc="lower center", ncol=4, bbox_to_anchor=(0.5, 0.0))
    side = figures.save("fig-x-pan", fig, {"x": [0, 1]}, {"caption": "Two panels."})
    assert side["files"]["narrow_svg"] == "fig-x-pan.narrow.svg"
    svg = (figdir / "fig-x-pan.narrow.svg").read_text()
    w_pt, h_pt = (float(v) for v in _re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    assert w_pt <= figures.NARROW_WIDTH * 72 * 1.12 and h_pt > w_pt  # one column, taller than wide
    wide = (figdir / "fig-x-pan.svg").read_text()
    ww, wh = (float(v) for v in _re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', wide).groups())
    assert ww > 1.5 * w_pt and ww > wh  # the wide file is untouched
    md = figures.figure_directive("fig-x-pan", "Two panels.", side)
    assert ":::{image} figures/fig-x-pan.narrow.svg" in md and ":class: repcap-narrow" in md
    # a colour bar beside its panel: no phone layout, the figure keeps its scroller
    fig, ax = plt.subplots()
    im = ax.imshow([[0, 1], [1, 0]])
    fig.colorbar(im, ax=ax)
    fig2, (c, d) = plt.subplots(1, 2)
    fig2.colorbar(c.imshow([[0, 1]]), ax=d)
    side2 = figures.save("fig-x-cb", fig2, {"x": [0]}, {"caption": "Bar."})
    assert "narrow_svg" not in side2["files"] and not (figdir / "fig-x-cb.narrow.svg").exists()
    assert "repcap-narrow" not in figures.figure_directive("fig-x-cb", "Bar.", side2)
    plt.close("all")


def test_a_log2_axis_keeps_its_own_ticks_and_gets_no_decimal_minor_labels():
    """Fig. 2.3 drew 500 over 512 and 2000 over 2048: decimal minor labels on a base-2 axis."""
    fig, ax = plt.subplots()
    ax.plot([256, 8192], [0.05, 0.5])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0f}"))
    figures.finish_axes(fig)
    fig.canvas.draw()
    labels = _labels(ax.xaxis) + [t.get_text() for t in ax.xaxis.get_minorticklabels() if t.get_text()]
    assert "512" in labels and "2048" in labels
    assert not {"500", "2000", "5000"} & set(labels), labels
    plt.close(fig)


def test_one_log_axis_never_mixes_plain_numbers_with_powers_of_ten():
    """Fig. 6.2 labelled 10000 next to 10⁵: on an axis reaching 10⁵, every label from 10 up is a power."""
    fig, ax = plt.subplots()
    ax.bar([0, 1], [3, 4e6])
    ax.set_yscale("log")
    ax.set_ylim(0.5, 1e7)
    figures.finish_axes(fig)
    fig.canvas.draw()
    labels = _labels(ax.yaxis)
    assert "10000" not in labels and "$10^{4}$" in labels and "$10^{5}$" in labels and "1" in labels
    fig2, ax2 = plt.subplots()
    ax2.plot([1, 2], [10, 5000])
    ax2.set_yscale("log")
    figures.finish_axes(fig2)
    fig2.canvas.draw()
    assert "1000" in _labels(ax2.yaxis)  # below 10⁵ the labels stay plain
    plt.close("all")


def test_tokens_in_other_scripts_show_their_code_points():
    assert figures.with_codepoints("'the'") == "'the'" and figures.with_codepoints("café") == "café"
    assert figures.with_codepoints("'▁дом'") == "'▁дом' [U+2581 U+0434 U+043E U+043C]"
    assert figures.with_codepoints("日本語の文字です").endswith("U+306E U+6587 U+5B57 …]")


def test_make_pdf_without_an_engine_says_so_in_one_line(monkeypatch, capsys, tmp_path):
    """`make pdf` (python -m repcap.book.build pdf) on a machine without Chromium: one line, exit 1."""
    from repcap.book import build

    monkeypatch.delenv("REPCAP_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no chromium on it
    assert build.pdf_engine() is None
    assert build.main(["pdf"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "make pdf: no PDF engine: install Chromium (Debian/Ubuntu: apt-get install chromium) or set REPCAP_CHROMIUM"
    ]
    assert build.main([]) == 2


def test_a_repcap_chromium_that_cannot_run_is_named(monkeypatch, capsys, tmp_path):
    """REPCAP_CHROMIUM naming a missing program said "set REPCAP_CHROMIUM", which was set."""
    from repcap.book import build

    for value, why in (
        ("no-such-chromium-here", "does not exist"),
        (str(tmp_path / "chrome"), "does not exist"),
        (str(tmp_path / "not-exec"), "is not executable"),
    ):
        (tmp_path / "not-exec").write_text("#!/bin/sh\n")
        monkeypatch.setenv("REPCAP_CHROMIUM", value)
        assert build.main(["pdf"]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"REPCAP_CHROMIUM={value!r}" in err[0] and why in err[0], err
        assert "or set REPCAP_CHROMIUM" not in err[0]


def test_a_figure_of_several_bundled_experiments_names_them_all():
    from pathlib import Path

    from repcap.book.figures import bundle_provenance

    root = Path(__file__).resolve().parents[2]
    entry, one = _yoder_lookup(root)
    other = _Lookup([_Found({"k": 1}, {"device": "cuda:0 NVIDIA H200", "seconds": 10.0, "commit": "abc"})])
    other.experiment = "guha-m60"
    prov = bundle_provenance([one, None, other], "reference")
    assert prov["points"] == 2 and prov["experiment"] == "yoder, guha-m60"
    assert prov["recompute"] == "repcap bundle compute reference --only yoder guha-m60"
    assert prov["compute_s"] == round(entry["provenance"]["seconds"] + 10.0, 3)
    assert prov["configuration"] == [entry["config"], {"k": 1}] and "cuda:0 NVIDIA H200" in prov["devices"]


def test_minor_log_labels_stand_on_the_line_of_the_major_ones():
    """A log axis of under two decades labels its 2 and 5 minor ticks; a minor tick is shorter, so
    without its own pad its label sat 2-3 px nearer the axis than 1 and 10 (Fig. 7's C against N/k)."""
    fig, axes = plt.subplots(1, 2, figsize=figures.size(3))
    for ax in axes:
        ax.plot([2, 30], [2, 30], "o")
        ax.set_xscale("log")
        ax.set_yscale("log")
        figures.plain_log_ticks(ax)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    for ax in axes:
        for axis, edge in ((ax.xaxis, "y1"), (ax.yaxis, "x1")):
            ticks = [t for t in axis.get_major_ticks() + axis.get_minor_ticks() if t.label1.get_text()]
            labels = {t.label1.get_text() for t in ticks}
            assert {"10", "2", "5", "20"} <= labels, labels
            pos = {round(getattr(t.label1.get_window_extent(r), edge), 1) for t in ticks}
            assert len(pos) == 1, pos
    plt.close(fig)
