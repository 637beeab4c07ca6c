"""Golden numbers: what every chapter glues into its prose, and what it records for the scorecard,
under the smoke profile, pinned so that a refactor cannot change a result unnoticed.

``tests/golden/chapters_smoke.json`` (and ``engines.json``, the engines' trajectories) holds, next
to each value, the tolerance that ``tools/golden_spread.py`` derived from that value's measured
spread across arithmetic paths (its header says which paths, the factor and the floor). An entry is
one of:

* ``{"value": x, "tol": t, "spread": s}``: a number; the run's value must lie within ``t`` of ``x``
  (NaN matches only NaN). ``s`` is the largest difference between the paths measured and ``t`` is
  ``max(factor * s, floor_rel * |x|, floor_abs)``;
* ``{"value": x}``: text, ``null`` or a list, pinned exactly;
* ``{"prose": skeleton}``: glued Markdown, pinned by its words with every number masked as ``#``
  (the numbers in it are rounded renderings of values pinned on their own, or dates and seconds);
* ``{"property": {"at_most": a, "at_least": b}, "reason": ..., "observed": [lo, hi]}``: a quantity
  that is chaotic by nature (its spread across paths is a sizeable share of its value), checked by
  the property it stands for, not pinned as a float.

The chapters run under :data:`PINS` (the test fixture and the tool both set them).  Regenerate with
``.venv/bin/python tools/golden_spread.py`` (minutes: every smoke chapter under every path) and
review the diff before committing it.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "chapters_smoke.json"
#: Glued values that measure the machine, not the result.
VOLATILE = re.compile(r"seconds|wall|_time")
#: The numeric path the smoke chapters run on whatever the CPU: MKL's conditional-numerical-
#: reproducibility mode and ATen's AVX2 kernels (unpinned, CI's MKL/ATen path moved the smoke
#: abs-relu collapse 3% off the golden).  What still moves under them is what the tolerances cover.
PINS = {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "avx2"}
#: The reference set at its smoke scale, computed before the chapters (they show its points).
REFERENCE_SMOKE = (
    "from repcap.results import runs; runs.compute(runs.point_set('reference', 'smoke'), progress=False, log=print)"
)
#: A number inside glued prose (masked before prose is compared).
_NUMBER = re.compile(r"[-−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")


def chapters(root: Path = ROOT) -> list[str]:
    """The chapter stems in the table of contents, in order."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    return list(re.findall(r"book/generated/(\d\d_[a-z0-9_]+)", json.dumps(toc)))


def copy_sources(dest: Path, src: Path = ROOT) -> None:
    """The book's sources (config, TOC, prose, chapters, data) in ``dest``, without generated output."""
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(src / name, dest / name)
    shutil.copytree(src / "book", dest / "book", ignore=shutil.ignore_patterns("generated"))
    shutil.copytree(src / "notebooks", dest / "notebooks")
    if (src / "data").exists():
        shutil.copytree(src / "data", dest / "data", ignore=shutil.ignore_patterns("results"))


def skeleton(text: str) -> str:
    """Prose with every number masked as ``#``: what its words say, not how its numbers round (nor
    the machine's thread count in a provenance line, "cpu (1 thread)")."""
    return re.sub(r"\(# threads?\)", "(# threads)", _NUMBER.sub("#", text))


def glued(ipynb: Path) -> dict[str, Any]:
    """``{name: value}`` of every ``glue`` in an executed notebook: numbers as floats, Markdown as
    ``{"prose": text}``, other text as text."""
    nb = json.loads(ipynb.read_text())
    out: dict[str, Any] = {}
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            meta = (o.get("metadata") or {}).get("scrapbook")
            if not meta or VOLATILE.search(meta["name"]):
                continue
            data = o.get("data", {})
            md = data.get("application/papermill.record/text/markdown")
            if md is not None:  # its text/plain is only "<IPython.core.display.Markdown object>"
                out[meta["name"]] = {"prose": "".join(md) if isinstance(md, list) else str(md)}
                continue
            text = data.get("application/papermill.record/text/plain", "")
            text = "".join(text) if isinstance(text, list) else str(text)
            try:
                out[meta["name"]] = float(text)
            except ValueError:
                out[meta["name"]] = text
    return out


def findings(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    # the run's own findings by claim; those a chapter records for another profile (the points of a
    # shipped set) as claim@profile
    return {
        f"finding:{r['claim']}" + ("" if r.get("profile") in (None, "smoke") else f"@{r['profile']}"): r["value"]
        for r in json.loads(path.read_text())["findings"]
    }


def collect(generated: Path, stems: list[str]) -> dict[str, dict[str, Any]]:
    """Every chapter's glued values and findings from an executed smoke book."""
    return {
        stem: {**glued(generated / f"{stem}.ipynb"), **findings(generated / "findings" / f"{stem}.json")}
        for stem in stems
    }


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check(entry: dict[str, Any], actual: Any) -> str | None:
    """Why ``actual`` does not satisfy a golden ``entry`` (see the module docstring), or ``None``."""
    if "property" in entry:
        if not _num(actual) or math.isnan(actual):
            return f"{actual!r} is not a number (property {entry['property']})"
        lo, hi = entry["property"].get("at_least", -math.inf), entry["property"].get("at_most", math.inf)
        if not lo <= actual <= hi:
            return f"{actual!r} outside [{lo}, {hi}]: {entry['reason']}"
        return None
    if "prose" in entry:
        got = skeleton(actual["prose"]) if isinstance(actual, dict) and "prose" in actual else None
        return None if got == entry["prose"] else f"prose {got!r} != golden {entry['prose']!r}"
    want = entry["value"]
    if "tol" in entry:
        if not _num(actual):
            return f"{actual!r} is not a number (golden {want!r})"
        if math.isnan(want) or math.isnan(actual):
            return None if math.isnan(want) and math.isnan(actual) else f"{actual!r} != golden {want!r}"
        if abs(actual - want) > entry["tol"]:
            return f"{actual!r} != golden {want!r} ± {entry['tol']:.3g} (off by {abs(actual - want):.3g})"
        return None
    return None if actual == want else f"{actual!r} != golden {want!r}"


def load(path: Path = GOLDEN) -> dict[str, Any]:
    """A golden file's entries (its ``_about`` header left out)."""
    return {k: v for k, v in json.loads(path.read_text()).items() if k != "_about"}


def differences(expected: dict[str, dict[str, Any]], actual: dict[str, Any]) -> list[str]:
    """Every golden entry of one chapter that its run's ``actual`` values fail."""
    out = []
    for k in sorted(expected):
        if k not in actual:
            out.append(f"{k}: missing (golden {expected[k]})")
        elif (why := check(expected[k], actual[k])) is not None:
            out.append(f"{k}: {why}")
    return out  # a value a chapter now glues in addition is not reported: nothing pinned changed
