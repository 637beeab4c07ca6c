"""repcap.engines.toy on CUDA: the same code path as the CPU, checked against float64 references."""

from __future__ import annotations

import pytest
import torch

from repcap.engines import toy

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")]


def test_gradient_on_cuda_matches_float64_cpu():
    g = torch.Generator().manual_seed(0)
    M, B, n, m = 4, 64, 50, 6
    x = (torch.rand(M, B, n, generator=g) < 0.2) * 2 * torch.rand(M, B, n, generator=g)
    W = torch.randn(M, n, m, generator=g) / m**0.5
    b = torch.randn(M, n, generator=g)
    ref = toy.loss_and_grad(x.double(), W.double(), b.double())
    got = toy.loss_and_grad(x.cuda(), W.cuda(), b.cuda())
    torch.testing.assert_close(got[0].cpu(), ref[0], rtol=1e-4, atol=1e-6)
    torch.testing.assert_close(got[1].cpu().double(), ref[1], rtol=1e-3, atol=1e-6)
    torch.testing.assert_close(got[2].cpu().double(), ref[2], rtol=1e-3, atol=1e-6)


def test_batched_equals_single_on_cuda_and_regimes():
    n, m = 64, 8
    cfg = toy.TrainConfig(n=n, m=m, steps=800, batch=256, device="cuda")
    specs = [toy.ModelSpec(alpha=1.0, gamma=-1.0, seed=1), toy.ModelSpec(alpha=1.0, gamma=0.5, seed=2)]
    res = toy.train(specs, cfg)
    for k, s in enumerate(specs):
        one = toy.train([s], cfg)
        torch.testing.assert_close(one.W[0], res.W[k], rtol=1e-4, atol=1e-5)
    strong, weak = res.measurements()
    assert strong["phi_half"] == 1.0
    assert strong["mean_sq_overlap"] < 1.5 / m
    # weak: about m features represented, the most frequent ones; the upper bound is where the two
    # regimes part, sqrt(n m) (all n features vs about m, on a log scale).  After 800 steps the
    # count is 1.3-2.4 m over seeds 0-11 on an H200 (11-18) and on the CPU (10-19), so the former
    # bound 2m held for some seeds only (seed 2 gave 18 on the H200, 2026-12-04)
    assert m / 2 <= weak["n_represented"] < (n * m) ** 0.5


def test_sparse_path_on_cuda_matches_float64_cpu():
    from repcap.engines.toy.sparse_data import SparseBatch, SparseSampler

    M, B, n, m = 3, 64, 50, 6
    p = torch.stack([toy.frequencies(n, "power", alpha=a) for a in (0.5, 1.0, 1.5)]).float()
    x = SparseSampler(p.cuda(), B).sample([torch.Generator(device="cuda").manual_seed(k) for k in range(M)])
    xd = x.to_dense().cpu()
    key = x.rows * n + x.cols
    assert key.unique().numel() == key.numel()
    g = torch.Generator().manual_seed(1)
    W = torch.randn(M, n, m, generator=g) / m**0.5
    b = torch.randn(M, n, generator=g)
    ref = toy.loss_and_grad(xd.double(), W.double(), b.double())
    got = toy.sparse_loss_and_grad(x, W.cuda(), b.cuda())
    torch.testing.assert_close(got[0].cpu(), ref[0], rtol=1e-4, atol=1e-6)
    torch.testing.assert_close(got[1].cpu().double(), ref[1], rtol=1e-3, atol=1e-6)
    torch.testing.assert_close(got[2].cpu().double(), ref[2], rtol=1e-3, atol=1e-6)
    back = SparseBatch.from_dense(xd.cuda()).to_dense().cpu()
    torch.testing.assert_close(back, xd, rtol=0, atol=0)


def test_sparse_sampler_frequencies_on_cuda():
    from repcap.engines.toy.sparse_data import SparseSampler

    n, B, steps = 40, 1024, 100
    p = toy.frequencies(n, "power", alpha=1.0)
    s = SparseSampler(p[None].float().cuda(), B)
    gen = [torch.Generator(device="cuda").manual_seed(0)]
    counts = sum(torch.bincount(s.sample(gen).cols, minlength=n).double().cpu() for _ in range(steps))
    N = B * steps
    sigma = (p * (1 - p) / N).sqrt()
    assert ((counts / N - p).abs() <= 5 * sigma).all()


def test_sparse_trainer_on_cuda_batched_equals_single():
    cfg = toy.TrainConfig(n=64, m=8, steps=200, batch=256, device="cuda", sampler="sparse")
    specs = [toy.ModelSpec(alpha=1.0, gamma=-1.0, seed=1), toy.ModelSpec(alpha=1.0, gamma=0.5, seed=2)]
    res = toy.train(specs, cfg)
    assert res.sampler == "sparse"
    for k, s in enumerate(specs):
        one = toy.train([s], cfg)
        torch.testing.assert_close(one.W[0], res.W[k], rtol=1e-4, atol=1e-5)
