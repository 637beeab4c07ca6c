"""The tables behind chapter 9's "power law in, power law out" (Liu et al.'s Fig. 1b contrast, from
the shipped ``reference`` bundle): the models trained on frequency laws that are not a power law
with their weak-regime ideal, the power-law series matched to them as a control, their slopes and
curvatures, and the weak-regime power-law models with the loss of the features they leave out.

Each function takes plain records (a bundle lookup's ``found``: objects with ``config`` and
``result``) or the frames made here, and returns a tidy frame; nothing here reads a file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from repcap.engines.fits import fit_exponent

from .reference import records


def contrast_points(found: Iterable[Any]) -> pd.DataFrame:
    """The models trained on a frequency law that is not a power law (``liu-contrast``), one row per
    (distribution, gamma, seed, m), with ``n``, ``tau``, the loss and, per model, the weak-regime ideal: the loss of
    leaving out all but the ``m`` most frequent features of the same frequencies
    (:func:`repcap.engines.toy.unlearned_loss`)."""
    from repcap.engines import toy

    rows = []
    for c, r in records(found):
        p = toy.frequencies(int(c["n"]), c["distribution"], float(c["alpha"]), float(c["tau"]))
        rows.append(
            {
                "distribution": c["distribution"],
                "n": int(c["n"]),
                "tau": float(c["tau"]),
                "gamma": float(c["gamma"]),
                "regime": "strong" if float(c["gamma"]) < 0 else "weak",
                "seed": int(c.get("seed", 0)),
                "m": int(c["m"]),
                "loss": float(r["loss"]),
                "ideal_loss": toy.unlearned_loss(p, int(c["m"])),
            }
        )
    cols = ["distribution", "n", "tau", "gamma", "regime", "seed", "m", "loss", "ideal_loss"]
    return pd.DataFrame(rows, columns=cols).sort_values(["gamma", "seed", "m"]).reset_index(drop=True)


def matched_control(target: pd.DataFrame, candidates: pd.DataFrame) -> pd.DataFrame:
    """The power-law series (rows of ``candidates``, :func:`.reference_widths.width_points` of seed 0
    at the target's gamma) whose loss spans the range nearest the ``target`` series' (in log max/min
    over the widths): the control for a curvature measured on a frequency law that is not a power
    law, which a finite n bends too (issue 36: a criterion c2 < 0 alone also holds for power-law
    inputs)."""
    if target.empty or candidates.empty:
        return candidates.iloc[:0]
    span = float(np.log(target.loss.max() / target.loss.min()))
    best, gap = None, math.inf
    for a, grp in candidates.groupby("alpha"):
        if grp.m.nunique() < 4:
            continue
        g = abs(float(np.log(grp.loss.max() / grp.loss.min())) - span)
        if g < gap:
            best, gap = a, g
    return candidates[candidates.alpha == best] if best is not None else candidates.iloc[:0]


def contrast_controls(points: pd.DataFrame, width: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """For each regime of :func:`contrast_points` (seed 0), its :func:`matched_control` among the
    width sweeps' power-law series (:func:`.reference_widths.width_points`, seed 0) at the
    contrast's gamma."""
    out = {}
    for (g, reg), grp in points[points.seed == 0].groupby(["gamma", "regime"]):
        cands = width[np.isclose(width.gamma.astype(float), float(g)) & (width.seed == 0)] if len(width) else width
        out[str(reg)] = matched_control(grp, cands)
    return out


def contrast_fits(points: pd.DataFrame) -> pd.DataFrame:
    """Per (gamma, seed) of :func:`contrast_points`, and for the weak-regime ideal (``series =
    "ideal"``): the power-law slope ``alpha_m`` and the curvature of log loss against log m
    (:func:`repcap.engines.fits.fit_curvature`) with its 95% t interval; NaN below 4 widths."""
    from repcap.engines.fits import fit_curvature

    cols = ["series", "gamma", "seed", "n_widths", "alpha_m", "curvature", "low", "high"]
    out = []
    for (g, s), grp in points.groupby(["gamma", "seed"]):
        for series, col in (("model", "loss"), ("ideal", "ideal_loss")):
            rec = {"series": series, "gamma": g, "seed": s, "n_widths": int(grp.m.nunique())}
            if grp.m.nunique() >= 4:
                cf = fit_curvature(grp.m, grp[col])
                rec |= {
                    "alpha_m": fit_exponent(grp.m, grp[col]).alpha_m,
                    "curvature": cf.curvature,
                    "low": cf.ci_low,
                    "high": cf.ci_high,
                }
            else:
                rec |= {"alpha_m": np.nan, "curvature": np.nan, "low": np.nan, "high": np.nan}
            out.append(rec)
    return pd.DataFrame(out, columns=cols)


def weak_models(found: Iterable[Any]) -> pd.DataFrame:
    """The weak-regime (gamma > 0) power-law toy models of the reference bundle, one row each:
    ``n, m, alpha, gamma, seed, loss``, the represented fraction ``phi_half`` (rows with norm >
    1/2), ``phi_half_over_m_n`` (phi_half in units of m/n) and the loss of the features each left
    out (``left_out_loss``, :func:`repcap.book.figdata.toy.left_out_loss`'s sum on its stored norms)."""
    from repcap.engines import toy
    from repcap.engines.toy import REPRESENTED_NORM

    rows = []
    for c, r in records(found):
        if float(c["gamma"]) <= 0 or c.get("distribution", "power") != "power" or not r.get("norms"):
            continue
        n, m, a = int(c["n"]), int(c["m"]), float(c["alpha"])
        kept = np.asarray(r["norms"], dtype=float) > REPRESENTED_NORM
        rows.append(
            {
                "n": n,
                "m": m,
                "alpha": a,
                "gamma": float(c["gamma"]),
                "seed": int(c.get("seed", 0)),
                "loss": float(r["loss"]),
                "phi_half": float(kept.mean()),
                "phi_half_over_m_n": float(kept.mean()) * n / m,
                "left_out_loss": float(toy.unlearned_loss(toy.frequencies(n, "power", a), kept)),
            }
        )
    cols = ["n", "m", "alpha", "gamma", "seed", "loss", "phi_half", "phi_half_over_m_n", "left_out_loss"]
    df = pd.DataFrame(rows, columns=cols).drop_duplicates(subset=["n", "m", "alpha", "gamma", "seed"])
    return df.sort_values(["gamma", "alpha", "seed", "m"]).reset_index(drop=True)


def _curve_rows(kind: str, reg: str, g: float, m: np.ndarray, loss: np.ndarray) -> list[dict]:
    return [{"kind": kind, "regime": reg, "gamma": g, "m": x, "loss": y} for x, y in zip(m, loss, strict=True)]


def contrast_figure(points: pd.DataFrame, controls: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The contrast figure's table: the models of :func:`contrast_points` (``kind = "model"``); for
    each (gamma, regime) of seed 0 with 4 widths or more, the parabola in log m and the best power law
    at 40 widths (``"parabola"``, ``"power law"``); its :func:`contrast_controls` series where that has
    4 widths (``"control"``, with its ``alpha``) and the control's parabola (``"control parabola"``).
    A note (:func:`.reference.placeholder`) where there are no models."""
    from repcap.engines.fits import fit_curvature

    from .reference import placeholder

    if not len(points):
        return placeholder()
    rows: list[dict] = []
    for (g, reg), d in points[points.seed == 0].groupby(["gamma", "regime"]):
        if d.m.nunique() >= 4:
            mm = np.geomspace(d.m.min(), d.m.max(), 40)
            rows += _curve_rows("parabola", reg, g, mm, fit_curvature(d.m, d.loss).predict(mm))
            rows += _curve_rows("power law", reg, g, mm, fit_exponent(d.m, d.loss).predict(mm))
        c = controls.get(reg, pd.DataFrame())
        if len(c) and c.m.nunique() >= 4:
            rows += [
                {"kind": "control", "regime": reg, "alpha": r.alpha, "m": r.m, "loss": r.loss} for r in c.itertuples()
            ]
            mm = np.geomspace(c.m.min(), c.m.max(), 40)
            rows += _curve_rows(
                "control parabola", reg, float(c.gamma.iloc[0]), mm, fit_curvature(c.m, c.loss).predict(mm)
            )
    out = pd.concat([points.assign(kind="model"), pd.DataFrame(rows)], ignore_index=True)
    return out[["kind", *[c for c in out.columns if c != "kind"]]]
