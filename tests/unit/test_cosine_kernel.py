"""The fused tile kernel of the tiled pass returns what the torch ops return, value for value."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from repcap.engines.cosine import kernels


@pytest.mark.skipif(not kernels.HAVE_NUMBA, reason="numba not installed: the torch path is the only path")
@pytest.mark.parametrize("diag", [False, True])
@pytest.mark.parametrize("shape", [(5, 7), (64, 64), (300, 257)])
def test_kernel_matches_torch(diag, shape):
    rng = np.random.default_rng(sum(shape) + diag)
    rows, cols = (shape[0], shape[0]) if diag else shape
    T = torch.from_numpy(rng.uniform(-1, 1, (rows, cols)).astype(np.float32))
    T[0, 1] = 1.0000001  # rounding beyond [-1, 1] is clamped
    T[1, 2] = -1.0000002
    T[2, 3] = 0.001  # values on bin edges
    T[3, 1] = -0.5
    thr = (0.25, -0.05, 0.9)
    a = kernels.tile_summary(T, diag, 2000, thr)
    b = kernels.tile_summary_torch(T, diag, 2000, thr)
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.rmax.numpy(), b.rmax.numpy())
    if diag:
        assert a.cmax is None and b.cmax is None
    else:
        np.testing.assert_array_equal(a.cmax.numpy(), b.cmax.numpy())
    assert (a.vmin, a.vmax, a.argmin, a.argmax) == (b.vmin, b.vmax, b.argmin, b.argmax)
    assert a.raw_beyond and b.raw_beyond
    assert a.sum_abs == pytest.approx(b.sum_abs, rel=1e-12)
    np.testing.assert_array_equal(a.above, b.above)
    # the counts are those of torch.histc on the clamped off-diagonal values
    V = T.clamp(-1, 1)
    vals = V[~torch.eye(rows, dtype=torch.bool)] if diag else V.reshape(-1)
    np.testing.assert_array_equal(a.counts, torch.histc(vals, bins=2000, min=-1, max=1).double().numpy())
