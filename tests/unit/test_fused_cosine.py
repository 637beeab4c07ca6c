"""The fused tiled pass (repcap.engines.cosine.fused) against its references on the CPU, and the reduced-precision
mode against float64.

* The Triton kernel runs under Triton's interpreter (``TRITON_INTERPRET=1``, CPU tensors) on small
  matrices, tiles of 16 and 32 rows, both ways of filling the histogram, and is held to the float64
  cosines of the same rows: each pair's bin may differ only where its float64 cosine lies within
  1e-6 of a bin edge (float32 round-off of a d <= 64 dot product of unit rows is below 1e-6), the
  sums within 1e-6 relative, the extremes, nearest neighbours and top pairs within 1e-6 with the
  same pairs.  Through ``tiled_stats`` (the CUDA switch forced on) it gives the torch/numba path's
  record.  (The interpreter cannot multiply bfloat16: it holds them as uint16; there the bf16 branch
  multiplies the same rounded values as float32, which is exact, and tests/gpu runs the real one.)
* ``precision="tf32"`` / ``"bf16"`` round the rows' values before the products (to nearest even);
  every cosine then errs by at most ``2u + u²`` against float64 (``u = 2^-11``, ``2^-8``): checked pair
  by pair, and through the histogram (the cumulative count at every edge moves by at most the pairs
  that lie within that bound of it).

On a machine with CUDA the interpreter tests skip: tests/gpu runs the compiled kernel at full size.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before the kernel module is imported

from repcap import RepcapError
from repcap.engines.cosine import TiledConfig, fused, tiled, tiled_stats

interpreted = pytest.mark.skipif(
    torch.cuda.is_available() or not fused.have_triton(),
    reason="needs triton and no GPU (on a GPU, tests/gpu runs the compiled kernel)",
)


def matrix(n: int, d: int, seed: int) -> np.ndarray:
    """Rows with a common component (like embeddings), one duplicated pair and one opposite pair."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)).astype(np.float32) + 0.3 * rng.standard_normal(d).astype(np.float32)
    X[5] = 2.0 * X[3]  # cos = 1 (rounding may put it just above 1: clamped)
    X[9] = -X[8]  # cos = -1
    return X


def upper64(U: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The float64 cosines of the pairs i < j of the rows ``U`` (as given) and their indices."""
    U64 = U.double()
    n = U64.shape[0]
    iu = torch.triu_indices(n, n, 1)
    return (U64 @ U64.T).clamp(-1, 1)[iu[0], iu[1]], iu


def near_edges(vals: torch.Tensor, bins: int, tol: float) -> int:
    """Pairs whose cosine lies within ``tol`` of an edge of ``bins`` bins on [-1, 1]."""
    pos = (vals + 1) * (bins / 2)
    return int(((pos - pos.round()).abs() <= tol * bins / 2).sum())


@interpreted
@pytest.mark.parametrize(
    "n, d, block, bk, hist",
    [(150, 40, 32, 16, "atomic"), (97, 24, 16, 16, "warp"), (40, 64, 16, 32, "atomic")],
    ids=str,
)
def test_kernel_matches_float64(n, d, block, bk, hist):
    U = torch.nn.functional.normalize(torch.from_numpy(matrix(n, d, seed=n)), dim=1)
    thr = [0.25, -0.05, 0.9995]
    f = fused.fused_pass(U, 2000, thr, 6, block=block, bk=bk, hist=hist)
    vals, iu = upper64(U)
    assert f.n_pairs == vals.numel()
    ref = torch.bincount(((vals + 1) * 1000).long().clamp(max=1999), minlength=2000).double().numpy()
    assert f.counts.sum() == vals.numel()
    assert np.abs(f.counts - ref).sum() <= 2 * near_edges(vals, 2000, 1e-6)
    for got, want in ((f.s1, vals.sum()), (f.s2, vals.square().sum()), (f.sa, vals.abs().sum())):
        assert got == pytest.approx(float(want), rel=1e-6, abs=1e-6)
    for k, t in enumerate(thr):
        for col, x in ((0, vals), (1, vals.abs())):
            close = int(((x - t).abs() <= 1e-6).sum())
            assert abs(int(f.above[k, col]) - int((x > t).sum())) <= close
    a = int(vals.abs().argmax())
    assert f.max_abs == pytest.approx(float(vals.abs()[a]), abs=1e-6)
    assert f.max_pair in ((int(iu[0, a]), int(iu[1, a])), (3, 5), (8, 9))  # the exact +-1 pairs tie
    C = (U.double() @ U.double().T).clamp(-1, 1)
    C.fill_diagonal_(-2.0)
    torch.testing.assert_close(f.nn.double(), C.max(dim=1).values, rtol=0, atol=1e-6)
    top = torch.topk(vals, 6)
    got = sorted(zip(f.top_v.tolist(), f.top_i.tolist(), f.top_j.tolist()), reverse=True)
    np.testing.assert_allclose([g[0] for g in got], top.values.numpy(), atol=1e-6)
    assert {(g[1], g[2]) for g in got} == {(int(iu[0, t]), int(iu[1, t])) for t in top.indices}


@interpreted
@pytest.mark.parametrize("precision", ["fp32", "tf32", "bf16"])
def test_tiled_stats_through_the_kernel_equals_the_cpu_pass(monkeypatch, precision):
    X = matrix(150, 40, seed=3)
    cfg = TiledConfig(top_k=5, thresholds=(0.1, 0.2345, -0.3), precision=precision)
    cpu = tiled_stats(X, cfg, device="cpu", progress=False)
    monkeypatch.setattr(tiled, "fused_usable", lambda dev: True)
    got = tiled_stats(X, cfg, device="cpu", progress=False)
    assert got.n_pairs == cpu.n_pairs
    assert np.abs(got.counts - cpu.counts).sum() <= 2  # a pair on a bin edge at most (summation order)
    assert got.mean == pytest.approx(cpu.mean, rel=1e-5, abs=1e-7)
    assert got.std == pytest.approx(cpu.std, rel=1e-5)
    assert got.mean_abs == pytest.approx(cpu.mean_abs, rel=1e-5)
    assert got.max_abs == pytest.approx(cpu.max_abs, abs=1e-6)
    assert got.exceed == pytest.approx(cpu.exceed, abs=1e-4) and got.exceed_abs == pytest.approx(
        cpu.exceed_abs, abs=1e-4
    )
    assert got.quantiles == pytest.approx(cpu.quantiles, abs=1e-3)
    np.testing.assert_allclose(got.nn_cos, cpu.nn_cos, atol=1e-6)
    assert [p[:2] for p in got.top_pairs] == [p[:2] for p in cpu.top_pairs]
    np.testing.assert_allclose([p[2] for p in got.top_pairs], [p[2] for p in cpu.top_pairs], atol=1e-6)


def test_rounding_to_tf32_and_bf16():
    x = torch.tensor([1.0, -1.0, 0.1, -0.3, 1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-12, 3e-5, 0.0], dtype=torch.float32)
    t = fused.rounded(x, "tf32")
    assert (t.view(torch.int32) & 0x1FFF == 0).all()  # 10 mantissa bits left
    assert ((t - x).abs() <= x.abs() * 2**-11).all()  # to nearest
    assert t[4] == 1.0 and t[5] == 1 + 4 * 2**-11  # ties to even
    assert t[6] == 1.0
    torch.testing.assert_close(fused.rounded(x, "bf16"), x.bfloat16().float(), rtol=0, atol=0)
    assert fused.rounded(x, "fp32") is x
    with pytest.raises(RepcapError, match="precision"):
        fused.rounded(x, "fp16")


@pytest.mark.parametrize("precision", ["tf32", "bf16"])
def test_reduced_precision_error_is_within_its_bound(precision):
    X = matrix(300, 64, seed=11)
    cfg = TiledConfig(precision=precision, top_k=10)
    low = tiled_stats(X, cfg, device="cpu", progress=False)
    exact = tiled_stats(X.astype(np.float64), TiledConfig(top_k=10), device="cpu", progress=False)
    U = torch.nn.functional.normalize(torch.from_numpy(X).double(), dim=1)
    vals, _ = upper64(U)
    bound = fused.PRECISION_BOUND[precision] + 64 * 2.0**-24  # the rounding, and float32 accumulation
    Ur = fused.rounded(U.float(), precision).double()
    lowvals, _ = upper64(Ur)
    assert float((lowvals - vals).abs().max()) <= bound  # pair by pair
    # the histogram: the cumulative count at each edge moves by at most the pairs within the bound of it
    edges = torch.linspace(-1, 1, 2001, dtype=torch.float64)[1:]
    moved = np.abs(np.cumsum(low.counts) - np.cumsum(exact.counts))
    srt = vals.sort().values
    reach = bound + 1e-6
    within = torch.searchsorted(srt, edges + reach, right=True) - torch.searchsorted(srt, edges - reach)
    assert (moved <= within.numpy()).all()
    for q, v in exact.quantiles.items():
        assert abs(low.quantiles[q] - v) <= bound + 2 * low.bin_width
    assert low.max_abs == pytest.approx(exact.max_abs, abs=bound)
    np.testing.assert_allclose([p[2] for p in low.top_pairs], [p[2] for p in exact.top_pairs], atol=bound)
    assert low.mean == pytest.approx(exact.mean, abs=bound)
    assert fused.PRECISION_BOUND["tf32"] < 0.001 < fused.PRECISION_BOUND["bf16"] < 0.008  # one bin / eight bins


def test_precision_is_a_setting_with_fp32_the_default():
    assert TiledConfig().precision == "fp32"
    with pytest.raises(RepcapError, match="precision"):
        TiledConfig(precision="fp16")
