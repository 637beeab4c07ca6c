"""Chapter 8's figures (the weak and strong regimes of the toy model), each drawn from the one table
of :mod:`repcap.book.figdata.toy` that :func:`repcap.book.figures.save` ships beside it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import figures

#: The weak and the strong regime's colours.
WEAK, STRONG = figures.palette(4)[0], figures.palette(4)[3]


def phi_and_loss(table: pd.DataFrame) -> Figure:
    """(a) φ½ and (b) the final loss against γ, one line per α, with m/n marked (columns ``m``, ``n``)."""
    alphas = list(dict.fromkeys(table.alpha))
    m_over_n = table.m.iloc[0] / table.n.iloc[0]
    fig, axes = plt.subplots(1, 2, figsize=figures.size(3.6))
    for c, a in zip(figures.palette(len(alphas)), alphas):
        d = table[table["alpha"] == a].sort_values("gamma")
        axes[0].plot(d["gamma"], d["phi_half"], "o-", color=c, label=f"α = {a:g}")
        axes[1].plot(d["gamma"], d["loss"], "o-", color=c, label=f"α = {a:g}")
    for ax in axes:
        ax.axvline(0, color="0.6", lw=0.8, ls=":")
        ax.set_xlabel("signed weight decay γ")
    axes[0].axhline(m_over_n, color="0.3", ls="--", lw=0.8)
    axes[0].text(
        0.98, m_over_n, "  m / n", va="bottom", ha="right", color="0.3", transform=axes[0].get_yaxis_transform()
    )
    axes[0].set_ylabel("represented fraction φ½")
    axes[0].set_ylim(-0.03, 1.05)
    axes[1].set_ylabel("final loss (summed over features)")
    if len(alphas) <= 6:
        handles = axes[0].get_legend_handles_labels()
        fig.legend(*handles, loc="lower center", ncol=min(6, len(alphas)), bbox_to_anchor=(0.5, 0.0))
    axes[0].set_title("(a) rows with ‖$W_i$‖ > 1/2")
    axes[1].set_title("(b) loss")
    fig.tight_layout(rect=(0, 0.1 if len(alphas) <= 6 else 0, 1, 1))
    return fig


def norms(hist: pd.DataFrame) -> Figure:
    """Row-norm histograms of the weak and the strong example, the φ½ threshold 1/2 dashed."""
    _, ax = plt.subplots(figsize=figures.size(3.0))
    for (label, g), c in zip(hist.groupby("regime", sort=False), (WEAK, STRONG)):
        edges = np.append(g.bin_left.to_numpy(), g.bin_right.iloc[-1])
        ax.stairs(g["count"], edges, fill=True, alpha=0.55, color=c, label=label)
    ax.axvline(0.5, color="0.3", ls="--", lw=0.8)
    ax.set_yscale("symlog", linthresh=1)
    return figures.label_axes(ax, "row norm ‖$W_i$‖ (values above 2 in the last bin)", "number of features")


def features(feat: pd.DataFrame) -> Figure:
    """Row norm against feature rank in the weak and the strong example, the width ``m`` marked."""
    m = feat.m.iloc[0]
    _, ax = plt.subplots(figsize=figures.size(3.0))
    for (reg, d), c in zip(feat.groupby("regime", sort=False), (WEAK, STRONG)):
        ax.plot(d["rank"], d["norm"], ".", ms=3, color=c, label=reg)
    ax.axvline(m, color="0.3", ls="--", lw=0.8)
    ax.text(m, 1.02, " i = m", transform=ax.get_xaxis_transform(), fontsize=8, color="0.3")
    ax.axhline(0.5, color="0.6", ls=":", lw=0.8)
    return figures.label_axes(ax, "feature rank i (most frequent first)", "row norm ‖$W_i$‖", log="x")


def fig3(views: pd.DataFrame) -> Figure:
    """Liu et al.'s Fig. 3 from :func:`repcap.book.figdata.toy.fig3_views`: (a) φ½ against γ for
    several widths, where run; (b) φ½ over α and γ at one width, one labelled cell per run."""
    by_width, at_m = views[views.view != "map"], views[views.view == "map"]
    fig, (axa, axb) = plt.subplots(1, 2, figsize=figures.size(3.6), gridspec_kw={"width_ratios": [1, 1.15]})
    if len(by_width):
        cmap = plt.get_cmap("cividis")
        n_m = by_width.m.nunique()
        for i, (m_, d) in enumerate(by_width.groupby("m")):
            d = d.sort_values("gamma")
            axa.plot(d["gamma"], d["phi_half"], "o-", ms=4, color=cmap(i / max(1, n_m - 1)), label=f"m = {m_}")
        axa.legend(loc="upper right")  # the curves fall from 1 at the left to 0 at the right
    axa.set_xlabel("signed weight decay γ")
    axa.set_ylabel("represented fraction φ½")
    axa.set_title(f"(a) α = {by_width.alpha.iloc[0]:g}" if len(by_width) else "(a) not run in this profile")
    grid = at_m.pivot_table(index="alpha", columns="gamma", values="phi_half")
    _phi_map(fig, axb, grid)
    axb.set_title(f"(b) m = {at_m.m.iloc[0]}")
    fig.tight_layout()
    _cell_values(fig, axb, grid)
    return fig


def _phi_map(fig: Figure, axb, grid: pd.DataFrame) -> None:
    """One cell per run (α and γ are a grid of a few values, not a continuum), with a colour bar."""
    im = axb.imshow(grid.to_numpy(), origin="lower", aspect="auto", cmap="Purples", vmin=0, vmax=1)
    # γ labels turned upright and at 3 digits, so that neighbours never overprint (−0.778, not −0.777778)
    axb.set_xticks(range(grid.shape[1]), [f"{g:.3g}".replace("-", "−") for g in grid.columns], rotation=90)
    axb.set_yticks(range(grid.shape[0]), [f"{a:g}" for a in grid.index])
    axb.set_xticks(np.arange(grid.shape[1] + 1) - 0.5, minor=True)
    axb.set_yticks(np.arange(grid.shape[0] + 1) - 0.5, minor=True)
    axb.grid(which="minor", color="white", lw=1.5)
    axb.grid(which="major", visible=False)
    axb.tick_params(which="minor", length=0)
    fig.colorbar(im, ax=axb, label="φ½")
    axb.set_xlabel("signed weight decay γ")
    axb.set_ylabel("frequency exponent α")


def _cell_values(fig: Figure, axb, grid: pd.DataFrame) -> None:
    """Each cell's value inside its cell: across where the cell is wide enough, else upright in a tall
    cell, else none (the colour bar reads them; the CSV has them all): never over its neighbours."""
    fig.canvas.draw()
    cell_w = axb.get_window_extent().width / grid.shape[1]
    cell_h = axb.get_window_extent().height / grid.shape[0]
    probe = axb.text(0, 0, "0.00", fontsize=7.5)
    text_w = probe.get_window_extent().width
    probe.remove()
    turn = None if text_w <= 0.85 * cell_w else 90 if text_w <= 0.85 * cell_h and cell_w >= 1.6 * 7.5 else False
    if turn is False:
        return
    for (i, j), v in np.ndenumerate(grid.to_numpy()):
        if np.isfinite(v):
            colour = "white" if v > 0.55 else "black"
            axb.text(j, i, f"{v:.2f}", ha="center", va="center", rotation=turn or 0, fontsize=7.5, color=colour)
