"""One read of a tile: the fused CPU kernel of the tiled pass.

For a tile ``T`` of cosines (float32, ``rows x cols``) it computes, in a single pass over the
values: the bin counts on [-1, 1] (bin ``int((v + 1) * bins / 2)``, exactly as ``torch.histc``),
each row's and each column's maximum, the smallest and largest value with their first row-major
positions, the sum of |v|, and counts above thresholds that are not bin edges.  On a diagonal
tile (the block against itself) the diagonal is skipped and both halves are visited, so every pair
is counted twice, as the torch path does.  Values are clamped to [-1, 1] first (float32 rounding of
duplicate or opposite rows).

Compiled with numba where it is installed (parallel over row chunks, one histogram per chunk);
:func:`tile_summary_torch` is the same computation in torch ops, used on a GPU, without numba,
and as the reference the tests hold the kernel to.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

try:  # numba is optional: without it the torch path runs
    import numba
    from numba import njit, prange

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - numba is a dependency, but keep the fallback honest
    HAVE_NUMBA = False


@dataclass
class TileSummary:
    """What one tile contributes (diagonal tiles: both halves counted, halve them downstream)."""

    counts: np.ndarray  # (bins,) float64
    rmax: torch.Tensor  # (rows,) float32: each row's max over the tile (diagonal excluded)
    cmax: torch.Tensor | None  # (cols,) float32, None for a diagonal tile
    vmin: float  # after clamping to [-1, 1]
    vmax: float
    raw_beyond: bool  # some value lay outside [-1, 1] before clamping
    argmin: tuple[int, int]
    argmax: tuple[int, int]
    sum_abs: float
    above: np.ndarray  # (len(thresholds), 2) int64: counts of v > t and |v| > t


if HAVE_NUMBA:

    @njit(parallel=True, cache=True, nogil=True)
    def _kernel(T, diag, bins, thr, n_chunks):
        rows, cols = T.shape
        half = np.float32(bins / 2.0)
        one = np.float32(1.0)
        counts = np.zeros((n_chunks, bins), dtype=np.int64)
        cmax = np.full((n_chunks, cols), -np.inf, dtype=np.float32)
        rmax = np.full(rows, -np.inf, dtype=np.float32)
        ext = np.zeros((n_chunks, 6))  # vmin, imin, vmax, imax (row-major index), sum_abs, beyond [-1, 1]
        nthr = thr.shape[0]
        above = np.zeros((n_chunks, nthr, 2), dtype=np.int64)
        for c in prange(n_chunks):
            r0 = c * rows // n_chunks
            r1 = (c + 1) * rows // n_chunks
            vmin, vmax = np.inf, -np.inf
            imin, imax = -1, -1
            sa = 0.0
            beyond = 0.0
            for i in range(r0, r1):
                rm = -np.inf
                for j in range(cols):
                    if diag and j == i:
                        continue
                    v = T[i, j]
                    if v > one:
                        v = one
                        beyond = 1.0
                    elif v < -one:
                        v = -one
                        beyond = 1.0
                    b = int((v + one) * half)
                    if b >= bins:
                        b = bins - 1
                    counts[c, b] += 1
                    if v > rm:
                        rm = v
                    if v > cmax[c, j]:
                        cmax[c, j] = v
                    if v > vmax:
                        vmax, imax = v, i * cols + j
                    if v < vmin:
                        vmin, imin = v, i * cols + j
                    av = abs(v)
                    sa += av
                    for t in range(nthr):
                        if v > thr[t]:
                            above[c, t, 0] += 1
                        if av > thr[t]:
                            above[c, t, 1] += 1
                rmax[i] = rm
            ext[c, 0], ext[c, 1], ext[c, 2], ext[c, 3], ext[c, 4], ext[c, 5] = vmin, imin, vmax, imax, sa, beyond
        return counts, rmax, cmax, ext, above


def _chunks(rows: int) -> int:
    threads = max(1, int(numba.get_num_threads())) if HAVE_NUMBA else 1
    return max(1, min(rows, 4 * threads))


def tile_summary(T: torch.Tensor, diag: bool, bins: int, thresholds: Sequence[float]) -> TileSummary:
    """The summary of one tile; the compiled kernel on the CPU, :func:`tile_summary_torch` elsewhere."""
    if not HAVE_NUMBA or T.device.type != "cpu" or T.dtype != torch.float32:
        return tile_summary_torch(T, diag, bins, thresholds)
    a = T.numpy()
    thr = np.asarray(list(thresholds), dtype=np.float32)
    counts, rmax, cmax, ext, above = _kernel(a, bool(diag), int(bins), thr, _chunks(a.shape[0]))
    lo = int(np.argmin(ext[:, 0]))  # first chunk (row order) holding the extreme: row-major first
    hi = int(np.argmax(ext[:, 2]))
    cols = a.shape[1]
    return TileSummary(
        counts=counts.sum(axis=0).astype(np.float64),
        rmax=torch.from_numpy(rmax),
        cmax=None if diag else torch.from_numpy(cmax.max(axis=0)),
        vmin=float(ext[lo, 0]),
        vmax=float(ext[hi, 2]),
        raw_beyond=bool(ext[:, 5].any()),
        argmin=divmod(int(ext[lo, 1]), cols),
        argmax=divmod(int(ext[hi, 3]), cols),
        sum_abs=float(ext[:, 4].sum()),
        above=above.sum(axis=0),
    )


def tile_summary_torch(T: torch.Tensor, diag: bool, bins: int, thresholds: Sequence[float]) -> TileSummary:
    """:func:`tile_summary` in torch ops (the GPU path, and the tests' reference)."""
    from .histogram import tile_counts

    beyond = bool((T.abs() > 1.0).any())
    V = T.clamp(-1.0, 1.0)
    rows, cols = V.shape
    if diag:
        keep = ~torch.eye(rows, cols, dtype=torch.bool, device=V.device)
        vals = V[keep]
        Vm = V.masked_fill(~keep, -math.inf)
    else:
        vals, Vm = V.reshape(-1), V
    counts = tile_counts(vals, bins).cpu().numpy()
    flat = V.masked_fill(~keep, math.nan).reshape(-1) if diag else V.reshape(-1)
    vmax = float(torch.max(vals)) if vals.numel() else -math.inf
    vmin = float(torch.min(vals)) if vals.numel() else math.inf
    imax = int(torch.argmax((flat == vmax).to(torch.uint8))) if vals.numel() else 0
    imin = int(torch.argmax((flat == vmin).to(torch.uint8))) if vals.numel() else 0
    thr = list(thresholds)
    above = np.array([[int((vals > t).sum()), int((vals.abs() > t).sum())] for t in thr], dtype=np.int64).reshape(-1, 2)
    return TileSummary(
        counts=counts,
        rmax=Vm.amax(dim=1),
        cmax=None if diag else Vm.amax(dim=0),
        vmin=vmin,
        vmax=vmax,
        raw_beyond=beyond,
        argmin=divmod(imin, cols),
        argmax=divmod(imax, cols),
        sum_abs=float(vals.abs().sum(dtype=torch.float64)),
        above=above,
    )
