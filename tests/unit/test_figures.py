"""figures.save writes every export with its data and sidecar; bad input is refused."""

import json

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from repcap import RepcapError, figindex, figures
from repcap import io as rio


@pytest.fixture()
def figdir(tmp_path, monkeypatch):
    (tmp_path / "run").mkdir()
    tmp_path = tmp_path / "run"
    monkeypatch.setenv("REPCAP_FIGURE_DIR", str(tmp_path))
    monkeypatch.setenv("REPCAP_PROFILE", "smoke")
    monkeypatch.setenv("REPCAP_NOTEBOOK", "notebooks/00_x.py")
    (tmp_path.parent / "params.json").write_text(json.dumps({"k": 3}))
    monkeypatch.setenv("REPCAP_PARAMS_FILE", str(tmp_path.parent / "params.json"))
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
    assert "{numref}`fig-a-one`" in text and "profile `smoke`" in text
    assert "@misc{repcap-fig-a-one," in text
    assert "title        = {{repcap} figure fig-a-one: First braces x}" in text
    for ext in ("svg", "png", "pdf", "csv", "json"):
        assert f"<figures/fig-a-one.{ext}>" in text


def test_bibtex_entries_are_ascii_safe_latex():
    import re as _re

    from pybtex.database import parse_string

    from repcap.figindex import bibtex_entry, latex_text

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
    assert title.count("$") % 2 == 0 and r"\varepsilon" in title and r"\surd" in title
    assert latex_text("50% & a_b") == r"50\% \& a\_b"


def test_alt_text_and_reproduce_command_come_from_the_sidecar():
    from repcap.figures import alt_text, figure_directive

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
