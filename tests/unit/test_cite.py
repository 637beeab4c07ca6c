"""Citing what was run: a chapter re-run with ``-p`` says so in its sidecars, the figure index and
the BibTeX; ``repcap book`` keeps such a run; a plain papermill run never writes over the book's
figures; the chapter cache checks its files' content; the BibTeX entries are fit for a
bibliography (parsed by bibtexparser and pybtex, and compiled under natbib and biblatex where TeX
is installed)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import textwrap

import pytest

from repcap.book import build, figindex, runner

NB = textwrap.dedent("""\
    # ---
    # jupyter:
    #   jupytext:
    #     text_representation:
    #       extension: .py
    #       format_name: percent
    #   kernelspec:
    #     display_name: Python 3
    #     language: python
    #     name: python3
    # ---

    # %% [markdown]
    # # A test chapter

    # %% tags=["parameters"]
    n = 3  # an int
    scale = 0.5  # a float

    # %%
    import matplotlib.pyplot as plt
    import pandas as pd
    from repcap.book import figures
    from repcap.book.chapter import start

    run_record = start("a test", device="cpu")

    # %%
    fig, ax = plt.subplots()
    ax.plot(range(n), [scale * i for i in range(n)])
    figures.save("fig-test-line", fig, pd.DataFrame({"i": range(n), "y": [scale * i for i in range(n)]}),
                 {"caption": f"Yoder's line of {n} points: φ₁ against α_m in R^100, slope {scale}. More.", "seed": 0})
    """)


@pytest.fixture()
def project(make_project):
    return make_project("10_test", NB, smoke="10_test:\n  n: 4\n")


def _side(root, folder="figures"):
    return json.loads((root / "book" / "generated" / folder / "fig-test-line.json").read_text())


def _rows(root, folder="figures"):
    return len((root / "book" / "generated" / folder / "fig-test-line.csv").read_text().splitlines()) - 1


def _parse(bib: str) -> dict[str, dict[str, str]]:
    import bibtexparser

    lib = bibtexparser.parse_string(bib)
    assert not lib.failed_blocks, [b.error for b in lib.failed_blocks]
    return {e.key: {f.key: f.value for f in e.fields} for e in lib.entries}


def test_a_rerun_with_overrides_is_recorded_kept_by_the_book_and_cited(project):
    gen = project / "book" / "generated"
    runner.run("10_test", profile="smoke", log=lambda s: None)
    assert _side(project)["overrides"] == {} and _side(project)["run"] == "smoke"

    logs: list[str] = []
    runner.run("10_test", profile="smoke", overrides={"n": 6, "scale": 0.5}, log=logs.append)
    side = _side(project)
    assert side["overrides"] == {"n": 6}  # scale=0.5 is the profile's own value: no override
    assert side["drawn_by"]["overrides"] == {"n": 6} and side["run"] == "smoke + n=6"
    assert "executing (smoke + n=6)" in logs[0]
    stamp = json.loads((gen / ".runs" / "10_test.json").read_text())
    assert stamp["overrides"] == {"n": 6} and stamp["params"]["n"] == 6
    page = (gen / "10_test.ipynb").read_text()
    assert "Built with the `smoke` profile + `n=6`" in page

    # the index and its BibTeX, from the sidecars alone
    text = figindex.write_figure_index().read_text()
    assert "drawn by notebooks/10\\_test.py (smoke + n=6)" in text
    entry = _parse((gen / "figures.bib").read_text())["repcap-fig-test-line"]
    assert "profile smoke + n=6" in entry["howpublished"]

    # the book keeps the overridden run, and says so; --force runs it at the profile's values
    logs.clear()
    build.build_book(profile="smoke", build=False, log=logs.append)
    assert _rows(project) == 6 and _side(project)["overrides"] == {"n": 6}
    assert any("keeping its run with overrides (smoke + n=6)" in m and "--force" in m for m in logs), logs
    assert any("cache hit" in m for m in logs), logs
    logs.clear()
    build.build_book(profile="smoke", force=True, build=False, log=logs.append)
    assert _rows(project) == 4 and _side(project)["overrides"] == {}
    assert any("is replaced by one at the profile's values" in m for m in logs), logs
    assert "profile smoke," in _parse((gen / "figures.bib").read_text())["repcap-fig-test-line"]["howpublished"]


def test_a_plain_papermill_run_writes_its_own_folder_and_says_what_it_ran(project, monkeypatch):
    import jupytext
    import papermill

    gen = project / "book" / "generated"
    runner.run("10_test", profile="smoke", log=lambda s: None)
    book_csv = (gen / "figures" / "fig-test-line.csv").read_bytes()

    ipynb = project / "work" / "10_test.ipynb"
    ipynb.parent.mkdir()
    jupytext.write(jupytext.read(project / "notebooks" / "10_test.py"), ipynb)
    monkeypatch.delenv("REPCAP_ROOT")  # as a user runs it: from the repository root, nothing set
    papermill.execute_notebook(
        str(ipynb),
        str(ipynb.with_name("out.ipynb")),
        parameters={"n": 7},
        cwd=str(project),
        progress_bar=False,
    )
    monkeypatch.setenv("REPCAP_ROOT", str(project))
    assert (gen / "figures" / "fig-test-line.csv").read_bytes() == book_csv  # the book's figure untouched
    side = _side(project, "interactive/figures")
    assert _rows(project, "interactive/figures") == 7
    assert side["notebook"] == "notebooks/10_test.py" and side["overrides"] == {"n": 7}
    assert side["parameters"] == {"n": 7, "scale": 0.5}
    assert side["run"] == "notebook defaults (outside repcap run) + n=7"
    logs: list[str] = []
    assert runner.run("10_test", profile="smoke", log=logs.append).status == "cached"


def test_a_figure_replaced_since_the_run_is_not_a_cache_hit(project):
    gen = project / "book" / "generated"
    runner.run("10_test", profile="smoke", log=lambda s: None)
    svg = gen / "figures" / "fig-test-line.svg"
    svg.write_text(svg.read_text().replace("<svg", "<svg data-edited='1'", 1))
    assert runner.run("10_test", profile="smoke", log=lambda s: None).status == "executed"
    assert "data-edited" not in svg.read_text()
    side = gen / "figures" / "fig-test-line.json"
    side.write_text(side.read_text().replace('"profile": "smoke"', '"profile": "interactive"'))
    assert runner.run("10_test", profile="smoke", log=lambda s: None).status == "executed"
    assert runner.run("10_test", profile="smoke", log=lambda s: None).status == "cached"


SIDE = {
    "fig_id": "fig-packing-reference",
    "caption": "Yoder's 10,000 unit vectors in R^100 under exp(β cos²) and φ₁ against α_m, the worst pair's angle "
    "step by step against his reported 76.5°, the four-constant law's 76.2° and the rigorous bound at 76.34° "
    "(solid: no packing can have a larger worst-pair angle), 100% & #1: more. The rest of the caption.",
    "notebook": "notebooks/06_packing.py",
    "profile": "quick",
    "git_revision": "abc123def456",
    "created_unix": 1.8e9,
    "device": "cpu (2 threads)",
    "drawn_by": {"notebook": "notebooks/06_packing.py", "profile": "quick", "overrides": {"k": 3000}},
    "computed": {
        "set": "reference",
        "experiment": "yoder",
        "points": 1,
        "devices": ["cpu (2 threads)"],
        "commits": ["12d7158aaaaaaaaaaaaaaa"],
        "computed_dates": ["2026-11-28", "2026-11-30"],
        "compute_s": 3360.0,
    },
}


def test_bibtex_entries_are_fit_for_a_bibliography():
    from pybtex.database import parse_string

    entry = figindex.bibtex_entry(SIDE, "https://example.org/repcap/")
    assert entry.isascii()
    fields = _parse(entry)["repcap-fig-packing-reference"]
    pyb = parse_string(entry, "bibtex").entries["repcap-fig-packing-reference"]
    assert dict(pyb.fields) == {k: v for k, v in fields.items() if k != "author"}  # two parsers agree
    assert fields["author"] == "{The repcap authors}" and str(pyb.persons["author"][0]) == "{The repcap authors}"
    title = fields["title"]
    visible = re.sub(r"[{}$\\]", "", re.sub(r"\\(?:mathbf|varphi|alpha|beta|times)", "", title))
    assert len(visible) <= figindex.TITLE_MAX, title
    assert title.startswith("{Yoder's} 10,000 unit vectors in {$\\mathbf{R}^{100}$}"), title
    assert "{$\\varphi_{1}$} against {$\\alpha_{m}$}" in title  # math in braces: no style lowers it
    assert "\\_" not in title and "?" not in title and "\\^{}" not in title
    assert fields["abstract"].startswith("Yoder's 10,000 unit vectors in $\\mathbf{R}^{100}$")
    assert "76.34$^\\circ$" in fields["abstract"] and "100\\% \\& \\#1" in fields["abstract"]
    assert fields["abstract"].endswith("The rest of the caption.")
    # the computing date (the latest of its points), and where
    assert fields["date"] == "2026-11-30" and fields["year"] == "2026"
    assert fields["note"].startswith("Computed 2026-11-28 to 2026-11-30 on cpu (2 threads) at commit 12d7158aaaaa")
    assert "profile quick + k=3000" in fields["howpublished"] and "git abc123def456" in fields["howpublished"]
    assert fields["url"] == "https://example.org/repcap/book/generated/06_packing.html#fig-packing-reference"
    assert figindex.figure_url(SIDE, "").startswith("book/generated/06_packing.html#")


@pytest.mark.parametrize(
    "text, tex",
    [
        ("φ₁ and φ½", r"$\varphi_{1}$ and $\varphi_{1/2}$"),
        ("α_m", r"$\alpha_{m}$"),
        ("R^100 and ℝ", r"$\mathbf{R}^{100}$ and $\mathbf{R}$"),
        ("10⁻⁵, k² and E[cos²]", r"$10^{-5}$, $k^{2}$ and E[cos$^{2}$]"),
        ("σ = 1/√d", r"$\sigma$ = 1/$\sqrt{d}$"),
        ("d_model", r"$d_{\mathrm{model}}$"),
        ("the slope of $\\alpha_m$ is 50% & x_y", r"the slope of $\alpha_m$ is 50\% \& $x_{y}$"),
        ("a {numref}`fig-x` b", "a fig-x b"),
    ],
)
def test_captions_become_latex_math(text, tex):
    assert figindex.latex_text(text) == tex


def test_titles_are_the_first_clause_cut_at_a_boundary():
    assert figindex.short_title("Short. Second.") == "Short"
    long = "A " + "very long clause " * 10 + "; and then more"
    assert figindex.short_title(long).endswith("…") and len(figindex.short_title(long)) <= figindex.TITLE_MAX
    cut = figindex.short_title("Pairwise cosines of random unit vectors against the exact density: " + "x " * 80)
    assert cut == "Pairwise cosines of random unit vectors against the exact density"
    assert figindex.plain_latex("quick + n_vectors=3000") == r"quick + n\_vectors=3000"


PAPER = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage{url}
PACKAGES
\begin{document}
Two figures: \CITE{repcap-fig-a} and \CITE{repcap-fig-b}.
BIBLIOGRAPHY
\end{document}
"""


@pytest.mark.parametrize("style", ["natbib", "biblatex"])
def test_a_paper_citing_two_figures_compiles(tmp_path, style):
    tools = ["pdflatex", "bibtex"] if style == "natbib" else ["pdflatex", "biber"]
    if not all(shutil.which(t) for t in tools):
        pytest.skip(f"TeX ({', '.join(tools)}) is not installed here")
    a = dict(SIDE, fig_id="fig-a")
    b = dict(SIDE, fig_id="fig-b", caption="σ against 1/√d for d_model = 2048; Guha's 45 models. More.")
    (tmp_path / "refs.bib").write_text(figindex.bibtex_entry(a, "https://x.org/") + "\n\n" + figindex.bibtex_entry(b))
    if style == "natbib":
        tex = PAPER.replace("PACKAGES", r"\usepackage[numbers]{natbib}").replace("\\CITE", "\\citet")
        tex = tex.replace("BIBLIOGRAPHY", r"\bibliographystyle{plainnat}\bibliography{refs}")
        steps = [["pdflatex", "paper"], ["bibtex", "paper"], ["pdflatex", "paper"], ["pdflatex", "paper"]]
    else:
        tex = PAPER.replace("PACKAGES", r"\usepackage[backend=biber]{biblatex}\addbibresource{refs.bib}")
        tex = tex.replace("\\CITE", "\\cite").replace("BIBLIOGRAPHY", r"\printbibliography")
        steps = [["pdflatex", "paper"], ["biber", "paper"], ["pdflatex", "paper"]]
    (tmp_path / "paper.tex").write_text(tex)
    for cmd in steps:
        proc = subprocess.run(
            [*cmd, *(["-interaction=nonstopmode", "-halt-on-error"] if cmd[0] == "pdflatex" else [])],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, f"{cmd}: {proc.stdout[-2000:]}"
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert "Undefined control sequence" not in log and "Missing $" not in log
    assert "Citation" not in log or "undefined" not in log
    bbl = (tmp_path / "paper.bbl").read_text()
    assert "Yoder" in bbl and "yoder's" not in bbl  # the capital survives the style
    assert "\\varphi_{1}" in bbl and "2026" in bbl


@pytest.mark.parametrize(
    "value, spec, shown",
    [
        (1.23e-5, None, "1.23 × 10⁻⁵"),
        (3.4e13, None, "3.4 × 10¹³"),
        (2.5e-7, ".1e", "2.5 × 10⁻⁷"),
        (1e-5, ".0e", "10⁻⁵"),
        (2176, None, "2,176"),
        (999, None, "999"),
        (12345.6, None, "12,346"),
        (0.41530, ".5f", "0.41530"),
        ("2.17e+09", None, "2.17 × 10⁹"),
        ("token_embd.weight", None, "token_embd.weight"),
    ],
)
def test_one_number_style_in_tables(value, spec, shown):
    from repcap.book.tables import format_value

    assert format_value(value, spec) == shown


def test_the_search_index_holds_synonyms_and_numbers(tmp_path):
    from repcap.book import sphinxext

    index = {"docnames": ["a", "b", "c"], "terms": {"ε": [0], "epsilon": 1, "varepsilon": [2], "mu": [1]}}
    (tmp_path / "searchindex.js").write_text("Search.setIndex(" + json.dumps(index) + ")")
    (tmp_path / "a.html").write_text('<div role="main"><p>76.5° and 2,176 pairs</p><pre>3.75</pre></div>')
    (tmp_path / "b.html").write_text('<div role="main"><p>none</p></div>')
    (tmp_path / "c.html").write_text('<div role="main"><p>x</p></div>')
    assert sphinxext.add_numbers_to_index(tmp_path) == 2
    src = (tmp_path / "searchindex.js").read_text()
    terms = json.loads(src[len("Search.setIndex(") : -1])["terms"]
    assert terms["ε"] == terms["epsilon"] == terms["eps"] == terms["varepsilon"] == [0, 1, 2]
    assert terms["μ"] == terms["mu"] == [1] and terms["76.5"] == [0] and terms["2,176"] == [0]


def test_a_panel_caption_titles_by_its_content():
    assert (
        figindex.short_title("Left: ε by five rules for each model. Right: more.") == "ε by five rules for each model"
    )
    assert figindex.short_title("(a) φ½ against γ; (b) the map.") == "φ½ against γ; (b) the map"


#: The entry of :data:`SIDE` as the book writes it into ``figures.bib``, byte for byte: a change of
#: writer (by hand or a BibTeX library) must keep every cited figure's entry as it was.
KNOWN_ENTRY = r"""@misc{repcap-fig-packing-reference,
  title        = {{Yoder's} 10,000 unit vectors in {$\mathbf{R}^{100}$} under exp({$\beta$} cos{$^{2}$}) and {$\varphi_{1}$} against {$\alpha_{m}$}},
  author       = {{The repcap authors}},
  howpublished = {{repcap} figure fig-packing-reference: notebook notebooks/06\_packing.py, profile quick + k=3000, git abc123def456, {repcap} VERSION},
  year         = {2026},
  date         = {2026-11-30},
  url          = {https://example.org/repcap/book/generated/06_packing.html#fig-packing-reference},
  note         = {Computed 2026-11-28 to 2026-11-30 on cpu (2 threads) at commit 12d7158aaaaa (1 point of the reference set: yoder); drawn 2027-01-15. Data: fig-packing-reference.csv; every parameter: fig-packing-reference.json},
  abstract     = {Yoder's 10,000 unit vectors in $\mathbf{R}^{100}$ under exp($\beta$ cos$^{2}$) and $\varphi_{1}$ against $\alpha_{m}$, the worst pair's angle step by step against his reported 76.5$^\circ$, the four-constant law's 76.2$^\circ$ and the rigorous bound at 76.34$^\circ$ (solid: no packing can have a larger worst-pair angle), 100\% \& \#1: more. The rest of the caption.}
}"""


def test_a_known_entry_is_written_byte_for_byte():
    from repcap import __version__

    entry = figindex.bibtex_entry(SIDE, "https://example.org/repcap/")
    assert entry == KNOWN_ENTRY.replace("VERSION", __version__)
