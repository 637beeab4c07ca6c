"""Chapter 6's figures, drawn by repcap.book.drawings.packing from small tables: each puts the table's
columns on its axes, with the lines, marks and names its caption promises."""

from __future__ import annotations

import math
from types import SimpleNamespace as P

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba

from repcap.book import figures
from repcap.book.drawings import packing as draw
from repcap.book.figdata import packing as fpack
from repcap.book.figdata import packing_figures as ftables
from repcap.book.figdata.reference import PLACEHOLDER

LOSSES = ["abs-relu", "exp", "power"]


def _run(eps_curve, n_orthogonal, n_above, hist, steps=(0, 10, 20)):
    n_pairs = 45  # k = 10 vectors
    return {
        "eps_star": eps_curve[-1],
        "max_angle_deg": math.degrees(math.acos(eps_curve[-1])),
        "n_orthogonal": n_orthogonal,
        "n_pairs": n_pairs,
        "n_above": n_above,
        "hist": hist,
        "curve_steps": list(steps),
        "eps_curve": list(eps_curve),
        "loss_curve": [8.0, 4.0, 2.0],
    }


RUNS = {
    "abs-relu": _run([0.5, 0.95, 0.99], 30, {"0.5": 6, "0.9": 5, "0.99": 0}, [30, 5, 0, 10]),
    "exp": _run([0.5, 0.4, 0.3], 2, {"0.5": 0, "0.9": 0, "0.99": 0}, [20, 25, 0, 0]),
    "power": _run([0.5, 0.45, 0.35], 1, {"0.5": 0, "0.9": 0, "0.99": 0}, [15, 30, 0, 0]),
}
RANDOM = _run([0.9], 3, {"0.5": 9, "0.9": 1, "0.99": 0}, [10, 15, 15, 5])


def _line(ax, label):
    (ln,) = [ln for ln in ax.get_lines() if ln.get_label() == label]
    return ln


def test_colours_give_the_random_start_the_first_colour_of_the_cycle():
    c = draw.colours(LOSSES)
    assert list(c) == ["random start", *LOSSES]
    assert list(c.values()) == figures.palette(4)


def test_angle_histograms_draw_each_runs_shares_and_its_worst_pair():
    runs = {**RUNS, "random start": RANDOM}
    hist = fpack.angle_histograms(runs)
    colors = draw.colours(LOSSES)
    fig = draw.angle_histograms(hist, losses=LOSSES)
    ax = fig.axes[0]
    for name, r in runs.items():
        ln = _line(ax, f"{name} (angle {math.degrees(math.acos(r['eps_star'])):.1f}°)")
        np.testing.assert_allclose(ln.get_xdata(), [0.125, 0.375, 0.625, 0.875])
        share = np.asarray(r["hist"], dtype=float) / 45
        np.testing.assert_allclose(ln.get_ydata(), np.where(share > 0, share, np.nan))  # empty bins not drawn
        assert ln.get_linestyle() == (":" if name == "random start" else "-")
        assert to_rgba(ln.get_color()) == to_rgba(colors[name])
    worst = sorted(ln.get_xdata()[0] for ln in ax.get_lines() if ln.get_linestyle() == "--")
    assert worst == sorted(r["eps_star"] for r in runs.values())
    assert ax.get_yscale() == "log" and ax.get_xlim() == (0, 1)
    # the top axis reads |cos| as the angle between the lines
    (top,) = ax.child_axes
    assert top.get_xlabel() == "angle between the lines (degrees)"
    fwd, inv = top._functions
    assert fwd(np.array([0.5]))[0] == pytest.approx(60.0) and inv(np.array([60.0]))[0] == pytest.approx(0.5)
    plt.close(fig)


def test_parallel_counts_draw_one_bar_per_run_and_level_and_mark_the_empty_ones():
    runs = {**RUNS, "random start": RANDOM}
    counts = fpack.parallel_counts(runs)
    colors = draw.colours(LOSSES)
    fig = draw.parallel_counts(counts, losses=LOSSES)
    ax = fig.axes[0]
    levels = ["|cos| < 0.01", "|cos| > 0.5", "|cos| > 0.9", "|cos| > 0.99"]
    assert [t.get_text() for t in ax.get_xticklabels()] == levels
    for c, name in zip(ax.containers, colors, strict=True):  # the bars in the order of the colours
        assert c.get_label() == name
        expected = [runs[name]["n_orthogonal"], *(runs[name]["n_above"][t] for t in ("0.5", "0.9", "0.99"))]
        assert [b.get_height() for b in c] == [max(v, 0.5) for v in expected]  # 0 drawn at the floor
        assert all(to_rgba(b.get_facecolor()) == to_rgba(colors[name]) for b in c)
    zeros = sum(v == 0 for r in runs.values() for v in [r["n_orthogonal"], *r["n_above"].values()])
    assert [t.get_text() for t in ax.texts] == ["0"] * zeros
    assert ax.get_ylim() == pytest.approx((0.5, 90.0))
    plt.close(fig)


def test_curves_draw_each_runs_angle_and_relative_loss_with_the_law():
    curve = fpack.curves(RUNS)
    fig = draw.curves(ftables.curves_figure(RUNS, law_angle=59.25, k=300, d=12), losses=LOSSES)
    a1, a2 = fig.axes
    for loss, g in curve.groupby("loss"):
        np.testing.assert_allclose(_line(a1, loss).get_xdata(), g.step)
        np.testing.assert_allclose(_line(a1, loss).get_ydata(), g.angle_deg)
        np.testing.assert_allclose(_line(a2, loss).get_ydata(), [1.0, 0.5, 0.25])
    law = _line(a1, "four-constant law (k = 300, d = 12)")
    assert list(law.get_ydata()) == [59.25, 59.25] and law.get_linestyle() == "--"
    assert a1.get_ylim()[1] >= 61.25 and a2.get_yscale() == "log"
    assert not a1.texts and "four-constant law (k = 300, d = 12)" in [t.get_text() for t in fig.legends[0].texts]
    plt.close(fig)
    table = ftables.curves_figure(RUNS, law_angle=59.25, k=10_000, d=100, yoder=(76.5, 20))
    fig = draw.curves(table, losses=LOSSES)
    a1 = fig.axes[0]
    (ann,) = a1.texts
    assert ann.get_text() == "Yoder: 76.5°" and ann.xy == (20, 76.5)
    assert [list(ln.get_ydata()) for ln in a1.get_lines() if ln.get_linestyle() == ":"] == [[76.5, 76.5]]
    plt.close(fig)


def _point(loss, eps, lr=0.001, steps=(0, 10, 20), **config):
    result = {"curve_steps": list(steps), "eps_curve": eps, "loss_curve": [3.0, 2.0, 1.0]}
    result |= {"max_angle_deg": math.degrees(math.acos(eps[-1])), "p": 12 if loss == "power" else None}
    return P(config={"loss": loss, "k": 100, "d": 10, "steps": steps[-1], "lr": lr, **config}, result=result)


LINES = {"yoder_angle": 76.5, "law_angle": 76.19, "bound_angle": 82.0}


def test_reference_draws_the_runs_in_both_panels_and_names_the_three_lines():
    exp = fpack.reference_curve(_point("exp", [0.5, 0.3, 0.25]))
    others = [
        fpack.reference_curve(_point("exp", [0.5, 0.28, 0.24], lr=0.005, lr_floor=0.0)),
        fpack.reference_curve(_point("power", [0.5, 0.35, 0.3])),
        fpack.reference_curve(_point("abs-relu", [0.5, 0.99, 1.0])),
    ]
    colors = draw.colours(LOSSES)
    fig = draw.reference(ftables.reference_figure(exp, others, flat=10.0, **LINES), losses=LOSSES)
    ax, az = fig.axes
    labels = [
        "Yoder: about 76.5° (reported)",
        "four-constant law: 76.2° (our evaluation)",
        "rigorous bound: no packing exceeds 82.0°",
        "exp(β cos²), lr 0.005, to 0 (cosine)",
        "power (p = 12), lr 0.001",
        "abs-relu, lr 0.001",
        "exp(β cos²), lr 0.001",
    ]
    assert ax.get_legend_handles_labels()[1] == labels
    for c, label in zip([*others, exp], labels[3:], strict=True):
        ln = _line(ax, label)
        np.testing.assert_allclose(ln.get_xdata(), c.step)
        np.testing.assert_allclose(ln.get_ydata(), c.angle_deg)
    assert _line(ax, labels[3]).get_linestyle() == "--" and _line(ax, labels[4]).get_linestyle() == "-"
    # the flattening step, dash-dotted in the exp run's colour
    (flat,) = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-."]
    assert list(flat.get_xdata()) == [10.0, 10.0] and to_rgba(flat.get_color()) == to_rgba(colors["exp"])
    # the axis spans the runs that aim at the worst pair (not the collapsed abs-relu run) up to the bound
    aimed = min(float(c.angle_deg.min()) for c in [exp, *others[:2]])
    assert ax.get_ylim() == pytest.approx((min(60.0, aimed), 84.0))
    assert "abs-relu: off the bottom\n(worst pair at 0°)" in [t.get_text() for t in ax.texts]
    # panel (b): the same four curves, the lines inside 72-78 named, the bound named at the top edge
    curves_b = [ln for ln in az.get_lines() if len(ln.get_xdata()) > 2]
    assert [list(ln.get_ydata()) for ln in curves_b] == [list(c.angle_deg) for c in [*others, exp]]
    assert az.get_ylim() == draw.ZOOM
    assert [t.get_text() for t in az.texts] == ["Yoder 76.5°", "law 76.19°", "↑ bound 82.00°"]
    assert ax.get_title() == "(a) the whole run" and az.get_title() == "(b) 72–78°: the run's end"
    # one legend, under both panels and clear of them (issue 45: it was drawn twice, one over the other)
    assert len(fig.legends) == 1 and ax.get_legend() is None and az.get_legend() is None
    (leg,) = fig.legends
    assert [t.get_text() for t in leg.get_texts()] == labels
    fig.canvas.draw()
    top = leg.get_window_extent().y1
    assert all(a.get_tightbbox().y0 >= top - 1 for a in (ax, az))
    plt.close(fig)


def test_reference_without_a_run_draws_its_placeholder_and_the_lines():
    fig = draw.reference(ftables.reference_figure(None, [], flat=None, **LINES), losses=LOSSES)
    ax, az = fig.axes
    assert [t.get_text() for t in ax.texts] == [PLACEHOLDER] and ax.get_ylim() == (60, 80)
    assert ax.get_legend_handles_labels()[1][:1] == ["Yoder: about 76.5° (reported)"]
    assert [ln for ln in az.get_lines() if len(ln.get_xdata()) > 2] == []
    plt.close(fig)


def test_reference_caption_names_the_size_the_losses_and_the_decaying_rate():
    best = pd.DataFrame({"loss": ["power", "abs-relu"]})
    data = pd.DataFrame({"k": [10_000], "d": [100]})
    cap = draw.reference_caption(data, best, beta=20, yoder_k=1, yoder_d=1, annealed=True, zoom_words=" Zoom.")
    assert cap.startswith(
        "The reference run: 10,000 unit vectors in ℝ¹⁰⁰ under exp(β cos²), β = 20, and under the power and "
        "abs-relu losses (dashed: the exp run with its rate decaying to 0); the abs-relu run's worst pair"
    )
    assert cap.endswith("can have a larger worst-pair angle). Zoom.")
    # a placeholder table: Yoder's size, no other loss, no decaying rate
    cap = draw.reference_caption(
        pd.DataFrame({"line": ["x"]}),
        best.iloc[:0],
        beta=20,
        yoder_k=10_000,
        yoder_d=100,
        annealed=False,
        zoom_words="",
    )
    assert cap.startswith("The reference run: 10,000 unit vectors in ℝ¹⁰⁰ under exp(β cos²), β = 20: the smallest")
