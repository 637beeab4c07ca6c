"""The tables chapter 9's toy-sweep figures ship and are drawn from (:mod:`repcap.book.drawings.scaling`):
each figure's CSV holds every mark it shows, the models (``kind = "model"``) and the lines drawn
through them, the fits evaluated where they are drawn (``kind = "fit"``), the weak-regime ideal
(``"ideal"``) and the paper's points (``"Fig. 6d"``, ``"Fig. 6e"``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .reference import placeholder
from .toy import exponents_table, loss_table, other_points, overlap_points

#: The points each fit line is drawn through, on the widths of the chapter's sweep.
FIT_POINTS = 50


def _power_law(fit, m: np.ndarray) -> np.ndarray:
    """``A m^-alpha_m`` of one fit row (``log_A``, ``alpha_m``)."""
    return np.exp(fit.log_A) * m**-fit.alpha_m


def loss_figure(df: pd.DataFrame, fits: pd.DataFrame, prediction: pd.DataFrame, ms: Sequence[int]) -> pd.DataFrame:
    """The loss figure's table: each model (:func:`.toy.loss_table`, ``kind = "model"``), its
    (regime, alpha) fit evaluated at 50 widths over ``ms`` (``"fit"``, ``loss``) and the weak-regime
    ideal of keeping the m most frequent features (``"ideal"``, ``unlearned_loss``)."""
    mm = np.geomspace(min(ms), max(ms), FIT_POINTS)
    fit_rows = [
        {"kind": "fit", "regime": f.regime, "alpha": f.alpha, "m": x, "loss": y}
        for f in fits.itertuples()
        for x, y in zip(mm, _power_law(f, mm), strict=True)
    ]
    ideal = prediction[["alpha", "m", "unlearned_loss"]].assign(kind="ideal", regime="weak")
    parts = [loss_table(df, prediction).assign(kind="model"), pd.DataFrame(fit_rows), ideal]
    out = pd.concat(parts, ignore_index=True)
    return out[["kind", *[c for c in out.columns if c != "kind"]]]


def exponents_figure(
    fits: pd.DataFrame, prediction_fits: pd.DataFrame, fig6e_spread: Mapping[float, tuple[float, float]]
) -> pd.DataFrame:
    """The exponents figure's table: :func:`.toy.exponents_table` (``kind = "fit"``) and, as
    ``kind = "Fig. 6e"`` rows, where the paper's strong series lie at each alpha (``fig6e_low``,
    ``fig6e_high``)."""
    paper = pd.DataFrame(
        [{"kind": "Fig. 6e", "alpha": a, "fig6e_low": lo, "fig6e_high": hi} for a, (lo, hi) in fig6e_spread.items()],
        columns=["kind", "alpha", "fig6e_low", "fig6e_high"],
    )
    out = pd.concat([exponents_table(fits, prediction_fits).assign(kind="fit"), paper], ignore_index=True)
    return out[["kind", *[c for c in out.columns if c != "kind"]]]


def overlap_figure(strong: pd.DataFrame, paper: Sequence[tuple[float, float]]) -> pd.DataFrame:
    """The overlap figure's table: the strong models (:func:`.toy.overlap_points`, ``kind = "model"``)
    and the paper's Fig. 6d points ``(1/m, overlap)`` (``kind = "Fig. 6d"``)."""
    fig6d = pd.DataFrame({"one_over_m": [x for x, _ in paper], "mean_sq_overlap": [y for _, y in paper]})
    out = pd.concat([overlap_points(strong).assign(kind="model"), fig6d.assign(kind="Fig. 6d")], ignore_index=True)
    return out[["kind", *[c for c in out.columns if c != "kind"]]]


def other_figure(odf: pd.DataFrame, ofits: pd.DataFrame, ms: Sequence[int]) -> pd.DataFrame:
    """The other-laws figure's table: the models (:func:`.toy.other_points`, ``kind = "model"``) and
    each law's fit evaluated at 50 widths over ``ms`` (``"fit"``), with its exponent and the exp-17
    slope the paper reports (``alpha_m``, ``alpha_m_reported``)."""
    mo = np.geomspace(min(ms), max(ms), FIT_POINTS)
    fit_rows = [
        {"kind": "fit", "law": f.law, "m": x, "loss": y, "alpha_m": f.alpha_m, "alpha_m_reported": f.alpha_m_reported}
        for f in ofits.itertuples()
        for x, y in zip(mo, _power_law(f, mo), strict=True)
    ]
    out = pd.concat([other_points(odf).assign(kind="model"), pd.DataFrame(fit_rows)], ignore_index=True)
    return out[["kind", *[c for c in out.columns if c != "kind"]]]


def reference_figure(rdf: pd.DataFrame, rfits: pd.DataFrame) -> pd.DataFrame:
    """The reference figure's table: the reference models (``kind = "model"``) and, per (regime,
    alpha) with a fit, the fit evaluated at 20 widths over the series' own (``"fit"``); a note in a
    build without reference points."""
    if not len(rdf):
        return placeholder("no reference points")
    fit_rows = []
    for (reg, a), d in rdf.groupby(["regime", "alpha"]):
        f = rfits[(rfits.regime == reg) & (rfits.alpha == a)] if len(rfits) else rfits
        if len(f):
            mm = np.geomspace(d.m.min(), d.m.max(), 20)
            loss = np.exp(f.log_A.iloc[0]) * mm ** -f.alpha_m.iloc[0]
            fit_rows += [{"kind": "fit", "regime": reg, "alpha": a, "m": x, "loss": y} for x, y in zip(mm, loss)]
    out = pd.concat([rdf.assign(kind="model"), pd.DataFrame(fit_rows)], ignore_index=True)
    return out[["kind", *[c for c in out.columns if c != "kind"]]]
