"""Chapter 11's figures, drawn by repcap.book.drawings.frontier from small tables: every series lands on
its panel with the values of the table, exact and bounded codes are told apart by their fill, and the
best-known figure draws only the best-of-all rows."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from repcap.book.drawings import frontier as draw


def _panels() -> pd.DataFrame:
    rows = []
    for panel, d in (("d = 7 / 8", 8), ("d = 15 / 16", 16), ("d = 31 / 32", 32), ("d = 63 / 64", 64)):
        for series, eps in (("bound", 0.1), ("law", 0.2)):
            rows += [dict(panel=panel, d=d, series=series, log10_k=x, eps=eps * x, status="", name="") for x in (1, 2)]
        rows += [
            dict(panel=panel, d=d, series="explicit", log10_k=1.5, eps=0.3, status="exact", name="a"),
            dict(panel=panel, d=d, series="explicit", log10_k=2.5, eps=0.4, status="bound", name="b"),
            dict(panel=panel, d=d, series="guha", log10_k=3.0, eps=0.5, status="", name=""),
            dict(
                panel=panel, d=d, series="ours", log10_k=3.5, eps=0.6, status="", name="ours, his settings (reference)"
            ),
        ]
    return pd.DataFrame(rows)


def test_eps_vs_k_draws_each_series_on_its_panel():
    df = _panels()
    fig = draw.eps_vs_k(df)
    axes = fig.axes[:4]
    assert [ax.get_title() for ax in axes] == list(df.panel.unique())
    for ax, (_, g) in zip(axes, df.groupby("panel", sort=False), strict=True):
        bound, law = ax.lines[:2]
        assert np.allclose(bound.get_xdata(), g[g.series == "bound"].log10_k)
        assert np.allclose(law.get_ydata(), g[g.series == "law"].eps) and law.get_linestyle() == "--"
        exact, bounded, guha, ours = ax.collections
        assert np.allclose(exact.get_offsets(), [[1.5, 0.3]]) and np.allclose(bounded.get_offsets(), [[2.5, 0.4]])
        assert exact.get_facecolors()[0][3] > 0 and len(bounded.get_facecolors()) == 0  # open: the bound
        assert np.allclose(guha.get_offsets(), [[3.0, 0.5]]) and np.allclose(ours.get_offsets(), [[3.5, 0.6]])
        assert ax.get_yscale() == "log"
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert len(labels) == len(set(labels)) == 6 and "ours, his settings (reference)" in labels
    plt.close(fig)


def test_against_best_known_draws_the_best_of_all_rows():
    df = pd.DataFrame(
        [
            dict(optimiser="best of all", N=10, d=3, ratio_best=1.0),
            dict(optimiser="best of all", N=40, d=5, ratio_best=1.3),
            dict(optimiser="exp (Yoder)", N=40, d=5, ratio_best=2.0),
        ]
    )
    fig = draw.against_best_known(df)
    ax = fig.axes[0]
    (sc,) = ax.collections
    assert np.allclose(sc.get_offsets(), [[10, 1.0], [40, 1.3]])
    assert np.allclose(sc.get_array(), [3, 5]) and ax.get_xscale() == "log"
    assert ax.lines[0].get_ydata()[0] == 1.0
    plt.close(fig)


def test_against_best_known_draws_each_named_series_with_its_marker():
    df = pd.DataFrame(
        [
            dict(optimiser="adam", N=10, d=3, ratio_best=1.2),
            dict(optimiser="adam", N=40, d=5, ratio_best=1.3),
            dict(optimiser="mm", N=40, d=5, ratio_best=1.001),
            dict(optimiser="exp (Yoder)", N=40, d=5, ratio_best=2.0),
        ]
    )
    fig = draw.against_best_known(df, ("adam", "mm"))
    ax = fig.axes[0]
    adam, mm = ax.collections
    assert np.allclose(adam.get_offsets(), [[10, 1.2], [40, 1.3]]) and np.allclose(mm.get_offsets(), [[40, 1.001]])
    assert mm.norm.vmin == adam.norm.vmin == 3 and mm.norm.vmax == 5  # one colour scale for both
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["adam", "mm"]
    plt.close(fig)
