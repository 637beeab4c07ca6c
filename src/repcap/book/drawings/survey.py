"""Chapter 2's figures (ε of real embeddings), each drawn from the one table of
:mod:`repcap.book.figdata.survey` that :func:`repcap.book.figures.save` ships beside it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import figures
from ..figdata.survey import BOUNDARY


def histograms(panels: pd.DataFrame) -> Figure:
    """One panel per model: the density of its pairwise cosines (log scale), μ and ε = μ + 2σ
    marked, the tail beyond ε shaded (:func:`repcap.book.figdata.survey.histogram_panels`)."""
    models = list(dict.fromkeys(panels.model))
    ncol = min(2, len(models))
    nrow = int(np.ceil(len(models) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=figures.size(2.1 * nrow + 0.6), squeeze=False, sharex=True)
    for ax, model in zip(axes.flat, models):
        h = panels[panels.model == model].reset_index(drop=True)
        r = h.iloc[0]
        ax.fill_between(h.cos, h.density, step="mid", color="0.65", lw=0)
        tail = h.cos >= r["eps"]
        ax.fill_between(h.cos[tail], h.density[tail], step="mid", color="C3", lw=0, label="tail beyond ε")
        ax.axvline(r["mu"], color="C0", lw=1.2, label="μ")
        ax.axvline(r["eps"], color="C3", lw=1.2, ls="--", label="ε = μ + 2σ")
        ax.set_title(f"{model}\nd = {r['d_model']}, ε = {r['eps']:.3f}", fontsize=9.5)
        ax.set_xlim(-0.6, 1.0)
        ax.set_yscale("log")
        ax.set_ylim(1e-4, None)
    for ax in axes.flat[len(models) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("cosine similarity")
    for ax in axes[:, 0]:
        ax.set_ylabel("density")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def heads(hists: pd.DataFrame) -> Figure:
    """Per model, the cosine density of its embedding and of its separately stored head, ε dashed
    (:func:`repcap.book.figdata.survey.head_histograms`)."""
    models = list(dict.fromkeys(hists.model))
    fig, axes = plt.subplots(1, max(1, len(models)), figsize=figures.size(3.0), squeeze=False)
    for ax, model in zip(axes.flat, models):
        one = hists[hists.model == model]
        for matrix, col in zip(dict.fromkeys(one.matrix), ("C0", "C1")):
            h = one[one.matrix == matrix]
            eps = h.eps.iloc[0]
            ax.plot(h.cos, h.density, color=col, lw=1.4, drawstyle="steps-mid", label=f"{matrix}: ε = {eps:.4f}")
            ax.axvline(eps, color=col, lw=0.9, ls="--")
        ax.set_title(model)
        ax.set_xlabel("cosine similarity")
        ax.set_yscale("log")
        ax.set_ylim(1e-4, None)
        ax.set_xlim(-0.6, 1.0)
        figures.legend_below(ax, ncol=2)
    axes.flat[0].set_ylabel("density")
    fig.tight_layout()
    return fig


def eps_vs_width(table: pd.DataFrame) -> Figure:
    """ε against d_model, reported (hollow) and reproduced (filled) models coloured by class, with the
    band between the class boundaries (the table's ``class boundary`` rows) shaded."""
    colors = {1: "C3", 2: "C0", None: "0.5"}
    pts = table[table.kind != BOUNDARY]
    c2, c1 = sorted(table[table.kind == BOUNDARY].eps)
    fig, ax = plt.subplots(figsize=figures.size(4.2))
    for (kind, cls), grp in pts.groupby(["kind", pts["class"].fillna(0)]):
        cls = None if cls == 0 else int(cls)
        filled = kind.startswith("reproduced")
        face = colors[cls] if filled else "none"
        label = f"{kind}, class {cls if cls else '–'}"
        size, marker = (28, "o") if filled else (22, "s")
        ax.scatter(
            grp.d_model, grp.eps, s=size, marker=marker, facecolors=face, edgecolors=colors[cls], lw=1, label=label
        )
    ax.axhspan(c2, c1, color="0.92", zorder=0)
    ax.axhline(c2, color="0.5", lw=0.7, ls=":")
    ax.axhline(c1, color="0.5", lw=0.7, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0f}"))
    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}" if v in (0.05, 0.2, 0.3, 0.5) else ""))
    ax.set_xlabel("d_model (log scale)")
    ax.set_ylabel("ε = μ + 2σ (log scale)")
    ours = pts[pts.kind.str.startswith("reproduced")]
    # each label beside its own point, clear of the others and of every marker (a line to it when set off)
    figures.place_labels(ax, ours.d_model, ours.eps, ours["model"])
    figures.legend_below(ax, ncol=2)
    return fig
