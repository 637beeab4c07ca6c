"""repcap.engines.packing against dense float64 references (Guha 2026 packing simulation; Yoder 2025 losses)."""

import math

import numpy as np
import pytest
import torch

from repcap import RepcapError
from repcap.engines import packing
from repcap.engines.packing import baselines


def unit(B, d, k, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return packing.normalise(torch.randn(B, d, k, generator=g, dtype=dtype))


def dense_reference(V, loss, beta, p):
    """float64 loss and autograd gradient over the full Gram."""
    Vd = V.double().clone().requires_grad_(True)
    L = packing.dense_loss(Vd, loss, beta=beta, p=p)
    L.sum().backward()
    return L.detach(), Vd.grad


@pytest.mark.parametrize("loss", packing.LOSSES)
@pytest.mark.parametrize("tile", [1, 7, 64])
@pytest.mark.parametrize("symmetric", [True, False])
def test_tiled_loss_and_grad_match_dense_float64(loss, tile, symmetric):
    V = unit(3, 6, 41, seed=1)
    ref_L, ref_g = dense_reference(V, loss, 20.0, 9.0)
    L, g, mx = packing.loss_and_grad(V.float(), loss, beta=20.0, p=9.0, tile=tile, want_max=True, symmetric=symmetric)
    assert L.dtype == torch.float64
    np.testing.assert_allclose(L.numpy(), ref_L.numpy(), rtol=2e-6)
    np.testing.assert_allclose(g.double().numpy(), ref_g.numpy(), rtol=1e-4, atol=1e-5 * ref_g.abs().max().item())
    G = (V.transpose(1, 2) @ V).abs() - torch.eye(41, dtype=torch.float64)
    np.testing.assert_allclose(mx.double().numpy(), G.amax(dim=(1, 2)).numpy(), rtol=1e-6)


@pytest.mark.parametrize("p", [1, 2, 5, 20, 7.5])
def test_power_loss_exponents(p):
    V = unit(1, 4, 20, seed=2)
    ref_L, ref_g = dense_reference(V, "power", 20.0, p)
    L, g, _ = packing.loss_and_grad(V, "power", p=p, tile=6)
    np.testing.assert_allclose(L.numpy(), ref_L.numpy(), rtol=1e-10)
    np.testing.assert_allclose(g.numpy(), ref_g.numpy(), rtol=1e-9, atol=1e-12)


def test_autograd_function_chains_through_normalisation():
    W = torch.randn(2, 5, 30, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    W1 = W.clone().requires_grad_(True)
    packing.TiledPackingLoss.apply(packing.normalise(W1), "exp", 20.0, 9.0, 8).sum().backward()
    W2 = W.clone().requires_grad_(True)
    packing.dense_loss(packing.normalise(W2), "exp", beta=20.0).sum().backward()
    np.testing.assert_allclose(W1.grad.numpy(), W2.grad.numpy(), rtol=1e-9, atol=1e-9)


def test_guha_exponent_rule_and_lr():
    # p = min(floor(M / ln d), 20); M = 40 (k <= 4000), 50 (d >= 3072), else 60 (Guha 2026).
    assert packing.guha_exponent(2000, 32) == math.floor(40 / math.log(32)) == 11
    assert packing.guha_exponent(32000, 768) == math.floor(60 / math.log(768)) == 9
    assert packing.guha_exponent(32000, 4096) == math.floor(50 / math.log(4096)) == 6
    assert packing.guha_exponent(2000, 3) == 20
    assert packing.guha_lr(1024) == 0.005 and packing.guha_lr(1025) == 0.0025


def test_pair_stats_match_dense():
    V = unit(2, 5, 33, seed=4).float()
    st = packing.pair_stats(V, tile=5, n_bins=10, thresholds=(0.5, 0.9))
    for b in range(2):
        G = (V[b].T @ V[b]).double().abs().numpy()
        iu = np.triu_indices(33, 1)
        a = G[iu]
        assert st.eps_star[b] == pytest.approx(a.max(), rel=1e-6)
        assert st.mean_abs[b] == pytest.approx(a.mean(), rel=1e-6)
        assert st.mean_sq[b] == pytest.approx((a**2).mean(), rel=1e-6)
        np.testing.assert_array_equal(st.hist[b], np.histogram(np.minimum(a, 1.0), bins=10, range=(0, 1))[0])
        assert st.n_above[b].tolist() == [(a > 0.5).sum(), (a > 0.9).sum()]
    assert st.n_pairs == 33 * 32 / 2


def test_optimise_reduces_max_cos_and_batch_equals_loop():
    cfg = packing.PackConfig(k=60, d=6, loss="power", steps=60, lr=0.02)
    batch = packing.optimise(cfg, seeds=[0, 1], progress=False)
    start = packing.max_abs_cos(
        packing.normalise(torch.stack([torch.randn(6, 60, generator=torch.Generator().manual_seed(s)) for s in (0, 1)]))
    )
    assert np.all(batch.eps_star < start.numpy() - 0.05)
    for i, s in enumerate([0, 1]):
        one = packing.optimise(packing.PackConfig(k=60, d=6, loss="power", steps=60, lr=0.02, seed=s), progress=False)
        np.testing.assert_allclose(one.eps_star[0], batch.eps_star[i], rtol=1e-4)
    assert batch.max_angle_deg[0] == pytest.approx(math.degrees(math.acos(batch.eps_star[0])))
    assert batch.loss_curve.shape == batch.eps_curve.shape == (2, len(batch.curve_steps))
    assert batch.curve_steps[-1] == 60
    # the returned vectors are unit columns and their coherence is eps*
    V = batch.V[0].double().numpy()
    np.testing.assert_allclose(np.linalg.norm(V, axis=0), 1.0, atol=1e-6)
    assert packing.coherence(V) == pytest.approx(batch.eps_star[0], rel=1e-5)


def test_abs_relu_finds_the_99_percent_solution():
    # Yoder 2025: relu(|cos|) makes most pairs orthogonal and a few nearly parallel; exp(20 cos^2)
    # leaves no nearly-parallel pair.
    relu = packing.optimise(packing.PackConfig(k=200, d=10, loss="abs-relu", steps=300, lr=0.01), progress=False)
    expo = packing.optimise(packing.PackConfig(k=200, d=10, loss="exp", steps=300, lr=0.01), progress=False)
    i9 = list(relu.thresholds).index(0.9)
    assert relu.n_above[0, i9] > 0.02 * relu.n_pairs
    assert relu.n_orthogonal[0] > 0.5 * relu.n_pairs
    assert expo.n_above[0, i9] == 0
    assert expo.eps_star[0] < relu.eps_star[0]


def test_random_eps_star_is_min_over_trials():
    out = packing.random_eps_star(50, 8, trials=12, seed=0, batch=5)
    assert out["eps_star"] <= out["eps_mean"] <= out["eps_max"] <= 1.0
    # deterministic and independent of the batching
    again = packing.random_eps_star(50, 8, trials=12, seed=0, batch=5)
    assert again == out


@pytest.mark.parametrize("kind", ["gaussian", "rademacher", "srht"])
def test_projection_distortion_matches_dense(kind):
    N, k = 100, 16
    out = packing.projection_distortion(N, k, kind, seed=3, tile=7)
    P = packing.projection_matrix(N, k, kind, seed=3).double().numpy()
    n2 = (P**2).sum(0)
    G = P.T @ P
    iu = np.triu_indices(N, 1)
    dist = (n2[:, None] + n2[None, :] - 2 * G)[iu] / 2 - 1
    eps = max(np.abs(dist).max(), np.abs(n2 - 1).max())
    assert out["eps"] == pytest.approx(eps, rel=1e-12)
    assert out["C"] == pytest.approx(eps**2 * k / math.log(N), rel=1e-12)
    if kind != "gaussian":  # +-1/sqrt(k) entries: unit columns exactly
        np.testing.assert_allclose(n2, 1.0, rtol=1e-12)


def test_srht_rows_are_hadamard():
    from scipy.linalg import hadamard

    H = hadamard(16)
    rows = torch.tensor([0, 3, 7, 15])
    np.testing.assert_array_equal(baselines._hadamard_rows(rows, 12).numpy(), H[[0, 3, 7, 15], :12])


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(k=1, d=5), "at least 2 vectors"),
        (dict(k=10, d=0), "dimension"),
        (dict(k=10, d=5, loss="hinge"), "unknown loss"),
        (dict(k=10, d=5, lr=float("nan")), "learning rate"),
        (dict(k=10, d=5, lr=float("inf")), "learning rate"),
        (dict(k=10, d=5, lr=-1.0), "learning rate"),
    ],
)
def test_bad_input_gives_one_clear_error(kwargs, match):
    with pytest.raises(RepcapError, match=match):
        packing.PackConfig(**kwargs)


def test_sweep_function_batches_seeds(tmp_path):
    from repcap import sweep

    configs = [dict(k=30, d=4, loss="power", steps=20, lr=0.02, seed=s) for s in (0, 1, 2)]
    rep = sweep.run(
        packing.sweep_packed,
        configs,
        cache=sweep.Cache(tmp_path),
        batched=True,
        group_by=packing.packed_group,
        progress=False,
    )
    assert rep.n_computed == 3 and len(rep.results) == 3
    again = sweep.run(
        packing.sweep_packed,
        configs,
        cache=sweep.Cache(tmp_path),
        batched=True,
        group_by=packing.packed_group,
        progress=False,
    )
    assert again.n_cached == 3 and again.results == rep.results
    one = packing.optimise(packing.PackConfig(k=30, d=4, loss="power", steps=20, lr=0.02, seed=1), progress=False)
    assert rep.results[1]["eps_star"] == pytest.approx(float(one.eps_star[0]), rel=1e-5)
