"""Chapter 4's and chapter 10's figures (the mean square overlap of LM heads and toys against width),
drawn from the one table of :func:`repcap.book.figdata.survey.overlap_figure` or
:func:`~repcap.book.figdata.survey.toyllm_figure` that :func:`repcap.book.figures.save` ships."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from .. import figures
from ..figdata.survey import OVERLAP_BAND, OVERLAP_MEDIAN, OVERLAP_RANDOM, TOYLLM_BAND, TOYLLM_RANDOM

#: The marker of each kind of matrix.
MARKERS = {"LM head": "o", "encoder embedding": "s", "synthetic": "^"}


def overlap_vs_width(table: pd.DataFrame) -> Figure:
    """E[cos²] (filled) and Var(cos) (hollow, joined) of each matrix against its width, over the
    source's band, its median line and the 1/m of random directions (the table's reference rows)."""
    band, median, random = (table[table.kind == k] for k in (OVERLAP_BAND, OVERLAP_MEDIAN, OVERLAP_RANDOM))
    _, ax = plt.subplots(figsize=figures.size(5.2))
    ax.fill_between(band.ref_m, band.paper_low, band.paper_high, color="0.9", lw=0, label=band.model.iloc[0])
    ax.plot(median.ref_m, median["E[cos²]"], color="0.55", lw=1, label=median.model.iloc[0])
    ax.plot(random.ref_m, random["1/m"], color="0.3", lw=1, ls="--", label=random.model.iloc[0])
    points = table[table.kind.isin(list(MARKERS))]
    for i, (_, r) in enumerate(points.iterrows()):
        c = f"C{i % 10}"
        mk = MARKERS[r["kind"]]
        ax.scatter(r["m"], r["E[cos²]"], color=c, marker=mk, s=36, label=f"{r['model']} ({r['kind']})", zorder=3)
        ax.scatter(r["m"], r["Var(cos)"], facecolors="none", edgecolors=c, marker=mk, s=36, zorder=3)
        ax.plot([r["m"], r["m"]], [r["Var(cos)"], r["E[cos²]"]], color=c, lw=0.7)
    return figures.label_axes(ax, "width m (log scale)", "mean square overlap (log scale)", log="xy", tight=False)


def toys_and_heads(table: pd.DataFrame) -> Figure:
    """E[cos²] of toy models (one colour per α) and of LM heads and random stand-ins (E[cos²] filled,
    Var(cos) open, joined) against 1/m, over the source's band and the line 1/m (the reference rows)."""
    band, line = table[table.source == TOYLLM_BAND], table[table.source == TOYLLM_RANDOM]
    _, ax = plt.subplots(figsize=figures.size(3.4))
    ax.fill_between(band.ref_x, band.paper_low, band.paper_high, color="0.9", lw=0, label=band.model.iloc[0])
    toys = table[table.source == "toy"]
    alphas = list(dict.fromkeys(toys.alpha))
    for c, a in zip(figures.palette(len(alphas) + 2), alphas):
        d = toys[toys.alpha == a]
        ax.plot(d["one_over_m"], d["mean_sq_overlap"], "o", color=c, ms=4, label=f"toy, α = {a:g}")
    for kind, mk, c in (("LM head", "D", "k"), ("stand-in (random)", "^", "0.5")):
        d = table[table.source == kind]
        if len(d):
            ax.plot(d["one_over_m"], d["mean_sq_overlap"], mk, color=c, ms=5, label=f"{kind}, E[cos²]")
            ax.plot(d["one_over_m"], d["var_cos"], mk, color=c, mfc="none", ms=5, label=f"{kind}, Var(cos)")
            ax.vlines(d["one_over_m"], d["var_cos"], d["mean_sq_overlap"], color=c, lw=0.5)
    ax.plot(line.ref_x, line.mean_sq_overlap, "k-", lw=0.8, label=line.model.iloc[0])
    return figures.label_axes(ax, "1 / m  (m = width)", "mean square overlap E[cos²]", log="xy")
