"""Chapter 9's drawings for ``test_redraw.py``: each with a small synthetic table made by the figdata
function the chapter saves (so the table has the CSV's shape: models, fit lines, the paper's points),
and the options the chapter passes; the reference figures also as their placeholder (a build without
the reference points)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from repcap.book.drawings import scaling, scaling_reference
from repcap.book.figdata import reference as frefs
from repcap.book.figdata import reference_runs as frr
from repcap.book.figdata import scaling as fscaling

MS = [4, 8, 16, 32]
ALPHAS = (1.0, 2.0)


def _models() -> pd.DataFrame:
    rows = [
        {"regime": r, "gamma": g, "alpha": a, "m": m, "seed": 0, "loss": 3 * m ** -(a - 0.1 * g)}
        for r, g in (("weak", 0.3333), ("strong", -1.0))
        for a in ALPHAS
        for m in MS
    ]
    return pd.DataFrame(rows).assign(left_out_loss=lambda d: d.loss * 0.9)


def _fits(by: str = "regime") -> pd.DataFrame:
    rows = [
        {by: r, "alpha": a, "alpha_m": a - 0.2 * i, "log_A": 1.1, "ci_low": a - 0.5, "ci_high": a + 0.3}
        for i, r in enumerate(("weak", "strong"))
        for a in ALPHAS
    ]
    return pd.DataFrame(rows)


def _loss() -> pd.DataFrame:
    pred = pd.DataFrame([{"alpha": a, "m": m, "unlearned_loss": 2 * m**-a} for a in ALPHAS for m in MS])
    return fscaling.loss_figure(_models(), _fits(), pred, MS)


def _exponents() -> pd.DataFrame:
    pred = pd.DataFrame({"alpha": list(ALPHAS), "alpha_m_pred": [0.2, 1.3]})
    return fscaling.exponents_figure(_fits(), pred, {1.0: (0.93, 1.18), 2.0: (2.05, 2.27)})


def _gamma() -> pd.DataFrame:
    return _fits("gamma").assign(gamma=lambda d: np.where(d.gamma == "weak", 0.3333, -1.0))


def _overlap() -> pd.DataFrame:
    strong = pd.DataFrame([{"alpha": a, "m": m, "mean_sq_overlap": 1.1 / m + 0.01 * a} for a in ALPHAS for m in MS])
    strong = strong.assign(one_over_m=1 / strong.m, welch=(64 - strong.m) / (strong.m * 63))
    return fscaling.overlap_figure(strong, [(0.1, 0.12), (0.01, 0.011)])


def _other() -> pd.DataFrame:
    laws = ["exp", "linear", "power α = 1.2"]
    odf = pd.DataFrame(
        [
            {"law": w, "m": m, "seed": 0, "loss": 5 * m ** -(1 + i / 4), "mean_sq_overlap": 1 / m}
            for i, w in enumerate(laws)
            for m in MS
        ]
    )
    ofits = pd.DataFrame(
        {"law": laws, "alpha_m": [1.0, 1.25, 1.5], "log_A": [1.6, 1.6, 1.6], "alpha_m_reported": [1.01, 1.2, 1.4]}
    )
    return fscaling.other_figure(odf, ofits, MS)


def _reference(empty: bool = False) -> pd.DataFrame:
    rdf = _models().assign(n=48, steps=10, mean_sq_overlap=0.1)[["n", "m", "alpha", "gamma", "seed", "steps", "loss"]]
    rdf = rdf.assign(mean_sq_overlap=0.1, regime=np.where(rdf.gamma < 0, "strong", "weak"))
    return fscaling.reference_figure(rdf.iloc[:0] if empty else rdf, _fits())


def _seeds(empty: bool = False) -> pd.DataFrame:
    rows = [
        {"gamma": g, "alpha": 1.0, "seed": s, "m": m, "loss": 1.0, "n_seeds": 3, "median_loss": 1.0}
        | {"ratio": 5.0 if (s, m) == (1, 16) else 1 + 0.05 * s, "outlier": (s, m) == (1, 16)}
        for g in (-1.0, -0.7778)
        for s in range(3)
        for m in MS
    ]
    return frefs.placeholder_if_empty(pd.DataFrame(rows).iloc[: 0 if empty else None])


def _fig6e() -> pd.DataFrame:
    base = {"gamma": -0.7778, "alpha": 1.5, "n_widths": 6}
    return pd.DataFrame(
        [
            base
            | {
                "series": "ours",
                "alpha_m": 1.45,
                "low": 1.3,
                "high": 1.6,
                "n_seeds": 3,
                "seed_low": 1.4,
                "seed_high": 1.5,
            },
            base | {"series": "Fig. 6e (digitised)", "alpha_m": 1.25, "low": 1.19, "high": 1.3, "n_widths": np.nan},
        ]
    )


def _phi1() -> pd.DataFrame:
    ours = [
        {"series": "ours", "gamma": -0.7778, "alpha": a, "seed": 0, "m": m, "phi_one": 0.1 * a + m / 100}
        for a in ALPHAS
        for m in MS
    ]
    fig6c = [
        {"series": "Fig. 6c (digitised)", "alpha": a, "m": m, "phi_one": 0.12 * a + m / 90} for a in ALPHAS for m in MS
    ]
    return pd.DataFrame(ours + fig6c)


def _overlap_defs() -> pd.DataFrame:
    rows = [
        {"alpha": 1.0, "gamma": -0.7778, "m": m, "definition": d, "times_m": t + 1 / m}
        for d, t in (("all", 1.0), ("represented", 1.3))
        for m in MS
    ]
    return frefs.placeholder_if_empty(pd.DataFrame(rows))


def _contrast() -> pd.DataFrame:
    ms = [10, 15, 25, 39, 63]
    ctp = pd.DataFrame(
        [
            {
                "distribution": "exp",
                "n": 100,
                "tau": 10.0,
                "gamma": g,
                "regime": "strong" if g < 0 else "weak",
                "seed": 0,
            }
            | {"m": m, "loss": 10 * m ** -(1.1 if g < 0 else 0.7) * (1 + 0.02 * np.sin(m)), "ideal_loss": 3 * m**-0.9}
            for g in (-1.0, 0.3333)
            for m in ms
        ]
    )
    control = pd.DataFrame(
        {"gamma": -1.0, "alpha": 1.5, "seed": 0, "m": ms, "loss": [8 * m**-1.2 * (1 + 0.01 * np.cos(m)) for m in ms]}
    )
    return frr.contrast_figure(ctp, {"strong": control})


#: fig id: (drawing, synthetic table, options), as the chapter saves them.
CASES = {
    "fig-scaling-loss": (scaling.loss_vs_width, _loss, {}),
    "fig-scaling-exponents": (scaling.exponents_vs_alpha, _exponents, {}),
    "fig-scaling-gamma": (scaling.exponents_by_gamma, _gamma, {}),
    "fig-scaling-overlap": (scaling.overlap_vs_width, _overlap, {}),
    "fig-scaling-other": (scaling.other_laws, _other, {}),
    "fig-scaling-reference": (scaling.reference_losses, _reference, {}),
    "fig-scaling-reference-empty": (scaling.reference_losses, lambda: _reference(empty=True), {}),
    "fig-scaling-seeds": (scaling_reference.seed_outliers, _seeds, {"factor": 2.0}),
    "fig-scaling-seeds-empty": (scaling_reference.seed_outliers, lambda: _seeds(empty=True), {"factor": 2.0}),
    "fig-scaling-fig6e": (scaling_reference.fig6e, _fig6e, {"seeds_to_decide": 3}),
    "fig-scaling-phi1": (scaling_reference.phi_one, _phi1, {"gamma": -0.7778}),
    "fig-scaling-overlap-defs": (scaling_reference.overlap_definitions, _overlap_defs, {}),
    "fig-scaling-contrast": (scaling_reference.contrast, _contrast, {}),
}
