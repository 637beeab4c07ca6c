"""Liu, Liu & Gore 2025: our numbers for their claims, from the tables of chapters 8 and 9.

Fig. 6e's rows compare one width exponent per (alpha, gamma) with the digitised point of the same
series; from :data:`SEEDS_TO_DECIDE` seeds on, ours is the seeds' mean with its standard error (how
far the slope over these widths moves between training runs), otherwise seed 0's fit with its
regression standard error.  The verdict is the scorecard's ``combined`` rule.

This module is the one name of all the Liu et al. findings: the overlap of rows (Fig. 6d and the LM
heads, :mod:`repcap.evidence.liu_overlap`) and the two regimes (Fig. 1b's contrast and the weak
regime, :mod:`repcap.evidence.liu_regimes`) are re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .findings import Finding, signed
from .liu_overlap import TOY_OVERLAP_AT, head_norms, head_scaling, overlap, overlap_slope, profile_overlap
from .liu_regimes import below_paper_size, contrast, describe_contrast, left_out, phi_weak, welch_t

#: From this many seeds on, an exponent row is judged by the seeds' mean and its standard error.
SEEDS_TO_DECIDE = 3
#: Fig. 6e's series, by the gamma of their colour: three strong and one weak (``liu-weak-<alpha>``).
FIG6E_GAMMAS = {-0.7778: "", -0.5556: "-g0556", -0.3333: "-g0333", 0.3333: "weak"}


def alpha_key(alpha: float) -> str:
    """``a05``, ``a10``, ``a15``, ``a20``: how the claims and quotes name an alpha."""
    return f"a{int(round(float(alpha) * 10)):02d}"


def fig6e_claim(alpha: float, gamma: float) -> str | None:
    """The scorecard row of Fig. 6e's point at (alpha, gamma), or None where the scorecard has none."""
    from .claims import claims

    suffix = FIG6E_GAMMAS.get(round(float(gamma), 4))
    if suffix is None:
        return None
    cid = f"liu-weak-{alpha_key(alpha)}" if suffix == "weak" else f"liu-strong-{alpha_key(alpha)}{suffix}"
    return cid if cid in claims() else None


def judged(r: Any) -> Finding:
    """How one row of :func:`repcap.book.figdata.reference_runs.exponent_summary` is judged: the seeds'
    mean and its standard error from :data:`SEEDS_TO_DECIDE` seeds on, with the seeds' sd
    (``replicate_sd``: the scatter of one replicate, which the source's single fit also carries), else
    seed 0's fit with its regression standard error (the currency of the source's bar)."""
    n_s, n_w = int(r.n_seeds), int(r.n_widths)
    if n_s >= SEEDS_TO_DECIDE:
        return {
            "value": float(r.seed_mean),
            "low": float(r.seed_low),
            "high": float(r.seed_high),
            "se": float(r.seed_se),
            "replicate_sd": float(r.seed_se) * math.sqrt(n_s),
            "interval": "t",
            "n": n_w,
            "n_of": f"widths, mean of {n_s} seeds",
        }
    return {
        "value": float(r.alpha_m),
        "low": float(r.low),
        "high": float(r.high),
        "se": float(r.se),
        "interval": "t",
        "n": n_w,
        "n_of": "widths, seed 0's regression",
    }


def fig6e(
    summary: pd.DataFrame,
    *,
    summary_with_outliers: pd.DataFrame | None = None,
    outliers: pd.DataFrame | None = None,
    experiments_of: Mapping[tuple[float, float], dict[str, str]] | None = None,
    **where: Any,
) -> dict[str, Finding]:
    """Fig. 6e's rows from :func:`~repcap.book.figdata.reference_runs.exponent_summary` of the width
    fits without single-model outliers (``summary``) and with them (``summary_with_outliers``);
    ``outliers``: :func:`~repcap.book.figdata.reference_runs.seed_outliers` (the rows whose ``outlier`` is
    true are the flagged models); ``experiments_of``: ``{(alpha, gamma): {experiment: provenance}}``,
    each row's own experiments (:func:`~repcap.book.figdata.reference_runs.experiments_by_series`).  ``where``: ``profile``, ``figure``, ``experiments`` of every finding."""
    out: dict[str, Finding] = {}
    for r in summary.itertuples():
        cid = fig6e_claim(r.alpha, r.gamma)
        if cid is None or not np.isfinite(float(r.alpha_m)):
            continue
        rec = judged(r)
        note = f"γ = {signed(float(r.gamma), '+.4f')}"
        flagged = (
            outliers[
                outliers.outlier.astype(bool)
                & np.isclose(outliers.alpha, r.alpha)
                & np.isclose(outliers.gamma, r.gamma)
            ]
            if outliers is not None and len(outliers)
            else pd.DataFrame()
        )
        if len(flagged):
            models = ", ".join(f"seed {int(o.seed)} at m = {int(o.m)} (×{o.ratio:.2f})" for o in flagged.itertuples())
            note += f"; decided without the single-model outliers {models}, whose width is left out of every seed's fit"
            if summary_with_outliers is not None:
                w = summary_with_outliers[
                    np.isclose(summary_with_outliers.alpha, r.alpha) & np.isclose(summary_with_outliers.gamma, r.gamma)
                ]
                if len(w):
                    note += f"; with them it is {judged(w.iloc[0])['value']:.3f}"
        else:
            note += "; no single-model outlier in its seeds"
        own = (experiments_of or {}).get((round(float(r.alpha), 4), round(float(r.gamma), 4)))
        out[cid] = {**rec, **where, **({"experiments": own} if own else {}), "note": note}
    return out


def weak_exponent(summary: pd.DataFrame, **where: Any) -> dict[str, Finding]:
    """``liu-weak-exponent`` (a context row: the mean over alpha > 1 of the weak series' gap to
    alpha - 1, which Fig. 6e's weak rows decide one by one)."""
    weak = summary[np.isclose(summary.gamma.astype(float), 0.3333) & (summary.alpha.astype(float) > 1)]
    weak = weak[np.isfinite(weak.alpha_m.astype(float))]
    if weak.empty:
        return {}
    js = [judged(r) for r in weak.itertuples()]
    gaps = [j["value"] - (a - 1) for j, a in zip(js, weak.alpha, strict=True)]
    return {
        "liu-weak-exponent": {
            "value": float(np.mean(gaps)),
            "low": float(np.mean([j["low"] - (a - 1) for j, a in zip(js, weak.alpha, strict=True)])),
            "high": float(np.mean([j["high"] - (a - 1) for j, a in zip(js, weak.alpha, strict=True)])),
            "interval": "t",
            "n": int(min(j["n"] for j in js)),
            "n_of": "widths (the mean over α of each α's interval ends)",
            "note": "; ".join(f"α = {a:g}: {signed(g)}" for a, g in zip(weak.alpha, gaps, strict=True)),
            **where,
        }
    }


def phi_one(gap: float, n_widths: int, values: dict[int, float], gamma: float, **where: Any) -> dict[str, Finding]:
    """``liu-phi1-width``: the largest |φ₁ − Fig. 6c's| over the widths (seed 0's models; one run
    each); ``values``: our φ₁ by width."""
    if not n_widths:
        return {}
    return {
        "liu-phi1-width": {
            "value": float(gap),
            "interval": "one run",
            "n": int(n_widths),
            "n_of": "widths, seed 0",
            "note": f"φ₁ at α = 1, γ = {signed(gamma, '.4f')} over m = "
            + ", ".join(f"{m}: {v:.3f}" for m, v in values.items()),
            **where,
        }
    }


def profile_exponents(
    fits: pd.DataFrame, ofits: pd.DataFrame, laws: Mapping[str, str], *, gamma: float | None = None, **where: Any
) -> dict[str, Finding]:
    """This profile's own width fits: the strong regime's (``fits`` of :func:`repcap.book.figdata.toy.exponent_fits`
    by regime and alpha, trained at the profile's strong ``gamma``) under the Fig. 6e row of that
    gamma only (none where no row names it, as at the profiles' gamma = -1; shown, judged only by the
    profiles a row names), and the exp-17 slopes from the other frequency laws (``ofits`` by ``law``;
    ``laws``: ``{law name in ofits: claim id}``)."""
    out: dict[str, Finding] = {}
    strong = fits[fits.regime == "strong"] if gamma is not None else fits.iloc[0:0]
    for r in strong.itertuples():
        cid = fig6e_claim(r.alpha, float(gamma or 0.0))  # None unless gamma is the series a row names
        if cid is None:
            continue
        out[cid] = {
            "value": float(r.alpha_m),
            "low": float(r.ci_low),
            "high": float(r.ci_high),
            "se": float(r.stderr),
            "interval": "t",
            "n": int(r.n_points),
            "n_of": "models (this profile's widths, seed 0)",
            **where,
        }
    for name, cid in laws.items():
        r = ofits[ofits.law == name]
        if len(r):
            f = r.iloc[0]
            out[cid] = {
                "value": -float(f.alpha_m),
                "low": -float(f.ci_high),
                "high": -float(f.ci_low),
                "se": float(f.stderr),
                "interval": "t",
                "n": int(f.n_points),
                "n_of": "models",
                **where,
            }
    return out


__all__ = [
    "FIG6E_GAMMAS",
    "SEEDS_TO_DECIDE",
    "TOY_OVERLAP_AT",
    "alpha_key",
    "below_paper_size",
    "contrast",
    "describe_contrast",
    "fig6e",
    "fig6e_claim",
    "head_norms",
    "head_scaling",
    "judged",
    "left_out",
    "overlap",
    "overlap_slope",
    "phi_one",
    "phi_weak",
    "profile_exponents",
    "profile_overlap",
    "weak_exponent",
    "welch_t",
]
