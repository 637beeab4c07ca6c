"""Chapter 9's figures of the reference bundle (Liu, Liu & Gore 2025's toy model at the paper's
settings), each drawn from the one table its chapter saves (:mod:`repcap.book.figdata.reference_runs`),
read back from the CSV :func:`repcap.book.figures.save` ships, with the rule's settings as options;
a placeholder table (a note, in a build without the points) draws the placeholder."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import figures
from .scaling import _kind, _log_axes, _placeholder

#: Fig. 6e's series by colour: three strong, the weak one and gamma = -1 (no series of its own there).
GAMMA_COLOURS = {-0.7778: "C3", -0.5556: "C1", -0.3333: "C2", -1.0: "0.3", 0.3333: "C0"}
#: The column of each series beside its alpha: the weak series nearest, then gamma = -1 and the strong ones.
GAMMA_ORDER = (0.3333, -1.0, -0.7778, -0.5556, -0.3333)


def _rows(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``table``, or an empty frame with ``columns`` where it is a placeholder (it lacks them)."""
    return table if set(columns) <= set(table.columns) else pd.DataFrame(columns=columns)


def _offset(gamma: float) -> float:
    g = round(float(gamma), 4)
    return 0.03 + 0.025 * (GAMMA_ORDER.index(g) if g in GAMMA_ORDER else 0)


def fig6e(cmp6e: pd.DataFrame, seeds_to_decide: int) -> Figure:
    """Width exponents against alpha: Fig. 6e digitised (open squares, their bars) and our fits
    (dots, seed 0's 95% t interval), one colour per gamma; where a series has ``seeds_to_decide``
    seeds, a thick pale bar is the seeds' mean with its 95% t interval."""
    fig, ax = plt.subplots(figsize=figures.size(3.6))
    for (ser, g), d in cmp6e.groupby(["series", "gamma"]):
        d = d.dropna(subset=["alpha_m"])
        if not len(d):
            continue
        mine = ser == "ours"
        ax.errorbar(
            d.alpha + (_offset(g) if mine else -_offset(g)),
            d.alpha_m,
            yerr=[d.alpha_m - d.low, d.high - d.alpha_m],
            fmt="o" if mine else "s",
            mfc=None if mine else "none",
            color=GAMMA_COLOURS.get(round(float(g), 4), "0.5"),
            ms=5,
            capsize=2,
            lw=1,
            label=f"{'ours' if mine else 'Fig. 6e'}, γ = {g:+.3f}".replace("-", "−"),
        )
    seeded = cmp6e[(cmp6e.series == "ours") & (cmp6e.n_seeds.fillna(0) >= seeds_to_decide)]
    for r in seeded.itertuples():
        x = r.alpha + _offset(r.gamma)
        ax.plot(
            [x, x],
            [r.seed_low, r.seed_high],
            color=GAMMA_COLOURS.get(round(float(r.gamma), 4), "0.5"),
            lw=3.5,
            alpha=0.45,
        )
    ax.plot([0.5, 2.0], [1.0, 1.0], ":", color="0.5", lw=0.8)
    ax.set_xlabel("α (feature-frequency exponent)")
    ax.set_ylabel(r"$\alpha_m$ (loss $\propto m^{-\alpha_m}$)")
    wide = cmp6e[(cmp6e.series == "ours") & (cmp6e.n_widths.fillna(0) >= 4)]
    ax.set_ylim(-0.4, min(4.0, max(2.8, float(wide.high.max()) + 0.1 if len(wide) else 2.8)))
    if not (cmp6e.series == "ours").any():
        ax.text(0.5, 0.9, "no reference width sweep in this build", transform=ax.transAxes, ha="center", color="0.4")
    figures.legend_below(ax, ncol=3)
    fig.tight_layout()
    return fig


def seed_outliers(table: pd.DataFrame, factor: float) -> Figure:
    """Every seeded model's loss over the median of its seeds at the same (gamma, alpha, m)
    (:func:`repcap.book.figdata.reference_runs.seed_outliers`), against m, with the outlier rule's
    ``factor`` either way (dashed) and the flagged models ringed."""
    flagged = _rows(table, ["gamma", "m", "ratio", "n_seeds", "outlier"])
    _, ax = plt.subplots(figsize=figures.size(3.0))
    many = flagged[flagged.n_seeds >= 3] if len(flagged) else flagged
    if len(many):
        for g, d in many.groupby("gamma"):
            jitter = 1 + 0.02 * (GAMMA_ORDER.index(round(float(g), 4)) if round(float(g), 4) in GAMMA_ORDER else 0)
            ax.plot(
                d.m * jitter,
                d.ratio,
                "o",
                color=GAMMA_COLOURS.get(round(float(g), 4), "0.5"),
                ms=3.5,
                alpha=0.7,
                label=f"γ = {g:+.3f}".replace("-", "−"),
            )
        out = many[many.outlier.astype(bool)]
        ax.plot(out.m, out.ratio, "o", mfc="none", mec="k", ms=11, mew=1.2, label="single-model outlier")
    else:
        _placeholder(ax)
    for y in (factor, 1 / factor):
        ax.axhline(y, color="0.4", ls="--", lw=0.8)
    ax.axhline(1.0, color="0.7", lw=0.6)
    return figures.label_axes(ax, "width m", "loss / median of its seeds", log="xy", ncol=3)


def phi_one(table: pd.DataFrame, gamma: float) -> Figure:
    """The strong fraction phi_1 against width (:func:`repcap.book.figdata.reference_runs.phi_one_comparison`):
    our seed-0 models at ``gamma`` (dots) and Fig. 6c digitised (open squares, dashed), one colour per alpha."""
    mine = (table.series == "ours") & np.isclose(table.gamma.astype(float), gamma) & (table.seed == 0)
    ours, digitised = table[mine], table[table.series != "ours"]
    _, ax = plt.subplots(figsize=figures.size(3.2))
    alphas = sorted(digitised.alpha.unique())
    acol = dict(zip(alphas, figures.palette(max(1, len(alphas))), strict=False))
    for (ser, a), d in pd.concat([ours, digitised]).groupby(["series", "alpha"]):
        if a not in acol:
            continue
        mine = ser == "ours"
        who = "ours, γ = " + f"{gamma:.3f}".replace("-", "−") if mine else "Fig. 6c"
        ax.plot(
            d.m,
            d.phi_one,
            "o-" if mine else "s--",
            mfc=None if mine else "none",
            color=acol[a],
            ms=5,
            lw=1,
            label=f"{who}, α = {a:g}",
        )
    ax.set_ylim(-0.02, 1.05)
    if not len(ours):
        _placeholder(ax)
    return figures.label_axes(ax, "width m", r"$\varphi_1$ (rows with norm > 1)", log="x", ncol=2)


def overlap_definitions(table: pd.DataFrame) -> Figure:
    """The retrained models' mean square overlap in units of 1/m under each definition
    (:func:`repcap.book.figdata.reference_runs.overlap_definitions`)."""
    ovd = _rows(table, ["definition", "m", "times_m"])
    _, ax = plt.subplots(figsize=figures.size(3.2))
    names = list(dict.fromkeys(ovd.definition))
    dcol = dict(zip(names, figures.palette(max(1, len(names))), strict=False))
    for name, d in ovd.groupby("definition", sort=False):
        d = d.dropna(subset=["times_m"])
        if len(d):
            ax.plot(d.m, d.times_m, "o-", color=dcol.get(name, "0.5"), ms=4, lw=1, label=name)
    ax.axhline(1.0, color="k", ls=":", lw=0.9, label="1/m (Fig. 6d: about 1)")
    if not len(ovd):
        _placeholder(ax)
    return figures.label_axes(ax, "width m", "mean square overlap × m", log="x", ncol=3)


def contrast(table: pd.DataFrame) -> Figure:
    """Loss against width for exponential frequencies, weak and strong regime, seed 0 (rows ``kind =
    "model"`` of :func:`repcap.book.figdata.reference_runs.contrast_figure`), each with a parabola in
    log m (solid) and the best power law (dotted), the matched power-law control of each regime (open
    markers, dashed parabola) and the loss of leaving out all but the m most frequent features (grey dashed)."""
    ctp = _kind(table, "model", ["gamma", "regime", "seed", "m", "loss", "ideal_loss"])
    _, ax = plt.subplots(figsize=figures.size(3.2))
    rcol = {"weak": "C0", "strong": "C3"}
    for (g, reg), d in ctp[ctp.seed == 0].groupby(["gamma", "regime"]):
        ax.plot(d.m, d.loss, "o", color=rcol[reg], ms=5, label=f"exponential, {reg}, γ = {g:+.3f}".replace("-", "−"))
        for kind, ls in (("parabola", "-"), ("power law", ":")):
            curve = table[(table.kind == kind) & (table.regime == reg) & (table.gamma == g)]
            if len(curve):
                ax.plot(curve.m, curve.loss, ls, color=rcol[reg], lw=1)
        c = table[(table.kind == "control") & (table.regime == reg)]
        if len(c):
            label = f"power-law control, {reg} (α = {float(c.alpha.iloc[0]):g})"
            ax.plot(c.m, c.loss, "s", mfc="none", color=rcol[reg], ms=5, label=label)
            curve = table[(table.kind == "control parabola") & (table.regime == reg)]
            ax.plot(curve.m, curve.loss, "--", color=rcol[reg], lw=0.8)
    ax.plot([], [], "-", color="0.35", lw=1, label="parabola in log m")
    ax.plot([], [], ":", color="0.35", lw=1, label="best power law")
    ideal = ctp[ctp.seed == 0].drop_duplicates("m")
    if len(ideal):
        ax.plot(ideal.m, ideal.ideal_loss, "--", color="0.45", lw=1, label="left-out features' loss (weak ideal)")
    else:
        _placeholder(ax)
    _log_axes(ax)
    return figures.label_axes(ax, "width m", "final loss (summed over features)")


__all__ = ["GAMMA_COLOURS", "GAMMA_ORDER", "contrast", "fig6e", "overlap_definitions", "phi_one", "seed_outliers"]
