"""Every chapter source: a literal parameters cell that both our runner and papermill read the
same way (so `papermill --help-notebook` documents the knobs), and profile sections that the
runner accepts."""

from pathlib import Path

import jupytext
import pytest

from repcap.book import runner

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_papermill_reads_the_same_parameters(nb, tmp_path, monkeypatch):
    import papermill

    monkeypatch.setenv("REPCAP_ROOT", str(ROOT))
    ours = runner.notebook_parameters(nb)
    ipynb = tmp_path / f"{nb.stem}.ipynb"
    jupytext.write(jupytext.read(nb), ipynb)
    theirs = papermill.inspect_notebook(str(ipynb))
    assert list(theirs) == list(ours)
    for profile in runner.PROFILES:
        runner.resolve_parameters(nb, profile, {})  # raises on an unknown name or a wrong type


#: The longest a chapter source may be (issue 36: chapter 9 had grown to 1,290 lines, most of it
#: code): a chapter narrates, and its drawing and judging live in tested library functions.
MAX_LINES = 500
#: Chapters still over it, each with its reason (to be split, not grown).
LONG_CHAPTERS: dict[str, str] = {}  # a chapter allowed over MAX_LINES, with the reason (none now)


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_chapter_narrates(nb):
    """No chapter defines a function (a finding or a figure a chapter needs is a tested library
    function), every number it records names its uncertainty (``interval=``, or a repcap.evidence
    result through ``findings.record_all``), and no chapter but the listed ones is over MAX_LINES."""
    import ast

    tree = ast.parse(nb.read_text(encoding="utf-8"))
    defs = [
        n.name
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and hasattr(n, "name")
    ]
    assert not defs, (
        f"{nb.name} defines {defs}: move them to the library (repcap.book.figdata, repcap.evidence, repcap.book.drawings)"
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "record":
            if getattr(node.func.value, "id", None) != "findings":
                continue
            named = {k.arg for k in node.keywords}
            value_is_none = len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value is None
            assert "interval" in named or None in named or value_is_none, (
                f"{nb.name}:{node.lineno}: findings.record without interval= (say what the number's uncertainty is)"
            )
    n = len(nb.read_text(encoding="utf-8").splitlines())
    if nb.stem in LONG_CHAPTERS:
        assert n > MAX_LINES, f"{nb.stem} is {n} lines now: drop it from LONG_CHAPTERS"
    else:
        assert n <= MAX_LINES, f"{nb.name} is {n} lines, over {MAX_LINES}: move drawing and judging to the library"
