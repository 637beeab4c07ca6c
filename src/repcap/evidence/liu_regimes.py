"""Liu, Liu & Gore 2025: our numbers for their claims on the two regimes, from the tables of
chapters 8 and 9: Fig. 1b's contrast of the exponential frequency law with a power-law control at a
matched loss range (a difference of fitted curvatures, Welch t), and the weak regime's loss against
its left-out features and its φ½ (Fig. 3), with why a profile smaller than the paper's cannot
decide them.  :mod:`repcap.evidence.liu` is their one name."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from repcap.engines.fits import fit_curvature

from .findings import Finding, signed


def _curvature(points: pd.DataFrame) -> Any:
    return fit_curvature(points.m, points.loss) if points.m.nunique() >= 4 else None


def welch_t(se1: float, dof1: int, se2: float, dof2: int, level: float = 0.95) -> float:
    """The Student t quantile for a difference of two fitted coefficients with standard errors
    ``se1``, ``se2`` on ``dof1``, ``dof2`` degrees of freedom (Welch-Satterthwaite)."""
    from scipy import stats

    v1, v2 = se1**2, se2**2
    den = (v1**2 / dof1 if dof1 > 0 else math.inf) + (v2**2 / dof2 if dof2 > 0 else math.inf)
    dof = (v1 + v2) ** 2 / den if den > 0 and math.isfinite(den) else 1.0
    return float(stats.t.ppf(0.5 + level / 2, max(dof, 1.0)))


def contrast(
    exp_points: pd.DataFrame,
    controls: dict[str, pd.DataFrame],
    *,
    setting: str = "",
    experiments_of: Mapping[tuple[float, float], dict[str, str]] | None = None,
    **where: Any,
) -> dict[str, Finding]:
    """Fig. 1b's contrast, each regime against a power-law control at matched loss range
    (:func:`~repcap.book.figdata.reference_runs.matched_control`): ``exp_points`` are the exponential-
    frequency models (``regime``, ``m``, ``loss``, seed 0), ``controls`` ``{"weak": ..., "strong":
    ...}`` the matched power-law series (``experiments_of``: their experiments by (alpha, gamma), added
    to ``where``'s).  The number is c₂(exponential) − c₂(control), the
    curvature the frequency law adds beyond what the finite n gives a power law, with its 95% interval
    (Welch t: each parabola has its widths less 3 degrees of freedom): ``liu-power-in-out``
    (weak: the claim needs it below 0) and ``liu-strong-robust`` (strong: the claim needs it 0)."""
    out: dict[str, Finding] = {}
    for regime, cid in (("weak", "liu-power-in-out"), ("strong", "liu-strong-robust")):
        e = exp_points[exp_points.regime == regime]
        c = controls.get(regime, pd.DataFrame())
        fe, fc = _curvature(e), (_curvature(c) if len(c) else None)
        if fe is None or fc is None:
            continue
        diff, se = fe.curvature - fc.curvature, math.hypot(fe.stderr, fc.stderr)
        q = welch_t(fe.stderr, int(e.m.nunique()) - 3, fc.stderr, int(c.m.nunique()) - 3)
        a_c = float(c.alpha.iloc[0]) if "alpha" in c else float("nan")
        g_c = round(float(c.gamma.iloc[0]), 4) if "gamma" in c else float("nan")
        exps = {**where.get("experiments", {}), **(experiments_of or {}).get((round(a_c, 4), g_c), {})}
        out[cid] = {
            "value": diff,
            "low": diff - q * se,
            "high": diff + q * se,
            "se": se,
            "interval": "fit",
            "n": int(e.m.nunique()),
            "n_of": "widths per series",
            "note": f"{setting}; exponential c₂ = {signed(fe.curvature)} ± {fe.stderr:.3f}, power-law control "
            f"(α = {a_c:g}, the loss range nearest) c₂ = {signed(fc.curvature)} ± {fc.stderr:.3f}",
            **where,
            "experiments": exps,
        }
    return out


def describe_contrast(found: dict[str, Finding]) -> str:
    """One sentence per regime of :func:`contrast`'s findings (their difference of bends, its
    standard error and the two fits)."""
    names = {"liu-power-in-out": "Weak", "liu-strong-robust": "Strong"}
    text = " ".join(
        f"{names[cid]}: the bends differ by {signed(f['value'])} ± {f['se']:.3f} ({f['note'].lstrip('; ')})."
        for cid, f in found.items()
        if cid in names
    )
    return text or "This build has no exponential-frequency models to compare."


def _median_and_range(
    cid: str, values: pd.Series, n_of: str, undecided: str, where: dict[str, Any], note: str | None = None
) -> dict[str, Finding]:
    """``{cid: finding}``: the median of ``values`` over the weak-regime models, with their range (a
    spread, not an uncertainty)."""
    return {
        cid: {
            "value": float(values.median()),
            "low": float(values.min()),
            "high": float(values.max()),
            "interval": "range",
            "n": int(len(values)),
            "n_of": n_of,
            **({"note": note} if note is not None else {}),
            "undecided": undecided,
            **where,
        }
    }


def left_out(weak: pd.DataFrame, *, undecided: str = "", **where: Any) -> dict[str, Finding]:
    """``liu-weak-leftout``: the median over weak-regime models of loss / the left-out features'
    loss, with the range over the models (a spread)."""
    if weak.empty:
        return {}
    return _median_and_range("liu-weak-leftout", weak.loss / weak.left_out_loss, "models", undecided, where)


def phi_weak(weak: pd.DataFrame, *, undecided: str = "", **where: Any) -> dict[str, Finding]:
    """``liu-phi-weak``: φ½ in units of m/n of the weak models (γ = 1 at n = 1000 in the reference
    set): the median over widths, with the range over them."""
    if weak.empty:
        return {}
    r = weak.phi_half_over_m_n
    note = "φ½ × n/m over m = " + ", ".join(f"{int(m)}: {v:.2f}" for m, v in zip(weak.m, r, strict=True))
    return _median_and_range("liu-phi-weak", r, "models (widths)", undecided, where, note)


def below_paper_size(n: int, steps: int, paper_n: int, paper_steps: int) -> str:
    """Why a profile's toy models cannot decide a claim about the paper's main sweep ("" at its size)."""
    if n >= paper_n and steps >= paper_steps:
        return ""
    return f"this profile trains n = {n} features for {steps} steps; the claim is about the paper's n = {paper_n}"


__all__ = ["below_paper_size", "contrast", "describe_contrast", "left_out", "phi_weak", "welch_t"]
