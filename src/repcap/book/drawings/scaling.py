"""Chapter 9's figures of the toy sweeps (width scaling of Liu, Liu & Gore 2025's toy model), each
drawn from the one table :mod:`repcap.book.figdata.scaling` (or :mod:`~repcap.book.figdata.toy`) makes
and :func:`repcap.book.figures.save` ships: the models are the rows of ``kind = "model"``, the lines
through them the rows of ``"fit"`` and ``"ideal"``, the paper's points the rows named after its figure.
The reference-bundle figures are in :mod:`.scaling_reference`."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import figures
from ..figdata.reference import PLACEHOLDER


def _placeholder(ax, text: str = PLACEHOLDER) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", color="0.4")


def _log_axes(ax, ticks: Sequence[int] | None = None) -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    if ticks:
        ax.set_xticks(list(ticks))
        ax.set_xticklabels([str(m) for m in ticks])
        ax.minorticks_off()


def _kind(table: pd.DataFrame, kind: str, columns: Sequence[str] = ()) -> pd.DataFrame:
    """The rows of ``kind``; an empty frame with ``columns`` where the table has no such rows (a placeholder)."""
    if "kind" not in table.columns:
        return pd.DataFrame(columns=list(columns))
    return table[table.kind == kind]


def _widths(models: pd.DataFrame) -> list[int]:
    """The sweep's widths: the ticks of a loss-against-width axis."""
    return sorted({int(m) for m in models.m})


def loss_vs_width(table: pd.DataFrame) -> Figure:
    """Loss against width, weak and strong regime side by side (:func:`repcap.book.figdata.scaling.loss_figure`):
    each model, the fit per alpha, and in the weak panel the ideal of keeping the m most frequent
    features (dashed) and the loss of the features each model left out (crosses)."""
    df, fits, pred = (_kind(table, k) for k in ("model", "fit", "ideal"))
    alphas = sorted(df.alpha.unique())
    colors = dict(zip(alphas, figures.palette(len(alphas)), strict=True))
    fig, axes = plt.subplots(1, 2, figsize=figures.size(3.4), sharey=True)
    for ax, reg in zip(axes, ("weak", "strong"), strict=True):
        for a in alphas:
            d = df[(df.regime == reg) & (df.alpha == a)]
            f = fits[(fits.regime == reg) & (fits.alpha == a)]
            ax.plot(d.m, d.loss, "o", color=colors[a], ms=4)
            if len(f):
                label = f"α = {a:g}" if reg == "weak" else None
                ax.plot(f.m, f.loss, "-", color=colors[a], lw=1, label=label)
            if reg == "weak":
                p = pred[pred.alpha == a]
                ax.plot(p.m, p.unlearned_loss, "--", color=colors[a], lw=0.9, alpha=0.8)
                ax.plot(d.m, d.left_out_loss, "x", color=colors[a], ms=6, mew=1.2)
        _log_axes(ax, _widths(df))
        ax.set_xlabel("width m")
        ax.set_title(f"{reg} regime (γ = {df[df.regime == reg].gamma.iloc[0]:g})")
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


def exponents_vs_alpha(table: pd.DataFrame) -> Figure:
    """Fitted width exponents with their 95% intervals against alpha (rows ``kind = "fit"`` of
    :func:`repcap.book.figdata.scaling.exponents_figure`), the theory lines (alpha - 1, 1, 2(alpha - 1)),
    the weak-regime prediction (open circles) and, as grey bars, where Fig. 6e's strong series lie at
    each alpha (rows ``"Fig. 6e"``)."""
    fits, spread = _kind(table, "fit"), _kind(table, "Fig. 6e")
    pred_fits = fits.drop_duplicates("alpha").sort_values("alpha")
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
    for j, r in enumerate(spread.sort_values("alpha").itertuples()):
        label = "Liu et al., strong (Fig. 6e)" if j == 0 else None
        a = r.alpha + 2 * dx
        ax.plot([a, a], [r.fig6e_low, r.fig6e_high], color="0.6", lw=4, alpha=0.6, solid_capstyle="butt", label=label)
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


def overlap_vs_width(table: pd.DataFrame) -> Figure:
    """The strong-regime models' mean square overlap against 1/m (rows ``kind = "model"`` of
    :func:`repcap.book.figdata.scaling.overlap_figure`), with 1/m, the Welch bound and the paper's
    Fig. 6d points (rows ``"Fig. 6d"``)."""
    strong, paper = _kind(table, "model"), _kind(table, "Fig. 6d")
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
    ax.plot(paper.one_over_m, paper.mean_sq_overlap, "x", color="0.3", ms=6, label="Liu et al., Fig. 6d (n = 1000)")
    _log_axes(ax)
    ax.set_xlabel("1 / m")
    ax.set_ylabel(r"mean square overlap $E[(\hat w_i \cdot \hat w_j)^2]$")
    figures.legend_below(ax, ncol=3)
    fig.tight_layout()
    return fig


def other_laws(table: pd.DataFrame) -> Figure:
    """Strong-regime loss against width for frequency laws that are not (all) power laws (rows
    ``kind = "model"`` of :func:`repcap.book.figdata.scaling.other_figure`), each with its fit (rows
    ``"fit"``) and, in the legend, the slope the paper reports for exp-17."""
    odf, ofits = _kind(table, "model"), _kind(table, "fit")
    _, ax = plt.subplots(figsize=figures.size(3.2))
    groups = list(odf.groupby("law", sort=False))
    for (name, d), c in zip(groups, figures.palette(len(groups)), strict=True):
        f = ofits[ofits.law == name]
        ax.plot(d.m, d.loss, "o", color=c, ms=4)
        label = f"{name}: $\\alpha_m$ = {f.alpha_m.iloc[0]:.2f} (reported {f.alpha_m_reported.iloc[0]:.3f})"
        ax.plot(f.m, f.loss, "-", color=c, lw=1, label=label)
    _log_axes(ax, _widths(odf))
    return figures.label_axes(ax, "width m", "final loss (summed over features)", ncol=1)


def reference_losses(table: pd.DataFrame) -> Figure:
    """The reference toy models' loss against width (rows ``kind = "model"`` of
    :func:`repcap.book.figdata.scaling.reference_figure`) with their fits (rows ``"fit"``), weak and
    strong regime; the placeholder where the build has no reference points."""
    rdf, rfits = _kind(table, "model", ["regime", "alpha", "m", "loss"]), _kind(table, "fit")
    fig, axes = plt.subplots(1, 2, figsize=figures.size(3.2), sharey=True)
    alphas = sorted(rdf.alpha.unique())
    colors = dict(zip(alphas, figures.palette(max(1, len(alphas))), strict=False))
    for ax, reg in zip(axes, ("weak", "strong"), strict=True):
        for a, d in rdf[rdf.regime == reg].groupby("alpha"):
            f = rfits[(rfits.regime == reg) & (rfits.alpha == a)]
            ax.plot(d.m, d.loss, "o", color=colors[a], ms=5, label=f"α = {a:g}" if reg == "weak" else None)
            if len(f):
                ax.plot(f.m, f.loss, "-", color=colors[a], lw=1)
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


__all__ = [
    "exponents_by_gamma",
    "exponents_vs_alpha",
    "loss_vs_width",
    "other_laws",
    "overlap_vs_width",
    "reference_losses",
]
