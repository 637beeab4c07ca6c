"""The fused toy step (repcap.engines.toy.fused) against its references on the CPU.

* The split itself (dense part ``y = relu(h Wᵀ + b)`` without ``x``, plus the correction at the
  active entries, plus ``xᵀ (g W)``), written in torch ops by ``fused_loss_and_grad_reference``, equals
  the plain step ``repcap.engines.toy.loss_and_grad`` at float64 to 1e-12 relative: the algebra is exact.
* The Triton kernel runs under Triton's interpreter (``TRITON_INTERPRET=1``, CPU tensors) and must
  match the float64 plain step elementwise within 1e-5 of the largest entry (and the loss within 1e-5
  relative).  Why 1e-5: the kernel works in float32, each entry a sum of at most ``n + nnz`` terms of
  size O(1) (``n`` <= 200 here), so its round-off is ~1e-7 of the largest entry (measured: 2e-7);
  1e-5 is round-off with a margin and 50 times below the smallest gradient entry that a wrong term
  would change.  This is the tolerance under which the GPU path shares the toy engine's numerics
  version (toy/1) with the CPU's sparse path.
* Wired into the trainer (the CUDA switch forced on for the CPU), a few steps of the kernel give the
  weights of the sparse path's torch ops up to float32 round-off.

On a machine with CUDA these tests skip: tests/gpu runs the compiled kernel at full size.
"""

from __future__ import annotations

import os

import pytest
import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before the kernel module is imported

from repcap.engines import toy
from repcap.engines.toy import fused
from repcap.engines.toy.sparse_data import SparseBatch, SparseSampler

interpreted = pytest.mark.skipif(
    torch.cuda.is_available() or not fused.have_triton(),
    reason="needs triton and no GPU (on a GPU, tests/gpu runs the compiled kernel; without triton the float64 "
    "test of the split runs alone)",
)

TOL = 1e-5


def batch(M: int, B: int, n: int, m: int, seed: int, alphas=(0.5, 1.0, 1.5), density: float = 1.0):
    """A sparse batch of ``M`` models (frequencies of several exponents) and random parameters."""
    dist = "density" if density != 1.0 else "power"
    p = torch.stack([toy.frequencies(n, dist, alpha=alphas[k % len(alphas)], density=density) for k in range(M)])
    x = SparseSampler(p.float(), B).sample([torch.Generator().manual_seed(seed + k) for k in range(M)])
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(M, n, m, generator=g) / m**0.5
    b = torch.randn(M, n, generator=g)
    return x, W, b


def assert_matches(got, ref, tol: float = TOL) -> None:
    loss, dW, db = got
    rl, rW, rb = ref
    if rl is None:
        assert loss is None
    else:
        torch.testing.assert_close(loss.double(), rl, rtol=tol, atol=0)
    for a, r in ((dW, rW), (db, rb)):
        torch.testing.assert_close(a.double(), r, rtol=0, atol=tol * float(r.abs().max()))


@pytest.mark.parametrize("M, B, n, m", [(3, 64, 50, 6), (2, 40, 130, 40), (1, 17, 33, 100), (4, 96, 20, 3)], ids=str)
def test_split_is_the_plain_step_in_float64(M, B, n, m):
    x, W, b = batch(M, B, n, m, seed=M + n)
    ref = toy.loss_and_grad(x.to_dense().double(), W.double(), b.double())
    got = fused.fused_loss_and_grad_reference(x, W.double(), b.double())
    assert_matches(got, ref, tol=1e-12)
    none = fused.fused_loss_and_grad_reference(x, W.double(), b.double(), need_loss=False)
    assert none[0] is None
    torch.testing.assert_close(none[1], got[1], rtol=0, atol=0)


def test_prepare_lays_the_entries_out_by_sample():
    x, _, _ = batch(3, 50, 40, 4, seed=7, density=2.0)
    rows, nrows, start, cols, vals = fused.prepare(x)
    dense = x.to_dense()
    for k in range(x.M):
        occupied = torch.nonzero(dense[k].abs().sum(dim=1) > 0).flatten()
        assert int(nrows[k]) == occupied.numel()
        assert rows[k, : int(nrows[k])].tolist() == occupied.tolist()
        for s in occupied.tolist():
            a, e = int(start[k * x.B + s]), int(start[k * x.B + s + 1])
            got = torch.zeros(x.n)
            got[cols[a:e].long()] = vals[a:e]
            torch.testing.assert_close(got, dense[k, s], rtol=0, atol=0)


@pytest.mark.parametrize(
    "M, B, n, m, density",
    [
        (3, 64, 50, 6, 1.0),  # BM 16: one row block, one feature tile
        (2, 150, 130, 40, 3.0),  # BM 64: three row blocks, several entries a sample, ragged tiles
        (2, 40, 70, 100, 1.0),  # BM 128: the widest block
        (3, 24, 200, 25, 0.05),  # nearly empty: most samples, and maybe a whole model, hold no entry
    ],
    ids=str,
)
@pytest.mark.parametrize("need_loss", [True, False])
@interpreted
def test_kernel_matches_the_float64_step(M, B, n, m, density, need_loss):
    x, W, b = batch(M, B, n, m, seed=B + m, density=density)
    ref = toy.loss_and_grad(x.to_dense().double(), W.double(), b.double(), need_loss=need_loss)
    got = fused.fused_loss_and_grad(x, W, b, need_loss=need_loss)
    assert got[1].dtype == torch.float32 and got[1].shape == W.shape
    assert_matches(got, ref)


@interpreted
def test_kernel_with_many_row_blocks(monkeypatch):
    monkeypatch.setenv(fused.ROWS_ENV, "16")  # 16 samples a program: many programs add into one dW
    x, W, b = batch(2, 100, 70, 12, seed=4, density=2.0)
    ref = toy.loss_and_grad(x.to_dense().double(), W.double(), b.double())
    assert fused.blocks(12)[0] == 16
    assert_matches(fused.fused_loss_and_grad(x, W, b), ref)


@interpreted
def test_kernel_with_no_active_entry():
    M, B, n, m = 2, 8, 20, 5
    empty = torch.empty(0, dtype=torch.int64)
    x = SparseBatch(rows=empty, cols=empty, vals=torch.empty(0), wrows=empty, M=M, B=B, n=n)
    g = torch.Generator().manual_seed(3)
    W, b = torch.randn(M, n, m, generator=g), torch.randn(M, n, generator=g)
    ref = toy.loss_and_grad(torch.zeros(M, B, n, dtype=torch.float64), W.double(), b.double())
    assert_matches(fused.fused_loss_and_grad(x, W, b), ref)


@interpreted
def test_trainer_runs_the_kernel_where_it_is_usable(monkeypatch):
    from repcap.engines.toy import training

    cfg = toy.TrainConfig(n=60, m=5, steps=4, batch=32, sampler="sparse", device="cpu", loss_window=2)
    specs = [toy.ModelSpec(alpha=1.0, gamma=-1.0, seed=1), toy.ModelSpec(alpha=1.5, gamma=0.5, seed=2)]
    calls = []
    real = fused.fused_loss_and_grad

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(training, "fused_usable", lambda dev: True)
    monkeypatch.setattr(fused, "fused_loss_and_grad", counted)
    kernel = toy.train(specs, cfg)
    assert len(calls) == cfg.steps
    # the same counted draws through the sparse path's torch ops
    monkeypatch.setattr(
        fused, "fused_loss_and_grad", lambda x, W, b, need_loss: toy.sparse_loss_and_grad(x, W, b, need_loss)
    )
    torch_ops = toy.train(specs, cfg)
    torch.testing.assert_close(kernel.W, torch_ops.W, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(kernel.loss, torch_ops.loss, rtol=1e-5, atol=0)


# ---------------------------------------------------------------- the counted sampler (the GPU's)


def _counted(p: torch.Tensor, B: int, steps: int, seed: int = 0):
    s = fused.CounterSampler(p[None].float(), B, [seed])
    return [s.sample() for _ in range(steps)]


def _check_distribution(batches, p: torch.Tensor, B: int) -> None:
    n = p.numel()
    counts = sum(torch.bincount(x.cols, minlength=n).double() for x in batches)
    vals = torch.cat([x.vals.double() for x in batches])
    N = B * len(batches)
    pp = p.float().double()
    assert ((counts / N - pp).abs() <= 5 * (pp * (1 - pp) / N).sqrt() + 1e-12).all()  # binomial error per feature
    k = vals.numel()  # v ~ U(0, 2]
    assert abs(vals.mean().item() - 1.0) < 5 * (1 / 3 / k) ** 0.5
    assert abs(vals.square().mean().item() - 4 / 3) < 5 * ((16 / 5 - 16 / 9) / k) ** 0.5
    assert float(vals.max()) <= 2.0 and float(vals.min()) > 0
    for x in batches[:5]:
        key = x.rows * n + x.cols
        assert key.unique().numel() == key.numel() and int(x.rows.max()) < B


@interpreted
@pytest.mark.parametrize("dist, kw", [("power", dict(alpha=1.0)), ("density", dict(alpha=2.0, density=5.0))])
def test_counted_sampler_draws_the_distribution(dist, kw):
    p = toy.frequencies(40, dist, **kw)
    _check_distribution(_counted(p, 256, 80), p, 256)


@interpreted
def test_counted_sampler_continues_when_the_gap_budget_runs_out(monkeypatch):
    from repcap.engines.toy import sparse_data

    real = sparse_data.gap_budget

    def short(p, batch):  # a third of the budget: most features walk on in rounds of fresh gaps
        K = real(p, batch)
        return torch.where(K > 0, (K // 3).clamp_min(1), K)

    monkeypatch.setattr(sparse_data, "gap_budget", short)
    rounds = []
    cont = fused.CounterSampler._continue
    monkeypatch.setattr(fused.CounterSampler, "_continue", lambda *a: rounds.append(1) or cont(*a))
    p = toy.frequencies(8, "density", alpha=1.0, density=3.0)
    _check_distribution(_counted(p, 200, 50, seed=3), p, 200)
    assert len(rounds) == 50


@interpreted
def test_counted_stream_is_the_models_own_and_moves_with_the_step():
    n, B = 20, 64
    p, q = toy.frequencies(n, "power", alpha=1.0), toy.frequencies(n, "power", alpha=2.0)
    pair = fused.CounterSampler(torch.stack([q, p]).float(), B, [9, 3])
    alone = fused.CounterSampler(p[None].float(), B, [3])
    for _ in range(3):  # in a batch or alone, step after step: the same draws
        a, b = pair.sample(), alone.sample()
        torch.testing.assert_close(a.to_dense()[1], b.to_dense()[0], rtol=0, atol=0)
    again = fused.CounterSampler(p[None].float(), B, [3])
    first, second = again.sample().to_dense(), again.sample().to_dense()
    assert not torch.equal(first, second)  # a fresh batch every step
    assert fused._splitmix64(3) != fused._splitmix64(4)
