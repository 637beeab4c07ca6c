"""The same cosine code path on CUDA agrees with the CPU and with a float64 reference."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from repcap.engines.cosine import TiledConfig, moments, tiled_stats

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")]


def test_cuda_matches_cpu():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3001, 48)).astype(np.float32) + 0.1
    X[7] = 0
    cpu_m, gpu_m = moments(X, device="cpu"), moments(X, device="cuda")
    assert gpu_m.mean == pytest.approx(cpu_m.mean, abs=1e-7) and gpu_m.std == pytest.approx(cpu_m.std, abs=1e-6)
    a = tiled_stats(X, device="cpu", progress=False, memory_budget=16 * 512**2)
    b = tiled_stats(X, device="cuda", progress=False, memory_budget=16 * 512**2)
    assert np.abs(a.counts - b.counts).sum() <= 20
    assert b.max_abs == pytest.approx(a.max_abs, abs=1e-5)
    np.testing.assert_allclose(b.nn_cos, a.nn_cos, atol=1e-5)
    assert [p[:2] for p in b.top_pairs[:5]] == [p[:2] for p in a.top_pairs[:5]]
    s = tiled_stats(X, TiledConfig(sample=1000), device="cuda", progress=False)
    assert s.sampled and s.sampling_error["mean"] > 0
