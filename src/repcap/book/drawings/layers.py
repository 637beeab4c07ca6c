"""Chapter 5's figures (the directions each layer writes, against its embedding and Gaussian
directions), each drawn from the one table of :mod:`repcap.book.figdata.layers` that
:func:`repcap.book.figures.save` ships beside it: ``eps_figure``, ``vs_embedding_figure`` and
``capacity_figure``, whose ``row`` column tells a layer matrix's point from the lines drawn with it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from repcap.engines.layers import KINDS

from .. import figures
from ..figdata.layers import BOUNDARY, DIAGONAL, EMBEDDING, HEAD, LAYER, MEDIAN, SHORT

#: The marker of each layer kind.
MARKERS = {"mlp_out": "o", "attn_out": "s", "mlp_in": "^"}
#: The band between Guha's classes.
BAND = "0.93"


def _kinds(kinds: pd.Series) -> list[str]:
    """The layer kinds present, in the order of :data:`repcap.engines.layers.KINDS`."""
    present = set(kinds)
    return [k for k in KINDS if k in present]


def _band(table: pd.DataFrame) -> tuple[float, float]:
    """Guha's class boundaries (Class 2 below, Class 1 above), from the table's boundary rows."""
    c2, c1 = sorted(table[table.row == BOUNDARY].eps)
    return c2, c1


def eps_by_layer(table: pd.DataFrame) -> Figure:
    """One panel per model: ε of each layer matrix by layer (one colour per kind), the embedding's ε
    (black), the head's where stored apart (dotted), each kind's Gaussian median (dashed, its colour),
    over the band between the classes; log scale."""
    points, emb = table[table.row == LAYER], table[table.row == EMBEDDING]
    kinds = _kinds(points.kind)
    colors = dict(zip(kinds, figures.palette(len(kinds))))
    labels = list(emb.model)
    fig, axes = plt.subplots(len(labels), 1, figsize=figures.size(1.45 * len(labels) + 1.3), squeeze=False)
    axes = axes[:, 0]
    for ax, lbl in zip(axes, labels):
        _eps_panel(ax, table[table.model == lbl], kinds, colors, _band(table))
    axes[-1].set_xlabel("layer")
    handles: list = [Line2D([], [], color="k", lw=1.4, label="embedding")]
    if (table.row == HEAD).any():
        handles.append(Line2D([], [], color="0.45", lw=1.2, ls=":", label="LM head (stored apart)"))
    handles += [Line2D([], [], color=colors[k], marker="o", ms=2.5, lw=1.0, label=KINDS[k]) for k in kinds]
    # the dashed lines are drawn in each kind's colour: so is their legend entry (one dash per kind)
    gauss = tuple(Line2D([], [], color=colors[k], lw=1.0, ls="--") for k in kinds) or (
        Line2D([], [], color="0.3", ls="--"),
    )
    handles += [gauss, Patch(color=BAND)]
    c2, c1 = _band(table)
    hlabels = [h.get_label() for h in handles[:-2]] + [
        "Gaussian directions, same shape",
        f"between the classes ({c2:g} to {c1:g})",
    ]
    fig.tight_layout()
    handler_map = {tuple: HandlerTuple(ndivide=None)}
    figures.legend_below(axes[-1], ncol=2, handles=handles, labels=hlabels, handler_map=handler_map)
    fig.tight_layout()
    return fig


def _eps_panel(ax, mine: pd.DataFrame, kinds: list[str], colors: dict, band: tuple[float, float]) -> None:
    """One model's panel of :func:`eps_by_layer` (``mine``: its rows of the table)."""
    points = mine[mine.row == LAYER]
    emb = mine[mine.row == EMBEDDING].iloc[0]
    ax.axhspan(*band, color=BAND, lw=0, zorder=0)
    ax.axhline(emb.eps, color="k", lw=1.4)
    for head in mine[mine.row == HEAD].eps.iloc[:1]:
        ax.axhline(head, color="0.45", lw=1.2, ls=":")
    medians = mine[mine.row == MEDIAN]
    for k in kinds:
        g = points[points.kind == k].sort_values("layer")
        if len(g):
            ax.plot(g.layer, g.eps, marker="o", ms=2.5, lw=1.0, color=colors[k])
            ax.axhline(float(medians[medians.kind == k].eps_random.iloc[0]), color=colors[k], lw=1.0, ls="--")
    ax.set_yscale("log")
    low = min(points.eps.min(), points.eps_random.min(), emb.eps) / 1.3
    ax.set_ylim(low, max(points.eps.max(), emb.eps) * 1.3)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"{emb.model} (d = {int(emb.d)})", loc="left", fontsize="medium")
    ax.set_ylabel("ε")


def vs_embedding(table: pd.DataFrame) -> Figure:
    """Each layer matrix's ε against its model's embedding ε (one colour per model, one marker per
    kind, kinds side by side), each model's Gaussian median (bar), the diagonal (the hypothesis) and
    the bands between the classes; log-log over the diagonal's range."""
    points, medians = table[table.row == LAYER], table[table.row == MEDIAN]
    kinds = _kinds(points.kind)
    labels = list(medians.model)
    mcolors = dict(zip(labels, figures.palette(len(labels))))
    diagonal = table[table.row == DIAGONAL].eps
    lo, hi = diagonal.min(), diagonal.max()
    fig, ax = plt.subplots(figsize=figures.size(4.4))
    ax.axhspan(*_band(table), color=BAND, lw=0, zorder=0)
    ax.axvspan(*_band(table), color=BAND, lw=0, zorder=0)
    ax.plot([lo, hi], [lo, hi], color="k", lw=1, ls="--", zorder=1)
    for lbl, med in zip(labels, medians.itertuples()):
        mine = points[points.model == lbl]
        for j, k in enumerate(kinds):  # kinds side by side (a small multiplicative offset on the x axis)
            g = mine[mine.kind == k]
            x = g.eps_embedding * 1.04 ** (j - (len(kinds) - 1) / 2)
            ax.scatter(x, g.eps, s=14, marker=MARKERS[k], facecolors="none", edgecolors=mcolors[lbl], lw=0.8, zorder=3)
        ax.scatter([med.eps_embedding], [med.eps_random], marker="_", s=160, color=mcolors[lbl], lw=2, zorder=4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("ε of the embedding (log scale)")
    ax.set_ylabel("ε of a layer matrix (log scale)")
    handles: list = [Line2D([], [], color=mcolors[m], marker="o", ls="", label=m) for m in labels]
    handles += [Line2D([], [], color="0.3", marker=MARKERS[k], ls="", mfc="none", label=KINDS[k]) for k in kinds]
    handles += [
        Line2D([], [], color="0.3", marker="_", ms=12, mew=2, ls="", label="Gaussian, same shape (median)"),
        Line2D([], [], color="k", ls="--", label="the hypothesis: layer ε = embedding ε"),
        Patch(color=BAND, label="between the classes"),
    ]
    fig.tight_layout()
    figures.legend_below(ax, ncol=2, handles=handles)
    fig.tight_layout()
    return fig


def capacity(table: pd.DataFrame) -> Figure:
    """log10 k under the four-constant law per model: from its embedding's ε (star) and from each layer
    matrix's ε (open markers, one column per kind), next to the median over the layers of the law at
    Gaussian directions (grey bar) and of the directions held (dotted, the kind's colour)."""
    points, medians = table[table.row == LAYER], table[table.row == MEDIAN]
    kinds = _kinds(points.matrix)
    colors = dict(zip(kinds, figures.palette(len(kinds))))
    labels = list(table[table.row == EMBEDDING].model)
    offs = {k: (j - (len(kinds) - 1) / 2) * 0.18 for j, k in enumerate(kinds)}
    fig, ax = plt.subplots(figsize=figures.size(3.8))
    for i, emb in enumerate(table[table.row == EMBEDDING].itertuples()):
        ax.scatter([i], [emb.log10_capacity_four], marker="*", s=110, color="k", zorder=4)
        for k in kinds:
            g = points[(points.model == emb.model) & (points.matrix == k)]
            if not len(g):
                continue
            x = i + offs[k]
            face = {"facecolors": "none", "edgecolors": colors[k]}
            ax.scatter(np.full(len(g), x), g.log10_capacity_four, s=10, marker=MARKERS[k], **face, lw=0.8, zorder=3)
            med = medians[(medians.model == emb.model) & (medians.matrix == k)].iloc[0]
            ax.plot([x - 0.08, x + 0.08], [med.log10_capacity_four_random] * 2, color="0.4", lw=2, zorder=2)
            ax.plot([x - 0.08, x + 0.08], [med.log10_n] * 2, color=colors[k], lw=1, ls=":", zorder=2)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=20, ha="right")
    ax.set_ylabel("log10 capacity k (four-constant law)")
    handles = [Line2D([], [], color="k", marker="*", ms=9, ls="", label="from the embedding's ε")]
    handles += [
        Line2D([], [], color=colors[k], marker=MARKERS[k], mfc="none", ls="", label=f"from each {SHORT[k]} matrix")
        for k in kinds
    ]
    handles += [
        Line2D([], [], color="0.4", lw=2, label="from Gaussian directions, same shape"),
        Line2D([], [], color="0.3", lw=1, ls=":", label="log10 of the directions present"),
    ]
    fig.tight_layout()
    figures.legend_below(ax, ncol=2, handles=handles)
    fig.tight_layout()
    return fig
