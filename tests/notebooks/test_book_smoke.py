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
    return list(re.findall(r"book/generated/(\d\d_[a-z0-9_]+)", text))


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
    mp.delenv("REPCAP_CACHE", raising=False)
    # the reference set at its smoke scale (seconds), so the chapters' reference sections show points
    from repcap import runs

    runs.compute(runs.point_set("reference", "smoke"), progress=False, log=lambda s: None)
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
        actual[stem] = dict(values.items())
    if os.environ.get("REPCAP_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(actual, indent=1, sort_keys=True, allow_nan=True) + "\n")
    expected = json.loads(GOLDEN.read_text())
    problems = [
        f"{stem}: {p}"
        for stem in sorted(set(expected) | set(actual))
        for p in differences(expected.get(stem, {}), actual.get(stem, {}))
    ]
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
    _check_pages_read_well(book_root, out)


def _check_pages_read_well(book_root, out):
    """What a reader sees: tables without a pandas index column or NaN/None cells; every figure with
    alt text from its caption and the command that rebuilds it; the capacity calculator's element
    with its constants, and its script, on the capacity page."""
    import html as html_lib

    from repcap import calculator, figures

    problems = []
    sidecars = {
        p.stem: json.loads(p.read_text()) for p in (book_root / "book" / "generated" / "figures").glob("fig-*.json")
    }
    for page in sorted((out / "book").rglob("*.html")):
        text = page.read_text(errors="replace")
        name = page.relative_to(out)
        if 'class="dataframe' in text:
            problems.append(f"{name}: a raw pandas table (use repcap.tables.show)")
        for table in re.findall(r"<table.*?</table>", text, flags=re.S):
            if re.search(r"<tbody>\s*<tr>\s*<th", table):
                problems.append(f"{name}: a table with an index column")
            cells = [
                html_lib.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                for c in re.findall(r"<td[^>]*>(.*?)</td>", table, flags=re.S)
            ]
            bad = sorted({c for c in cells if c in ("NaN", "nan", "None", "NaT", "<NA>")})
            if bad:
                problems.append(f"{name}: cells {bad}")
        for fid, body in re.findall(r'<figure[^>]*id="(fig-[a-z0-9-]+)"[^>]*>(.*?)</figure>', text, flags=re.S):
            side = sidecars.get(fid)
            if side is None:
                problems.append(f"{name}: {fid} has no sidecar")
                continue
            alt = re.search(r'<img alt="([^"]*)"', body)
            if not alt or html_lib.unescape(alt.group(1)) != figures.alt_text(side["caption"]):
                problems.append(f"{name}: {fid} alt text is not its caption")
            # what the reader sees: Sphinx wraps each word of an inline literal in its own <span>
            visible = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", "", body)).split())
            if "Rebuild: repcap run notebooks/" not in visible:
                problems.append(f"{name}: {fid} has no rebuild command")
    assert not problems, "\n".join(problems[:40])
    cap = (out / "book" / "generated" / "03_capacity.html").read_text()
    m = re.search(r'<div class="repcap-capcalc" data-config="([^"]+)"', cap)
    assert m, "the capacity calculator is missing from the capacity chapter"
    assert json.loads(html_lib.unescape(m.group(1))) == json.loads(json.dumps(calculator.config()))
    assert re.search(r'<script[^>]+src="[^"]*_static/capacity\.js', cap)
    assert (out / "_static" / "capacity.js").exists()
