"""The Triton kernel of :mod:`repcap.engines.cosine.fused` (imported only when it runs: on CUDA, or under
``TRITON_INTERPRET=1`` in the CPU tests).  Long-stable ``tl`` only (the GPU image runs Triton 3.6)."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _ordered(v):
    """float32 -> int32 whose signed order is the floats' order (negative floats: low 31 bits flipped)."""
    bits = v.to(tl.int32, bitcast=True)
    return bits ^ ((bits >> 31) & 0x7FFFFFFF)


@triton.jit
def pass_kernel(
    U,  # (n, d) unit rows: float32 (fp32 / tf32 modes) or bfloat16
    ti,  # (tiles,) int32 row block of each program
    tj,  # (tiles,) int32 column block (>= ti)
    hist,  # (COPIES, NB2) int32, zeroed; bin NB2 - 1 is never counted
    sums,  # (3,) float64, zeroed: sum cos, sum cos^2, sum |cos|
    thr,  # (NT,) float32 thresholds counted in the pass
    above,  # (NT, 2) int64, zeroed: pairs with cos > t, |cos| > t
    rowmax,  # (n,) int64, -2^63: (ordered max over j > i) << 32 | (2^31 - 1 - j)
    rowmin,  # (n,) int64, -2^63: the same for -cos (the row's minimum)
    colmax,  # (n,) float32, -inf: max over i < j
    n,
    d,
    bins,
    COPIES: tl.constexpr,
    NB2: tl.constexpr,
    NT: tl.constexpr,
    BS: tl.constexpr,
    BK: tl.constexpr,
    PREC: tl.constexpr,  # 0: float32 products (ieee), 1: tf32 tensor cores (inputs pre-rounded), 2: bfloat16 inputs
    HIST_WARP: tl.constexpr,  # 0: one atomic add per pair, 1: a per-tile histogram (tl.histogram) added once
    UPCAST: tl.constexpr,  # bfloat16 inputs multiplied as float32 (the interpreter only; the same exact products)
):
    pid = tl.program_id(0)
    bi = tl.load(ti + pid)
    bj = tl.load(tj + pid)
    r = bi * BS + tl.arange(0, BS)
    c = bj * BS + tl.arange(0, BS)
    kk = tl.arange(0, BK)
    acc = tl.zeros((BS, BS), dtype=tl.float32)
    for k0 in range(0, d, BK):
        km = (k0 + kk) < d
        a = tl.load(U + r[:, None] * d + (k0 + kk)[None, :], mask=(r[:, None] < n) & km[None, :], other=0.0)
        b = tl.load(U + c[:, None] * d + (k0 + kk)[None, :], mask=(c[:, None] < n) & km[None, :], other=0.0)
        if PREC == 0:
            acc += tl.dot(a, tl.trans(b), input_precision="ieee")
        elif PREC == 1:
            acc += tl.dot(a, tl.trans(b), input_precision="tf32")
        elif UPCAST:  # Triton's interpreter holds bfloat16 as uint16 and cannot multiply it: exact float32 products
            acc += tl.dot(a.to(tl.float32), tl.trans(b.to(tl.float32)), input_precision="ieee")
        else:
            acc += tl.dot(a, tl.trans(b))
    v = tl.minimum(tl.maximum(acc, -1.0), 1.0)
    valid = (r[:, None] < n) & (c[None, :] < n) & (c[None, :] > r[:, None])

    # histogram on [-1, 1]: bin int((v + 1) bins / 2) as torch.histc, the top edge in the last bin
    half = bins * 0.5
    bx = tl.minimum(((v + 1.0) * half).to(tl.int32), bins - 1)
    copy = (pid % COPIES) * NB2
    if HIST_WARP:
        h = tl.histogram(tl.reshape(tl.where(valid, bx, NB2 - 1), [BS * BS]), NB2)
        slots = tl.arange(0, NB2)
        tl.atomic_add(hist + copy + slots, h, mask=(slots < NB2 - 1) & (h > 0))
    else:
        tl.atomic_add(hist + copy + bx, tl.full((BS, BS), 1, tl.int32), mask=valid)

    # first moments: float32 within the tile, float64 across tiles
    vz = tl.where(valid, v, 0.0)
    tl.atomic_add(sums + 0, tl.sum(tl.sum(vz, axis=1), axis=0).to(tl.float64))
    tl.atomic_add(sums + 1, tl.sum(tl.sum(vz * vz, axis=1), axis=0).to(tl.float64))
    tl.atomic_add(sums + 2, tl.sum(tl.sum(tl.abs(vz), axis=1), axis=0).to(tl.float64))

    # exceedance counts at the thresholds that are not bin edges
    for t in tl.static_range(NT):
        th = tl.load(thr + t)
        up = tl.sum(tl.sum((valid & (v > th)).to(tl.int32), axis=1), axis=0)
        ab = tl.sum(tl.sum((valid & (tl.abs(v) > th)).to(tl.int32), axis=1), axis=0)
        tl.atomic_add(above + 2 * t, up.to(tl.int64))
        tl.atomic_add(above + 2 * t + 1, ab.to(tl.int64))

    # each row's largest and smallest cosine with a later row (and where), each column's largest
    hi = tl.where(valid, v, -2.0)
    lo = tl.where(valid, -v, -2.0)
    rhi, ahi = tl.max(hi, axis=1, return_indices=True)
    rlo, alo = tl.max(lo, axis=1, return_indices=True)
    rin = r < n
    phi = (_ordered(rhi).to(tl.int64) << 32) + (2147483647 - (bj * BS + ahi)).to(tl.int64)
    plo = (_ordered(rlo).to(tl.int64) << 32) + (2147483647 - (bj * BS + alo)).to(tl.int64)
    tl.atomic_max(rowmax + r, phi, mask=rin & (rhi > -2.0))
    tl.atomic_max(rowmin + r, plo, mask=rin & (rlo > -2.0))
    chi = tl.max(hi, axis=0)
    tl.atomic_max(colmax + c, chi, mask=(c < n) & (chi > -2.0))
