"""Chapter 3's figures (capacity under the published laws), each drawn from the one table of
:mod:`repcap.book.figdata.survey` that :func:`repcap.book.figures.save` ships beside it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import figures
from ..figdata.survey import MARK


def capacity_vs_eps(curves: pd.DataFrame) -> Figure:
    """log10 capacity against ε, one line per law, at the width of the table's ``d``; the table's
    :data:`~repcap.book.figdata.survey.MARK` rows are dots, annotated with their capacity."""
    lines, marks = curves[curves.law != MARK], curves[curves.law == MARK]
    fig, ax = plt.subplots(figsize=figures.size(3.2))
    for name, g in lines.groupby("law", sort=False):
        ax.plot(g.eps, g.log10_capacity, label=name)
    ax.plot(marks.eps, marks.log10_capacity, "ko", ms=4)
    for (eps, y), dx in zip(zip(marks.eps, marks.log10_capacity), (-10, -6)):
        ax.annotate(f"{10**y:.1e}", (eps, y), xytext=(dx, 8), textcoords="offset points", ha="right")
    ax.set_xlabel("ε")
    ax.set_ylabel("log10 capacity k")
    ax.set_title(f"d = {int(curves.d.iloc[0])}")
    ax.legend(loc="upper left")
    return fig


def thresholds(thr: pd.DataFrame) -> Figure:
    """Per model (one marker each), the threshold ε by each rule (left) and the four-constant
    capacity it implies (right) (:func:`repcap.book.figdata.survey.threshold_table`)."""
    fig, axes = plt.subplots(1, 2, figsize=figures.size(4.2))
    names = list(dict.fromkeys(thr.threshold))
    n_models = thr.model.nunique()
    markers = "osD^vP*X"
    for i, (m, grp) in enumerate(thr.groupby("model", sort=False)):
        x = np.arange(len(names)) + (i - n_models / 2) * 0.06
        axes[0].plot(x, grp.eps, marker=markers[i % len(markers)], ms=4, lw=0.9, label=m)
        axes[1].plot(x, grp.log10_capacity_four, marker=markers[i % len(markers)], ms=4, lw=0.9, label=m)
    for ax in axes:
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right")
    axes[0].set_ylabel("threshold ε")
    axes[1].set_ylabel("log10 capacity (four-constant law)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=3, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    return fig
