"""The reference runs' tables against closed forms and hand computations."""

from __future__ import annotations

import math
from types import SimpleNamespace as NS

import numpy as np
import pandas as pd
import pytest

from repcap import RepcapError
from repcap.book.figdata import reference_runs as rr


def _f(config, result):
    return NS(config=config, result=result)


def test_guha_cells_gap_against_his_stored_values():
    stored = pd.DataFrame({"k": [2000, 8000], "d": [32, 32], "eps_star": [0.30, 0.40]})
    m40 = [
        _f({"k": 2000, "d": 32}, {"eps_star": 0.318, "p": 11.0, "seconds": 2.0}),
        _f({"k": 8000, "d": 32}, {"eps_star": 0.40, "p": 17.0}),
    ]
    m60 = [_f({"k": 2000, "d": 32}, {"eps_star": 0.3015, "p": 17.0})]
    t = rr.guha_cells(m40, m60, stored)
    row = t[(t.k == 2000) & (t.rule == "M = 60")].iloc[0]
    assert row.gap == pytest.approx(0.3015 / 0.30 - 1) and row.p == 17
    assert t[(t.k == 2000) & (t.rule.str.startswith("M = 40"))].iloc[0].gap == pytest.approx(0.06)
    assert t[t.k == 8000].iloc[0].rule.startswith("his code (k > 4000")
    assert rr.guha_cells([], [], stored).empty


def test_c_curve_is_yoders_constant_and_its_shape():
    # C = eps^2 d / ln k; a curve that rises to ratio 8 and falls after
    found = []
    for ratio, C in ((2, 0.3), (4, 0.6), (8, 0.9), (16, 0.5), (32, 0.2)):
        d, k = 4, 4 * ratio
        eps = math.sqrt(C * math.log(k) / d)
        found.append(_f({"k": k, "d": d}, {"eps_star": eps}))
    curve = rr.c_curve(found)
    assert curve.C.round(12).tolist() == [0.3, 0.6, 0.9, 0.5, 0.2]
    shape = rr.c_curve_shape(curve)
    assert shape["peak"] == pytest.approx(0.9) and shape["peak_ratio"] == 8 and shape["interior"]
    assert shape["fall"] == pytest.approx(0.2 / 0.9) and shape["n_ratios"] == 5
    rising = rr.c_curve_shape(curve[curve.ratio <= 8])
    assert not rising["interior"]  # the peak is the last point: the grid does not bracket it
    assert rr.c_curve_shape(curve.iloc[:0])["peak"] is None


def test_width_exponents_recover_a_power_law_and_its_interval():
    rng = np.random.default_rng(0)
    found = []
    for seed in (0, 1):
        for m in (10, 15, 25, 39, 63, 100):
            loss = 3.0 * m**-1.2 * math.exp(rng.normal(0, 0.01))
            found.append(_f({"m": m, "alpha": 1.0, "gamma": -0.7778, "seed": seed}, {"loss": loss}))
    found.append(_f({"m": 10, "alpha": 2.0, "gamma": -0.7778}, {"loss": 0.1}))  # one width: no fit
    fits = rr.width_exponents(found)
    one = fits[(fits.alpha == 1.0) & (fits.seed == 0)].iloc[0]
    assert one.alpha_m == pytest.approx(1.2, abs=0.02) and one.low < 1.2 < one.high and one.n_widths == 6
    assert math.isnan(fits[fits.alpha == 2.0].iloc[0].alpha_m)
    # exact on noiseless data, and the seed spread
    exact = rr.width_exponents([_f({"m": m, "alpha": 1, "gamma": 0.3333}, {"loss": m**-0.5}) for m in (10, 25, 63)])
    assert exact.iloc[0].alpha_m == pytest.approx(0.5, abs=1e-12)
    s = rr.exponent_summary(fits)
    a1 = s[s.alpha == 1.0].iloc[0]
    assert a1.n_seeds == 2 and a1.seed_sd >= 0 and a1.alpha_m == pytest.approx(one.alpha_m)
    # the seeds' interval: mean ± t(0.975, 1) sd / sqrt(2), with t(0.975, 1) = 12.7062
    both = fits[fits.alpha == 1.0].alpha_m
    half = 12.706204736 * both.std(ddof=1) / math.sqrt(2)
    assert a1.seed_low == pytest.approx(both.mean() - half) and a1.seed_high == pytest.approx(both.mean() + half)
    lone = rr.exponent_summary(fits[fits.seed == fits.seed.min()])
    assert lone.n_seeds.max() == 1 and lone.seed_low.isna().all()
    assert rr.width_exponents([]).empty and rr.exponent_summary(rr.width_exponents([])).empty
    assert rr.width_exponents(found, m_min=20).n_widths.max() == 4
    # a seed still missing widths stays out of the spread until it has seed 0's widths
    partial = found + [
        _f({"m": m, "alpha": 1.0, "gamma": -0.7778, "seed": 2}, {"loss": 9.0 * m**-0.2}) for m in (10, 15, 25)
    ]
    p1 = rr.exponent_summary(rr.width_exponents(partial))
    assert p1[p1.alpha == 1.0].iloc[0].n_seeds == 2 and p1[p1.alpha == 1.0].iloc[0].seed_mean == pytest.approx(
        both.mean()
    )


def test_digitised_series_refuses_a_malformed_point():
    assert rr.digitised_series([(1.0, -0.7778, 1.184, 0.094)]).alpha_m.tolist() == [1.184]
    with pytest.raises(RepcapError):
        rr.digitised_series([(1.0, "x", 1.0, 0.1)])


def test_fig6e_comparison_keeps_both_series_apart():
    summ = pd.DataFrame(
        [
            {
                "gamma": -0.7778,
                "alpha": 1.0,
                "alpha_m": 1.1,
                "low": 1.0,
                "high": 1.2,
                "n_widths": 6,
                "seed_mean": 1.1,
                "seed_sd": 0.02,
                "n_seeds": 3,
            }
        ]
    )
    dig = rr.digitised_series([(1.0, -0.7778, 1.184, 0.094)])
    t = rr.fig6e_comparison(summ, dig)
    assert t.series.tolist() == ["ours", "Fig. 6e (digitised)"]
    theirs = t.iloc[1]
    assert theirs.low == pytest.approx(1.184 - 0.094) and theirs.high == pytest.approx(1.184 + 0.094)
    assert t.iloc[0].seed_mean == 1.1 and math.isnan(theirs.seed_mean) and math.isnan(theirs.seed_low)
    assert rr.fig6e_comparison(summ.iloc[:0], dig.iloc[:0]).empty


def test_a_chapter_without_a_reference_set_looks_nothing_up():
    from repcap.book.figdata import reference as refdata

    assert refdata.lookup("", "guha-m60", "full") is None
    assert refdata.section(refdata.lookup("", "guha-m60", "full"), "").provenance == refdata.NO_SET
    lk = refdata.lookup("reference", "guha-m60", "smoke")
    assert lk is not None and len(lk.found) + len(lk.missing) + len(lk.stale) == 4  # the smoke set's cells


def test_phi_one_from_the_stored_norms_against_the_digitised_points():
    norms10 = [0.5, 1.2, 1.3, 0.9]  # two of four rows above norm 1
    norms25 = [1.1, 1.2, 1.3, 0.9]
    found = [
        _f({"m": 10, "alpha": 1.0, "gamma": -0.7778}, {"norms": norms10, "loss": 1.0}),
        _f({"m": 25, "alpha": 1.0, "gamma": -0.7778}, {"norms": norms25, "loss": 1.0}),
        _f({"m": 25, "alpha": 1.0, "gamma": -0.7778, "seed": 1}, {"norms": [2.0] * 4, "loss": 1.0}),
        _f({"m": 10, "alpha": 1.0, "gamma": -0.5556}, {"loss": 1.0}),  # no norms stored: left out
    ]
    t = rr.phi_one_comparison(found, [(1.0, 10, 0.45), (1.0, 25, 0.80), (1.0, 100, 0.9)])
    ours = t[t.series == "ours"]
    assert sorted(zip(ours.m, ours.seed, ours.phi_one)) == [(10, 0, 0.5), (25, 0, 0.75), (25, 1, 1.0)]
    gap, n = rr.phi_one_gap(t, 1.0, -0.7778)  # seed 0 only: |0.5 - 0.45|, |0.75 - 0.80|
    assert gap == pytest.approx(0.05) and n == 2
    assert math.isnan(rr.phi_one_gap(t, 1.5, -0.7778)[0])


def test_overlap_definitions_in_units_of_one_over_m():
    res = {"overlap_all": 0.25, "overlap_represented": 0.25, "overlap_strong": 0.1, "phi_one": 0.13}
    res |= {"overlap_unnormalised": 0.16, "overlap_weighted": None}
    t = rr.overlap_definitions([_f({"m": 10, "alpha": 1.0, "gamma": -0.7778}, res)])
    by = t.set_index("definition")
    assert by.loc["all", "times_m"] == pytest.approx(2.5) and by.loc["strong", "times_m"] == pytest.approx(1.0)
    assert math.isnan(by.loc["weighted", "times_m"]) and len(t) == 5


def test_an_empty_table_is_saved_as_its_placeholder():
    from repcap.book.figdata import reference as refdata

    full = pd.DataFrame({"m": [10]})
    assert refdata.placeholder_if_empty(full) is full
    assert refdata.placeholder_if_empty(full.iloc[:0]).note.tolist() == [refdata.PLACEHOLDER]


def test_contrast_points_carry_the_left_out_features_loss_and_fits_their_bend():
    from repcap.engines import toy

    n, tau = 200, 50.0
    found = []
    for m in (10, 15, 25, 39, 63, 100):
        p = toy.frequencies(n, "exp", 1.0, tau)
        ideal = toy.unlearned_loss(p, m)
        found.append(
            _f({"n": n, "m": m, "distribution": "exp", "alpha": 1.0, "tau": tau, "gamma": 0.333}, {"loss": ideal})
        )
        found.append(
            _f(
                {"n": n, "m": m, "distribution": "exp", "alpha": 1.0, "tau": tau, "gamma": -1.0},
                {"loss": 0.5 * m**-1.0},
            )
        )
    pts = rr.contrast_points(found)
    weak = pts[pts.regime == "weak"]
    # the weak model here loses exactly the left-out features: loss and ideal agree, and by hand
    p = toy.frequencies(n, "exp", 1.0, tau).numpy()
    assert weak.ideal_loss.tolist() == pytest.approx(weak.loss.tolist(), rel=1e-12)
    assert weak[weak.m == 10].iloc[0].ideal_loss == pytest.approx(sum(4 / 3 * q - q * q for q in p[10:]), rel=1e-9)
    fits = rr.contrast_fits(pts)
    strong = fits[(fits.series == "model") & (fits.gamma < 0)].iloc[0]
    assert strong.curvature == pytest.approx(0.0, abs=1e-9) and strong.alpha_m == pytest.approx(1.0, abs=1e-9)
    bent = fits[(fits.series == "model") & (fits.gamma > 0)].iloc[0]
    assert bent.curvature < 0 and bent.high < 0 and bent.n_widths == 6  # exponential tails fall ever faster
    few = rr.contrast_fits(pts[pts.m <= 25])
    assert few.curvature.isna().all() and (few.n_widths == 3).all()
