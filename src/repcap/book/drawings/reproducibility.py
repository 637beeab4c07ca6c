"""Chapter 12's figure (points computed on two machines), drawn from the one table of
:func:`repcap.book.figdata.reproducibility.pairs_figure` that :func:`repcap.book.figures.save` ships."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import figures


def shared_points(pairs: pd.DataFrame) -> Figure:
    """One panel per metric: ln(a/b) of each point computed on both machines, against one seed's
    scatter (grey band) and the 95% interval of the mean (blue band)."""
    panels = pairs[pairs.panel >= 0]
    metrics = list(dict.fromkeys(panels.sort_values("panel", kind="stable").metric))
    fig, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 3.6), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        sub = panels[panels.metric == metric].reset_index(drop=True)
        r = sub.iloc[0]
        x = np.arange(len(sub))
        if pd.notna(r["seed sd"]):
            ax.axhspan(-r["seed sd"], r["seed sd"], color="0.85", label="± one seed's scatter")
        if pd.notna(r["interval low"]):
            ax.axhspan(r["interval low"], r["interval high"], color="C0", alpha=0.25, label="95% interval of the mean")
        ax.axhline(0.0, color="k", lw=0.6)
        ax.plot(x, sub["ln(a/b)"], "o", color="C0", label="one point on both machines")
        ax.set_xticks(x)
        ax.set_xticklabels(sub["point"].str.replace(", ", "\n"), fontsize=7)
        ax.set_ylabel(f"ln({metric}: primary / other)")
        ax.set_title(f"{metric}: {r['verdict']}", fontsize=9)
    figures.legend_below(axes[0][0], ncol=3)
    fig.tight_layout()
    return fig
