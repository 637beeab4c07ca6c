"""Golden numbers: what every chapter glues into its prose, and what it records for the scorecard,
under the smoke profile, pinned so that a refactor cannot change a result unnoticed.

``REPCAP_UPDATE_GOLDEN=1 pytest tests/notebooks`` rewrites ``tests/golden/chapters_smoke.json``;
review the diff before committing it.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "chapters_smoke.json"
#: Glued values that measure the machine, not the result.
VOLATILE = re.compile(r"seconds|wall|_time")


def glued(ipynb: Path) -> dict[str, Any]:
    """``{name: value}`` of every ``glue`` in an executed notebook (numbers as floats, else text)."""
    nb = json.loads(ipynb.read_text())
    out: dict[str, Any] = {}
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            meta = (o.get("metadata") or {}).get("scrapbook")
            if not meta or VOLATILE.search(meta["name"]):
                continue
            data = o.get("data", {})
            text = data.get("application/papermill.record/text/plain")
            if text is None:
                text = data.get("application/papermill.record/text/markdown", "")
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


def differences(expected: dict[str, Any], actual: dict[str, Any], rel: float = 1e-6, abs_: float = 1e-9) -> list[str]:
    out = []
    for k in sorted(set(expected) | set(actual)):
        if k not in actual:
            out.append(f"{k}: missing (golden {expected[k]!r})")
        elif k not in expected:
            continue  # a number a chapter now glues in addition: nothing pinned changed
        else:
            e, a = expected[k], actual[k]
            if isinstance(e, float) and isinstance(a, float):
                if not (math.isnan(e) and math.isnan(a)) and not math.isclose(e, a, rel_tol=rel, abs_tol=abs_):
                    out.append(f"{k}: {a!r} != golden {e!r}")
            elif e != a:
                out.append(f"{k}: {a!r} != golden {e!r}")
    return out
