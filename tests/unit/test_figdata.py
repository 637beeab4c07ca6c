"""The chapters' tables (repcap.figdata) against values computed independently here: closed forms,
direct float64 sums, and pair counts of small matrices."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

from repcap import packing
from repcap.cosine import Histogram
from repcap.figdata import packing as fpack
from repcap.figdata import survey as fsurvey
from repcap.figdata import toy as ftoy


# --- toy ---------------------------------------------------------------------------------------
def _power(n, a):
    p = np.arange(1, n + 1, dtype=np.float64) ** -a
    return p / p.sum()


def test_left_out_loss_sums_the_variance_of_the_rows_left_out():
    n = 6
    norms = [[1.0, 0.9, 0.2, 0.7, 0.5, 0.0], [0.0] * n]
    df = pd.DataFrame({"alpha": [1.0, 2.0], "norms": norms})
    got = ftoy.left_out_loss(df, n)
    p1, p2 = _power(n, 1.0), _power(n, 2.0)
    out1 = p1[[2, 4, 5]]  # norms <= 1/2
    assert got[0] == pytest.approx(float(np.sum(4 / 3 * out1 - out1**2)), rel=1e-12)
    assert got[1] == pytest.approx(float(np.sum(4 / 3 * p2 - p2**2)), rel=1e-12)


def test_exponent_fits_recover_exact_power_laws_per_group():
    ms = np.array([4, 8, 16, 32, 64])
    df = pd.concat(
        [
            pd.DataFrame({"regime": r, "alpha": a, "m": ms, "loss": 3.0 * ms**-e})
            for r, a, e in (("weak", 1.5, 0.5), ("strong", 1.5, 1.0), ("strong", 2.0, 1.25))
        ]
    )
    fits = ftoy.exponent_fits(df)
    assert list(zip(fits.regime, fits.alpha)) == [("weak", 1.5), ("strong", 1.5), ("strong", 2.0)]
    np.testing.assert_allclose(fits.alpha_m, [0.5, 1.0, 1.25], rtol=1e-10)
    np.testing.assert_allclose(np.exp(fits.log_A), 3.0, rtol=1e-10)
    # m_min drops the narrow widths: a bend below m = 16 no longer counts
    bent = df.assign(loss=np.where(df.m < 16, df.loss * 5, df.loss))
    np.testing.assert_allclose(ftoy.exponent_fits(bent, m_min=16).alpha_m, [0.5, 1.0, 1.25], rtol=1e-10)


def test_unlearned_prediction_is_the_tail_variance_and_tends_to_alpha_minus_one():
    n, alphas, ms = 200_000, [1.5, 2.0], [8, 16, 32, 64]
    pred, slopes = ftoy.unlearned_prediction(n, alphas, ms)
    p = _power(n, 2.0)
    tail = p[16:]
    got = pred[(pred.alpha == 2.0) & (pred.m == 16)].unlearned_loss.item()
    assert got == pytest.approx(float(np.sum(4 / 3 * tail - tail**2)), rel=1e-10)
    # for n >> m the tail sum of i^-alpha from m falls as m^-(alpha - 1)
    np.testing.assert_allclose(slopes.alpha_m_pred, [0.5, 1.0], atol=0.03)


# --- survey ------------------------------------------------------------------------------------
def _record(label, X, bins=2000):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    c = (U @ U.T)[np.triu_indices(len(U), 1)]
    counts, _ = np.histogram(c, bins=bins, range=(-1, 1))
    return {
        "label": label,
        "d_model": X.shape[1],
        "mean": c.mean(),
        "var": c.var(),
        "mean_sq": np.mean(c**2),
        "hist_counts": counts.tolist(),
        "quant": "f32",
        "tied": True,
        "tensor": "w",
        "vocab_size": len(X),
    }


def test_overlap_table_splits_the_mean_square_into_variance_and_squared_mean():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 8)) + 0.7
    t = fsurvey.overlap_table([_record("a", X)], {})
    r = t.iloc[0]
    assert r["E[cos²]"] == pytest.approx(r["Var(cos)"] + r["μ²"], rel=1e-12)
    assert r["m E[cos²]"] == pytest.approx(8 * r["E[cos²]"]) and r["kind"] == "LM head"


def test_histogram_density_integrates_to_one_and_keeps_the_mean():
    rng = np.random.default_rng(1)
    rec = _record("a", rng.standard_normal((80, 16)))
    h = fsurvey.histogram_density(rec, bins_out=200)
    assert len(h) == 200
    width = 2.0 / 200
    assert float(h.density.sum() * width) == pytest.approx(1.0, rel=1e-12)
    assert float((h.cos * h.density).sum() * width) == pytest.approx(rec["mean"], abs=width / 2)
    assert Histogram(rec["hist_counts"], -1.0, 1.0).bins == 2000


def test_loglog_slope_and_its_refusal_with_two_widths():
    assert fsurvey.loglog_slope([10, 20, 40], [0.1, 0.05, 0.025]) == pytest.approx(-1.0)
    assert fsurvey.loglog_slope([10, 20, 20], [0.1, 0.05, 0.05]) is None


# --- packing -----------------------------------------------------------------------------------
def test_packing_tables_match_direct_pair_counts():
    rng = np.random.default_rng(2)
    V = rng.standard_normal((3, 40))
    V /= np.linalg.norm(V, axis=0, keepdims=True)
    stats = packing.pair_stats(torch.from_numpy(V[None]), n_bins=50)
    run = fpack.as_run(stats)
    c = np.abs((V.T @ V)[np.triu_indices(40, 1)])
    assert run["eps_star"] == pytest.approx(c.max(), abs=1e-6)
    assert run["max_angle_deg"] == pytest.approx(math.degrees(math.acos(c.max())), abs=1e-3)
    assert run["n_pairs"] == 40 * 39 / 2
    assert run["n_above"]["0.9"] == (c > 0.9).sum()
    runs = {"random": run}
    s = fpack.summary(runs).iloc[0]
    assert s["mean |cos|"] == pytest.approx(c.mean(), rel=1e-5)
    h = fpack.angle_histograms(runs)
    assert h.share_of_pairs.sum() == pytest.approx(1.0)
    counts = fpack.parallel_counts(runs)
    assert counts[counts.level == "|cos| > 0.9"].pairs.item() == (c > 0.9).sum()


def test_flattening_step_finds_where_the_angle_stops_improving():
    steps = np.arange(0, 1001, 10)
    angles = np.minimum(steps / 5.0, 100.0)  # rises until step 500, flat after
    assert fpack.flattening_step(steps, angles) == 500.0
    assert fpack.flattening_step(steps, steps / 5.0) is None
