"""The sparse data path of repcap.engines.toy against independent references: the data distribution of
Liu, Liu & Gore 2025 (x_i = 1[u_i < p_i] v_i, v ~ U(0, 2), independent entries) and the dense
sampler, dense float64 autograd for the gradient, the dense trainer within seed noise."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from repcap import RepcapError
from repcap.engines import toy
from repcap.engines.toy import sparse_data
from repcap.engines.toy.sparse_data import SparseSampler, choose_sampler, gap_budget
from repcap.engines.toy.sparse_model import SparseWorkspace, sparse_loss_and_grad

CPU = torch.device("cpu")


def _draw(p: torch.Tensor, B: int, steps: int, seed: int = 0) -> list[sparse_data.SparseBatch]:
    s = SparseSampler(p[None].float(), B)
    g = [torch.Generator().manual_seed(seed)]
    return [s.sample(g) for _ in range(steps)]


def _freq_and_values(batches, n):
    counts = torch.zeros(n, dtype=torch.float64)
    vals = []
    for x in batches:
        counts += torch.bincount(x.cols, minlength=n).double()
        vals.append(x.vals.double())
    return counts, torch.cat(vals)


# ---------------------------------------------------------------- the distribution


@pytest.mark.parametrize(
    "dist, kw",
    [("power", dict(alpha=1.0)), ("power", dict(alpha=0.3)), ("linear", {}), ("density", dict(alpha=2.0, density=5.0))],
)
def test_sparse_sampler_frequencies_and_values_match_spec(dist, kw):
    n, B, steps = 40, 256, 300
    p = toy.frequencies(n, dist, **kw)
    counts, vals = _freq_and_values(_draw(p, B, steps), n)
    N = B * steps
    freq, pp = (counts / N).numpy(), p.float().double().numpy()
    sigma = np.sqrt(pp * (1 - pp) / N)
    assert np.all(np.abs(freq - pp) <= 5 * sigma + 1e-12)  # binomial standard error per feature
    assert np.all(freq[pp == 0] == 0) and np.all(freq[pp == 1] == 1)  # never / always active
    # v ~ U(0, 2]: E[v] = 1 (Var 1/3), E[v^2] = 4/3 (Var E[v^4] - E[v^2]^2 = 16/5 - 16/9)
    k = vals.numel()
    assert abs(vals.mean().item() - 1.0) < 5 * math.sqrt(1 / 3 / k)
    assert abs(vals.square().mean().item() - 4 / 3) < 5 * math.sqrt((16 / 5 - 16 / 9) / k)
    assert vals.max() <= 2.0 and vals.min() > 0


def test_sparse_and_dense_samplers_agree():
    n, B, steps = 30, 512, 120
    p = toy.frequencies(n, "power", alpha=1.2)
    counts_s, vals_s = _freq_and_values(_draw(p, B, steps, seed=1), n)
    g = [torch.Generator().manual_seed(2)]
    dense = torch.cat([toy.sample_batch(p[None].float(), B, g)[0] for _ in range(steps)])
    counts_d = (dense > 0).double().sum(0)
    vals_d = dense[dense > 0].double()
    N = B * steps
    pp = p.numpy()
    se = np.sqrt(2 * pp * (1 - pp) / N)  # of the difference of two independent frequencies
    assert np.all(np.abs((counts_s - counts_d).numpy() / N) < 5 * se)
    for f, var in ((lambda v: v, 1 / 3), (lambda v: v * v, 16 / 5 - 16 / 9)):
        diff = f(vals_s).mean() - f(vals_d).mean()
        assert abs(diff.item()) < 5 * math.sqrt(var / vals_s.numel() + var / vals_d.numel())


def test_sparse_entries_are_independent_across_features_and_samples():
    # pairs: two features in one sample, and one feature in neighbouring samples (p_i p_j each)
    n, B, steps = 6, 400, 400
    p = toy.frequencies(n, "density", alpha=0.5, density=2.0)
    x = torch.cat([b.to_dense()[0] for b in _draw(p, B, steps, seed=5)]) > 0  # (steps B, n)
    N = x.shape[0]
    p0, p1 = float(p[0]), float(p[1])
    both = (x[:, 0] & x[:, 1]).double().mean().item()
    assert abs(both - p0 * p1) < 5 * math.sqrt(p0 * p1 * (1 - p0 * p1) / N)
    x3 = x.view(steps, B, n)
    nxt = (x3[:, 1:, 0] & x3[:, :-1, 0]).double().mean().item()
    assert abs(nxt - p0 * p0) < 5 * math.sqrt(p0 * p0 * (1 - p0 * p0) / (steps * (B - 1)))


def test_entries_are_distinct_in_range_and_to_dense_round_trips():
    n, B = 50, 300
    p = torch.stack([toy.frequencies(n, "power", alpha=a) for a in (0.0, 1.0, 2.0)]).float()
    s = SparseSampler(p, B)
    x = s.sample([torch.Generator().manual_seed(k) for k in range(3)])
    key = x.rows * n + x.cols
    assert key.unique().numel() == key.numel()
    assert int(x.rows.min()) >= 0 and int(x.rows.max()) < 3 * B and int(x.cols.max()) < n
    torch.testing.assert_close(x.wrows, torch.div(x.rows, B, rounding_mode="floor") * n + x.cols, rtol=0, atol=0)
    d = x.to_dense()
    assert d.shape == (3, B, n) and int((d > 0).sum()) == x.vals.numel()
    assert abs((d[0] > 0).double().mean().item() - 1.0 / n) < 0.01  # alpha = 0: every p_i = 1/n


def test_walk_continues_exactly_when_the_gap_budget_runs_out(monkeypatch):
    # a third of the budget: most features walk on in rounds of fresh gaps
    def short(p, batch):
        K = gap_budget(p, batch)
        return torch.where(K > 0, (K // 3).clamp_min(1), K)

    rounds = []
    real = sparse_data._continue
    monkeypatch.setattr(sparse_data, "gap_budget", short)
    monkeypatch.setattr(sparse_data, "_continue", lambda *a: rounds.append(1) or real(*a))
    n, B, steps = 8, 200, 150
    p = toy.frequencies(n, "density", alpha=1.0, density=3.0)
    batches = _draw(p, B, steps, seed=3)
    for x in batches[:5]:
        key = x.rows * n + x.cols
        assert key.unique().numel() == key.numel() and int(x.rows.max()) < B
    counts, vals = _freq_and_values(batches, n)
    N = B * steps
    pp = p.float().double().numpy()
    assert np.all(np.abs(counts.numpy() / N - pp) <= 5 * np.sqrt(pp * (1 - pp) / N))
    assert abs(vals.mean().item() - 1.0) < 5 * math.sqrt(1 / 3 / vals.numel())
    assert len(rounds) == steps  # every step walked on


def test_gap_budget_covers_a_batch():
    p = torch.tensor([0.0, 1e-40, 1e-4, 0.5, 1.0], dtype=torch.float64)
    K = gap_budget(p, 100).tolist()
    assert K[0] == 0 and K[1] == 0  # never active
    assert K[-1] == 101  # p = 1: one gap per sample and one past the end
    assert 3 <= K[2] <= 4 and K[3] == math.floor(50 + 4 * 5 + 3)


def test_a_models_sparse_stream_does_not_depend_on_its_neighbours():
    n, B = 20, 64
    p = toy.frequencies(n, "power", alpha=1.0)
    q = toy.frequencies(n, "power", alpha=2.0)
    two = SparseSampler(torch.stack([q, p]).float(), B).sample(
        [torch.Generator().manual_seed(9), torch.Generator().manual_seed(3)]
    )
    one = SparseSampler(p[None].float(), B).sample([torch.Generator().manual_seed(3)])
    torch.testing.assert_close(two.to_dense()[1], one.to_dense()[0], rtol=0, atol=0)


# ---------------------------------------------------------------- the model


def _batch(M, B, n, seed=0):
    p = torch.stack([toy.frequencies(n, "density", alpha=a, density=2.0) for a in np.linspace(0.5, 1.5, M)])
    return SparseSampler(p.float(), B).sample([torch.Generator().manual_seed(seed + k) for k in range(M)])


def _empty_rows_batch():
    # model 0: no active entry at all; models 1, 2: some samples empty, unequal counts (padding rows)
    g = torch.Generator().manual_seed(7)
    M, B, n = 3, 17, 9
    xd = (torch.rand(M, B, n, generator=g) < 0.15) * 2 * torch.rand(M, B, n, generator=g)
    xd[0] = 0
    xd[1, :5] = 0
    return sparse_data.SparseBatch.from_dense(xd)


@pytest.mark.parametrize("case, tile_rows", [("sampled", None), ("empty rows", None), ("sampled", 3), ("sampled", 1)])
def test_sparse_loss_and_grad_match_float64_autograd(case, tile_rows):
    M, B, n, m = 3, 17, 9, 4
    x = _batch(M, B, n) if case == "sampled" else _empty_rows_batch()
    counts = torch.bincount(torch.unique(x.rows) // B, minlength=M)
    assert int(counts.min()) < B and len(set(counts.tolist())) > 1  # empty samples, padded rows
    g = torch.Generator().manual_seed(0)
    W = torch.randn(M, n, m, generator=g, dtype=torch.float64, requires_grad=True)
    b = torch.randn(M, n, generator=g, dtype=torch.float64, requires_grad=True)
    xd = x.to_dense().double()
    y = torch.relu(torch.einsum("kbi,kij,klj->kbl", xd, W, W) + b[:, None, :])
    objective = ((y - xd) ** 2).mean(dim=(1, 2))
    objective.sum().backward()
    ws = None
    if tile_rows:  # the rows in tiles of tile_rows samples (GEMM 3 summed over tiles)
        ws = SparseWorkspace(M, B, n, m, CPU, torch.float64, tile_elems=tile_rows * M * n)
        assert ws.rows == tile_rows
    loss_sum, dW, db = sparse_loss_and_grad(x, W.detach().clone(), b.detach().clone(), ws=ws)
    torch.testing.assert_close(dW, W.grad, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(db, b.grad, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(loss_sum, objective.detach() * n, rtol=1e-10, atol=0)
    torch.testing.assert_close(
        x.to_dense(), sparse_data.SparseBatch.from_dense(x.to_dense()).to_dense(), rtol=0, atol=0
    )


def test_sparse_and_dense_model_paths_agree_in_float32():
    M, B, n, m = 2, 64, 40, 5
    x = _batch(M, B, n, seed=4)
    g = torch.Generator().manual_seed(1)
    W = torch.randn(M, n, m, generator=g) / m**0.5
    b = torch.randn(M, n, generator=g) * 0.1
    dense = toy.loss_and_grad(x.to_dense(), W, b)
    ls, dW, db = sparse_loss_and_grad(x, W, b)
    torch.testing.assert_close(ls, dense[0], rtol=1e-5, atol=1e-7)
    torch.testing.assert_close(dW, dense[1], rtol=1e-4, atol=1e-7)
    torch.testing.assert_close(db, dense[2], rtol=1e-4, atol=1e-7)
    assert sparse_loss_and_grad(x, W, b, need_loss=False)[0] is None


# ---------------------------------------------------------------- the trainer


def test_auto_sampler_rule():
    cpu, p = CPU, toy.frequencies
    assert choose_sampler("auto", p(256)[None], cpu) == "dense"  # the golden and book sizes stay dense
    assert choose_sampler("auto", p(512)[None], cpu) == "sparse"
    assert choose_sampler("auto", p(1000, "density", density=200.0)[None], cpu) == "dense"  # not sparse
    assert choose_sampler("dense", p(1000)[None], cpu) == "dense"
    assert choose_sampler("sparse", p(8)[None], cpu) == "sparse"
    cfg = toy.TrainConfig(n=16, m=2, steps=2, batch=4, device="cpu")
    assert toy.train([toy.ModelSpec()], cfg).sampler == "dense"
    assert toy.train([toy.ModelSpec()], replace(cfg, sampler="sparse")).sampler == "sparse"
    with pytest.raises(RepcapError, match="sampler='gaps': use one of auto, dense, sparse"):
        toy.TrainConfig(sampler="gaps")


def test_sparse_batched_training_equals_single_models():
    cfg = toy.TrainConfig(n=24, m=4, steps=60, batch=32, device="cpu", sampler="sparse")
    specs = [
        toy.ModelSpec(alpha=a, gamma=g, seed=s, lr=lr)
        for a, g, s, lr in [(0.5, -1.0, 1, 1e-2), (1.5, 0.3, 2, 5e-3), (1.0, 0.0, 3, 2e-2)]
    ]
    batched = toy.train(specs, cfg)
    for chunk in (1, None):
        other = toy.train(specs, replace(cfg, cpu_chunk_elems=chunk))
        torch.testing.assert_close(other.W, batched.W, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(other.loss, batched.loss, rtol=1e-6, atol=0)
    for k, s in enumerate(specs):
        single = toy.train([s], cfg)
        torch.testing.assert_close(batched.W[k], single.W[0], rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(batched.b[k], single.b[0], rtol=1e-5, atol=1e-6)


def test_sparse_trainer_agrees_with_dense_within_seed_noise():
    n, m, seeds = 48, 6, range(6)
    cfg = toy.TrainConfig(n=n, m=m, steps=500, batch=128, device="cpu")
    specs = [toy.ModelSpec(alpha=1.0, gamma=gm, seed=s) for gm in (-1.0, 0.5) for s in seeds]
    res = {smp: toy.train(specs, replace(cfg, sampler=smp)) for smp in ("dense", "sparse")}
    meas = {smp: r.measurements() for smp, r in res.items()}
    k = len(seeds)
    for j, regime in enumerate(("strong", "weak")):
        for key in ("loss", "phi_half", "mean_sq_overlap"):
            a = np.array([d[key] for d in meas["dense"][j * k : (j + 1) * k]])
            b = np.array([d[key] for d in meas["sparse"][j * k : (j + 1) * k]])
            se = math.sqrt(a.var(ddof=1) / k + b.var(ddof=1) / k)
            assert abs(a.mean() - b.mean()) <= 4 * se + 0.02 * abs(a.mean()) + 1e-9, (regime, key, a, b)
    strong = meas["sparse"][:k]
    assert all(d["phi_half"] == 1.0 for d in strong)  # the regime facts hold on the sparse stream too


def test_sparse_trainer_steps_match_a_float64_reference():
    # three steps by hand in float64 on the sparse sampler's batches (drawn after the initialisation,
    # from each model's own generator): decay, then Adam, at the scheduled rate
    cfg = toy.TrainConfig(n=12, m=3, steps=3, batch=16, warmup=0, lr=0.05, device="cpu", sampler="sparse")
    specs = [toy.ModelSpec(alpha=1.0, gamma=0.7, seed=11), toy.ModelSpec(alpha=0.5, gamma=-1.0, seed=12)]
    res = toy.train(specs, cfg)
    W, b, gens = toy.init_params(12, 3, [11, 12], CPU)
    W, b = W.double(), b.double()
    p = torch.stack([toy.frequencies(12, "power", s.alpha) for s in specs]).float()
    sampler = SparseSampler(p, 16)
    sW, sb = toy.AdamState.zeros_like(W), toy.AdamState.zeros_like(b)
    gamma = torch.tensor([0.7, -1.0], dtype=torch.float64)
    for t in range(3):
        x = sampler.sample(gens).to_dense().double()
        _, dW, db = toy.loss_and_grad(x, W, b)
        lr = torch.full((2,), 0.05 * toy.lr_schedule(t, 3, 0), dtype=torch.float64)
        toy.decay_(W, lr, gamma)
        toy.adam_(W, dW, sW, lr)
        toy.adam_(b, db, sb, lr)
    torch.testing.assert_close(res.W.double(), W, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(res.b.double(), b, rtol=1e-5, atol=1e-6)
