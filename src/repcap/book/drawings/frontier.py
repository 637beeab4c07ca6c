"""Chapter 11's figure: the achievable frontier in four widths."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.figure import Figure

from .. import figures

#: The series of :func:`repcap.book.figdata.frontier.frontier_panels`, in the order their colours are drawn.
SERIES = ("bound", "law", "explicit", "guha", "ours")


def eps_vs_k(panels: pd.DataFrame) -> Figure:
    """ε against log10 k, one panel per width (the ``panel`` column, in order): the rigorous lower
    bound (solid), Guha's four-constant law (dashed), the explicit codes (filled where their coherence
    is exact, open where it is the Carlitz–Uchiyama bound), his stored packings (crosses) and ours
    (a triangle for the reference bundle's runs at his settings); one legend under the panels."""
    fig, axes = plt.subplots(2, 2, figsize=figures.size(6.4))
    colors = dict(zip(SERIES, figures.palette(len(SERIES)), strict=True))
    for ax, (panel, g) in zip(axes.ravel(), panels.groupby("panel", sort=False)):
        b, law = g[g.series == "bound"], g[g.series == "law"]
        ax.plot(b.log10_k, b.eps, color="0.15", lw=1.2, label="rigorous lower bound (Welch, Levenshtein)")
        ax.plot(law.log10_k, law.eps, color=colors["law"], ls="--", lw=1.0, label="Guha's four-constant law")
        ex = g[g.series == "explicit"]
        for status, fill in (("exact", True), ("bound", False)):
            e = ex[ex.status == status]
            ax.scatter(
                e.log10_k,
                e.eps,
                s=26,
                marker="o",
                facecolors=colors["explicit"] if fill else "none",
                edgecolors=colors["explicit"],
                label=f"explicit code ({'exact' if fill else 'Carlitz–Uchiyama bound'})",
                zorder=3,
            )
        gu = g[g.series == "guha"]
        ax.scatter(gu.log10_k, gu.eps, marker="x", s=18, color=colors["guha"], label="Guha's stored ε*", zorder=3)
        for lab, o in g[g.series == "ours"].groupby("name"):
            marker = "^" if "reference" in lab else "."
            ax.scatter(o.log10_k, o.eps, marker=marker, s=30, color=colors["ours"], label=lab)
        ax.set_yscale("log")
        ax.set_title(panel)
        ax.set_xlabel("log10 k (number of vectors)")
    for ax in axes[:, 0]:
        ax.set_ylabel("ε (largest |cos|)")
    handles: dict[str, Artist] = {}
    for ax in axes.ravel():
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    return fig


def against_best_known(ratios: pd.DataFrame, series: tuple[str, ...] = ("best of all",)) -> Figure:
    """Our ε as a multiple of the best-known coherence of each cell of Sloane's table, against N (log),
    coloured by d, one marker per ``series`` (values of ``optimiser``: by default the best over settings
    and starts; circles, then crosses); the line at 1 is as good as the best known. With more than one
    series, a legend names them."""
    fig, ax = plt.subplots(figsize=figures.size(3.4))
    d_range = (ratios.d.min(), ratios.d.max())
    drawn = []
    for name, marker in zip(series, ("o", "x", "^", "s")):
        rows = ratios[ratios.optimiser == name]
        drawn.append(
            ax.scatter(
                rows.N,
                rows.ratio_best,
                c=rows.d,
                cmap="viridis",
                vmin=d_range[0],
                vmax=d_range[1],
                s=22,
                marker=marker,
                label=name,
            )
        )
    ax.axhline(1.0, color="0.2", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("N (lines)")
    ax.set_ylabel("our ε / best-known coherence")
    fig.colorbar(drawn[0], ax=ax, label="d")
    if len(series) > 1:
        ax.legend(loc="upper left", fontsize="small")
    return fig
