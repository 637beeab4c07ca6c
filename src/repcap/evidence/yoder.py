"""Yoder 2025: our numbers for his claims, from the tables of chapters 6 and 7."""

from __future__ import annotations

import math
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


def c_peak(peaks: pd.DataFrame, **where: Any) -> dict[str, Finding]:
    """``yoder-C-peak`` judged per dimension (:func:`repcap.book.figdata.reference_runs.c_curve_peaks`):
    decided at the largest d whose curve, with its ceiling cells dropped, brackets its peak (the
    nearest to his dimensions); inconclusive where none does.  One run per cell."""
    if peaks.empty:
        return {}
    per_d = "; ".join(
        f"d = {int(r.d)}: {r.peak:.3f} at N/k = {r.peak_ratio:g}" + ("" if r.bracketed else " (not bracketed)")
        for r in peaks.itertuples()
        if np.isfinite(r.peak)
    )
    br = peaks[peaks.bracketed.astype(bool)]
    if br.empty:
        top = peaks.iloc[-1]
        return {
            "yoder-C-peak": {
                "value": float(top.peak),
                "interval": "one run",
                "n": int(top.n_cells),
                "n_of": f"cells at d = {int(top.d)}",
                "note": per_d,
                "undecided": "no dimension's curve brackets its peak",
                **where,
            }
        }
    r = br.iloc[-1]
    return {
        "yoder-C-peak": {
            "value": float(r.peak),
            "interval": "one run",
            "n": int(r.n_cells),
            "n_of": f"cells at d = {int(r.d)}",
            "note": f"decided at d = {int(r.d)}, the largest d whose curve brackets its peak; per d: {per_d}",
            **where,
        }
    }


def c_ceiling() -> dict[str, Finding]:
    """``yoder-C-falls``, an arithmetic check: his "0.2 or below" at high N/k is the ceiling
    k / ln N that C = ε² k / ln N cannot exceed (ε ≤ 1), at the smallest k and largest N of his
    experiment."""
    k, n = value("yoder2025.C_curve_k_min"), value("yoder2025.C_curve_N_max")
    return {
        "yoder-C-falls": {
            "value": k / math.log(n),
            "interval": "closed form",
            "note": f"k / ln N at k = {k:g}, N = {n:,.0f}",
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


__all__ = ["TRAP_COS", "c_ceiling", "c_peak", "projections", "trap"]
