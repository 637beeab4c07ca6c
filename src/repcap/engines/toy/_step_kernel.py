"""The Triton kernel of :mod:`repcap.engines.toy.fused` (imported only when it runs: on CUDA, or under
``TRITON_INTERPRET=1`` in the CPU tests).  Long-stable ``tl`` only (the GPU image runs Triton 3.6)."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def step_kernel(
    W,  # (M, n, m) float32
    b,  # (M, n)
    rows,  # (M, B) int32: each model's samples with an active entry first
    nrows,  # (M,) int32
    start,  # (M B + 1,) int32: entries of sample k B + r in start[kB+r] .. start[kB+r+1]
    cols,  # (nnz,) int32, sorted by sample
    vals,  # (nnz,) float32
    dW,  # (M, n, m) float32, zeroed: the unscaled gradient
    db,  # (M, n) float32, zeroed
    loss,  # (M,) float64, zeroed
    n,
    m,
    B,
    R: tl.constexpr,
    BN: tl.constexpr,
    BM: tl.constexpr,
    NEED_LOSS: tl.constexpr,
):
    blk = tl.program_id(0)
    k = tl.program_id(1)
    nr = tl.load(nrows + k)
    r = blk * R + tl.arange(0, R)
    live = r < nr
    sample = tl.load(rows + k * B + r, mask=live, other=0)
    first = tl.load(start + k * B + sample, mask=live, other=0)
    count = tl.load(start + k * B + sample + 1, mask=live, other=0) - first
    count = tl.where(live, count, 0)
    most = tl.max(count, axis=0)
    mo = tl.arange(0, BM)
    mm = mo < m
    Wk = W + k * n * m
    bk = b + k * n
    dWk = dW + k * n * m
    dbk = db + k * n

    # 1. h = x W, a gather over the samples' active entries
    h = tl.zeros((R, BM), dtype=tl.float32)
    for e in range(most):
        on = count > e
        col = tl.load(cols + first + e, mask=on, other=0)
        v = tl.load(vals + first + e, mask=on, other=0.0)
        Wi = tl.load(Wk + col[:, None] * m + mo[None, :], mask=on[:, None] & mm[None, :], other=0.0)
        h += v[:, None] * Wi

    # 2. the dense part, tile by tile over the features: y = relu(h Wᵀ + b) never leaves registers
    gW = tl.zeros((R, BM), dtype=tl.float32)
    lsum = tl.zeros((R,), dtype=tl.float32)
    stop = tl.where(blk * R < nr, n, 0)  # a program past the model's last sample does nothing
    for i0 in range(0, stop, BN):
        io = i0 + tl.arange(0, BN)
        im = io < n
        Wt = tl.load(Wk + io[:, None] * m + mo[None, :], mask=im[:, None] & mm[None, :], other=0.0)
        bt = tl.load(bk + io, mask=im, other=0.0)
        z = tl.dot(h, tl.trans(Wt), input_precision="ieee") + bt[None, :]
        y = tl.where(live[:, None] & im[None, :], tl.maximum(z, 0.0), 0.0)
        if NEED_LOSS:
            lsum += tl.sum(y * y, axis=1)
        gW += tl.dot(y, Wt, input_precision="ieee")
        part = tl.dot(tl.trans(y), h, input_precision="ieee")
        tl.atomic_add(dWk + io[:, None] * m + mo[None, :], part, mask=im[:, None] & mm[None, :])
        tl.atomic_add(dbk + io, tl.sum(y, axis=0), mask=im)

    # 3. the sparse correction at the active entries: g = y - v 1[z > 0] there
    for e in range(most):
        on = count > e
        col = tl.load(cols + first + e, mask=on, other=0)
        v = tl.load(vals + first + e, mask=on, other=0.0)
        Wi = tl.load(Wk + col[:, None] * m + mo[None, :], mask=on[:, None] & mm[None, :], other=0.0)
        z = tl.sum(h * Wi, axis=1) + tl.load(bk + col, mask=on, other=0.0)
        ya = tl.maximum(z, 0.0)
        if NEED_LOSS:
            lsum += tl.where(on, v * v - 2.0 * v * ya, 0.0)
        hit = on & (z > 0)
        coef = tl.where(hit, -v, 0.0)
        gW += coef[:, None] * Wi
        tl.atomic_add(dWk + col[:, None] * m + mo[None, :], coef[:, None] * h, mask=hit[:, None] & mm[None, :])
        tl.atomic_add(dbk + col, coef, mask=hit)

    # 4. xᵀ (g W): v (g W)_b into dW_i at each active entry
    for e in range(most):
        on = count > e
        col = tl.load(cols + first + e, mask=on, other=0)
        v = tl.load(vals + first + e, mask=on, other=0.0)
        tl.atomic_add(dWk + col[:, None] * m + mo[None, :], v[:, None] * gW, mask=on[:, None] & mm[None, :])

    if NEED_LOSS:
        tl.atomic_add(loss + k, tl.sum(lsum, axis=0).to(tl.float64))


@triton.jit
def uniform_kernel(
    out,  # (N,) float32: U[0, 1)
    keys,  # (M,) int64: each model's Philox key
    model,  # (N,) int64: the model of each draw
    index,  # (N,) int64: its index among that model's draws of this (step, stream)
    step,
    stream,
    N,
    BLOCK: tl.constexpr,
):
    """Counter-based uniforms: draw ``i`` is Philox-4x32-10 keyed by its model's key, with counter
    ``(index, step, stream, 0)``, so a model's draws depend on nothing but its key and its own counters."""
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    on = i < N
    k = tl.load(model + i, mask=on, other=0)
    c0 = tl.load(index + i, mask=on, other=0).to(tl.uint32)
    key = tl.load(keys + k, mask=on, other=0)
    zero = c0 * 0
    r0, _, _, _ = tl.philox(key, c0, zero + step, zero + stream, zero)
    tl.store(out + i, tl.uint_to_uniform_float(r0), mask=on)
