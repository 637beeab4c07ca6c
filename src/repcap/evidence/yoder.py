"""Yoder 2025: our numbers for his claims, from the tables of chapters 6 and 7."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from repcap.base.quotes import value

Finding = dict[str, Any]

#: The gradient trap "gets stuck": we read it as the collapse (worst pair |cos| > 0.9) holding,
#: unbroken, through at least the last half of the run.
TRAP_COS = 0.9


def trap(result: dict[str, Any], k: int, d: int, **where: Any) -> dict[str, Finding]:
    """The 99% solution and the gradient trap from one abs-relu packing of ``k`` vectors in R^``d``
    (a packing result: ``n_pairs``, ``n_orthogonal``, ``n_above``, ``eps_curve``, ``curve_steps``).

    ``yoder-99-solution`` is the measurement: the share of pairs that are not orthogonal, in units
    of 1/d.  ``yoder-gradient-trap`` is the persistence check: the share of the run from which the
    worst pair stays above |cos| :data:`TRAP_COS` to the end.  Both rest on one run."""
    out: dict[str, Finding] = {}
    n_pairs = int(result["n_pairs"])
    share = 1 - int(result["n_orthogonal"]) / n_pairs
    collapse = d * math.comb(k // d, 2)
    parallel = float(result["n_above"]["0.9"])
    out["yoder-99-solution"] = {
        "value": share * d,
        "interval": "one run",
        "note": f"{1 - share:.2%} of the pairs orthogonal against 1 − 1/d = {1 - 1 / d:.2%} at {k:,} × {d}; "
        f"{parallel:,.0f} pairs have |cos| > {TRAP_COS} against d·C(k/d, 2) = {collapse:,} if the vectors "
        "collapse onto d directions (the same pairs: not counted twice)",
        **where,
    }
    eps = np.asarray(result.get("eps_curve") or [], dtype=float)
    steps = np.asarray(result.get("curve_steps") or [], dtype=float)
    if len(eps) and len(steps) == len(eps) and steps[-1] > 0:
        below = np.flatnonzero(eps <= TRAP_COS)
        start = 0.0 if not len(below) else (steps[below[-1] + 1] if below[-1] + 1 < len(steps) else steps[-1])
        held = (steps[-1] - start) / steps[-1] if eps[-1] > TRAP_COS else 0.0
        out["yoder-gradient-trap"] = {
            "value": float(held),
            "interval": "one run",
            "note": f"the worst pair's |cos| stays above {TRAP_COS} from step {start:,.0f} to the end (step "
            f"{steps[-1]:,.0f})"
            if eps[-1] > TRAP_COS
            else f"the worst pair ends at |cos| = {eps[-1]:.3f}, not collapsed",
            **where,
        }
    return out


#: A peak of the C curve is decided only where the fall after it exceeds this many times the seed
#: scatter of C at the peak (the scorecard's Z: about a two-sided 5% test for normal errors).
PEAK_FALL_Z = 2.0


def _fall(r: Any) -> float:
    """How far a dimension's C falls after its peak, relative to the peak: ``(peak - last) / peak``."""
    return (float(r.peak) - float(r.last)) / float(r.peak) if float(r.peak) > 0 else 0.0


def _peak_finding(r: Any, note: str, undecided: str, where: dict[str, Any]) -> Finding:
    """The ``yoder-C-peak`` record of dimension ``r`` (a row of the peaks table)."""
    rec: Finding = {
        "value": float(r.peak),
        "interval": "one run",
        "n": int(r.n_cells),
        "n_of": f"cells at d = {int(r.d)}",
        "note": note,
    }
    return rec | ({"undecided": undecided} if undecided else {}) | where


def c_peak(peaks: pd.DataFrame, *, seed_sd: Mapping[int, float] | None = None, **where: Any) -> dict[str, Finding]:
    """``yoder-C-peak`` judged per dimension (:func:`repcap.book.figdata.reference_runs.c_curve_peaks`).
    A dimension decides only when its curve brackets its peak *and* the fall after the peak,
    ``(peak - last) / peak``, exceeds :data:`PEAK_FALL_Z` times the seed scatter of C there
    (``seed_sd``: ``{d: relative sd of C over seeds at the peak cell}``; C ∝ ε², so it carries twice ε*'s
    relative scatter).  A dimension with no seeds (one run per cell) cannot decide; the largest d
    that does decides (the nearest to his dimensions), else the row is inconclusive.  A larger d
    whose curve is still rising (not bracketed) leaves it inconclusive too (issue 46.2): the peak
    grows with d and his k is unknown, so the peak of the largest d is not known until that curve
    brackets it."""
    if peaks.empty:
        return {}
    sds = dict(seed_sd or {})
    rows = [r for r in peaks.itertuples() if np.isfinite(r.peak)]
    per_d = "; ".join(
        f"d = {int(r.d)}: {r.peak:.3f} at N/k = {r.peak_ratio:g}, falling {_fall(r):.1%} after it"
        + ("" if r.bracketed else " (not bracketed)")
        for r in rows
    )
    tail = f"per d: {per_d}; his k is unknown"

    def decides(r: Any) -> bool:
        sd = sds.get(int(r.d))
        return bool(r.bracketed) and sd is not None and math.isfinite(sd) and _fall(r) > PEAK_FALL_Z * sd

    ok = [r for r in rows if decides(r)]
    if not ok:
        why = (
            "no dimension's fall after its peak exceeds the seed scatter of C"
            if sds
            else "one run per cell: no dimension's fall after its peak can be set against the seed scatter of C"
        )
        return {"yoder-C-peak": _peak_finding(peaks.iloc[-1], tail, why, where)}
    r = ok[-1]
    fell = f"({_fall(r):.1%}) exceeds {PEAK_FALL_Z:g} × the seed scatter of C ({sds[int(r.d)]:.1%})"
    rising = [q for q in rows if int(q.d) > int(r.d) and not bool(q.bracketed)]
    if rising:
        up = ", ".join(f"d = {int(q.d)} ({q.last:.3f} at N/k = {q.last_ratio:g})" for q in rising)
        why = f"{up} still rising: the peak at the largest d is not known until its curve brackets it"
        return {"yoder-C-peak": _peak_finding(r, f"d = {int(r.d)}'s fall after its peak {fell}; {tail}", why, where)}
    note = f"decided at d = {int(r.d)}, the largest d whose fall after its peak {fell}; {tail}"
    return {"yoder-C-peak": _peak_finding(r, note, "", where)}


def c_ceiling() -> dict[str, Finding]:
    """``yoder-C-falls``, a context note under ``yoder-C-peak``: our hypothesis that his "0.2 or
    below" at high N/k is the ceiling k / ln N that C = ε² k / ln N cannot exceed (ε ≤ 1), at the k
    and N a Hacker News commenter reads off his graph (another commenter disputes that reading)."""
    k, n = value("yoder2025.C_curve_k_min"), value("yoder2025.C_curve_N_max")
    return {
        "yoder-C-falls": {
            "value": k / math.log(n),
            "interval": "closed form",
            "note": f"k / ln N at k = {k:g}, N = {n:,.0f} (a commenter's reading of his graph)",
        }
    }


def projections(proj: pd.DataFrame, *, undecided: str = "", **where: Any) -> dict[str, Finding]:
    """Yoder's C of random projections (``proj``: ``N, k, kind, C``, the mean over seeds per cell):
    ``yoder-C-hadamard`` (subsampled randomised Hadamard) and ``yoder-C-textbook`` (Gaussian and
    Rademacher), each the mean over the (N, k) cells with the range over them (a spread).
    ``undecided``: why this profile's sizes cannot decide them."""
    out: dict[str, Finding] = {}
    for cid, kinds in (("yoder-C-hadamard", ("srht",)), ("yoder-C-textbook", ("gaussian", "rademacher"))):
        d = proj[proj.kind.isin(kinds)]
        if d.empty:
            continue
        out[cid] = {
            "value": float(d.C.mean()),
            "low": float(d.C.min()),
            "high": float(d.C.max()),
            "interval": "range",
            "n": int(len(d)),
            "n_of": "(N, k) cells" + (" and kinds" if len(kinds) > 1 else ""),
            "note": f"N up to {int(d.N.max()):,}, k up to {int(d.k.max())}",
            "undecided": undecided,
            **where,
        }
    return out


__all__ = ["PEAK_FALL_Z", "TRAP_COS", "c_ceiling", "c_peak", "projections", "trap"]
