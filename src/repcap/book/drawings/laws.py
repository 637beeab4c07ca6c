"""Chapter 7's figures (the capacity laws against the spherical-code bounds), each drawn from the one
table of :mod:`repcap.book.figdata.packing` or :mod:`repcap.book.figdata.laws` that
:func:`repcap.book.figures.save` ships (fits, marked constants and quoted values are rows of it)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from .. import figures
from ..figdata.laws_yoder import C_LINE, RULE_QUOTED
from ..figdata.packing import C_CEILING_SERIES, REFERENCE_C_CEILING, REFERENCE_C_SERIES, RULE_HIS_CODE, RULE_M60
from ..figdata.reference import PLACEHOLDER

#: The bounds' styles in the capacity figure (colour, line style, width); the laws take the palette.
BOUND_STYLES = {
    "Welch bound (rigorous)": ("k", "-", 2.0),
    "Levenshtein bound (rigorous)": ("k", "--", 1.4),
    "Kabatiansky–Levenshtein (asymptotic)": ("0.5", ":", 1.6),
}
#: The markers of the series of Yoder's constant (projections: triangles).
C_MARKERS = {
    "optimised packing": "o",
    "random vectors": "s",
    REFERENCE_C_SERIES: "D",
    REFERENCE_C_CEILING: "d",
    C_CEILING_SERIES: "_",
}


def guha_data(points: pd.DataFrame) -> Figure:
    """Guha's stored eps* with our refits (:func:`repcap.book.figdata.packing.fit_points`), one panel per
    data set in the table's order: points per width, each panel's first fit solid and the others
    dotted; one legend of the widths (the last panel's) below."""
    panels = list(dict.fromkeys(points.data))
    fit_cols = [c for c in points.columns if c.startswith("fit: ")]
    fig, axes = plt.subplots(1, len(panels), figsize=figures.size(3.8), squeeze=False)
    for ax, title in zip(axes[0], panels, strict=True):
        data = points[points.data == title]
        shown = [c for c in fit_cols if data[c].notna().any()]
        widths = list(dict.fromkeys(data.d))
        pal = dict(zip(widths, figures.palette(len(widths)), strict=True))
        for d in widths:
            g = data[data.d == d]
            ax.plot(g.k, g.eps_star, "o", ms=3.5, color=pal[d], label=f"d = {d}")
            for j, col in enumerate(shown):
                ax.plot(g.k, g[col], "-" if j == 0 else ":", color=pal[d], lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("number of vectors k")
        ax.set_title(title)
    axes[0, 0].set_ylabel("ε* = max |cos| (Guha's stored values)")
    h, labels = axes[0, -1].get_legend_handles_labels()
    fig.legend(
        h,
        labels,
        loc="lower center",
        ncol=len(h),
        bbox_to_anchor=(0.5, 0.0),  # one row, in order of d
        columnspacing=1.0,
        handletextpad=0.3,
    )
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def reference_cells(table: pd.DataFrame) -> Figure:
    """Guha's cells re-run per width (:func:`repcap.book.figdata.packing.reference_cells_figure`: the
    cells of both exponent rules, ``rule``): the eps* he stores (open squares), ours with his code's
    exponent rule (dots) and with M = 60 (triangles); the placeholder when none of our cells is among his."""
    rule = table["rule"] if "rule" in table else pd.Series("", index=table.index)
    cells, cells_m60 = table[rule == RULE_HIS_CODE], table[rule == RULE_M60]
    _, ax = plt.subplots(figsize=figures.size(3.0))
    if len(cells) and cells["relative gap"].notna().any():
        for c, (d, g) in zip(figures.palette(3), cells.groupby("d")):
            ax.plot(g.k, g["ε* (Guha's data)"], "s", mfc="none", color=c, ms=7)
            ax.plot(g.k, g["ε* (ours)"], "o-", color=c, ms=4, lw=1, label=f"d = {d}")
            m60 = cells_m60[cells_m60.d == d]
            ax.plot(m60.k, m60["ε* (ours)"], "^", color=c, ms=5, mfc="white")
        ax.plot([], [], "s", mfc="none", color="0.3", label="Guha's stored ε*")
        ax.plot([], [], "o-", color="0.3", ms=4, lw=1, label="ours, his code's rule (M = 40 at k ≤ 4000)")
        ax.plot([], [], "^", color="0.3", ms=5, mfc="white", label="ours, M = 60")
    else:
        ax.text(0.5, 0.5, PLACEHOLDER, transform=ax.transAxes, ha="center", color="0.4")
    ax.set_xscale("log")
    ax.set_xticks([2000, 4000, 8000])
    ax.set_xticklabels(["2000", "4000", "8000"])
    ax.minorticks_off()
    return figures.label_axes(ax, "number of vectors k", "ε* = max |cos|", ncol=3)


def grid(points: pd.DataFrame) -> Figure:
    """The simulated grid (:func:`repcap.book.figdata.packing.grid_points`), one colour per width:
    optimised eps* (filled), best random draw (open), the refitted law (solid) and the rigorous
    lower bound (dotted)."""
    fig, ax = plt.subplots(figsize=figures.size(4.6))
    ds = sorted(points.d.unique())
    cols = dict(zip(ds, figures.palette(len(ds)), strict=True))
    marks: dict[str, tuple[str, dict[str, Any]]] = {  # series: format and style
        "optimised": ("o", {}),
        "random (best of trials)": ("o", {"mfc": "none"}),
        "adjusted law (refit)": ("-", {"lw": 1}),
        "rigorous lower bound": (":", {"lw": 1.2}),
    }
    for d in ds:
        g = points[points.d == d]
        for series, (fmt, style) in marks.items():
            s = g[g.series == series]
            label: dict[str, Any] = {"label": f"d = {int(d)}"} if series == "optimised" else {}
            ax.plot(s.k, s.eps, fmt, color=cols[d], **label, **style)
    ax.set_xscale("log")
    ax.set_xlabel("number of vectors k")
    ax.set_ylabel("ε* = max |cos| over pairs")
    handles = [Line2D([], [], color=cols[d], marker="o", ls="", label=f"d = {int(d)}") for d in ds] + [
        Line2D([], [], color="0.3", marker="o", ls="", label="optimised"),
        Line2D([], [], color="0.3", marker="o", mfc="none", ls="", label="random, best of trials"),
        Line2D([], [], color="0.3", ls="-", label="adjusted law, refit"),
        Line2D([], [], color="0.3", ls=":", label="Welch / Levenshtein bound"),
    ]
    figures.legend_below(ax, handles=handles, ncol=3)
    return fig


def yoder_constants(table: pd.DataFrame) -> Figure:
    """Yoder's constant C against N/k (:func:`repcap.book.figdata.laws.yoder_C_figure`), one marker
    per source, with its marked constants (rows :data:`~repcap.book.figdata.laws.C_LINE`: dashed and
    labelled at the right) on log-log axes."""
    cdf, marked = table[table.source != C_LINE], table[table.source == C_LINE]
    lines = list(zip(marked.C, marked.label, strict=True))
    _, ax = plt.subplots(figsize=figures.size(4.4))
    srcs = list(dict.fromkeys(cdf.source))
    pal = dict(zip(srcs, figures.palette(len(srcs)), strict=True))
    for s in srcs:
        g = cdf[cdf.source == s].sort_values("ratio")
        ax.plot(g.ratio, g.C, C_MARKERS.get(s, "^"), color=pal[s], label=s, ms=5, alpha=0.85)
    for c, label in lines:
        ax.axhline(c, color="0.4", ls="--", lw=0.8)
        ax.annotate(label, (cdf.ratio.max(), c), ha="right", va="bottom", fontsize=8.5, color="0.3")
    return figures.label_axes(
        ax,
        "N/k: vectors per dimension (this book: k/d)",
        "C = ε² · dimension / ln(number of vectors)",
        log="xy",
        tight=False,
    )


def capacity(table: pd.DataFrame) -> Figure:
    """log10 of the number of vectors in R^d against degrees off orthogonal
    (:func:`repcap.book.figdata.laws.yoder_capacity_figure`, its width ``d``): the laws in the palette,
    the bounds in :data:`BOUND_STYLES`, and Yoder's quoted values (rows
    :data:`~repcap.book.figdata.laws.RULE_QUOTED`) as crosses in the colour of his rule."""
    cap, quoted = table[table.curve != RULE_QUOTED], table[table.curve == RULE_QUOTED]
    d = int(table.d.iloc[0])
    curves = list(dict.fromkeys(cap.curve))
    fig, ax = plt.subplots(figsize=figures.size(5.2))
    lawlines = [c for c in curves if c not in BOUND_STYLES]
    pal = dict(zip(lawlines, figures.palette(len(curves) - len(BOUND_STYLES)), strict=False))
    for name in curves:
        g = cap[(cap.curve == name) & np.isfinite(cap.log10_k)]
        c, ls, lw = BOUND_STYLES.get(name, (pal.get(name), "-", 1.3))
        ax.plot(g.F_deg, g.log10_k, color=c, ls=ls, lw=lw, label=name)
    rule = next(c for c in curves if c.startswith("Yoder's rule"))
    for F, v in zip(quoted.F_deg, quoted.log10_k, strict=True):
        ax.plot(F, v, "x", color=pal[rule], ms=6)
    ax.set_ylim(0, 500)
    ax.set_xlim(0, cap.F_deg.max())
    ax.set_xlabel(f"F: degrees off orthogonal (ε = sin F), d = {d:,}")
    ax.set_ylabel("log₁₀ of the number of vectors")
    figures.legend_below(ax, ncol=2)
    return fig
