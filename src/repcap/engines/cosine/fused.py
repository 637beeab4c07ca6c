"""The tiled pass over all pairs as one Triton kernel: what :func:`repcap.engines.cosine.tiled_stats` accumulates
tile by tile (the histogram, the first moments, the exceedance counts, the extremes, each row's
nearest neighbour), fused into the product tile so that no block of ``U Uᵀ`` is ever written to
memory.  The GPU path of the pass over all rows (a row-sampled pass keeps the torch loop); the CPU
tests run the kernel itself under Triton's interpreter (``TRITON_INTERPRET=1``) against the float64
cosines of the same rows, and tests/gpu against the torch path at full size.

One program per upper-triangle tile ``(I, J)``, ``I <= J``, of ``BS x BS`` rows (ordered so that
neighbouring programs share their row blocks in cache): the tile of products in registers
(``tl.dot``, ``BK`` columns at a time), clamped to [-1, 1], the pairs ``i < j`` kept, then

* the histogram: one atomic add per pair into one of ``COPIES`` privatised histograms (``hist="atomic"``),
  or a per-tile ``tl.histogram`` added once (``hist="warp"``; the same counts: an execution choice,
  ``REPCAP_COSINE_HIST``);
* ``sum cos``, ``sum cos²``, ``sum |cos|``: float32 within the tile, float64 across tiles;
* the pairs above each threshold that is not a bin edge;
* each row's largest and smallest cosine with a later row and where it is (an ``atomic_max`` on the
  value's ordered bits and the column packed in one int64: the smallest column among equal values),
  and each column's largest with an earlier row: the nearest neighbours, the extreme pair, and a
  lower bound on the ``k``-th best pair (the ``k``-th largest row maximum), so the top pairs are found
  by recomputing only the few rows whose maximum reaches it.

Products: ``precision="fp32"`` is float32 (``input_precision="ieee"``: no TF32); ``"tf32"`` rounds
the rows to TF32 (10-bit mantissa, to nearest) and multiplies on the tensor cores; ``"bf16"`` rounds
them to bfloat16 (7-bit mantissa).  Products of rounded inputs are exact in float32 and accumulate
in float32, so the same rounding in the torch path (:func:`rounded`) gives the same numbers on the
CPU up to float32 summation order (:mod:`.precision`: the rounding and its error bound).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from repcap.engines.settings.cosine import PRECISIONS

from .precision import PRECISION_BOUND, UNIT_ROUNDOFF, rounded
from .switch import ENV_SWITCH, have_triton, usable

__all__ = [
    "ENV_SWITCH",
    "PRECISIONS",
    "PRECISION_BOUND",
    "UNIT_ROUNDOFF",
    "FusedPass",
    "fused_pass",
    "have_triton",
    "rounded",
    "usable",
]

#: The tile side on a GPU (rows; default 128): an execution choice for tuning, the counts do not change.
BLOCK_ENV = "REPCAP_COSINE_BLOCK"
#: ``atomic`` (default) or ``warp``: how the kernel fills its histogram (the same counts).
HIST_ENV = "REPCAP_COSINE_HIST"


@dataclass
class FusedPass:
    """What one fused pass returns (the accumulators of :class:`repcap.engines.cosine.tiled._Pass`)."""

    counts: np.ndarray  # (bins,) float64
    s1: float
    s2: float
    sa: float
    n_pairs: int
    above: np.ndarray  # (len(thresholds), 2) int64: pairs with cos > t, |cos| > t
    max_abs: float
    max_pair: tuple[int, int]
    nn: torch.Tensor  # (n,) float32 each row's largest cosine with another row
    top_v: torch.Tensor  # (<= top_k,) float32, on the device
    top_i: torch.Tensor  # (<= top_k,) int64 rows, i < j
    top_j: torch.Tensor


def _decode(packed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Values (float32, ``-inf`` where nothing was stored) and columns of the packed row extremes."""
    key = (packed >> 32).to(torch.int32)
    bits = torch.where(key >= 0, key, key ^ 0x7FFFFFFF)
    vals = bits.view(torch.float32).clone()
    empty = packed == torch.iinfo(torch.int64).min
    vals[empty] = -math.inf
    cols = 2147483647 - (packed & 0xFFFFFFFF)
    return vals, cols


def tile_order(nb: int, device: torch.device, group: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    """The upper-triangle tiles ``(I, J)``, ``I <= J < nb``, in the order the programs run: groups of
    ``group`` row blocks, within a group column by column, so that concurrent programs share rows."""
    ii, jj = torch.triu_indices(nb, nb, device=device)
    key = (ii // group) * (nb * group) + jj * group + (ii % group)
    order = torch.argsort(key)
    return ii[order].to(torch.int32).contiguous(), jj[order].to(torch.int32).contiguous()


def _buffers(n: int, copies: int, nb2: int, thresholds: Sequence[float], dev: torch.device) -> tuple[torch.Tensor, ...]:
    """The kernel's accumulators, zeroed: ``(hist, sums, thresholds, above, rowmax, rowmin, colmax)``
    (the packed row extremes start below every value)."""
    hist_buf = torch.zeros((copies, nb2), dtype=torch.int32, device=dev)
    sums = torch.zeros(3, dtype=torch.float64, device=dev)
    thr = torch.tensor([float(t) for t in thresholds] or [0.0], dtype=torch.float32, device=dev)
    above = torch.zeros((max(1, len(thresholds)), 2), dtype=torch.int64, device=dev)
    lowest = torch.iinfo(torch.int64).min
    rowmax = torch.full((n,), lowest, dtype=torch.int64, device=dev)
    rowmin = torch.full((n,), lowest, dtype=torch.int64, device=dev)
    colmax = torch.full((n,), -math.inf, dtype=torch.float32, device=dev)
    return hist_buf, sums, thr, above, rowmax, rowmin, colmax


def fused_pass(
    U: torch.Tensor,
    bins: int,
    thresholds: Sequence[float],
    top_k: int,
    precision: str = "fp32",
    *,
    block: int | None = None,
    bk: int | None = None,
    hist: str | None = None,
) -> FusedPass:
    """One pass over the pairs ``i < j`` of the unit rows ``U: (n, d)`` (float32, already
    :func:`rounded` to ``precision``), on CUDA (or CPU tensors under ``TRITON_INTERPRET=1``).
    ``thresholds``: those to count in the pass (the others are read off the histogram);
    ``block``/``bk``: the tile side and the product's inner step (execution only)."""
    from ._pass_kernel import pass_kernel

    n, d = (int(s) for s in U.shape)
    dev = U.device
    block = int(block or os.environ.get(BLOCK_ENV) or 128)
    mode = hist or os.environ.get(HIST_ENV, "atomic")
    if mode not in ("atomic", "warp"):
        raise ValueError(f"{HIST_ENV}={mode!r}: use atomic or warp")
    n_pairs = n * (n - 1) // 2
    nb2 = 1 << int(bins).bit_length()  # > bins: the last slot is the discarded pairs' bin
    copies = max(16, 1 << max(0, math.ceil(math.log2(max(1, n_pairs) / 2**30))))
    hist_buf, sums, thr, above, rowmax, rowmin, colmax = _buffers(n, copies, nb2, thresholds, dev)
    prec = {"fp32": 0, "tf32": 1, "bf16": 2}[precision]
    Uk = (U.to(torch.bfloat16) if prec == 2 else U.to(torch.float32)).contiguous()
    bk = bk or (64 if prec == 2 else 32)
    ti, tj = tile_order(-(-n // block), dev)
    launch = {"num_warps": 8 if block >= 128 else 4}
    if dev.type == "cuda":  # pragma: no cover (CUDA only)
        launch["num_stages"] = 3
    pass_kernel[(int(ti.numel()),)](
        Uk,
        ti,
        tj,
        hist_buf,
        sums,
        thr,
        above,
        rowmax,
        rowmin,
        colmax,
        n,
        d,
        int(bins),
        COPIES=copies,
        NB2=nb2,
        NT=len(thresholds),
        BS=block,
        BK=bk,
        PREC=prec,
        HIST_WARP=int(mode == "warp"),
        UPCAST=int(os.environ.get("TRITON_INTERPRET", "0") == "1"),
        **launch,
    )
    return _collect(U, int(bins), len(thresholds), top_k, n_pairs, hist_buf, sums, above, rowmax, rowmin, colmax)


def _collect(
    U: torch.Tensor,
    bins: int,
    n_thresholds: int,
    top_k: int,
    n_pairs: int,
    hist_buf: torch.Tensor,
    sums: torch.Tensor,
    above: torch.Tensor,
    rowmax: torch.Tensor,
    rowmin: torch.Tensor,
    colmax: torch.Tensor,
) -> FusedPass:
    """The kernel's accumulators read back as a :class:`FusedPass` (the extreme pair from the packed
    row extremes, the top pairs recomputed from the rows that can hold them)."""
    hi_v, hi_c = _decode(rowmax)
    lo_v, lo_c = _decode(rowmin)
    s = sums.cpu().tolist()
    imax = int(torch.argmax(hi_v))
    imin = int(torch.argmax(lo_v))
    vmax, vmin = float(hi_v[imax]), -float(lo_v[imin])
    if vmax >= -vmin:
        max_abs, pair = vmax, (imax, int(hi_c[imax]))
    else:
        max_abs, pair = -vmin, (imin, int(lo_c[imin]))
    top_v, top_i, top_j = _top_pairs(U, hi_v, top_k)
    return FusedPass(
        counts=hist_buf.sum(dim=0, dtype=torch.int64)[:bins].cpu().numpy().astype(np.float64),
        s1=s[0],
        s2=s[1],
        sa=s[2],
        n_pairs=n_pairs,
        above=above.cpu().numpy()[:n_thresholds],
        max_abs=max_abs,
        max_pair=pair,
        nn=torch.maximum(hi_v, colmax),
        top_v=top_v,
        top_i=top_i,
        top_j=top_j,
    )


def _top_pairs(
    U: torch.Tensor, row_max: torch.Tensor, k: int, slack: float = 1e-5, chunk: int = 1024
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The ``k`` largest cosines of pairs ``i < j``: the ``k``-th largest row maximum is a lower bound
    on the ``k``-th best pair (``k`` rows each hold a pair at least that large), so only the rows whose
    maximum reaches it (less ``slack``, for the summation order) are multiplied again, in torch."""
    dev = U.device
    none = (
        torch.empty(0, dtype=torch.float32, device=dev),
        torch.empty(0, dtype=torch.int64, device=dev),
        torch.empty(0, dtype=torch.int64, device=dev),
    )
    have = int((row_max > -math.inf).sum())
    if k <= 0 or have == 0:
        return none
    bound = float(torch.topk(row_max, min(k, have)).values[-1]) - slack
    rows = torch.nonzero(row_max >= bound).flatten()
    cols = torch.arange(U.shape[0], device=dev)
    v, i, j = none
    for a in range(0, int(rows.numel()), chunk):
        r = rows[a : a + chunk]
        S = (U[r] @ U.T).clamp_(-1.0, 1.0)
        S.masked_fill_(cols[None, :] <= r[:, None], -math.inf)
        hit = torch.nonzero(bound <= S)
        v = torch.cat([v, S[hit[:, 0], hit[:, 1]]])
        i = torch.cat([i, r[hit[:, 0]]])
        j = torch.cat([j, hit[:, 1]])
        if v.numel() > k:
            keep = torch.topk(v, k).indices
            v, i, j = v[keep], i[keep], j[keep]
    return v, i, j
