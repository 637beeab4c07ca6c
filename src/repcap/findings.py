"""What a chapter found, for the scorecard: ``record(claim_id, value, ...)``.

A chapter computes its number for a scorecard claim (``data/reference/claims.yaml``) and records it
here; :mod:`repcap.scorecard` later sets it against the source's number.  Under the notebook runner
the records go to the run's staging folder (``REPCAP_FINDINGS_DIR``) and are committed with the
chapter's figures to ``book/generated/findings/<chapter>.json``; outside it, to that folder as
``interactive.json``.

A record: ``{"claim", "value", "profile", "chapter", "figure", "note", "provenance", "low", "high",
"n", "n_of", "exact", "undecided"}``; ``value`` is None where the chapter could not compute it in this run (for
example no model loaded).  ``low``/``high`` is the 95% interval of the value, ``n`` the number of
points behind it (``n_of``: widths, seeds, models, cells, ...), ``exact`` marks a computation with
no sampling or fitting error.  :func:`spearman` and :func:`interval` make those fields for the common
statistics.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from . import RepcapError
from . import io as rio
from .paths import generated_dir

_RECORDS: dict[str, list[dict[str, Any]]] = {}


def findings_dir() -> Path:
    env = os.environ.get("REPCAP_FINDINGS_DIR")
    return Path(env) if env else generated_dir() / "findings"


def _chapter() -> str:
    """The name this chapter's outputs go under (the runner's; outside it, ``interactive``)."""
    name = os.environ.get("REPCAP_OUTPUT_NAME")
    if name:
        return name
    nb = os.environ.get("REPCAP_NOTEBOOK")
    return Path(nb).stem if nb else "interactive"


def record(
    claim_id: str,
    value: float | int | None,
    *,
    figure: str | None = None,
    note: str = "",
    profile: str | None = None,
    provenance: str = "",
    low: float | None = None,
    high: float | None = None,
    n: int | None = None,
    n_of: str = "",
    exact: bool = False,
    undecided: str = "",
) -> None:
    """Record this chapter's number for scorecard claim ``claim_id`` (returns nothing, so that a
    ``record`` at the end of a notebook cell adds no output to the page).

    ``profile``: the profile whose runs produced the number (default: the one running this chapter;
    ``"reference"`` for points read from the committed reference bundle).  ``figure``: the figure
    that shows it (default: the claim's own).  ``note``: why it may differ, if this run knows better
    than the claim's stated reason.  ``provenance``: where and when the number was computed, for
    numbers not computed in this run.  ``low``/``high``: the 95% interval of the value; ``n``: the
    number of points it rests on (``n_of`` says of what); ``exact``: no sampling or fitting error;
    ``undecided``: why this run's data cannot decide the claim (e.g. the grid stops before the regime
    the claim is about), which makes the verdict inconclusive whatever the number.
    """
    from .claims import claim
    from .context import run_context

    c = claim(claim_id)  # an unknown id is a clear error
    if value is not None:
        try:
            v = float(value)
        except (TypeError, ValueError) as exc:
            raise RepcapError(f"finding {claim_id}: value {value!r} is not a number") from exc
        value = v if math.isfinite(v) else None

    def _opt(x: float | None, name: str) -> float | None:
        if x is None:
            return None
        try:
            y = float(x)
        except (TypeError, ValueError) as exc:
            raise RepcapError(f"finding {claim_id}: {name} {x!r} is not a number") from exc
        return y if math.isfinite(y) else None

    lo, hi = _opt(low, "low"), _opt(high, "high")
    if n is not None and (isinstance(n, bool) or int(n) != n or n < 0):
        raise RepcapError(f"finding {claim_id}: n {n!r} is not a count")
    rec = {
        "claim": claim_id,
        "value": value,
        "profile": profile or run_context()["profile"],
        "chapter": _chapter(),
        "figure": figure or c.figure,
        "note": note,
        "provenance": provenance,
        "low": lo if value is not None else None,
        "high": hi if value is not None else None,
        "n": int(n) if n is not None else None,
        "n_of": n_of,
        "exact": bool(exact),
        "undecided": undecided,
    }
    chapter = _chapter()
    recs = [
        r for r in _RECORDS.setdefault(chapter, []) if not (r["claim"] == claim_id and r["profile"] == rec["profile"])
    ]
    recs.append(rec)
    _RECORDS[chapter] = recs
    rio.write_json(findings_dir() / f"{chapter}.json", {"chapter": chapter, "findings": recs})


def load_all(folder: Path | None = None) -> list[dict[str, Any]]:
    """Every record in ``folder`` (default ``book/generated/findings``), chapter files in name order."""
    folder = folder or generated_dir() / "findings"
    out: list[dict[str, Any]] = []
    for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if p.stem == "interactive":
            continue  # records of a notebook run by hand are not the book's
        try:
            out += json.loads(p.read_text())["findings"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a damaged file is skipped; the chapter's next run rewrites it
    return out


def interval(value: float, se: float, *, level: float = 0.95, dof: int | None = None) -> dict[str, float]:
    """``{"value", "low", "high"}``: ``value ± t·se`` (Student t with ``dof`` degrees of freedom,
    normal without), for :func:`record`'s keyword arguments."""
    from scipy import stats

    q = stats.t.ppf(0.5 + level / 2, dof) if dof else stats.norm.ppf(0.5 + level / 2)
    return {"value": float(value), "low": float(value - q * se), "high": float(value + q * se)}


def spearman(x: Any, y: Any, *, level: float = 0.95) -> dict[str, Any]:
    """Spearman's ρ of ``x`` and ``y`` with its interval (Fisher z, standard error
    √(1.06 / (n − 3)) after Fieller, Hartley and Pearson 1957), as :func:`record`'s keyword arguments
    (``value``, ``low``, ``high``, ``n``)."""
    import numpy as np
    from scipy import stats

    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = int(len(xs))
    if n < 4 or len(ys) != n:
        raise RepcapError(f"spearman needs at least 4 pairs of equal length, got {len(xs)} and {len(ys)}")
    rho = float(stats.spearmanr(xs, ys).statistic)
    z, se = math.atanh(max(min(rho, 0.999999), -0.999999)), math.sqrt(1.06 / (n - 3))
    q = float(stats.norm.ppf(0.5 + level / 2))
    return {"value": rho, "low": math.tanh(z - q * se), "high": math.tanh(z + q * se), "n": n}
