"""Results that cannot exist: a packing result held to the rigorous bounds of :mod:`repcap.engines.bounds`.

A cache entry's checksum finds damage, not forgery: an entry written with a valid checksum can say
anything.  But some numbers no packing can have, whoever computed them: k unit vectors in R^d have a
worst pair ``eps* = max |cos|`` at least the Welch and Levenshtein bounds
(:func:`repcap.engines.bounds.coherence_lower_bound`), a mean ``|cos|`` in ``[0, eps*]``, and a mean
``cos^2`` of at least ``(k/d - 1) / (k - 1)`` (the frame potential: ``sum_{i != j} cos^2 >= k^2/d - k``)
and at most ``eps*^2``.  :func:`packing_result` says which of these a result breaks, or None; the
sweep cache refuses such an entry on every read (:mod:`repcap.sweep.checks`), and a bundle's import
can call the same function.

Tolerances: a computed eps* may sit on a bound (the simplex, k = d + 1, meets Welch exactly), and
float32 arithmetic moves it by about 1e-7 relative; a result is refused only beyond
:data:`REL_TOL` relative.
"""

from __future__ import annotations

import math
from typing import Any

#: Relative slack for float32 rounding before a number is called impossible.
REL_TOL = 1e-4
#: Absolute slack (a cosine of 1 + 1.2e-7 comes out of float32 at d = 2).
ABS_TOL = 1e-6


def _number(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x)


def _count(x: Any) -> int | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return x if isinstance(x, int) else None


def packing_violation(
    k: Any, d: Any, eps_star: Any, mean_abs: Any = None, mean_sq: Any = None, what: str = "eps*"
) -> str | None:
    """Why ``k`` unit vectors in R^``d`` cannot have worst pair ``eps_star`` (and mean |cos|
    ``mean_abs``, mean cos^2 ``mean_sq``, where given), or None if they can."""
    from .bounds import coherence_lower_bound

    kk, dd = _count(k), _count(d)
    if kk is None or dd is None or kk < 2 or dd < 1:
        return f"k = {str(k)[:20]}, d = {str(d)[:20]} are not a packing's sizes (whole numbers, k >= 2, d >= 1)"
    eps = _number(eps_star)
    if eps is None or not math.isfinite(eps):
        return f"{what} = {str(eps_star)[:20]} is not a finite number"
    if not -ABS_TOL <= eps <= 1 + ABS_TOL:
        return f"{what} = {eps:.6g} is a largest |cos| outside [0, 1]"
    bound = float(coherence_lower_bound(kk, dd))
    if eps < bound * (1 - REL_TOL) - ABS_TOL:
        return (
            f"{what} = {eps:.6g} for k = {kk} vectors in R^{dd} is below the Welch/Levenshtein bound {bound:.6g}, "
            "which no packing can beat"
        )
    if mean_abs is not None:
        m = _number(mean_abs)
        if m is None or not math.isfinite(m) or not -ABS_TOL <= m <= 1 + ABS_TOL:
            return f"mean |cos| = {str(mean_abs)[:20]} is outside [0, 1]"
        if m > eps * (1 + REL_TOL) + ABS_TOL:
            return f"mean |cos| = {m:.6g} is above the largest |cos|, {what} = {eps:.6g}"
    if mean_sq is not None:
        q = _number(mean_sq)
        if q is None or not math.isfinite(q) or not -ABS_TOL <= q <= 1 + ABS_TOL:
            return f"mean cos^2 = {str(mean_sq)[:20]} is outside [0, 1]"
        floor = max(0.0, (kk / dd - 1.0) / (kk - 1.0))
        if q < floor * (1 - REL_TOL) - ABS_TOL:
            return (
                f"mean cos^2 = {q:.6g} for k = {kk} vectors in R^{dd} is below the frame bound (k/d - 1)/(k - 1) = "
                f"{floor:.6g}, which no packing can beat"
            )
        if q > eps * eps * (1 + REL_TOL) + ABS_TOL:
            return f"mean cos^2 = {q:.6g} is above the square of the largest |cos|, {what} = {eps:.6g}"
    return None


def packing_result(config: dict, result: Any) -> str | None:
    """Why a packing point's ``result`` (:func:`repcap.engines.packing.sweep_packed`, ``sweep_annealed``
    or ``sweep_random``) cannot exist for ``config``, or None.  ``k`` and ``d`` are the result's
    own where it states them, else the config's; the two must agree."""
    if not isinstance(result, dict):
        return f"the result is a {type(result).__name__}, not a mapping"
    cfg = config if isinstance(config, dict) else {}
    for name in ("k", "d"):
        if name in result and name in cfg and _count(result[name]) != _count(cfg[name]):
            return f"the result is for {name} = {str(result[name])[:20]}, its config says {str(cfg[name])[:20]}"
    k, d = result.get("k", cfg.get("k")), result.get("d", cfg.get("d"))
    if "eps_star" not in result or result["eps_star"] is None:
        return None  # a failed optimisation records no eps* (None): nothing to check
    why = packing_violation(k, d, result["eps_star"], result.get("mean_abs"), result.get("mean_sq"))
    if why is not None:
        return why
    for other in ("eps_mean", "eps_max"):  # the random baseline's other statistics of the same draws
        if result.get(other) is not None:
            why = packing_violation(k, d, result[other], what=other)
            if why is not None:
                return why
    return None


__all__ = ["ABS_TOL", "REL_TOL", "packing_result", "packing_violation"]
