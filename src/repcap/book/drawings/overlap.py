"""Chapter 4's figure (the mean square overlap of LM heads against width), drawn from the one table
of :func:`repcap.book.figdata.survey.overlap_figure` that :func:`repcap.book.figures.save` ships."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from .. import figures
from ..figdata.survey import OVERLAP_BAND, OVERLAP_MEDIAN, OVERLAP_RANDOM

#: The marker of each kind of matrix.
MARKERS = {"LM head": "o", "encoder embedding": "s", "synthetic": "^"}


def overlap_vs_width(table: pd.DataFrame) -> Figure:
    """E[cos²] (filled) and Var(cos) (hollow, joined) of each matrix against its width, over the
    source's band, its median line and the 1/m of random directions (the table's reference rows)."""
    band, median, random = (table[table.kind == k] for k in (OVERLAP_BAND, OVERLAP_MEDIAN, OVERLAP_RANDOM))
    fig, ax = plt.subplots(figsize=figures.size(5.2))
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
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("width m (log scale)")
    ax.set_ylabel("mean square overlap (log scale)")
    figures.legend_below(ax, ncol=2)
    return fig
