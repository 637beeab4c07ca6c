"""Every chapter runs under the smoke profile, and the whole book builds from those runs with
`-W -n` (any warning fails), offline: no external script or stylesheet in the HTML.

Runs in a temporary copy of the book sources so that `make test` never touches the user's
`book/generated` or `_build`.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from repcap import build, runner

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.notebooks


def _chapters() -> list[str]:
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    text = json.dumps(toc)
    return [s for s in re.findall(r"book/generated/(\d\d_[a-z0-9_]+)", text)]


@pytest.fixture(scope="module")
def book_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("book")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(ROOT / name, root / name)
    shutil.copytree(ROOT / "book", root / "book", ignore=shutil.ignore_patterns("generated"))
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    if (ROOT / "data").exists():
        shutil.copytree(ROOT / "data", root / "data", ignore=shutil.ignore_patterns("results"))
    mp = pytest.MonkeyPatch()
    mp.setenv("REPCAP_ROOT", str(root))
    mp.delenv("REPCAP_FIGURE_DIR", raising=False)
    yield root
    mp.undo()


@pytest.mark.parametrize("stem", _chapters())
def test_chapter_runs_under_smoke(book_root, stem):
    res = runner.run(stem, profile="smoke", log=lambda s: None)
    assert res.status == "executed"
    assert res.output.exists()
    for fid in res.figures:
        side = json.loads((book_root / "book" / "generated" / "figures" / f"{fid}.json").read_text())
        assert side["profile"] == "smoke" and side["caption"]
        assert fid.startswith("fig-")


def test_glued_numbers_match_golden(book_root):
    """Every chapter's glued numbers and scorecard findings under smoke equal the pinned ones."""
    import os

    from _golden import GOLDEN, differences, findings, glued

    gen = book_root / "book" / "generated"
    actual = {}
    for stem in _chapters():
        values = {**glued(gen / f"{stem}.ipynb"), **findings(gen / "findings" / f"{stem}.json")}
        actual[stem] = {k: v for k, v in values.items()}
    if os.environ.get("REPCAP_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(actual, indent=1, sort_keys=True, allow_nan=True) + "\n")
    expected = json.loads(GOLDEN.read_text())
    problems = [f"{stem}: {p}" for stem in sorted(set(expected) | set(actual))
                for p in differences(expected.get(stem, {}), actual.get(stem, {}))]
    assert not problems, "glued numbers changed:\n" + "\n".join(problems[:40])


def test_book_builds_offline(book_root):
    html = build.build_book(profile="smoke", log=lambda s: None)
    assert html.exists()
    out = book_root / "_build" / "html"
    pages = list(out.rglob("*.html"))
    external = []
    for page in pages:
        text = page.read_text(errors="replace")
        external += re.findall(r'<script[^>]+src="((?:https?:)?//[^"]+)"', text)
        external += re.findall(r'<link[^>]+rel="stylesheet"[^>]+href="((?:https?:)?//[^"]+)"', text)
        external += re.findall(r'<link[^>]+href="((?:https?:)?//[^"]+)"[^>]+rel="stylesheet"', text)
    assert external == []
    assert (out / "_static" / "mathjax" / "es5" / "tex-mml-chtml.js").exists()
    index = (out / "book" / "generated" / "figure_index.html").read_text()
    figs = sorted(p.stem for p in (book_root / "book" / "generated" / "figures").glob("fig-*.json"))
    assert figs, "no figures generated"
    for fid in figs:
        assert f"repcap-{fid}" in index  # the BibTeX entry
    for stem in _chapters():
        page = (out / "book" / "generated" / f"{stem}.html").read_text()
        assert "Built with the" in page and "smoke" in page
        assert "caption-number" in page or stem not in {f.split("-")[1] for f in figs}
