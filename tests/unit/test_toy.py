"""Tests of repcap.engines.toy against independent references: dense float64 autograd, torch.optim.Adam,
closed forms, and the regime facts of Liu, Liu & Gore 2025 (arXiv:2505.10465)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from repcap import RepcapError
from repcap.engines import fits, toy

# ---------------------------------------------------------------- frequencies and data


def test_power_law_frequencies_closed_form():
    p = toy.frequencies(50, "power", alpha=1.5)
    i = np.arange(1, 51, dtype=np.float64)
    ref = i**-1.5 / np.sum(i**-1.5)
    np.testing.assert_allclose(p.numpy(), ref, rtol=1e-12)
    assert p.dtype == torch.float64


def test_other_distributions():
    n = 30
    i = np.arange(1, n + 1, dtype=np.float64)
    pe = toy.frequencies(n, "exp", tau=7.0).numpy()
    np.testing.assert_allclose(pe, np.exp(-i / 7) / np.exp(-i / 7).sum(), rtol=1e-12)
    pl = toy.frequencies(n, "linear").numpy()
    np.testing.assert_allclose(pl, (n - i) / (n - i).sum(), rtol=1e-12)
    assert pl[-1] == 0.0
    pd_ = toy.frequencies(n, "density", alpha=1.0, density=3.0).numpy()
    assert pd_.sum() == pytest.approx(3.0, rel=1e-12)  # no clipping at this density
    clipped = toy.frequencies(n, "density", alpha=2.0, density=5.0).numpy()
    assert clipped.max() == 1.0 and clipped.sum() < 5.0
    with pytest.raises(RepcapError, match="distribution"):
        toy.frequencies(n, "zipfish")
    with pytest.raises(RepcapError, match="alpha"):
        toy.frequencies(n, "power", alpha=-1)


def test_sample_batch_frequencies_and_values_match_spec():
    n, B = 12, 40_000
    p = toy.frequencies(n, "power", alpha=1.0)
    x = toy.sample_batch(p[None].float(), B, [torch.Generator().manual_seed(3)])
    assert x.shape == (1, B, n)
    active = (x[0] > 0).double()
    freq = active.mean(0).numpy()
    sigma = np.sqrt(p.numpy() * (1 - p.numpy()) / B)
    assert np.all(np.abs(freq - p.numpy()) < 5 * sigma)  # within sampling error
    vals = x[0][x[0] > 0].double()
    # v ~ U(0, 2): mean 1, E[v^2] = 4/3, support (0, 2]
    se = math.sqrt(1 / 3 / vals.numel())
    assert abs(vals.mean().item() - 1.0) < 5 * se
    assert abs(vals.square().mean().item() - 4 / 3) < 0.03
    assert vals.max() <= 2.0 and vals.min() > 0
    # a model's stream does not depend on its batch neighbours
    x2 = toy.sample_batch(
        torch.stack([p, p]).float(), 64, [torch.Generator().manual_seed(9), torch.Generator().manual_seed(3)]
    )
    x1 = toy.sample_batch(p[None].float(), 64, [torch.Generator().manual_seed(3)])
    torch.testing.assert_close(x2[1], x1[0], rtol=0, atol=0)


# ---------------------------------------------------------------- gradient and optimiser


def test_loss_and_grad_match_float64_autograd():
    g = torch.Generator().manual_seed(0)
    M, B, n, m = 3, 17, 9, 4
    x = (
        (torch.rand(M, B, n, generator=g, dtype=torch.float64) < 0.3)
        * 2
        * torch.rand(M, B, n, generator=g, dtype=torch.float64)
    )
    W = torch.randn(M, n, m, generator=g, dtype=torch.float64, requires_grad=True)
    b = torch.randn(M, n, generator=g, dtype=torch.float64, requires_grad=True)
    y = torch.relu(torch.einsum("kbi,kij,klj->kbl", x, W, W) + b[:, None, :])
    objective = ((y - x) ** 2).mean(dim=(1, 2))
    objective.sum().backward()
    loss_sum, dW, db = toy.loss_and_grad(x, W.detach().clone(), b.detach().clone())
    torch.testing.assert_close(dW, W.grad, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(db, b.grad, rtol=1e-10, atol=1e-12)
    # reported loss = per-sample squared error summed over features = n x objective
    torch.testing.assert_close(loss_sum, objective.detach() * n, rtol=1e-12, atol=0)


def test_decay_positive_gamma_scales_exactly():
    W = torch.randn(2, 6, 3, dtype=torch.float64)
    lr = torch.tensor([0.1, 0.02], dtype=torch.float64)
    gamma = torch.tensor([0.5, 2.0], dtype=torch.float64)
    out = toy.decay_(W.clone(), lr, gamma)
    torch.testing.assert_close(out[0], W[0] * (1 - 0.05), rtol=1e-15, atol=0)
    torch.testing.assert_close(out[1], W[1] * (1 - 0.04), rtol=1e-15, atol=0)


def test_decay_negative_gamma_pulls_norms_to_one():
    # rows of norm 3, 1, 0.2 and 0 (per the paper: W_i <- W_i + lr gamma W_i (1 - 1/||W_i||))
    dirs = torch.nn.functional.normalize(torch.randn(4, 5, dtype=torch.float64), dim=1)
    norms0 = torch.tensor([3.0, 1.0, 0.2, 0.0], dtype=torch.float64)
    W = (dirs * norms0[:, None])[None]
    lr, gamma = torch.tensor([0.1], dtype=torch.float64), torch.tensor([-1.0], dtype=torch.float64)
    out = toy.decay_(W.clone(), lr, gamma)[0]
    norms1 = out.norm(dim=1)
    expected = norms0.clone()
    expected[:3] = norms0[:3] * (1 - 0.1 * (1 - 1 / norms0[:3]))  # closed form of the update
    torch.testing.assert_close(norms1, expected, rtol=1e-12, atol=0)
    assert norms1[0] < 3.0 and norms1[0] > 1.0  # above 1: down toward 1
    assert norms1[1] == pytest.approx(1.0, abs=1e-15)  # at 1: fixed point
    assert norms1[2] > 0.2 and norms1[2] < 1.0  # below 1: up toward 1
    assert norms1[3] == 0.0  # zero rows stay zero (no NaN)
    # the mixed-sign path gives the same rows as the single-sign paths
    W2 = torch.cat([W, W])
    mixed = toy.decay_(
        W2.clone(), torch.tensor([0.1, 0.1], dtype=torch.float64), torch.tensor([-1.0, 0.5], dtype=torch.float64)
    )
    torch.testing.assert_close(mixed[0], out, rtol=0, atol=1e-15)
    torch.testing.assert_close(mixed[1], W[0] * (1 - 0.05), rtol=0, atol=1e-15)
    torch.testing.assert_close(torch.nn.functional.normalize(out[:3], dim=1), dirs[:3])  # directions kept


def test_training_step_never_decays_the_bias():
    # Same seed, same data: gamma only enters through W's decay, so the first bias update is
    # identical for gamma = 0, 1 and -1 (the bias gets the plain Adam step).
    cfg = toy.TrainConfig(n=10, m=3, steps=1, batch=8, warmup=0, device="cpu")
    res = [toy.train([toy.ModelSpec(gamma=g, seed=4)], cfg) for g in (0.0, 1.0, -1.0)]
    torch.testing.assert_close(res[1].b, res[0].b, rtol=0, atol=0)
    torch.testing.assert_close(res[2].b, res[0].b, rtol=0, atol=0)
    assert not torch.equal(res[1].W, res[0].W)


def test_decay_then_adam_order_matches_reference():
    # one step by hand in float64: W1 = decay(W0) - lr * adam_direction(grad at W0)
    cfg = toy.TrainConfig(n=8, m=3, steps=1, batch=16, warmup=0, lr=0.05, device="cpu")
    spec = toy.ModelSpec(alpha=1.0, gamma=0.7, seed=11)
    res = toy.train([spec], cfg)
    W0, b0, gens = toy.init_params(8, 3, [11], torch.device("cpu"))
    p = toy.frequencies(8, "power", 1.0)[None].float()
    x = toy.sample_batch(p, 16, gens)
    _, dW, _ = toy.loss_and_grad(x.double(), W0.double(), b0.double())
    lr = 0.05 * toy.lr_schedule(0, 1, 0)
    adam_dir = dW / (dW.abs() + 1e-8)  # first Adam step: m_hat / (sqrt(v_hat) + eps)
    W1 = W0.double() * (1 - lr * 0.7) - lr * adam_dir
    torch.testing.assert_close(res.W.double(), W1, rtol=1e-5, atol=1e-6)


def test_adam_matches_torch_optim_per_model_lr():
    g = torch.Generator().manual_seed(1)
    P = torch.randn(3, 4, 2, generator=g)
    lrs = torch.tensor([1e-3, 1e-2, 3e-2])
    st = toy.AdamState.zeros_like(P)
    refs = [P[k].clone().requires_grad_(True) for k in range(3)]
    opts = [torch.optim.Adam([r], lr=float(lrs[k]), betas=(0.9, 0.999), eps=1e-8) for k, r in enumerate(refs)]
    ours = P.clone()
    for _ in range(5):
        grad = torch.randn(3, 4, 2, generator=g)
        toy.adam_(ours, grad, st, lrs)
        for k in range(3):
            refs[k].grad = grad[k].clone()
            opts[k].step()
    for k in range(3):
        torch.testing.assert_close(ours[k], refs[k].detach(), rtol=1e-6, atol=1e-7)


def test_lr_schedule_warmup_and_cosine_floor():
    steps, warm = 100, 10
    s = [toy.lr_schedule(t, steps, warm) for t in range(steps)]
    assert s[0] == pytest.approx(0.1)
    assert s[9] == pytest.approx(1.0)
    assert s[10] == pytest.approx(1.0)
    assert s[-1] == pytest.approx(0.05)
    assert all(a >= b for a, b in zip(s[10:], s[11:]))
    assert toy.lr_schedule(54, steps, warm) == pytest.approx(0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * 44 / 89)))


# ---------------------------------------------------------------- batching


def test_batched_training_equals_single_models():
    cfg = toy.TrainConfig(n=24, m=4, steps=60, batch=32, device="cpu")
    specs = [
        toy.ModelSpec(alpha=a, gamma=g, seed=s, lr=lr)
        for a, g, s, lr in [(0.5, -1.0, 1, 1e-2), (1.5, 0.3, 2, 5e-3), (1.0, 0.0, 3, 2e-2)]
    ]
    batched = toy.train(specs, cfg)
    # the CPU's cache-sized model groups (here: one model per group, and all at once) change nothing
    from dataclasses import replace

    for chunk in (1, None):
        other = toy.train(specs, replace(cfg, cpu_chunk_elems=chunk))
        torch.testing.assert_close(other.W, batched.W, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(other.loss, batched.loss, rtol=1e-6, atol=0)
    for k, s in enumerate(specs):
        single = toy.train([s], cfg)
        torch.testing.assert_close(batched.W[k], single.W[0], rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(batched.b[k], single.b[0], rtol=1e-5, atol=1e-6)
        assert batched.loss[k].item() == pytest.approx(single.loss[0].item(), rel=1e-5)


# ---------------------------------------------------------------- measurements


def test_mean_sq_overlap_matches_dense_reference():
    W = torch.randn(2, 15, 4, dtype=torch.float64)
    W[1, 3] = 0.0  # a zero row is dropped
    got = toy.mean_sq_overlap(W)
    for k in range(2):
        U = torch.nn.functional.normalize(W[k][W[k].norm(dim=1) > 0], dim=1)
        C = U @ U.T
        off = C[~torch.eye(U.shape[0], dtype=torch.bool)]
        assert got[k].item() == pytest.approx(off.square().mean().item(), rel=1e-12)
    sub = toy.mean_sq_overlap(W, min_norm=1.0)
    keep = W[0].norm(dim=1) > 1.0
    U = torch.nn.functional.normalize(W[0][keep], dim=1)
    C = U @ U.T
    assert sub[0].item() == pytest.approx(C[~torch.eye(U.shape[0], dtype=torch.bool)].square().mean().item(), rel=1e-12)


def test_mean_sq_overlap_agrees_with_cosine_moments_exact_and_centred():
    # the toy's batched overlap and the engine's exact moments (d x d Gram, float32 chunks) of one matrix
    from repcap.engines import cosine

    g = torch.Generator().manual_seed(2)
    X = torch.randn(300, 6, generator=g, dtype=torch.float64) + 2.0  # a shared direction
    exact = cosine.moments(X, device="cpu").mean_sq
    assert exact == pytest.approx(toy.mean_sq_overlap(X[None])[0].item(), rel=1e-6)  # moments reads float32
    Xc = X - X.mean(0)
    cen = cosine.moments(Xc, device="cpu").mean_sq
    assert cen == pytest.approx(toy.mean_sq_overlap(Xc[None])[0].item(), rel=1e-6)
    assert cen < exact  # removing the shared direction lowers the overlap


def test_phi_half_and_histogram():
    W = torch.zeros(1, 4, 2)
    W[0, :, 0] = torch.tensor([0.1, 0.5, 0.51, 3.0])
    assert toy.phi_half(W).item() == pytest.approx(0.5)  # strictly greater than 1/2
    counts, edges = toy.norm_histogram(toy.row_norms(W)[0], bins=4, range_=(0.0, 2.0))
    assert counts.tolist() == [1, 2, 0, 1]  # 3.0 is clipped into the last bin
    assert edges[0] == 0.0 and edges[-1] == 2.0
    # equally spaced edges (as the regimes chapter passes them) give the same histogram
    c2, e2 = toy.norm_histogram(toy.row_norms(W)[0], bins=np.linspace(0, 2, 5))
    assert c2.tolist() == counts.tolist() and np.allclose(e2, edges)
    with pytest.raises(RepcapError, match="equally spaced"):
        toy.norm_histogram([0.3], bins=[0.0, 0.5, 2.0])


def test_fit_exponent_recovers_known_slope_and_ci():
    m = np.array([10, 15, 25, 39, 63, 100] * 3, dtype=float)
    exact = 3.0 * m**-0.8
    fit = fits.fit_exponent(m, exact)
    assert fit.alpha_m == pytest.approx(0.8, abs=1e-12)
    assert fit.r2 == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    noisy = exact * np.exp(rng.normal(0, 0.05, m.size))
    fit = fits.fit_exponent(m, noisy)
    ref = np.polyfit(np.log(m), np.log(noisy), 1)
    assert fit.alpha_m == pytest.approx(-ref[0], rel=1e-10)
    assert fit.ci_low < 0.8 < fit.ci_high and fit.ci_high - fit.ci_low < 0.2
    with pytest.raises(RepcapError):
        fits.fit_exponent([10, 10, 10], [1, 2, 3])


def test_fit_curvature_recovers_a_parabola_and_sees_none_in_a_power_law():
    m = np.array([10, 15, 25, 39, 63, 100], dtype=float)
    x = np.log(m) - np.log(m).mean()
    bent = np.exp(0.5 - 1.1 * x - 0.3 * x**2)
    fit = fits.fit_curvature(m, bent)
    assert fit.curvature == pytest.approx(-0.3, abs=1e-12) and fit.coef[1] == pytest.approx(-1.1, abs=1e-12)
    assert fit.predict([20.0])[0] == pytest.approx(
        np.exp(0.5 - 1.1 * (np.log(20) - fit.centre) - 0.3 * (np.log(20) - fit.centre) ** 2)
    )
    rng = np.random.default_rng(1)
    noisy = 3.0 * m**-0.8 * np.exp(rng.normal(0, 0.02, m.size))
    fit = fits.fit_curvature(m, noisy)
    ref = np.polyfit(np.log(m) - np.log(m).mean(), np.log(noisy), 2)  # highest power first
    assert fit.curvature == pytest.approx(ref[0], rel=1e-9)
    assert fit.ci_low < 0.0 < fit.ci_high  # a power law has no curvature, within its interval
    # the interval: c2 +- t(0.975, n - 3) * se, against the covariance numpy returns (scaled by the residuals)
    _, cov = np.polyfit(np.log(m) - np.log(m).mean(), np.log(noisy), 2, cov=True)
    from scipy import stats

    half = stats.t.ppf(0.975, m.size - 3) * math.sqrt(cov[0, 0])
    assert fit.ci_high - fit.ci_low == pytest.approx(2 * half, rel=1e-9)
    with pytest.raises(RepcapError, match="at least 4"):
        fits.fit_curvature([10, 25, 63], [1.0, 0.5, 0.2])
    with pytest.raises(RepcapError, match="3 distinct"):
        fits.fit_curvature([10, 10, 25, 25], [1.0, 0.9, 0.5, 0.4])


def test_unlearned_loss_closed_form_and_exponent():
    p = toy.frequencies(5, "power", alpha=1.0).numpy()
    expected = sum(4 / 3 * q - q * q for q in p[2:])
    assert toy.unlearned_loss(p, 2) == pytest.approx(expected, rel=1e-12)
    assert toy.unlearned_loss(p, 2, optimal_bias=False) == pytest.approx(4 / 3 * p[2:].sum(), rel=1e-12)
    mask = np.array([True, False, True, False, False])  # features 1 and 3 represented
    assert toy.unlearned_loss(p, mask) == pytest.approx(sum(4 / 3 * q - q * q for q in p[[1, 3, 4]]), rel=1e-12)
    with pytest.raises(RepcapError, match="mask"):
        toy.unlearned_loss(p, np.ones(3, dtype=bool))
    # For p_i ∝ i^-alpha and m << n the unlearned loss falls as m^-(alpha - 1) (Liu, Liu & Gore 2025)
    big = toy.frequencies(2_000_000, "power", alpha=1.5)
    ms = np.array([10, 20, 40, 80, 160])
    fit = fits.fit_exponent(ms, [toy.unlearned_loss(big, k) for k in ms])
    assert fit.alpha_m == pytest.approx(toy.weak_exponent(1.5), abs=0.03)


# ---------------------------------------------------------------- regimes (small runs)


def test_strong_and_weak_regimes_on_small_runs():
    n, m = 64, 8
    cfg = toy.TrainConfig(n=n, m=m, steps=1200, batch=256, device="cpu")
    res = toy.train([toy.ModelSpec(alpha=1.0, gamma=-1.0, seed=0), toy.ModelSpec(alpha=1.0, gamma=0.5, seed=0)], cfg)
    strong, weak = res.measurements()
    # strong superposition: every feature represented, overlap about 1/m
    # (the Welch bound for n unit vectors in R^m is (n - m) / (m (n - 1)) = 0.111 here)
    assert strong["phi_half"] == 1.0
    assert (n - m) / (m * (n - 1)) <= strong["mean_sq_overlap"] < 1.5 / m
    # weak superposition: about m features represented (the most frequent ones); the upper bound is
    # where the regimes part, sqrt(n m) (tests/gpu/test_toy_gpu.py says why not 2m)
    assert 0.5 * m <= weak["n_represented"] < (n * m) ** 0.5
    norms = toy.row_norms(res.W)[1]
    assert (norms[: m // 2] > 0.5).all()
    assert strong["loss"] > 0 and weak["loss"] > 0


# ---------------------------------------------------------------- sweep function


def test_train_points_and_group_key(tmp_path):
    from repcap import sweep

    base = dict(n=16, m=3, steps=30, batch=16)
    configs = [toy.sweep_config(**base, gamma=g, seed=s) for g in (-1.0, 0.5) for s in (0, 1)]
    configs.append(toy.sweep_config(n=16, m=4, steps=30, batch=16, keep_norms=True))
    calls = []

    def counting(cs):
        calls.append(len(cs))
        return toy.train_points(cs)

    rep = sweep.run(
        counting,
        configs,
        cache=sweep.Cache(tmp_path),
        batched=True,
        group_by=toy.group_key,
        progress=False,
        code="test-code",
    )
    assert sorted(calls) == [1, 4]  # two shapes -> two batches
    assert rep.n_computed == 5
    assert all({"loss", "phi_half", "mean_sq_overlap", "seconds"} <= set(r) for r in rep.results)
    assert "norms" in rep.results[-1] and len(rep.results[-1]["norms"]) == 16
    assert "norms" not in rep.results[0]
    # a batched point equals the same point trained alone
    alone = toy.train_points([configs[1]])[0]
    assert alone["loss"] == pytest.approx(rep.results[1]["loss"], rel=1e-5)
    # a weak model with fewer than 2 represented rows has no "represented" overlap: None, not NaN
    tiny = toy.train_points([toy.sweep_config(n=8, m=2, steps=3, batch=4, gamma=1.0, lr=1e-4)])[0]
    assert tiny["mean_sq_overlap_represented"] is None or math.isfinite(tiny["mean_sq_overlap_represented"])
    with pytest.raises(RepcapError, match="unknown"):
        toy.sweep_config(width=3)
    assert sweep.point_key(toy.train_points, toy.sweep_config(alpha=1, m=4.0)) == sweep.point_key(
        toy.train_points, toy.sweep_config(alpha=1.0, m=4)
    )
    with pytest.raises(RepcapError, match="groups"):
        toy.train_points([configs[0], configs[-1]])
