"""Chapter 9's figures, drawn by repcap.book.drawings.scaling and .scaling_reference from the small
tables the chapter's figdata functions make: each returns a figure with the marks its caption
promises, and an empty reference table (its placeholder) draws its placeholder."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from repcap.book.drawings import scaling as draw
from repcap.book.drawings import scaling_reference as refdraw
from repcap.book.figdata import scaling as fscaling
from repcap.book.figdata.reference import PLACEHOLDER, placeholder


def _texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def _labels(fig) -> list[str]:
    return [h for ax in fig.axes for h in ax.get_legend_handles_labels()[1]]


def test_loss_and_exponent_figures():
    ms = [4, 8, 16]
    df = pd.DataFrame(
        [
            {"regime": r, "gamma": g, "alpha": a, "m": m, "seed": 0, "loss": m**-a, "left_out_loss": m**-a}
            for r, g in (("weak", 0.3333), ("strong", -1.0))
            for a in (1.0, 2.0)
            for m in ms
        ]
    )
    fits = pd.DataFrame(
        [
            {"regime": r, "alpha": a, "alpha_m": a, "log_A": 0.0, "ci_low": a - 0.1, "ci_high": a + 0.1}
            for r in ("weak", "strong")
            for a in (1.0, 2.0)
        ]
    )
    pred = pd.DataFrame([{"alpha": a, "m": m, "unlearned_loss": m**-a} for a in (1.0, 2.0) for m in ms])
    fig = draw.loss_vs_width(fscaling.loss_figure(df, fits, pred, ms))
    assert len(fig.axes) == 2 and [ax.get_title() for ax in fig.axes] == [
        "weak regime (γ = 0.3333)",
        "strong regime (γ = -1)",
    ]
    assert len(fig.axes[0].lines) == 2 * 4 and len(fig.axes[1].lines) == 2 * 2  # weak: dots, fit, ideal, crosses
    plt.close(fig)
    pf = pd.DataFrame({"alpha": [1.0, 2.0], "alpha_m_pred": [0.1, 1.2]})
    fig = draw.exponents_vs_alpha(fscaling.exponents_figure(fits, pf, {1.0: (0.93, 1.18), 2.0: (2.05, 2.27)}))
    assert "Liu et al., strong (Fig. 6e)" in _labels(fig) and "dropped-feature prediction" in _labels(fig)
    plt.close(fig)
    gf = fits.rename(columns={"regime": "gamma"}).assign(gamma=lambda d: np.where(d.gamma == "weak", 0.3333, -1.0))
    fig = draw.exponents_by_gamma(gf)
    assert len(fig.axes) == 2  # the plot and its colour bar
    plt.close(fig)


def test_reference_figures_draw_their_placeholder_when_empty():
    fig = draw.reference_losses(
        fscaling.reference_figure(pd.DataFrame(columns=["regime", "alpha", "m"]), pd.DataFrame())
    )
    assert "no reference points\nin this build" in _texts(fig)
    plt.close(fig)
    empty = pd.DataFrame(columns=["series", "gamma", "alpha", "alpha_m", "low", "high", "n_widths", "n_seeds"])
    fig = refdraw.fig6e(empty, 3)
    assert "no reference width sweep in this build" in _texts(fig)
    plt.close(fig)
    fig = refdraw.seed_outliers(placeholder(), 2.0)
    assert PLACEHOLDER in _texts(fig)
    assert sorted(round(line.get_ydata()[0], 3) for line in fig.axes[0].lines) == [0.5, 1.0, 2.0]
    plt.close(fig)


def test_the_outlier_figure_rings_the_flagged_model():
    flagged = pd.DataFrame(
        {
            "gamma": [-1.0] * 3,
            "m": [100] * 3,
            "ratio": [1.0, 5.4, 0.99],
            "n_seeds": [3] * 3,
            "outlier": [False, True, False],
        }
    )
    fig = refdraw.seed_outliers(flagged, 2.0)
    ringed = [line for line in fig.axes[0].lines if line.get_label() == "single-model outlier"]
    assert len(ringed) == 1 and list(ringed[0].get_ydata()) == [5.4]
    plt.close(fig)


def test_fig6e_figure_draws_both_series_and_the_seed_bars():
    cmp = pd.DataFrame(
        [
            {
                "series": "ours",
                "gamma": -0.7778,
                "alpha": 1.5,
                "alpha_m": 1.45,
                "low": 1.3,
                "high": 1.6,
                "n_widths": 6,
                "n_seeds": 3,
                "seed_low": 1.4,
                "seed_high": 1.5,
            },
            {
                "series": "Fig. 6e (digitised)",
                "gamma": -0.7778,
                "alpha": 1.5,
                "alpha_m": 1.249,
                "low": 1.19,
                "high": 1.30,
                "n_widths": np.nan,
                "n_seeds": np.nan,
                "seed_low": np.nan,
                "seed_high": np.nan,
            },
        ]
    )
    fig = refdraw.fig6e(cmp, 3)
    labels = _labels(fig)
    assert "ours, γ = −0.778" in labels and "Fig. 6e, γ = −0.778" in labels
    thick = [line for line in fig.axes[0].lines if line.get_linewidth() == 3.5]
    assert len(thick) == 1 and list(thick[0].get_ydata()) == [1.4, 1.5]
    plt.close(fig)


def test_the_tables_hold_the_lines_the_figures_draw():
    """The fit lines are rows of the figure's table (what its CSV ships), on the power law they fit."""
    models = pd.DataFrame({"regime": "weak", "gamma": 0.3333, "alpha": 1.0, "m": [4, 16], "seed": 0, "loss": 1.0})
    fits = pd.DataFrame({"regime": ["weak"], "alpha": [1.0], "alpha_m": [0.5], "log_A": [np.log(2.0)]})
    pred = pd.DataFrame({"alpha": 1.0, "m": [4, 16], "unlearned_loss": [0.5, 0.25]})
    t = fscaling.loss_figure(models.assign(left_out_loss=0.9), fits, pred, [4, 16])
    assert t.kind.value_counts().to_dict() == {"fit": fscaling.FIT_POINTS, "model": 2, "ideal": 2}
    f = t[t.kind == "fit"]
    np.testing.assert_allclose(f.loss, 2.0 * f.m**-0.5, rtol=1e-12)
    assert f.m.min() == 4 and f.m.max() == pytest.approx(16)
    ov = fscaling.overlap_figure(models.assign(one_over_m=1 / models.m, mean_sq_overlap=0.1, welch=0.05), [(0.1, 0.12)])
    assert ov[ov.kind == "Fig. 6d"][["one_over_m", "mean_sq_overlap"]].values.tolist() == [[0.1, 0.12]]
