"""Chapter 7's figures, drawn by repcap.book.drawings.laws from the tables of repcap.book.figdata: each puts the
table's data on its axes with the marks its caption promises (checked line by line here), and the
reference figure draws its placeholder when none of our cells is among Guha's."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba

from repcap.book import figures
from repcap.book.drawings import laws as draw
from repcap.book.figdata import packing as figdata
from repcap.book.figdata.laws import C_LINE, RULE_QUOTED
from repcap.book.figdata.reference import PLACEHOLDER
from repcap.engines import laws


def _xy(line):
    return np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)


def _same_colour(a, b) -> bool:
    return to_rgba(a) == to_rgba(b)


def test_guha_data_draws_each_panels_points_and_fits():
    law = {"jl": laws.PUBLISHED["jl"], "adj": laws.PUBLISHED["adjusted"]}
    rand = pd.DataFrame({"k": [400, 200, 800] * 2, "d": [32] * 3 + [64] * 3, "eps_star": [0.3, 0.2, 0.4] * 2})
    opt = rand.assign(eps_star=rand.eps_star / 2)
    panels = [("random", rand, ["JL, random"]), ("optimised", opt, ["adjusted", "JL, optimised"])]
    fitmap = {
        "JL, random": SimpleNamespace(law=law["jl"]),
        "adjusted": SimpleNamespace(law=law["adj"]),
        "JL, optimised": SimpleNamespace(law=law["jl"]),
    }
    points = figdata.fit_points(panels, fitmap)
    fig = draw.guha_data(points)
    axr, axo = fig.axes
    assert (axr.get_title(), axo.get_title()) == ("random", "optimised")
    assert axr.get_ylabel() == "ε* = max |cos| (Guha's stored values)"
    assert axr.get_xscale() == axr.get_yscale() == "log"
    # random panel, per width: its points then its one fit (solid)
    assert len(axr.lines) == 2 * 2 and len(axo.lines) == 2 * 3
    x, y = _xy(axr.lines[0])
    assert x.tolist() == [200, 400, 800] and y.tolist() == [0.2, 0.3, 0.4] and axr.lines[0].get_label() == "d = 32"
    x, y = _xy(axr.lines[1])
    assert axr.lines[1].get_linestyle() == "-"
    assert y == pytest.approx(law["jl"].eps(np.array([200, 400, 800]), 32), rel=1e-12)
    # optimised panel at d = 64: points, the adjusted law solid, the JL form dotted, one colour
    pts, solid, dotted = axo.lines[3:6]
    assert _xy(pts)[1].tolist() == [0.1, 0.15, 0.2] and pts.get_label() == "d = 64"
    assert _xy(solid)[1] == pytest.approx(law["adj"].eps(np.array([200, 400, 800]), 64), rel=1e-12)
    assert _xy(dotted)[1] == pytest.approx(law["jl"].eps(np.array([200, 400, 800]), 64), rel=1e-12)
    assert (solid.get_linestyle(), dotted.get_linestyle()) == ("-", ":")
    assert _same_colour(pts.get_color(), dotted.get_color()) and _same_colour(pts.get_color(), figures.palette(2)[1])
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["d = 32", "d = 64"]
    plt.close(fig)


def _cells(rows):
    cols = ["k", "d", "steps", "p", "ε* (ours)", "ε* (Guha's data)", "relative gap"]
    return pd.DataFrame(rows, columns=cols)


@pytest.mark.filterwarnings("ignore:No artists with labels")  # the placeholder's legend, as the chapter drew it
def test_reference_cells_draws_his_ours_and_m60_or_the_placeholder():
    cells = _cells([(2000, 32, 5000, 18, 0.11, 0.10, 0.1), (4000, 32, 5000, 18, 0.15, 0.14, 1 / 14)])
    m60 = _cells([(2000, 32, 5000, 18, 0.101, 0.10, 0.01)])
    fig = draw.reference_cells(figdata.reference_cells_by_rule(cells, m60))
    (ax,) = fig.axes
    his, ours, tri = ax.lines[:3]
    assert _xy(his)[0].tolist() == [2000, 4000] and _xy(his)[1].tolist() == [0.10, 0.14]
    assert his.get_marker() == "s" and his.get_markerfacecolor() == "none"
    assert _xy(ours)[1].tolist() == [0.11, 0.15] and ours.get_label() == "d = 32"
    assert _xy(tri)[0].tolist() == [2000] and _xy(tri)[1].tolist() == [0.101] and tri.get_marker() == "^"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["d = 32", "Guha's stored ε*", "ours, his code's rule (M = 40 at k ≤ 4000)", "ours, M = 60"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2000", "4000", "8000"]
    assert not ax.texts
    plt.close(fig)
    for empty in (_cells([]), cells.assign(**{"relative gap": np.nan})):
        fig = draw.reference_cells(figdata.reference_cells_by_rule(empty, _cells([])))
        assert [t.get_text() for t in fig.axes[0].texts] == [PLACEHOLDER] and not fig.axes[0].lines
        plt.close(fig)


def test_grid_draws_four_series_per_width():
    grid = pd.DataFrame({"k": [64, 128, 64, 128], "d": [8, 8, 16, 16]})
    grid["eps_star"] = [0.5, 0.6, 0.3, 0.4]
    grid["eps_random"] = [0.8, 0.9, 0.6, 0.7]
    points = figdata.grid_points(grid, laws.PUBLISHED["adjusted"], n_k=5)
    fig = draw.grid(points)
    (ax,) = fig.axes
    assert len(ax.lines) == 2 * 4
    opt, rnd, law, bound = ax.lines[4:8]  # d = 16
    assert _xy(opt)[1].tolist() == [0.3, 0.4] and opt.get_label() == "d = 16" and opt.get_linestyle() == "None"
    assert _xy(rnd)[1].tolist() == [0.6, 0.7] and rnd.get_markerfacecolor() == "none"
    kk = np.geomspace(64, 128, 5)
    assert _xy(law)[1] == pytest.approx(laws.PUBLISHED["adjusted"].eps(kk, 16), rel=1e-12)
    assert (law.get_linestyle(), bound.get_linestyle(), bound.get_linewidth()) == ("-", ":", 1.2)
    assert all(_same_colour(ln.get_color(), figures.palette(2)[1]) for ln in (opt, rnd, law, bound))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [
        "d = 8",
        "d = 16",
        "optimised",
        "random, best of trials",
        "adjusted law, refit",
        "Welch / Levenshtein bound",
    ]
    plt.close(fig)


def test_yoder_constants_marks_each_source_and_the_lines():
    cdf = pd.DataFrame(
        {
            "source": ["optimised packing", "optimised packing", "random vectors", "srht projection"],
            "ratio": [8.0, 2.0, 4.0, 16.0],
            "C": [0.5, 0.4, 2.0, 1.5],
            "d": [8, 32, 16, 64],
        }
    )
    lines = pd.DataFrame({"source": [C_LINE, C_LINE], "C": [8.0, 0.2], "label": ["textbook", "peak"]})
    fig = draw.yoder_constants(pd.concat([cdf, lines], ignore_index=True))
    (ax,) = fig.axes
    series = ax.lines[:3]
    assert [ln.get_label() for ln in series] == ["optimised packing", "random vectors", "srht projection"]
    assert [ln.get_marker() for ln in series] == ["o", "s", "^"]
    assert _xy(series[0])[0].tolist() == [2.0, 8.0] and _xy(series[0])[1].tolist() == [0.4, 0.5]  # sorted by ratio
    hlines = ax.lines[3:]
    assert [_xy(h)[1][0] for h in hlines] == [8.0, 0.2]
    assert [(t.get_text(), t.xy) for t in ax.texts] == [("textbook", (16.0, 8.0)), ("peak", (16.0, 0.2))]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    plt.close(fig)


def test_capacity_draws_laws_bounds_and_his_quoted_values():
    law = SimpleNamespace(constants={"C": 1.3}, log10_capacity=laws.PUBLISHED["adjusted"].log10_capacity)
    cap = figdata.capacity_by_angle(1000, np.linspace(0.5, 10, 20), law)
    quoted = pd.DataFrame({"F_deg": [1.0, 3.0], "curve": RULE_QUOTED, "log10_k": [5.0, 40.0]})
    fig = draw.capacity(pd.concat([cap, quoted], ignore_index=True).assign(d=1000))
    (ax,) = fig.axes
    curves = list(dict.fromkeys(cap.curve))
    drawn = [ln for ln in ax.lines if not ln.get_label().startswith("_")]
    assert [ln.get_label() for ln in drawn] == curves
    welch = drawn[curves.index("Welch bound (rigorous)")]
    assert (welch.get_color(), welch.get_linestyle(), welch.get_linewidth()) == ("k", "-", 2.0)
    want = cap[(cap.curve == "Welch bound (rigorous)") & np.isfinite(cap.log10_k)]
    assert _xy(welch)[1] == pytest.approx(want.log10_k.to_numpy(), rel=1e-12)
    crosses = ax.lines[len(curves) :]
    assert [(_xy(c)[0][0], _xy(c)[1][0]) for c in crosses] == [(1, 5.0), (3, 40.0)]
    assert all(c.get_marker() == "x" and _same_colour(c.get_color(), drawn[0].get_color()) for c in crosses)
    assert ax.get_ylim() == (0, 500) and ax.get_xlim() == (0, 10)
    assert ax.get_xlabel() == "F: degrees off orthogonal (ε = sin F), d = 1,000"
    plt.close(fig)
