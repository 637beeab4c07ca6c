"""Packing statistics come from the one engine (repcap.engines.cosine): checked against dense float64
references, on histogram grids where 0.01 is a bin edge and where it is not."""

import math

import numpy as np
import pytest
import torch

from repcap import RepcapError
from repcap.engines import packing


def unit(B, d, k, seed=0):
    g = torch.Generator().manual_seed(seed)
    return packing.normalise(torch.randn(B, d, k, generator=g, dtype=torch.float64)).float()


def dense_abs(V, b):
    G = (V[b].double().T @ V[b].double()).abs().numpy()
    return G[np.triu_indices(V.shape[-1], 1)]


@pytest.mark.parametrize("n_bins", [200, 50, 7])
def test_pair_stats_on_any_grid_match_dense(n_bins):
    # d = 200: most |cos| lie near 0.05, so the count below 0.01 is a real test; with 50 or 7
    # bins 0.01 is not a bin edge and is counted exactly in the pass instead
    V = unit(2, 200, 300, seed=5)
    st = packing.pair_stats(V, n_bins=n_bins, thresholds=(0.1, 0.15, 0.333))
    for b in range(2):
        a = dense_abs(V, b)
        assert st.eps_star[b] == pytest.approx(a.max(), rel=1e-6)
        assert st.mean_abs[b] == pytest.approx(a.mean(), rel=1e-6)
        assert st.mean_sq[b] == pytest.approx((a**2).mean(), rel=1e-5)
        # counts: float32 cosines against float64 ones, so a pair within ~1e-7 of an edge may move
        n_orth = (a < packing.ORTHOGONAL_THRESHOLD).sum()
        assert n_orth > 100 and abs(st.n_orthogonal[b] - n_orth) <= 1
        np.testing.assert_allclose(st.n_above[b], [(a > 0.1).sum(), (a > 0.15).sum(), (a > 0.333).sum()], atol=1)
        ref = np.histogram(a, bins=n_bins, range=(0, 1))[0]
        assert st.hist[b].sum() == ref.sum() and np.abs(st.hist[b] - ref).sum() <= 4
    np.testing.assert_allclose(st.bin_edges, np.linspace(0, 1, n_bins + 1))
    assert st.n_pairs == 300 * 299 / 2


def test_pair_stats_refuses_bad_input():
    with pytest.raises(RepcapError, match="n_bins=0"):
        packing.pair_stats(unit(1, 3, 10), n_bins=0)
    with pytest.raises(RepcapError, match=r"\(B, d, k\)"):
        packing.pair_stats(torch.ones(3, 10))


def test_max_abs_cos_and_coherence_match_dense():
    V = unit(3, 6, 70, seed=2)
    mx = packing.max_abs_cos(V, tile=16)
    for b in range(3):
        assert float(mx[b]) == pytest.approx(dense_abs(V, b).max(), rel=1e-6)
    X = np.random.default_rng(0).standard_normal((5, 40)) * np.arange(1, 41)  # columns of any length
    U = X / np.linalg.norm(X, axis=0)
    G = np.abs(U.T @ U)
    np.fill_diagonal(G, 0)
    assert packing.coherence(X) == pytest.approx(G.max(), rel=1e-13)


def test_random_eps_star_matches_dense_draws():
    out = packing.random_eps_star(30, 5, trials=4, seed=2, batch=4)
    V = packing.random_unit(30, 5, 4, seed=2 * 1_000_003, device="cpu")
    e = [dense_abs(V, b).max() for b in range(4)]
    assert out["eps_star"] == pytest.approx(min(e), rel=1e-6)
    assert out["eps_max"] == pytest.approx(max(e), rel=1e-6)
    big = packing.random_eps_star(30, 5, trials=2, seed=2**63 - 1)  # derived seeds stay in range
    assert 0 < big["eps_star"] <= 1
    with pytest.raises(RepcapError, match="seed"):
        packing.random_eps_star(30, 5, trials=2, seed=2**63)


@pytest.mark.parametrize("kind", ["gaussian", "srht"])
def test_projection_cosines_match_dense(kind):
    out = packing.projection_distortion(60, 8, kind, seed=1, tile=9)
    P = packing.projection_matrix(60, 8, kind, seed=1).double().numpy()
    U = P / np.linalg.norm(P, axis=0)
    G = np.abs(U.T @ U)
    np.fill_diagonal(G, 0)
    assert out["eps_cos"] == pytest.approx(G.max(), rel=1e-12)
    assert out["C_cos"] == pytest.approx(G.max() ** 2 * 8 / math.log(60), rel=1e-12)


def test_to_dict_is_what_a_sweep_result_holds():
    """One serialisation: a packing sweep result's statistics are :meth:`PackingStats.to_dict`, the
    keys the shipped bundles hold (a renamed field would orphan them)."""
    V = unit(2, 5, 30, seed=1)
    st = packing.pair_stats(V, n_bins=20)
    assert isinstance(st, packing.PackingStats)
    d = st.to_dict(1)
    assert list(d) == ["eps_star", "max_angle_deg", "mean_abs", "mean_sq", "n_pairs", "n_orthogonal", "n_above", "hist"]
    assert d["eps_star"] == float(st.eps_star[1]) and d["hist"] == st.hist[1].tolist() and len(d["hist"]) == 20
    assert d["max_angle_deg"] == pytest.approx(math.degrees(math.acos(d["eps_star"])))
    assert list(d["n_above"]) == ["0.5", "0.9", "0.99"]
    (r,) = packing.sweep_packed([{"k": 30, "d": 5, "steps": 3, "n_bins": 20}])
    settings = {"k", "d", "loss", "p", "beta", "steps", "lr", "seed"}
    run = {"loss_final", "seconds", "device", "curve_steps", "eps_curve", "loss_curve"}
    assert set(r) == settings | set(d) | run
