"""repcap.engines.cosine against a dense float64 reference at small V: every statistic, odd sizes, V
smaller than a tile, several tiles, zero rows, duplicate and opposite rows, row sampling, and the
errors for NaN rows and empty matrices."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from repcap import RepcapError
from repcap.engines.cosine import TiledConfig, moments, tiled_stats


def dense(X: np.ndarray):
    """float64 reference: the upper-triangle cosines of the non-zero rows, and the full matrix."""
    X = np.asarray(X, dtype=np.float64)
    keep = np.linalg.norm(X, axis=1) > 0
    U = X[keep] / np.linalg.norm(X[keep], axis=1, keepdims=True)
    C = U @ U.T
    iu = np.triu_indices(len(U), 1)
    return C[iu], C, np.flatnonzero(keep)


def matrix(V, d, seed=0, zero=(), dup=(), opp=(), shift=0.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((V, d)).astype(np.float32) + np.float32(shift)
    for i in zero:
        X[i] = 0
    for i, j in dup:
        X[j] = 2.5 * X[i]
    for i, j in opp:
        X[j] = -X[i]
    return X


CASES = [  # V, d, zero rows, duplicate pairs, opposite pairs, mean shift
    (2, 3, (), (), (), 0.0),
    (3, 1, (), (), (), 0.0),
    (17, 5, (4,), ((1, 2),), (), 0.0),
    (101, 7, (0, 50, 100), ((3, 9), (10, 11)), ((20, 21),), 0.3),
    (257, 33, (), ((5, 200),), (), -0.2),
]


@pytest.mark.parametrize("V,d,zero,dup,opp,shift", CASES)
def test_moments_match_dense(V, d, zero, dup, opp, shift):
    X = matrix(V, d, zero=zero, dup=dup, opp=opp, shift=shift)
    v, _, _ = dense(X)
    for compute in ("float32", "float64"):
        m = moments(X, device="cpu", compute=compute)
        tol = 1e-12 if compute == "float64" else 1e-6
        assert m.n_rows == V - len(zero) and m.n_zero_rows == len(zero) and m.d == d
        assert m.n_pairs == len(v)
        assert m.mean == pytest.approx(v.mean(), abs=tol)
        assert m.std == pytest.approx(v.std(), abs=max(tol, 1e-5 if compute == "float32" else 0))
        assert m.mean_sq == pytest.approx((v**2).mean(), abs=tol)
        assert m.sum_cos == pytest.approx(v.sum(), abs=tol * len(v))
        assert m.eps == pytest.approx(v.mean() + 2 * v.std(), abs=3e-5)
        assert m.eps3 == pytest.approx(v.mean() + 3 * v.std(), abs=5e-5)


def test_moments_accepts_torch_and_chunks(monkeypatch):
    import repcap.engines.cosine.rows as R
    from repcap.engines.cosine.moments import EXACT_MAX_ROWS

    X = matrix(EXACT_MAX_ROWS + 100, 12, zero=(999,), shift=0.1)  # beyond the dense path: the Gram identity
    v, _, _ = dense(X)
    monkeypatch.setattr(R, "GRAM_CHUNK_ROWS", 77)  # many chunks, the last one partial
    m = moments(torch.from_numpy(X), device="cpu", compute="float64")
    assert m.mean == pytest.approx(v.mean(), abs=1e-12) and m.mean_sq == pytest.approx((v**2).mean(), abs=1e-12)
    assert m.n_zero_rows == 1


@pytest.mark.parametrize("V", [2, 3, 17])
def test_few_rows_take_the_dense_float64_moments(V):
    """Up to EXACT_MAX_ROWS rows, moments() reads the dense float64 cosine matrix with a two-pass
    variance: the Gram identity's E[cos^2] - E[cos]^2 would leave float32 noise of ~1e-4 in sigma
    (one pair: its sigma is exactly 0)."""
    X = matrix(V, 300, seed=V, zero=(1,) if V > 2 else ())
    v, _, _ = dense(X)
    for compute in ("float32", "float64"):
        m = moments(X, device="cpu", compute=compute)
        assert m.n_pairs == len(v) and m.mean == pytest.approx(v.mean(), abs=1e-15)
        assert m.std == pytest.approx(v.std(), abs=1e-15) and m.var == m.std**2
        assert m.eps == m.mean + 2 * m.std and m.sum_cos == pytest.approx(v.sum(), abs=1e-14)
    if V == 2:
        assert m.std == 0.0


@pytest.mark.parametrize("V,d,zero,dup,opp,shift", CASES[2:])
@pytest.mark.parametrize("budget", [16 * 8 * 8, 16 * 10_000**2])  # tiles of 64 rows vs one tile
def test_tiled_matches_dense(V, d, zero, dup, opp, shift, budget):
    X = matrix(V, d, zero=zero, dup=dup, opp=opp, shift=shift)
    v, C, kept = dense(X)
    bins = 200
    cfg = TiledConfig(bins=bins, top_k=5, thresholds=(0.1, 0.25, 0.333))
    t = tiled_stats(X, cfg, device="cpu", memory_budget=budget, progress=False)
    assert t.n_pairs == len(v) and t.n_zero_rows == len(zero) and t.rows_used == V - len(zero)
    assert t.mean == pytest.approx(v.mean(), abs=1e-6)
    assert t.std == pytest.approx(v.std(), abs=1e-6)
    # histogram: identical up to values within float32 rounding of a bin edge
    ref, _ = np.histogram(np.clip(v, -1, 1), bins=bins, range=(-1, 1))
    assert t.counts.sum() == len(v)
    assert np.abs(t.counts - ref).sum() <= 2 + len(v) * 1e-4
    # quantiles within the stated bin-width error of the interval of valid sample quantiles
    for q, val in t.quantiles.items():
        lo, hi = np.quantile(v, q, method="lower"), np.quantile(v, q, method="higher")
        assert lo - t.quantile_error - 1e-9 <= val <= hi + t.quantile_error + 1e-9
    assert t.quantile_error == pytest.approx(2 / bins)
    # max |cos| and its pair
    assert t.max_abs == pytest.approx(min(np.abs(v).max(), 1.0), abs=1e-6)
    i, j = t.max_abs_pair
    assert abs(C[np.searchsorted(kept, i), np.searchsorted(kept, j)]) == pytest.approx(t.max_abs, abs=1e-6)
    # top pairs: the 5 largest values, with the right rows
    assert [c for _, _, c in t.top_pairs] == pytest.approx(np.sort(v)[::-1][:5], abs=1e-6)
    for i, j, c in t.top_pairs:
        assert i < j and C[np.searchsorted(kept, i), np.searchsorted(kept, j)] == pytest.approx(c, abs=1e-6)
    # nearest-neighbour cosine of every row
    Cn = C.copy()
    np.fill_diagonal(Cn, -np.inf)
    np.testing.assert_allclose(t.nn_cos, Cn.max(axis=1), atol=1e-6)
    # exceedance: 0.1 and 0.25 are bin edges (read off the histogram), 0.333 is counted directly
    for th in (0.1, 0.25, 0.333):
        assert t.exceed[th] == pytest.approx((v > th).mean(), abs=3 / len(v))
        assert t.exceed_abs[th] == pytest.approx((np.abs(v) > th).mean(), abs=3 / len(v))


def test_duplicate_rows_land_in_the_last_bin():
    X = np.tile(np.array([[1.0, 2.0, 3.0]], dtype=np.float32), (5, 1))
    t = tiled_stats(X, TiledConfig(bins=10), progress=False, device="cpu")
    assert t.counts[-1] == 10 and t.counts.sum() == 10 and t.max_abs == pytest.approx(1.0)


def test_sampling_reports_its_error():
    X = matrix(3000, 24, shift=0.15, seed=3)
    m = moments(X, device="cpu")
    cfg = TiledConfig(sample=1200, groups=8, seed=1)
    t = tiled_stats(X, cfg, device="cpu", progress=False, memory_budget=16 * 256**2)
    assert t.sampled and t.rows_used == 1200 and t.n_pairs == 1200 * 1199 // 2
    se = t.sampling_error
    assert set(se) >= {"mean", "std", "eps", "q0.99"} and se["groups"] == 8
    assert 0 < se["mean"] < 0.05
    assert abs(t.mean - m.mean) < 5 * se["mean"] + 1e-4
    assert abs(t.eps - m.eps) < 5 * se["eps"] + 1e-4
    assert len(set(t.row_index.tolist())) == 1200
    full = tiled_stats(X, TiledConfig(sample=5000), device="cpu", progress=False)  # sample >= V: the full pass
    assert not full.sampled and full.n_pairs == 3000 * 2999 // 2 and full.sampling_error == {}


def test_absolute_quantile_folds_the_histogram():
    X = matrix(300, 6, seed=4)
    v, _, _ = dense(X)
    t = tiled_stats(X, TiledConfig(bins=400), progress=False, device="cpu")
    for q in (0.5, 0.9, 0.99):
        lo, hi = np.quantile(np.abs(v), q, method="lower"), np.quantile(np.abs(v), q, method="higher")
        assert lo - t.quantile_error - 1e-9 <= t.quantile(q, absolute=True) <= hi + t.quantile_error + 1e-9


@pytest.mark.parametrize("fn", [moments, tiled_stats])
def test_nan_and_inf_rows_stop(fn):
    X = matrix(10, 4)
    X[3, 1] = np.nan
    with pytest.raises(RepcapError, match=r"1 row\(s\) hold NaN or inf \(rows 3\)"):
        fn(X, device="cpu")
    X[3, 1] = 0
    X[7, 0] = np.inf
    with pytest.raises(RepcapError, match="rows 7"):
        fn(X, device="cpu")


@pytest.mark.parametrize("fn", [moments, tiled_stats])
def test_empty_and_degenerate(fn):
    with pytest.raises(RepcapError, match="empty"):
        fn(np.zeros((0, 5), dtype=np.float32), device="cpu")
    with pytest.raises(RepcapError, match="empty"):
        fn(np.zeros((5, 0), dtype=np.float32), device="cpu")
    with pytest.raises(RepcapError, match="at least two non-zero rows"):
        fn(np.zeros((6, 3), dtype=np.float32), device="cpu")
    with pytest.raises(RepcapError, match=r"\(V, d\)"):
        fn(np.zeros(6, dtype=np.float32), device="cpu")


def test_bad_options():
    """A bad setting is refused in one line naming it, when the TiledConfig is made."""
    X = matrix(10, 3)
    with pytest.raises(RepcapError, match="bins=7: use an even number"):
        TiledConfig(bins=7)
    with pytest.raises(RepcapError, match=r"sample=1 must be an integer >= 2"):
        TiledConfig(sample=1)
    with pytest.raises(RepcapError, match=r"top_k=-1 must be an integer >= 0"):  # was accepted silently
        TiledConfig(top_k=-1)
    with pytest.raises(RepcapError, match=r"quantiles\[1\]=1.5 must be a number in \[0, 1\]"):
        TiledConfig(quantiles=(0.5, 1.5))
    with pytest.raises(RepcapError, match=r"thresholds\[0\]=2 must be a cosine in \[-1, 1\]"):
        TiledConfig(thresholds=[2])
    with pytest.raises(RepcapError, match="seed=-1"):
        TiledConfig(seed=-1)
    with pytest.raises(RepcapError, match="groups=0"):
        TiledConfig(groups=0)
    with pytest.raises(RepcapError, match="takes its settings as a TiledConfig, got dict"):
        tiled_stats(X, {"bins": 10}, device="cpu")  # type: ignore[arg-type]
    with pytest.raises(RepcapError, match="compute="):
        moments(X, compute="float16", device="cpu")


def test_the_config_holds_the_settings_and_lists_become_tuples():
    """One TiledConfig per set of settings: lists (a sweep config's JSON) are kept as tuples, so a
    config spelled either way is the same config; the default pass is :data:`DEFAULTS`'s."""
    from repcap.engines.cosine import DEFAULTS

    a = TiledConfig(bins=100, thresholds=[0.1, 0.5], quantiles=[0.5])
    assert a == TiledConfig(bins=100, thresholds=(0.1, 0.5), quantiles=(0.5,)) and hash(a)
    X = matrix(60, 5, seed=3)
    t = tiled_stats(X, TiledConfig(bins=100, top_k=3), device="cpu", progress=False)
    assert len(t.counts) == 100 and len(t.top_pairs) == 3
    assert tiled_stats(X, device="cpu", progress=False).counts.size == DEFAULTS.bins == TiledConfig().bins


def test_fraction_below_matches_the_empirical_cdf():
    from repcap.engines.cosine import Histogram

    X = matrix(400, 9, seed=6, shift=0.2)
    v, _, _ = dense(X)
    t = tiled_stats(X, TiledConfig(bins=1000), progress=False, device="cpu")
    for x in (-0.3, 0.0, 0.27, t.eps, 0.9):
        assert abs(Histogram(t.counts).fraction_below(x) - (v <= x).mean()) <= t.counts.max() / t.counts.sum() + 1e-12
    assert Histogram(t.counts).fraction_below(-2) == 0.0 and Histogram(t.counts).fraction_below(2) == 1.0
