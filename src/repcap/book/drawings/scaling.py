"""Chapter 9's figures (width scaling of Liu, Liu & Gore 2025's toy model)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import figures
from ..figdata.reference import PLACEHOLDER

#: Fig. 6e's series by colour: three strong, the weak one and gamma = -1 (no series of its own there).
GAMMA_COLOURS = {-0.7778: "C3", -0.5556: "C1", -0.3333: "C2", -1.0: "0.3", 0.3333: "C0"}
#: The column of each series beside its alpha: the weak series nearest, then gamma = -1 and the strong ones.
GAMMA_ORDER = (0.3333, -1.0, -0.7778, -0.5556, -0.3333)


def _placeholder(ax, text: str = PLACEHOLDER) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", color="0.4")


def _log_axes(ax, ticks: Sequence[int] | None = None) -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    if ticks:
        ax.set_xticks(list(ticks))
        ax.set_xticklabels([str(m) for m in ticks])
        ax.minorticks_off()


def loss_vs_width(
    df: pd.DataFrame, fits: pd.DataFrame, pred: pd.DataFrame, regimes: Mapping[str, float], ms: Sequence[int]
) -> Figure:
    """Loss against width, weak and strong regime side by side: each model, the fit per alpha, and
    in the weak panel the ideal of keeping the m most frequent features (dashed) and the loss of the
    features each model left out (crosses)."""
    alphas = sorted(df.alpha.unique())
    colors = dict(zip(alphas, figures.palette(len(alphas)), strict=True))
    fig, axes = plt.subplots(1, 2, figsize=figures.size(3.4), sharey=True)
    mm = np.geomspace(min(ms), max(ms), 50)
    for ax, reg in zip(axes, ("weak", "strong"), strict=True):
        for a in alphas:
            d = df[(df.regime == reg) & (df.alpha == a)]
            f = fits[(fits.regime == reg) & (fits.alpha == a)]
            ax.plot(d.m, d.loss, "o", color=colors[a], ms=4)
            if len(f):
                fit = f.iloc[0]
                label = f"α = {a:g}" if reg == "weak" else None
                ax.plot(mm, np.exp(fit.log_A) * mm**-fit.alpha_m, "-", color=colors[a], lw=1, label=label)
            if reg == "weak":
                p = pred[pred.alpha == a]
                ax.plot(p.m, p.unlearned_loss, "--", color=colors[a], lw=0.9, alpha=0.8)
                ax.plot(d.m, d.left_out_loss, "x", color=colors[a], ms=6, mew=1.2)
        _log_axes(ax, ms)
        ax.set_xlabel("width m")
        ax.set_title(f"{reg} regime (γ = {regimes[reg]:g})")
    axes[0].set_ylabel("final loss (summed over features)")
    marks = [
        plt.Line2D([], [], color="0.3", marker="o", ls="-", ms=4, lw=1, label="trained, with fit"),
        plt.Line2D([], [], color="0.3", marker="x", ls="none", ms=6, label="left-out features' loss"),
        plt.Line2D([], [], color="0.3", ls="--", lw=0.9, label="keep the m most frequent"),
    ]
    handles = axes[0].get_legend_handles_labels()[0] + marks
    fig.legend(handles=handles, loc="lower center", ncol=min(4, len(handles)), bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.06 * (1 + (len(handles) - 1) // 4), 1, 1))
    return fig


def exponents_vs_alpha(
    fits: pd.DataFrame, pred_fits: pd.DataFrame, fig6e_spread: Mapping[float, tuple[float, float]]
) -> Figure:
    """Fitted width exponents with their 95% intervals against alpha, the theory lines (alpha - 1,
    1, 2(alpha - 1)), the weak-regime prediction (open circles) and, as grey bars, where Fig. 6e's
    strong series lie at each alpha (``fig6e_spread``: ``{alpha: (low, high)}``)."""
    alphas = sorted(fits.alpha.unique())
    aa = np.linspace(min(alphas), max(alphas), 50)
    a1 = aa[aa >= 1]
    fig, ax = plt.subplots(figsize=figures.size(3.4))
    c_weak, c_strong = figures.palette(4)[0], figures.palette(4)[3]
    ax.plot(a1, a1 - 1, color=c_weak, lw=1, label="theory, weak: α − 1 (α > 1)")
    ax.plot(aa, np.ones_like(aa), color=c_strong, lw=1, label="theory, strong: 1")
    ax.plot(a1, 2 * (a1 - 1), color="0.4", lw=1, ls=":", label="2(α − 1)")
    dx = 0.012 * (max(alphas) - min(alphas) or 1)
    for reg, c, mk, off in (("weak", c_weak, "o", -dx), ("strong", c_strong, "s", dx)):
        d = fits[fits.regime == reg]
        yerr = [d.alpha_m - d.ci_low, d.ci_high - d.alpha_m]
        ax.errorbar(d.alpha + off, d.alpha_m, yerr=yerr, fmt=mk, color=c, ms=5, capsize=3, label=f"measured, {reg}")
    ax.plot(
        pred_fits.alpha - dx,
        pred_fits.alpha_m_pred,
        "o",
        mfc="none",
        color=c_weak,
        ms=7,
        label="dropped-feature prediction",
    )
    for j, (a, (lo, hi)) in enumerate(sorted(fig6e_spread.items())):
        label = "Liu et al., strong (Fig. 6e)" if j == 0 else None
        ax.plot([a + 2 * dx] * 2, [lo, hi], color="0.6", lw=4, alpha=0.6, solid_capstyle="butt", label=label)
    ax.set_xlabel(r"frequency exponent $\alpha$  ($p_i \propto i^{-\alpha}$)")
    ax.set_ylabel(r"width exponent $\alpha_m$  ($L \propto m^{-\alpha_m}$)")
    ax.axhline(0, color="0.7", lw=0.6)
    figures.legend_below(ax, ncol=2)
    fig.tight_layout()
    return fig


def exponents_by_gamma(gfits: pd.DataFrame) -> Figure:
    """Fitted width exponents against alpha, one colour per signed decay gamma (the view of Fig. 6e)."""
    gammas = sorted(gfits.gamma.unique())
    alphas = sorted(gfits.alpha.unique())
    aa = np.linspace(min(alphas), max(alphas), 50)
    a1 = aa[aa >= 1]
    fig, ax = plt.subplots(figsize=figures.size(3.4))
    cmap, norm = plt.get_cmap("coolwarm_r"), plt.Normalize(-1, 1)
    spread = 0.02 * (max(alphas) - min(alphas) or 1)
    offsets = spread * (np.arange(len(gammas)) - (len(gammas) - 1) / 2) / max(len(gammas), 1)
    for g, off in zip(gammas, offsets, strict=True):
        d = gfits[gfits.gamma == g]
        yerr = [d.alpha_m - d.ci_low, d.ci_high - d.alpha_m]
        ax.errorbar(d.alpha + off, d.alpha_m, yerr=yerr, fmt="o", color=cmap(norm(g)), ms=4.5, capsize=2, lw=0.8)
    ax.plot(aa, np.ones_like(aa), "k--", lw=0.8, label="1")
    ax.plot(a1, a1 - 1, "k-.", lw=0.8, label="α − 1")
    ax.plot(a1, 2 * (a1 - 1), "k:", lw=0.8, label="2(α − 1)")
    ax.axhline(0, color="0.7", lw=0.6)
    ax.set_xlabel(r"frequency exponent $\alpha$")
    ax.set_ylabel(r"width exponent $\alpha_m$")
    fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label="signed decay γ", pad=0.02)
    figures.legend_below(ax, ncol=3)
    fig.tight_layout()
    return fig


def overlap_vs_width(strong: pd.DataFrame, paper: Sequence[tuple[float, float]]) -> Figure:
    """The strong-regime models' mean square overlap against 1/m, with 1/m, the Welch bound and
    the paper's Fig. 6d points ``(1/m, overlap)``."""
    alphas = sorted(strong.alpha.unique())
    colors = dict(zip(alphas, figures.palette(len(alphas)), strict=True))
    fig, ax = plt.subplots(figsize=figures.size(3.2))
    for a in alphas:
        d = strong[strong.alpha == a]
        ax.plot(d.one_over_m, d.mean_sq_overlap, "o", color=colors[a], ms=4, label=f"α = {a:g}")
    xx = np.geomspace(min(0.008, strong.one_over_m.min() * 0.8), strong.one_over_m.max() * 1.2, 20)
    ax.plot(xx, xx, "k-", lw=0.8, label="1/m")
    w = strong.drop_duplicates("m").sort_values("one_over_m")
    ax.plot(w.one_over_m, w.welch, "k:", lw=0.8, label="Welch bound")
    ax.plot(*zip(*paper, strict=True), "x", color="0.3", ms=6, label="Liu et al., Fig. 6d (n = 1000)")
    _log_axes(ax)
    ax.set_xlabel("1 / m")
    ax.set_ylabel(r"mean square overlap $E[(\hat w_i \cdot \hat w_j)^2]$")
    figures.legend_below(ax, ncol=3)
    fig.tight_layout()
    return fig


def other_laws(odf: pd.DataFrame, ofits: pd.DataFrame, ms: Sequence[int]) -> Figure:
    """Strong-regime loss against width for frequency laws that are not (all) power laws, each with
    its fit and, in the legend, the slope the paper reports for exp-17."""
    _, ax = plt.subplots(figsize=figures.size(3.2))
    mo = np.geomspace(min(ms), max(ms), 50)
    groups = list(odf.groupby("law", sort=False))
    for (name, d), c in zip(groups, figures.palette(len(groups)), strict=True):
        f = ofits[ofits.law == name].iloc[0]
        ax.plot(d.m, d.loss, "o", color=c, ms=4)
        label = f"{name}: $\\alpha_m$ = {f.alpha_m:.2f} (reported {f.alpha_m_reported:.3f})"
        ax.plot(mo, np.exp(f.log_A) * mo**-f.alpha_m, "-", color=c, lw=1, label=label)
    _log_axes(ax, ms)
    return figures.label_axes(ax, "width m", "final loss (summed over features)", ncol=1)


def reference_losses(rdf: pd.DataFrame, rfits: pd.DataFrame) -> Figure:
    """The reference toy models' loss against width with their fits, weak and strong regime."""
    fig, axes = plt.subplots(1, 2, figsize=figures.size(3.2), sharey=True)
    alphas = sorted(rdf.alpha.unique())
    colors = dict(zip(alphas, figures.palette(max(1, len(alphas))), strict=False))
    for ax, reg in zip(axes, ("weak", "strong"), strict=True):
        for a, d in rdf[rdf.regime == reg].groupby("alpha"):
            f = rfits[(rfits.regime == reg) & (rfits.alpha == a)] if len(rfits) else rfits
            ax.plot(d.m, d.loss, "o", color=colors[a], ms=5, label=f"α = {a:g}" if reg == "weak" else None)
            if len(f):
                mm = np.geomspace(d.m.min(), d.m.max(), 20)
                ax.plot(mm, np.exp(f.log_A.iloc[0]) * mm ** -f.alpha_m.iloc[0], "-", color=colors[a], lw=1)
        if not len(rdf):
            _placeholder(ax, "no reference points\nin this build")
        _log_axes(ax)
        ax.set_xlabel("width m")
        ax.set_title(f"{reg} regime")
    axes[0].set_ylabel("final loss (summed over features)")
    if len(rdf):
        fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=4, bbox_to_anchor=(0.5, 0.0))
        fig.tight_layout(rect=(0, 0.08, 1, 1))
    else:
        fig.tight_layout()
    return fig


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


def seed_outliers(flagged: pd.DataFrame, factor: float) -> Figure:
    """Every seeded model's loss over the median of its seeds at the same (gamma, alpha, m),
    against m, with the outlier rule's factor either way (dashed) and the flagged models ringed."""
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


def phi_one(ours: pd.DataFrame, digitised: pd.DataFrame, gamma: float) -> Figure:
    """The strong fraction phi_1 against width: our models at ``gamma`` (dots) and Fig. 6c
    digitised (open squares, dashed), one colour per alpha."""
    fig, ax = plt.subplots(figsize=figures.size(3.2))
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
    ax.set_xscale("log")
    ax.set_xlabel("width m")
    ax.set_ylabel(r"$\varphi_1$ (rows with norm > 1)")
    ax.set_ylim(-0.02, 1.05)
    if not len(ours):
        _placeholder(ax)
    figures.legend_below(ax, ncol=2)
    fig.tight_layout()
    return fig


def overlap_definitions(ovd: pd.DataFrame) -> Figure:
    """The retrained models' mean square overlap in units of 1/m under each definition."""
    fig, ax = plt.subplots(figsize=figures.size(3.2))
    names = list(dict.fromkeys(ovd.definition))
    dcol = dict(zip(names, figures.palette(max(1, len(names))), strict=False))
    for name, d in ovd.groupby("definition", sort=False):
        d = d.dropna(subset=["times_m"])
        if len(d):
            ax.plot(d.m, d.times_m, "o-", color=dcol.get(name, "0.5"), ms=4, lw=1, label=name)
    ax.axhline(1.0, color="k", ls=":", lw=0.9, label="1/m (Fig. 6d: about 1)")
    ax.set_xscale("log")
    ax.set_xlabel("width m")
    ax.set_ylabel("mean square overlap × m")
    if not len(ovd):
        _placeholder(ax)
    figures.legend_below(ax, ncol=3)
    fig.tight_layout()
    return fig


def contrast(ctp: pd.DataFrame, controls: Mapping[str, pd.DataFrame]) -> Figure:
    """Loss against width for exponential frequencies, weak and strong regime (seed 0), each with a
    parabola in log m (solid) and the best power law (dotted), the matched power-law control of each
    regime (open markers, dashed parabola) and the loss of leaving out all but the m most frequent
    features (grey dashed)."""
    from repcap.engines.fits import fit_curvature, fit_exponent

    _, ax = plt.subplots(figsize=figures.size(3.2))
    rcol = {"weak": "C0", "strong": "C3"}
    for (g, reg), d in ctp[ctp.seed == 0].groupby(["gamma", "regime"]):
        ax.plot(d.m, d.loss, "o", color=rcol[reg], ms=5, label=f"exponential, {reg}, γ = {g:+.3f}".replace("-", "−"))
        if d.m.nunique() >= 4:
            mm = np.geomspace(d.m.min(), d.m.max(), 40)
            ax.plot(mm, fit_curvature(d.m, d.loss).predict(mm), "-", color=rcol[reg], lw=1)
            ax.plot(mm, fit_exponent(d.m, d.loss).predict(mm), ":", color=rcol[reg], lw=1)
        c = controls.get(reg, pd.DataFrame())
        if len(c) and c.m.nunique() >= 4:
            label = f"power-law control, {reg} (α = {float(c.alpha.iloc[0]):g})"
            ax.plot(c.m, c.loss, "s", mfc="none", color=rcol[reg], ms=5, label=label)
            mm = np.geomspace(c.m.min(), c.m.max(), 40)
            ax.plot(mm, fit_curvature(c.m, c.loss).predict(mm), "--", color=rcol[reg], lw=0.8)
    ax.plot([], [], "-", color="0.35", lw=1, label="parabola in log m")
    ax.plot([], [], ":", color="0.35", lw=1, label="best power law")
    ideal = ctp[ctp.seed == 0].drop_duplicates("m")
    if len(ideal):
        ax.plot(ideal.m, ideal.ideal_loss, "--", color="0.45", lw=1, label="left-out features' loss (weak ideal)")
    else:
        _placeholder(ax)
    _log_axes(ax)
    return figures.label_axes(ax, "width m", "final loss (summed over features)")


__all__ = [
    "GAMMA_COLOURS",
    "contrast",
    "exponents_by_gamma",
    "exponents_vs_alpha",
    "fig6e",
    "loss_vs_width",
    "other_laws",
    "overlap_definitions",
    "overlap_vs_width",
    "phi_one",
    "reference_losses",
    "seed_outliers",
]
