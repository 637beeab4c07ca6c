"""Chapter 6's figures (packing vectors: the three losses and the reference run at Yoder's size).
Each takes the one table of :mod:`repcap.book.figdata.packing` or
:mod:`repcap.book.figdata.packing_figures` that :func:`repcap.book.figures.save` ships (the lines and
marks drawn over the runs are rows of it) and the chapter's ``losses`` (their order gives each run
its colour, :func:`colours`), and returns a Matplotlib figure in the book's style."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import figures
from ..figdata.packing_figures import FLATTENING, LAW_LINE, REFERENCE_LINES, YODER_LINE
from ..figdata.reference import PLACEHOLDER

#: The name of the unoptimised vectors in the chapter's tables (drawn dotted, first in each legend).
RANDOM_START = "random start"
#: The band of worst-pair angles (degrees) that the reference figure's panel (b) enlarges: where the
#: full-size run ends and Yoder's angle, the law and the bound lie 0.3 degrees apart.
ZOOM = (72.0, 78.0)


def colours(losses: Sequence[str]) -> dict[str, Any]:
    """One colour of the book's cycle per run: the random start first, then each loss."""
    return dict(zip([RANDOM_START, *losses], figures.palette(len(losses) + 1), strict=True))


def angle_histograms(hist: pd.DataFrame, *, losses: Sequence[str]) -> Figure:
    """The share of pairs per |cos| bin of each run (:func:`repcap.book.figdata.packing.angle_histograms`),
    log scale, the random start dotted, each run's worst pair dashed, angles on the top axis."""
    colors = colours(losses)
    fig, ax = plt.subplots(figsize=figures.size(3.4))
    for loss, g in hist.groupby("loss", sort=False):
        eps = g.eps_star.iloc[0]
        ax.step(
            g.abs_cos,
            g.share_of_pairs.where(g.share_of_pairs > 0),
            where="mid",
            color=colors[loss],
            ls=":" if loss == RANDOM_START else "-",
            label=f"{loss} (angle {math.degrees(math.acos(eps)):.1f}°)",
        )
        ax.axvline(eps, color=colors[loss], lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_xlim(0, 1)
    ax.set_xlabel("|cos| between a pair of vectors (dashed: the worst pair, ε*)")
    ax.set_ylabel("share of pairs per bin")
    top = ax.secondary_xaxis("top", functions=(_cos_to_degrees, _degrees_to_cos))
    top.set_xticks([90, 80, 70, 60, 45, 30, 0])
    top.set_xlabel("angle between the lines (degrees)")
    figures.legend_below(ax, ncol=2)
    return fig


def _cos_to_degrees(x: Any) -> Any:
    return np.degrees(np.arccos(np.clip(x, 0, 1)))


def _degrees_to_cos(a: Any) -> Any:
    return np.cos(np.radians(a))


def parallel_counts(counts: pd.DataFrame, *, losses: Sequence[str]) -> Figure:
    """Pairs per level of near-orthogonality and near-parallelism
    (:func:`repcap.book.figdata.packing.parallel_counts`), one bar per run in the order of
    :func:`colours`, log scale up to twice the runs' ``n_pairs``; a level a run has no pair at is marked '0'."""
    colors, n_pairs = colours(losses), float(counts.n_pairs.max())
    fig, ax = plt.subplots(figsize=figures.size(3.0))
    levels = list(dict.fromkeys(counts.level))
    names = list(colors)
    w = 0.8 / len(names)
    for i, name in enumerate(names):
        g = counts[counts.loss == name].set_index("level").reindex(levels)
        x = np.arange(len(levels)) + (i - (len(names) - 1) / 2) * w
        ax.bar(x, g.pairs.clip(lower=0.5), width=w, color=colors[name], label=name)
        for xi, v in zip(x, g.pairs, strict=True):
            if v == 0:
                ax.text(xi, 0.7, "0", ha="center", va="bottom")
    ax.set_xticks(np.arange(len(levels)), levels)
    ax.set_yscale("log")
    ax.set_ylim(0.5, n_pairs * 2)
    ax.set_ylabel("number of pairs")
    ax.legend(ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    return fig


def curves(table: pd.DataFrame, *, losses: Sequence[str]) -> Figure:
    """Left: each run's worst-pair angle step by step (:func:`repcap.book.figdata.packing_figures.curves_figure`)
    with the four-constant law's angle at the run's (k, d) dashed (its row :data:`LAW_LINE`) and, where
    the table has a :data:`YODER_LINE` row, Yoder's reported angle dotted; right: each loss relative to
    its start (log scale)."""
    colors = colours(losses)
    curve = table[~table.loss.isin([LAW_LINE, YODER_LINE])]
    law = table[table.loss == LAW_LINE].iloc[0]
    law_angle, k, d = float(law.angle_deg), int(law.k), int(law.d)
    yoder_rows = table[table.loss == YODER_LINE]
    yoder = (float(yoder_rows.angle_deg.iloc[0]), float(yoder_rows.step.iloc[0])) if len(yoder_rows) else None
    fig, (a1, a2) = plt.subplots(1, 2, figsize=figures.size(3.2))
    for loss, g in curve.groupby("loss", sort=False):
        a1.plot(g.step, g.angle_deg, color=colors[loss], label=loss)
        a2.plot(g.step, g.loss_relative, color=colors[loss], label=loss)
    # the law's line is named in the legend: a label on the plot was struck through by the curves
    a1.axhline(law_angle, color="0.3", ls="--", lw=0.9, label=f"four-constant law (k = {k:,}, d = {d})")
    a1.set_ylim(top=max(a1.get_ylim()[1], law_angle + 2))
    if yoder is not None:
        angle, at = yoder
        a1.axhline(angle, color="k", ls=":", lw=0.9)
        a1.annotate(f"Yoder: {angle:g}°", (at, angle), ha="right", xytext=(0, -12), textcoords="offset points")
    a1.set_xlabel("Adam step")
    a1.set_ylabel("worst-pair angle arccos ε* (degrees)")
    fig.legend(*a1.get_legend_handles_labels(), loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    a2.set_yscale("log")
    a2.set_xlabel("Adam step")
    a2.set_ylabel("loss / initial loss")
    return fig


def _run_label(c: pd.DataFrame) -> str:
    """A reference run's legend entry: its loss (with p), its rate and how the rate moved."""
    loss, schedule = c.loss.iloc[0], c.schedule.iloc[0]
    return (
        f"{'exp(β cos²)' if loss == 'exp' else loss}{f' (p = {c.p.iloc[0]:g})' if loss == 'power' else ''}, "
        f"lr {c.lr.iloc[0]:g}" + ("" if schedule == "fixed" else f", {schedule} (cosine)".replace("cosine to", "to"))
    )


def _reference_parts(table: pd.DataFrame) -> tuple[pd.DataFrame | None, list[pd.DataFrame], float | None, dict]:
    """The exp run's curve (``run`` 0, None without one), the other runs' curves, the flattening step
    (None without one) and the reference lines' angles (``yoder_angle``, ``law_angle``,
    ``bound_angle``) of a :func:`repcap.book.figdata.packing_figures.reference_figure` table."""
    marks, runs = table[table.line.notna()], table[table.line.isna()]
    at = dict(zip(marks.line, marks.angle_deg, strict=True))
    angles = {key: float(at[name]) for key, name in REFERENCE_LINES.items()}
    flat_rows = marks[marks.line == FLATTENING]
    flat = float(flat_rows.step.iloc[0]) if len(flat_rows) else None
    exp_curve = runs[runs.run == 0] if (runs.run == 0).any() else None
    others = [g for _, g in runs[runs.run > 0].groupby("run", sort=True)]
    return exp_curve, others, flat, angles


def reference(table: pd.DataFrame, *, losses: Sequence[str], zoom: tuple[float, float] = ZOOM) -> Figure:
    """The reference runs' worst-pair angle step by step: (a) the whole run, (b) the band ``zoom``.

    ``table`` is :func:`repcap.book.figdata.packing_figures.reference_figure`: the fixed-rate exp run's
    curve (``run`` 0; without it the placeholder is drawn), the other runs' (dashed where the rate
    decays; an abs-relu run's collapsed curve is said to leave the axes), the exp run's flattening
    step (dash-dotted) and the reference lines: Yoder's reported angle, the four-constant law and
    the rigorous bound, lines in (a) and named lines in (b), or named at the edge of (b) they lie beyond."""
    colors = colours(losses)
    exp_curve, others, flat, angles = _reference_parts(table)
    yoder_angle, law_angle, bound_angle = angles["yoder_angle"], angles["law_angle"], angles["bound_angle"]
    fig, (ax, az) = plt.subplots(1, 2, figsize=figures.size(4.4), gridspec_kw={"width_ratios": [1.25, 1]})
    ax.axhline(yoder_angle, color="k", ls=":", lw=0.9, label=f"Yoder: about {yoder_angle:g}° (reported)")
    ax.axhline(law_angle, color="0.4", ls="--", lw=0.9, label=f"four-constant law: {law_angle:.1f}° (our evaluation)")
    ax.axhline(bound_angle, color="0.2", ls="-", lw=0.7, label=f"rigorous bound: no packing exceeds {bound_angle:.1f}°")
    for c in others:  # under the exp run's curve
        fixed_rate = c.schedule.iloc[0] == "fixed"
        color = colors.get(c.loss.iloc[0], "0.5")
        ax.plot(c.step, c.angle_deg, color=color, lw=1.0, ls="-" if fixed_rate else "--", label=_run_label(c))
    _draw_exp_run(ax, exp_curve, others, colors, flat=flat, bound_angle=bound_angle)
    ax.set_xlabel("Adam step")
    ax.set_ylabel("worst-pair angle (degrees)")
    ax.set_title("(a) the whole run")
    ax.axhspan(*zoom, color="0.93", zorder=0, lw=0)  # the band panel (b) enlarges
    for ln in ax.get_lines():
        xd = np.asarray(ln.get_xdata(), dtype=float)
        if len(xd) > 2:  # the runs' curves (not the reference lines, not the flattening marker)
            az.plot(xd, ln.get_ydata(), color=ln.get_color(), ls=ln.get_linestyle(), lw=ln.get_linewidth())
    _zoom_panel(az, zoom, yoder_angle, law_angle, bound_angle)
    # one legend under both panels; the panels are laid out above its measured height
    leg = fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))
    fig.canvas.draw()
    fig.tight_layout(rect=(0, leg.get_window_extent().height / fig.bbox.height + 0.02, 1, 1))
    return fig


def _draw_exp_run(
    ax,
    exp_curve: pd.DataFrame | None,
    others: Sequence[pd.DataFrame],
    colors: Mapping[str, Any],
    *,
    flat: float | None,
    bound_angle: float,
) -> None:
    """Panel (a) of :func:`reference`: the exp run's curve, its flattening step and the angle range
    the runs that aim at the worst pair span, or the placeholder without an exp run."""
    if exp_curve is not None:
        label = f"exp(β cos²), lr {exp_curve.lr.iloc[0]:g}"
        ax.plot(exp_curve.step, exp_curve.angle_deg, color=colors["exp"], label=label)
        if flat is not None:
            ax.axvline(flat, color=colors["exp"], lw=0.6, ls="-.")
        # the range of the runs that aim at the worst pair; the abs-relu run's worst pair collapses to
        # parallel within a few hundred steps, so its curve leaves the axes at the bottom (said below)
        drawn = pd.concat([exp_curve, *others], ignore_index=True)
        aimed = drawn[drawn.loss != "abs-relu"]
        ax.set_ylim(min(60.0, float(aimed.angle_deg.min())), max(80.0, bound_angle + 2))
        if (drawn.loss == "abs-relu").any():
            ax.text(
                0.06,
                0.03,
                "abs-relu: off the bottom\n(worst pair at 0°)",
                transform=ax.transAxes,
                ha="left",
                va="bottom",
                color=colors.get("abs-relu", "0.4"),
                fontsize="small",
            )
    else:
        ax.text(0.5, 0.5, PLACEHOLDER, transform=ax.transAxes, ha="center", color="0.4")
        ax.set_ylim(60, 80)


def _zoom_panel(az, zoom: tuple[float, float], yoder_angle: float, law_angle: float, bound_angle: float) -> None:
    """Panel (b): each reference line inside the band drawn and named (the names stacked above the
    lines), each one beyond it named at the edge it lies beyond."""
    refs = [
        (yoder_angle, f"Yoder {yoder_angle:g}°", {"color": "k", "ls": ":", "lw": 1.1}),
        (law_angle, f"law {law_angle:.2f}°", {"color": "0.4", "ls": "--", "lw": 1.0}),
        (bound_angle, f"bound {bound_angle:.2f}°", {"color": "0.2", "ls": "-", "lw": 0.8}),
    ]
    az.set_ylim(*zoom)
    inside = sorted([r for r in refs if zoom[0] <= r[0] <= zoom[1]], key=lambda t: -t[0])
    for i, (yv, text, style) in enumerate(inside):
        az.axhline(yv, **style)
        az.annotate(
            text,
            (0.42, yv),
            xycoords=("axes fraction", "data"),
            xytext=(0.5, zoom[1] - (0.1 + 0.11 * i) * (zoom[1] - zoom[0])),
            textcoords=("axes fraction", "data"),
            va="center",
            fontsize="small",
            arrowprops={"arrowstyle": "-", "lw": 0.6, "color": "0.45", "shrinkA": 1, "shrinkB": 0},
        )
    for yv, text, _style in refs:
        if not zoom[0] <= yv <= zoom[1]:
            az.annotate(
                f"{'↑' if yv > zoom[1] else '↓'} {text}",
                (0.03, 0.97 if yv > zoom[1] else 0.03),
                xycoords="axes fraction",
                va="top" if yv > zoom[1] else "bottom",
                fontsize="small",
                color="0.2",
            )
    az.set_xlabel("Adam step")
    az.set_title(f"(b) {zoom[0]:g}–{zoom[1]:g}°: the run's end")


_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def reference_caption(
    data: pd.DataFrame,
    best: pd.DataFrame,
    *,
    beta: float,
    yoder_k: int,
    yoder_d: int,
    annealed: bool,
    zoom_words: str,
) -> str:
    """The caption of :func:`reference`: ``data`` is the table the figure saves (its ``k`` and ``d``,
    else Yoder's), ``best`` the other losses' :func:`repcap.book.figdata.packing.best_angles`,
    ``annealed`` whether a decaying-rate exp run is drawn, ``zoom_words`` what panel (b) shows
    (:func:`repcap.book.figdata.packing_views.zoom_words`)."""
    k = data.k.iloc[0] if "k" in data else yoder_k
    d = data.d.iloc[0] if "d" in data else yoder_d
    return (
        f"The reference run: {k:,} unit vectors in ℝ{str(d).translate(_SUPERSCRIPTS)} under exp(β cos²), β = {beta:g}"
        + (f", and under the {' and '.join(best.loss)} loss{'es' if len(best) > 1 else ''}" if len(best) else "")
        + (" (dashed: the exp run with its rate decaying to 0)" if annealed else "")
        + (
            "; the abs-relu run's worst pair turns parallel within a few hundred steps (the trap), so its curve "
            "leaves the axes at the bottom"
            if "abs-relu" in set(best.loss)
            else ""
        )
        + ": the smallest angle between any two of the lines, step by step (dash-dotted: where the exp run "
        "flattens), against Yoder's reported angle, the four-constant law at that size and the rigorous bound "
        "(solid: no packing of that many lines can have a larger worst-pair angle)." + zoom_words
    )


__all__ = [
    "RANDOM_START",
    "ZOOM",
    "angle_histograms",
    "colours",
    "curves",
    "parallel_counts",
    "reference",
    "reference_caption",
]
