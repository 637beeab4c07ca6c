"""The GPU paths at sizes that fill the chip, against their references (skipped without CUDA).

* the fused toy step (repcap.engines.toy.fused) at the main sweep's size with 120 models against the float64
  split and the sparse path's torch ops; the trainer with the kernel against the same draws through
  the torch ops; the counted sampler's frequencies;
* the fused cosine pass (repcap.engines.cosine.fused) against the torch path on the GPU (fp32, tf32, bf16),
  against float64 on a subset of rows, and its two ways of filling the histogram against each other;
* the packing step replayed from a CUDA graph against the eager step.

Tolerances, and why: the toy kernel's entries are float32 sums of up to B = 2048 terms, added across
programs by atomics in no fixed order (~1e-6 of the largest entry); 1e-4 of the largest entry leaves a
margin and is still 10 times below any missing or doubled term.  Trainers with and without the kernel
draw the same data (the counted sampler) and part only by that round-off over 300 Adam steps.
The cosine pass's values are the same float32 dot products summed in another order (a few 1e-7), so a
pair on the two sides of a bin edge moves between neighbouring bins: the histograms may differ by
at most 1e-3 of the pairs (a bin is 1e-3 wide), quantiles by one bin, sums and extremes by 1e-5.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from repcap.engines import packing, toy
from repcap.engines.cosine import TiledConfig, fused, tiled_stats

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")]

DEV = torch.device("cuda")


def _batch(M, B, n, m, seed, dev=DEV):
    from repcap.engines.toy.sparse_data import SparseSampler

    p = torch.stack([toy.frequencies(n, "power", alpha=0.25 + 1.75 * k / max(1, M - 1)) for k in range(M)])
    x = SparseSampler(p.float().to(dev), B).sample(
        [torch.Generator(device=dev).manual_seed(seed + k) for k in range(M)]
    )
    g = torch.Generator(device=dev).manual_seed(seed)
    W = torch.randn(M, n, m, generator=g, device=dev) / m**0.5
    b = torch.randn(M, n, generator=g, device=dev)
    return x, W, b


def _close(got, ref, tol):
    for a, r in zip(got, ref):
        if r is None:
            assert a is None
            continue
        torch.testing.assert_close(a.double(), r.double(), rtol=0, atol=tol * float(r.abs().max()))


@pytest.mark.parametrize("m", [10, 25, 100])
def test_fused_toy_step_at_full_size(m):
    from repcap.engines.toy import fused as toy_fused

    M, B, n = 120, 2048, 1000
    x, W, b = _batch(M, B, n, m, seed=m)
    got = toy_fused.fused_loss_and_grad(x, W, b)
    ref = toy_fused.fused_loss_and_grad_reference(x, W.double(), b.double())
    _close(got, ref, 1e-4)
    _close(got, toy.sparse_loss_and_grad(x, W, b), 1e-4)
    none = toy_fused.fused_loss_and_grad(x, W, b, need_loss=False)
    assert none[0] is None
    _close(none[1:], ref[1:], 1e-4)


def test_trainer_with_and_without_the_kernel(monkeypatch):
    from repcap.engines.toy import fused as toy_fused

    cfg = toy.TrainConfig(n=1000, m=25, steps=300, batch=2048, device="cuda", loss_window=50)
    specs = [toy.ModelSpec(alpha=a, gamma=g, seed=s) for s, (a, g) in enumerate([(1.0, -1.0), (1.5, 0.3333)] * 6)]
    fused_run = toy.train(specs, cfg)
    assert fused_run.sampler == "sparse"  # "auto" takes the sparse path where the kernel runs
    # the same counted draws through the sparse path's torch ops
    monkeypatch.setattr(
        toy_fused, "fused_loss_and_grad", lambda x, W, b, need_loss: toy.sparse_loss_and_grad(x, W, b, need_loss)
    )
    torch_run = toy.train(specs, cfg)
    torch.testing.assert_close(fused_run.W, torch_run.W, rtol=1e-3, atol=1e-4)
    torch.testing.assert_close(fused_run.loss, torch_run.loss, rtol=1e-3, atol=0)
    # the statistical check against the CPU (another stream of the same data): tools/gpu_session.sh's
    # repcap bundle compare of liu-strong-a1 + liu-seeds-a1


def _rows(V, d, seed):
    g = torch.Generator(device=DEV).manual_seed(seed)
    X = torch.randn(V, d, generator=g, device=DEV) + 0.3 * torch.randn(1, d, generator=g, device=DEV)
    return X


@pytest.mark.parametrize("precision", ["fp32", "tf32", "bf16"])
def test_fused_cosine_pass_against_the_torch_path(monkeypatch, precision):
    X = _rows(49152, 384, seed=1)
    cfg = TiledConfig(precision=precision, top_k=10, thresholds=(0.1, 0.2345, 0.5))
    got = tiled_stats(X, cfg, device="cuda", progress=False)
    monkeypatch.setenv("REPCAP_FUSED", "0")
    ref = tiled_stats(X, cfg, device="cuda", progress=False)
    assert got.n_pairs == ref.n_pairs == 49152 * 49151 // 2
    assert np.abs(got.counts - ref.counts).sum() <= 1e-3 * got.n_pairs
    assert got.mean == pytest.approx(ref.mean, rel=1e-5, abs=1e-7) and got.std == pytest.approx(ref.std, rel=1e-5)
    assert got.quantiles == pytest.approx(ref.quantiles, abs=got.bin_width + 1e-9)
    assert got.max_abs == pytest.approx(ref.max_abs, abs=1e-5)
    np.testing.assert_allclose(got.nn_cos, ref.nn_cos, atol=1e-5)
    assert [p[:2] for p in got.top_pairs[:5]] == [p[:2] for p in ref.top_pairs[:5]]
    assert got.exceed == pytest.approx(ref.exceed, abs=1e-5)


@pytest.mark.parametrize("precision", ["fp32", "tf32", "bf16"])
def test_fused_cosine_pass_against_float64(precision):
    U = torch.nn.functional.normalize(_rows(4096, 640, seed=2), dim=1)
    Ur = fused.rounded(U, precision)
    f = fused.fused_pass(Ur, 2000, [0.2345], 10, precision)
    U64 = U.double()
    iu = torch.triu_indices(4096, 4096, 1, device=DEV)
    vals = (U64 @ U64.T).clamp(-1, 1)[iu[0], iu[1]]
    bound = fused.PRECISION_BOUND[precision] + 640 * 2.0**-24
    ref = torch.bincount(((vals + 1) * 1000).long().clamp(max=1999), minlength=2000).double().cpu().numpy()
    # the cumulative count at each edge moves by at most the pairs within the bound of that edge
    srt = vals.sort().values
    edges = torch.linspace(-1, 1, 2001, dtype=torch.float64, device=DEV)[1:]
    within = torch.searchsorted(srt, edges + bound, right=True) - torch.searchsorted(srt, edges - bound)
    assert (np.abs(np.cumsum(f.counts) - np.cumsum(ref)) <= within.cpu().numpy()).all()
    assert f.s1 == pytest.approx(float(vals.sum()), abs=bound * vals.numel())
    assert f.max_abs == pytest.approx(float(vals.abs().max()), abs=bound)
    top = torch.topk(vals, 10).values.cpu().numpy()
    np.testing.assert_allclose(sorted(f.top_v.tolist(), reverse=True), top, atol=bound)


def test_histogram_by_atomics_equals_the_per_tile_histogram():
    U = torch.nn.functional.normalize(_rows(20000, 256, seed=3), dim=1)
    a = fused.fused_pass(U, 2000, [0.3], 5, hist="atomic")
    w = fused.fused_pass(U, 2000, [0.3], 5, hist="warp")
    np.testing.assert_array_equal(a.counts, w.counts)
    np.testing.assert_array_equal(a.above, w.above)


def test_packing_graph_replays_the_eager_step(monkeypatch):
    cfg = packing.PackConfig(k=2000, d=32, steps=300, record_every=50, device="cuda")
    graph_run = packing.optimise(cfg, seeds=[0, 1], progress=False)
    monkeypatch.setenv("REPCAP_FUSED", "0")
    eager_run = packing.optimise(cfg, seeds=[0, 1], progress=False)
    np.testing.assert_allclose(graph_run.loss_curve, eager_run.loss_curve, rtol=1e-3)
    np.testing.assert_allclose(graph_run.eps_star, eager_run.eps_star, rtol=1e-3)
    torch.testing.assert_close(graph_run.V, eager_run.V, rtol=0, atol=1e-3)


def test_counted_sampler_frequencies_on_cuda():
    from repcap.engines.toy.fused import CounterSampler

    n, B, steps = 1000, 2048, 50
    p = toy.frequencies(n, "power", alpha=1.0)
    s = CounterSampler(p[None].float().cuda(), B, [7])
    counts = sum(torch.bincount(s.sample().cols, minlength=n).double().cpu() for _ in range(steps))
    N = B * steps
    assert ((counts / N - p).abs() <= 5 * (p * (1 - p) / N).sqrt() + 1e-12).all()
