"""The findings the chapters record, computed by repcap.evidence from the figure tables, against hand
computations and the numbers of issue 36."""

from __future__ import annotations

import math
from types import SimpleNamespace as NS

import numpy as np
import pandas as pd
import pytest

from repcap import evidence
from repcap.book.figdata import reference_runs as rr
from repcap.evidence import reference, scorecard
from repcap.models import catalog


def _f(config, result):
    return NS(config=config, result=result)


def _sweep(gamma, alpha, slope, seeds=(0, 1, 2), ms=(10, 15, 25, 39, 63, 100), bump=None, jitter=0.0):
    """Power-law toy points ``3 m^-slope``, one per (seed, m); ``bump``: ``{(seed, m): factor}``."""
    rng = np.random.default_rng(1)
    out = []
    for s in seeds:
        for m in ms:
            loss = 3.0 * m**-slope * math.exp(rng.normal(0, jitter)) * (bump or {}).get((s, m), 1.0)
            out.append(_f({"gamma": gamma, "alpha": alpha, "seed": s, "m": m}, {"loss": loss}))
    return out


def test_a_single_model_outlier_is_flagged_and_its_width_left_out():
    """Issue 36's excursion: gamma = -1, alpha = 1.5, seed 1 at m = 100 about 5.4 x its seeds."""
    found = _sweep(-1.0, 1.5, 1.5, bump={(1, 100): 5.4}, jitter=0.01)
    flagged = rr.seed_outliers(rr.width_points(found))
    out = flagged[flagged.outlier]
    assert len(out) == 1 and (int(out.seed.iloc[0]), int(out.m.iloc[0])) == (1, 100)
    assert out.ratio.iloc[0] == pytest.approx(5.4, rel=0.05) and (flagged.n_seeds == 3).all()
    with_it = rr.exponent_summary(rr.width_exponents(found)).iloc[0]
    without = rr.exponent_summary(rr.width_exponents(found, drop_outliers=True)).iloc[0]
    assert with_it.seed_mean < 1.4  # the excursion flattens seed 1's slope
    assert without.seed_mean == pytest.approx(1.5, abs=0.02) and without.n_widths == 5 and without.n_seeds == 3
    assert rr.width_exponents(found, drop_outliers=True).dropped.iloc[0] == [100]
    # a factor under 2 is no outlier, and two seeds cannot say which of them is off
    assert not rr.seed_outliers(rr.width_points(_sweep(-1.0, 1.5, 1.5, bump={(1, 100): 1.9}))).outlier.any()
    two = rr.seed_outliers(rr.width_points(_sweep(-1.0, 1.5, 1.5, seeds=(0, 1), bump={(1, 100): 9.0})))
    assert not two.outlier.any() and rr.outlier_summary(two).startswith("Of the 0 models")
    assert "seed 1 at m = 100" in rr.outlier_summary(flagged)


def test_fig6e_rows_are_judged_on_the_seeds_mean_or_seed_0():
    found = _sweep(-0.7778, 1.5, 1.45, jitter=0.01) + _sweep(-0.5556, 0.5, 0.9, seeds=(0,), jitter=0.01)
    found += _sweep(-1.0, 1.5, 1.5, bump={(1, 100): 5.4})  # gamma = -1: no row of its own
    flagged = rr.seed_outliers(rr.width_points(found))
    summ = rr.exponent_summary(rr.width_exponents(found, drop_outliers=True))
    got = evidence.liu.fig6e(summ, outliers=flagged, profile="reference")
    assert set(got) == {"liu-strong-a15", "liu-strong-a05-g0556"}
    three, one = got["liu-strong-a15"], got["liu-strong-a05-g0556"]
    s15 = summ[(summ.alpha == 1.5) & np.isclose(summ.gamma, -0.7778)].iloc[0]
    assert three["value"] == pytest.approx(s15.seed_mean) and three["se"] == pytest.approx(s15.seed_sd / math.sqrt(3))
    assert three["interval"] == "t" and "mean of 3 seeds" in three["n_of"] and three["profile"] == "reference"
    s05 = summ[(summ.alpha == 0.5)].iloc[0]
    assert one["value"] == pytest.approx(s05.alpha_m) and one["se"] == pytest.approx(s05.se) and "seed 0" in one["n_of"]
    assert "no single-model outlier" in three["note"]
    # judged on the scorecard's combined rule against the digitised point
    row = scorecard.evaluate(reference.claim("liu-strong-a15"), [{"claim": "liu-strong-a15", **three}])
    assert row.verdict.kind.startswith("differs")  # 1.45 +- 0.003 against 1.249 +- 0.055
    assert evidence.liu.fig6e_claim(0.5, 0.3333) is None  # Fig. 6e's weak series has no row at alpha = 0.5
    assert evidence.liu.fig6e_claim(2.0, 0.3333) == "liu-weak-a20"


def test_fig6e_points_and_table_from_the_quotes():
    dig = rr.fig6e_digitised()
    assert len(dig) == 14 and set(dig.gamma.round(4)) == {-0.7778, -0.5556, -0.3333, 0.3333}
    q = reference.quote("liu2025.fig6e_a15_g0778")
    row = dig[(dig.alpha == 1.5) & np.isclose(dig.gamma, -0.7778)].iloc[0]
    assert row.alpha_m == q.value and row.error == pytest.approx((q.high - q.low) / 2)
    summ = pd.DataFrame(
        [
            {
                "gamma": -0.7778,
                "alpha": 1.5,
                "alpha_m": 1.46,
                "low": 1.3,
                "high": 1.6,
                "se": 0.05,
                "n_widths": 6,
                "seed_mean": 1.454,
                "seed_sd": 0.0208,
                "seed_se": 0.012,
                "n_seeds": 3,
                "seed_low": 1.40,
                "seed_high": 1.51,
            }
        ]
    )
    t = rr.fig6e_table(summ, dig)
    # one currency (issue 46.3): the seed mean against their single replicate, bar plus our seed sd (0.012 × √3)
    comb = math.hypot(0.012, 0.0555, 0.012 * math.sqrt(3))
    assert len(t) == 1 and t.z.iloc[0] == pytest.approx((1.454 - 1.249) / comb, rel=1e-3)


def test_the_c_curve_per_dimension_drops_the_ceiling_and_needs_a_bracket():
    cells = []
    for ratio, eps in ((2, 0.7071), (4, 0.9239), (8, 0.9808), (16, 1.0), (32, 1.0)):  # d = 2: at the ceiling from 16
        cells.append(_f({"k": 2 * ratio, "d": 2}, {"eps_star": eps}))
    for ratio, C in ((2, 0.3), (4, 0.6), (8, 0.7), (16, 0.5)):
        eps = math.sqrt(C * math.log(16 * ratio) / 16)
        cells.append(_f({"k": 16 * ratio, "d": 16}, {"eps_star": eps}))
    curve = rr.c_curve(cells)
    assert curve[curve.d == 2].at_ceiling.tolist() == [False, False, False, True, True]
    assert curve.ceiling.iloc[0] == pytest.approx(2 / math.log(4))
    peaks = rr.c_curve_peaks(curve)
    d2, d16 = peaks[peaks.d == 2].iloc[0], peaks[peaks.d == 16].iloc[0]
    assert d2.n_dropped == 2 and d2.n_cells == 3 and d2.bracketed and d2.peak_ratio == 4
    assert d16.bracketed and d16.peak == pytest.approx(0.7)
    # one run per cell: a bracketed peak still cannot be set against the seed scatter of C (issue 46.2)
    one_run = evidence.yoder.c_peak(peaks, profile="reference")["yoder-C-peak"]
    assert one_run["undecided"].startswith("one run per cell") and "his k is unknown" in one_run["note"]
    assert "d = 16: 0.700 at N/k = 8, falling 28.6% after it" in one_run["note"]
    # with seeds: d = 16 falls 28.6% after its peak, which decides against a 2% scatter (2 × 2% = 4%) ...
    got = evidence.yoder.c_peak(peaks, seed_sd={16: 0.02, 2: 0.02}, profile="reference")["yoder-C-peak"]
    assert got["value"] == pytest.approx(0.7) and "decided at d = 16" in got["note"] and not got.get("undecided")
    # ... but not against a 20% scatter (2 × 20% = 40% > 28.6%), and d = 2 (15.5% < 2 × 10%) not either
    wide = evidence.yoder.c_peak(peaks, seed_sd={16: 0.2, 2: 0.1})["yoder-C-peak"]
    assert wide["undecided"] == "no dimension's fall after its peak exceeds the seed scatter of C"
    assert evidence.yoder.c_peak(peaks, seed_sd={16: 0.2, 2: 0.05})["yoder-C-peak"]["n_of"] == "cells at d = 2"
    rising = rr.c_curve_peaks(curve[curve.ratio <= 8])  # d = 16 ends at its largest value: no bracket
    lone = evidence.yoder.c_peak(rising[rising.d == 16], seed_sd={16: 0.0})["yoder-C-peak"]
    assert lone["undecided"] == "no dimension's fall after its peak exceeds the seed scatter of C"
    assert "(not bracketed)" in lone["note"]
    assert "d = 2: 0.821 at N/k = 4 (bracketed), 2 cells at the ceiling dropped" in rr.c_curve_summary(peaks)
    # d = 2 decides against its scatter, but d = 16 is still rising: the largest d's peak is not known (issue 46.2)
    up = rr.c_curve_peaks(curve[(curve.d == 2) | (curve.ratio <= 8)])
    open_top = evidence.yoder.c_peak(up, seed_sd={2: 0.05, 16: 0.0})["yoder-C-peak"]
    assert open_top["undecided"].startswith("d = 16 (0.700 at N/k = 8) still rising") and open_top["value"] > 0.8


def test_the_seed_scatter_of_c_at_each_peak_cell_needs_three_seeds():
    """Issue 46.2: C's relative sd over the seeds of each dimension's peak cell (c-curve-seeds)."""

    def cell(k, d, C, seed):
        return _f({"k": k, "d": d, "seed": seed}, {"eps_star": math.sqrt(C * math.log(k) / d)})

    cs = {0: 0.7675, 1: 0.7632, 2: 0.7726}
    found = [cell(8 * r, 8, C, 0) for r, C in ((128, 0.76), (256, cs[0]), (512, 0.74))]
    found += [cell(2048, 8, cs[s], s) for s in (1, 2)] + [cell(32, 16, 0.3, 0), cell(64, 16, 0.4, 0)]
    peaks = rr.c_curve_peaks(rr.c_curve(found))
    sd = rr.c_curve_seed_sd(found, peaks)
    assert set(sd) == {8}  # d = 16's peak cell has one seed
    assert sd[8] == pytest.approx(np.std(list(cs.values()), ddof=1) / np.mean(list(cs.values())))
    assert rr.c_curve(found).query("d == 8 and k == 2048").C.iloc[0] == pytest.approx(cs[0])  # seed 0 is drawn


def test_yoders_ceiling_and_trap():
    assert evidence.yoder.c_ceiling()["yoder-C-falls"]["value"] == pytest.approx(2 / math.log(30000))
    falls = reference.claim("yoder-C-falls")  # our hypothesis on a commenter's reading: a context note
    assert falls.context and falls.status() == "ours" and "item?id=45245948" in falls.where()
    row = scorecard.evaluate(falls, [{"claim": "yoder-C-falls", "value": 0.194, "profile": "quick"}])
    assert row.verdict.ok and scorecard.counts([row]) == dict.fromkeys(scorecard.VERDICTS, 0)
    k, d = 300, 12
    res = {
        "n_pairs": k * (k - 1) // 2,
        "n_orthogonal": k * (k - 1) // 2 - 1800,
        "n_above": {"0.9": 1800.0},
        "eps_curve": [0.5, 0.95, 0.8, 0.95, 0.97],
        "curve_steps": [0, 10, 20, 30, 40],
    }
    got = evidence.yoder.trap(res, k, d)
    assert got["yoder-99-solution"]["value"] == pytest.approx(1800 / (k * (k - 1) / 2) * d)
    assert got["yoder-gradient-trap"]["value"] == pytest.approx((40 - 30) / 40)  # above 0.9 from step 30 on
    assert got["yoder-99-solution"]["interval"] == "one run"
    res["eps_curve"][-1] = 0.5
    assert evidence.yoder.trap(res, k, d)["yoder-gradient-trap"]["value"] == 0.0


def test_projections_and_their_uncertainty_by_name():
    proj = pd.DataFrame(
        {
            "N": [256, 1024, 256, 256],
            "k": [16, 32, 16, 16],
            "kind": ["srht", "srht", "gaussian", "rademacher"],
            "C": [1.0, 2.0, 9.0, 7.0],
        }
    )
    got = evidence.yoder.projections(proj, undecided="small")
    assert got["yoder-C-hadamard"]["value"] == pytest.approx(1.5) and got["yoder-C-hadamard"]["interval"] == "range"
    assert (got["yoder-C-textbook"]["low"], got["yoder-C-textbook"]["high"]) == (7.0, 9.0)
    assert got["yoder-C-textbook"]["undecided"] == "small"


def test_guhas_table1_rows_and_the_empty_band():
    got = evidence.guha.table1(catalog.guha_models())
    span = got["guha-class2-span"]
    assert (
        span["value"] == pytest.approx(math.log10(8.15e15) - 11) and "Llama 2 70B" in span["note"] and span["n"] == 31
    )
    tied = got["guha-class1-mostly-tied"]
    assert tied["value"] == pytest.approx(12 / 14) and tied["n"] == 14
    row = scorecard.evaluate(
        reference.claim("guha-class2-span"), [{"claim": "guha-class2-span", **span, "profile": "quick"}]
    )
    assert row.verdict.kind == "differs (explained)" and "Llama 2 70B" in row.verdict.text
    assert scorecard.evaluate(
        reference.claim("guha-class1-mostly-tied"), [{"claim": "guha-class1-mostly-tied", **tied, "profile": "quick"}]
    ).verdict.ok
    band = evidence.guha.empty_band(
        [{"label": "a", "eps": 0.41}, {"label": "b", "eps": 0.06}, {"label": "c", "eps": 0.15}]
    )
    assert band["guha-empty-band"]["value"] == 1 and band["guha-empty-band"]["note"] == "in the band: c"
    assert "0.0400 outside" in evidence.guha.empty_band([{"label": "a", "eps": 0.24}])["guha-empty-band"]["note"]
    three = evidence.guha.empty_band([{"label": "a", "eps": 0.09, "eps3": 0.12}], key="eps3")
    assert three["guha-empty-band-3sigma"]["value"] == 1 and reference.claim("guha-empty-band-3sigma").context


def test_the_contrast_against_a_matched_control():
    ms = np.array([10, 15, 25, 39, 63, 100])
    x = np.log(ms) - np.log(ms).mean()
    bent = pd.DataFrame({"regime": "weak", "m": ms, "loss": np.exp(-0.3 * x - 0.2 * x**2)})
    straight = pd.DataFrame({"m": ms, "loss": np.exp(-0.3 * x + 0.001 * np.sin(ms)), "alpha": 0.5, "gamma": 0.3333})
    far = pd.DataFrame({"m": ms, "loss": np.exp(-2.0 * x), "alpha": 2.0, "gamma": 0.3333})
    ctrl = rr.matched_control(bent, pd.concat([straight, far]))
    assert set(ctrl.alpha) == {0.5}  # the loss range nearest the target's
    got = evidence.liu.contrast(bent, {"weak": ctrl}, setting="τ = 400, n = 1000")["liu-power-in-out"]
    assert got["value"] == pytest.approx(-0.2, abs=0.01) and got["high"] < 0 and got["interval"] == "fit"
    assert "power-law control (α = 0.5" in got["note"]
    assert "Weak: the bends differ by −0.199 ± 0.000" in evidence.liu.describe_contrast({"liu-power-in-out": got})


def test_overlap_rows_decide_fig6d_over_every_row():
    ms = [10, 15, 25, 39, 63, 100]
    ovd = pd.DataFrame(
        [
            {"m": m, "definition": d, "overlap": c * m**-s, "times_m": c * m ** (1 - s), "phi_one": 0.5}
            for m in ms
            for d, c, s in (("all", 5.0, 1.4), ("strong", 1.0, 1.0))
        ]
    )
    got = evidence.liu.overlap(ovd, profile="reference")
    assert got["liu-toy-overlap"]["value"] == pytest.approx(-1.4) and got["liu-toy-overlap"]["n"] == 6
    assert got["liu-toy-overlap-level"]["value"] == pytest.approx(5.0 * 10**-1.4)
    assert got["liu-toy-overlap-strong"]["value"] == pytest.approx(0.1)
    assert reference.claim("liu-toy-overlap-level").context and reference.claim("liu-toy-overlap-strong").context


def test_weak_models_phi_and_left_out_loss():
    n, m = 40, 4
    norms = [1.0] * 6 + [0.1] * (n - 6)
    found = [_f({"n": n, "m": m, "alpha": 1.0, "gamma": 1.0, "seed": 0}, {"loss": 0.8, "norms": norms})]
    found.append(_f({"n": n, "m": m, "alpha": 1.0, "gamma": -1.0, "seed": 0}, {"loss": 0.1, "norms": [1.0] * n}))
    weak = rr.weak_models(found)
    assert len(weak) == 1 and weak.phi_half.iloc[0] == pytest.approx(6 / n)
    assert weak.phi_half_over_m_n.iloc[0] == pytest.approx(6 / m)
    got = evidence.liu.phi_weak(weak)["liu-phi-weak"]
    assert got["value"] == pytest.approx(1.5) and got["interval"] == "range"
    lo = evidence.liu.left_out(weak, undecided="small")["liu-weak-leftout"]
    assert lo["value"] == pytest.approx(0.8 / weak.left_out_loss.iloc[0]) and lo["undecided"] == "small"
    assert evidence.liu.below_paper_size(1000, 20000, 1000, 20000) == ""
    assert "n = 256" in evidence.liu.below_paper_size(256, 1500, 1000, 20000)


def test_profile_fits_are_recorded_only_under_the_row_of_their_gamma():
    """Issue 46.5: the `paper` profile outranks `reference`, so a profile's strong fits at γ = −1 must
    not land under the rows labelled γ = −0.778 (nor its overlap under liu-toy-overlap's α = 1, γ = −0.778)."""
    fits = pd.DataFrame(
        {
            "regime": ["strong", "strong"],
            "alpha": [1.0, 1.5],
            "alpha_m": [1.1, 1.3],
            "ci_low": [1.0, 1.2],
            "ci_high": [1.2, 1.4],
            "stderr": [0.05, 0.05],
            "n_points": [6, 6],
        }
    )
    ofits = pd.DataFrame({"law": [], "alpha_m": [], "ci_low": [], "ci_high": [], "stderr": [], "n_points": []})
    assert evidence.liu.profile_exponents(fits, ofits, {}, gamma=-1.0, profile="paper") == {}
    assert evidence.liu.profile_exponents(fits, ofits, {}, profile="paper") == {}
    got = evidence.liu.profile_exponents(fits, ofits, {}, gamma=-0.7778, profile="paper")
    assert set(got) == {"liu-strong-a10", "liu-strong-a15"} and got["liu-strong-a10"]["value"] == 1.1
    ms = [4, 8, 16, 32]
    strong = pd.DataFrame(
        {"alpha": [1.0] * 4 + [2.0] * 4, "m": ms * 2, "mean_sq_overlap": [1 / m for m in ms] + [9 / m**3 for m in ms]}
    )
    assert evidence.liu.profile_overlap(strong, gamma=-1.0) == {}
    ov = evidence.liu.profile_overlap(strong, gamma=-0.7778)["liu-toy-overlap"]
    assert ov["value"] == pytest.approx(-1.0) and ov["n"] == 4  # α = 1 only: the α = 2 series is left out


def test_the_contrast_interval_is_a_welch_t():
    """Issue 46.7: a difference of two parabola fits on 6 widths each (3 dof each) takes Welch's t."""
    from scipy import stats

    assert evidence.liu.welch_t(0.1, 3, 0.1, 3) == pytest.approx(stats.t.ppf(0.975, 6))
    assert evidence.liu.welch_t(0.1, 3, 1e-9, 3) == pytest.approx(stats.t.ppf(0.975, 3), rel=1e-6)
