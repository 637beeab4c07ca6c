"""The toy model's forward and backward as one Triton kernel: what :func:`repcap.engines.toy.sparse_model.sparse_loss_and_grad`
computes (Liu, Liu & Gore 2025, arXiv:2505.10465, ``y = ReLU(x W Wᵀ + b)``), without ever writing the ``B x n``
output to memory.  The GPU path of the sparse trainer; :func:`fused_loss_and_grad_reference` is the same
arithmetic in torch ops, and the CPU tests run the kernel itself under Triton's interpreter
(``TRITON_INTERPRET=1``) against both it and the float64 gradient of the plain step.

The split (``c = 2 / (B n)``, ``y = relu(z)``, ``z = h Wᵀ + b``, ``h = x W``): the gradient of
``|y - x|²`` in ``z`` is ``g = y - x 1[z > 0]``, a *dense part* ``y`` that does not involve ``x`` and a
*sparse correction* ``-v 1[z > 0]`` at the batch's active entries ``(b, i, v)`` only.  One program
takes ``R`` of a model's samples that hold an active feature and

1. gathers ``h = x W`` over their active entries (``O(nnz m)``);
2. walks the features in tiles of ``BN``: ``z = h Wᵀ + b`` (a tile in registers), ``y = relu(z)``, and
   accumulates ``|y|²`` (the loss), ``y W`` (``R x m``, in registers), ``yᵀ h`` and ``yᵀ 1`` (into
   ``dW`` and ``db`` by atomic adds) -- the dense part;
3. at each active entry recomputes ``z_bi = h_b · W_i + b_i`` and applies the correction to the loss
   (``v² - 2 v y``), to ``g W`` (``-v W_i``), to ``dW_i`` (``-v h_b``) and to ``db_i``;
4. adds ``xᵀ (g W)``: ``v (g W)_b`` to ``dW_i`` at each active entry.

Samples with no active feature (``h = 0``, ``g = relu(b)``) add ``relu(b)`` to ``db`` and ``|relu(b)|²``
to the loss in closed form, as in the torch path.  The products run in float32 (``tl.dot`` with
``input_precision="ieee"``: no TF32) with float32 accumulators; the loss is summed in float32 per
program and in float64 across them.  Atomic adds make the summation order across programs vary from
run to run (float32 round-off, as any GPU reduction).

The kernel sits behind the trainer on CUDA (:func:`usable`: a CUDA device, ``triton`` importable,
``REPCAP_FUSED`` not ``0``), fed by :class:`CounterSampler` (the sparse sampler's walk with its
uniforms drawn in one launch for the whole group); without it the sparse path's torch ops and
torch's generators run.
"""

from __future__ import annotations

import os

import torch

from ..cosine.switch import ENV_SWITCH as ENV_SWITCH  # the switch and its test, as the benchmarks name them here
from ..cosine.switch import have_triton as have_triton
from ..cosine.switch import usable as usable
from .sparse_data import SparseBatch, SparseSampler

#: ``REPCAP_TOY_ROWS``: samples per program (a power of two >= 16), for tuning on a GPU (execution only).
ROWS_ENV = "REPCAP_TOY_ROWS"


def blocks(m: int) -> tuple[int, int, int, int]:
    """``(R, BN, BM, num_warps)`` for width ``m``: samples per program, features per tile, the width
    padded to a power of two (at least 16, as ``tl.dot`` needs) and the warps.  A program's registers
    (``h`` and ``g W``: ``R x BM``; the tile of ``z``: ``R x BN``; a tile of ``W`` and of ``yᵀ h``:
    ``BN x BM``) stay near 100 float32 a thread; within that, many samples a program, since each
    program adds its ``n x m`` share of ``dW`` by atomic adds (fewer programs a model, fewer adds)."""
    BM = max(16, 1 << (max(1, int(m)) - 1).bit_length())
    R, BN = (128, 64) if BM <= 32 else (128, 32) if BM <= 64 else (64, 32)
    R = int(os.environ.get(ROWS_ENV, R))
    return R, BN, BM, 8


def prepare(x: SparseBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The batch laid out by sample: ``(rows, nrows, start, cols, vals)``.  ``rows: (M, B)`` int32,
    model ``k``'s samples with an active entry first (in order), ``nrows: (M,)`` int32 how many;
    ``start: (M B + 1,)`` int32, the entries of sample ``k B + b`` are ``start[kB+b] .. start[kB+b+1]``
    of ``cols`` (int32 feature) and ``vals`` (float32), which are sorted by sample.  No host sync."""
    M, B = x.M, x.B
    dev = x.vals.device
    order = torch.argsort(x.rows, stable=True)
    rs = x.rows[order]
    start = torch.searchsorted(rs, torch.arange(M * B + 1, device=dev, dtype=rs.dtype)).to(torch.int32)
    occupied = (start[1:] > start[:-1]).view(M, B)
    rows = torch.argsort((~occupied).to(torch.int8), dim=1, stable=True).to(torch.int32)
    nrows = occupied.sum(dim=1, dtype=torch.int32)
    return rows.contiguous(), nrows, start, x.cols[order].to(torch.int32), x.vals[order].to(torch.float32)


def _finish(
    W: torch.Tensor,
    b: torch.Tensor,
    B: int,
    nrows: torch.Tensor,
    dW: torch.Tensor,
    db: torch.Tensor,
    loss: torch.Tensor | None,
) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """The samples with no active feature in closed form, and the scale ``c = 2 / (B n)``."""
    n = W.shape[1]
    c = 2.0 / (B * n)
    empty = (B - nrows).to(W.dtype)[:, None]
    rb = torch.relu(b)
    db.add_(rb * empty).mul_(c)
    dW.mul_(c)
    if loss is not None:
        loss += rb.double().square().sum(dim=1) * empty[:, 0].double()
        loss /= B
    return loss, dW, db


def fused_loss_and_grad(
    x: SparseBatch, W: torch.Tensor, b: torch.Tensor, need_loss: bool = True
) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """:func:`repcap.engines.toy.sparse_model.sparse_loss_and_grad` by the fused kernel: ``(loss_sum: (M,) float64
    or None, dW: (M, n, m), db: (M, n))`` for ``W: (M, n, m)``, ``b: (M, n)`` float32 (on CUDA, or on
    CPU tensors under ``TRITON_INTERPRET=1``)."""
    from ._step_kernel import step_kernel

    M, n, m = W.shape
    B = x.B
    W = W.contiguous()
    b = b.contiguous()
    rows, nrows, start, cols, vals = prepare(x)
    dW = torch.zeros_like(W)
    db = torch.zeros_like(b)
    loss = torch.zeros(M, dtype=torch.float64, device=W.device)
    R, BN, BM, warps = blocks(m)
    grid = (_cdiv(B, R), M)
    step_kernel[grid](
        W,
        b,
        rows,
        nrows,
        start,
        cols,
        vals,
        dW,
        db,
        loss,
        n,
        m,
        B,
        R=R,
        BN=BN,
        BM=BM,
        NEED_LOSS=need_loss,
        num_warps=warps,
    )
    return _finish(W, b, B, nrows, dW, db, loss if need_loss else None)


def _cdiv(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def fused_loss_and_grad_reference(
    x: SparseBatch, W: torch.Tensor, b: torch.Tensor, need_loss: bool = True
) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """The kernel's arithmetic in torch ops, sample by sample as the kernel splits it (dense part
    ``y = relu(h Wᵀ + b)`` over every feature, then the correction at the active entries, then
    ``xᵀ (g W)``), in the dtype of ``W`` (float64 for the tests' reference).  Materialises the
    ``B x n`` output, so it is for checks, not for training."""
    M, n, m = W.shape
    B = x.B
    _, nrows, _, cols, vals = prepare(x)
    dt = W.dtype
    h = torch.zeros(M * B, m, dtype=dt, device=W.device)
    sample = x.rows[torch.argsort(x.rows, stable=True)]  # the sorted entries' samples
    model = torch.div(sample, B, rounding_mode="floor")
    Wi = W.reshape(M * n, m)[model * n + cols.long()]
    v = vals.to(dt)
    h.index_add_(0, sample, v[:, None] * Wi)
    h = h.view(M, B, m)
    y = torch.relu(torch.baddbmm(b[:, None, :], h, W.transpose(1, 2)))  # dense part, every sample
    occupied = torch.zeros(M * B, dtype=torch.bool, device=W.device)
    occupied[sample] = True
    y = y * occupied.view(M, B, 1)  # empty samples: closed form in _finish
    loss = y.square().sum(dim=(1, 2)).to(torch.float64) if need_loss else None
    gW = torch.bmm(y, W).reshape(M * B, m)
    dW = torch.bmm(y.transpose(1, 2), h)
    db = y.sum(dim=1)
    z = (h.reshape(M * B, m)[sample] * Wi).sum(dim=1) + b.reshape(-1)[model * n + cols.long()]
    ya = torch.relu(z)
    if loss is not None:
        loss.index_add_(0, model, (v * v - 2.0 * v * ya).to(torch.float64))
    coef = torch.where(z > 0, -v, torch.zeros_like(v))
    gW.index_add_(0, sample, coef[:, None] * Wi)
    flat = dW.reshape(M * n, m)
    flat.index_add_(0, model * n + cols.long(), coef[:, None] * h.reshape(M * B, m)[sample])
    db.reshape(-1).index_add_(0, model * n + cols.long(), coef)
    flat.index_add_(0, model * n + cols.long(), v[:, None] * gW[sample])
    return _finish(W, b, B, nrows, dW, db, loss)


def _splitmix64(x: int) -> int:
    """A 64-bit mix of a model's seed (Steele, Lea & Flood 2014): its Philox key, as a signed int64."""
    x = (int(x) + 0x9E3779B97F4A7C15) & (2**64 - 1)
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    x ^= x >> 31
    return x - 2**64 if x >= 2**63 else x


class CounterSampler(SparseSampler):
    """:class:`~repcap.engines.toy.sparse_data.SparseSampler`'s walk (the same exact distribution: geometric gaps
    per feature, continued until past the batch's end) with its uniforms drawn by one Triton launch for
    every model of the group, instead of two ``torch.rand`` calls per model: the GPU's sampler where the
    fused kernel runs (its launches, 2 per model and step, were the step's largest share with 120+
    models).  Draw ``j`` of model ``k`` at step ``t`` is Philox-4x32-10 keyed by ``splitmix64(seed_k)``
    with counter ``(j, t, stream)`` (stream 0: the gaps, 1: the values, 2 + 2r / 3 + 2r: round ``r`` of
    the continuation's gaps / values), so a model's stream depends on its seed and the step only, not on
    the other models of its batch.  It is another stream than ``torch.rand``'s: the sampler's
    distribution is the same, its numbers are not (as the CPU's and the GPU's generators already differ)."""

    def __init__(self, p: torch.Tensor, batch: int, seeds):
        super().__init__(p, batch)
        dev = p.device
        self.keys = torch.tensor([_splitmix64(s) for s in seeds], dtype=torch.int64, device=dev)
        self.steps = 0  # steps drawn so far
        self.step = 0  # the step being drawn (the counter of its draws)
        self.el_model = torch.div(self.seg, self.n, rounding_mode="floor")
        self.el_index = torch.arange(self.seg.numel(), device=dev) - self.offsets_t[self.el_model]

    def _uniform(self, out: torch.Tensor, model: torch.Tensor, index: torch.Tensor, step: int, stream: int) -> None:
        from ._step_kernel import uniform_kernel

        N = int(out.numel())
        if N:
            uniform_kernel[(_cdiv(N, 1024),)](out, self.keys, model, index, step, stream, N, BLOCK=1024)

    def sample(self, generators=None) -> SparseBatch:
        """One fresh batch per model (``generators`` is ignored: the draws are counted)."""
        self.step = self.steps
        self.steps += 1
        return super().sample(())

    def _gap_uniforms(self, generators) -> None:
        self._uniform(self.u_gap, self.el_model, self.el_index, self.step, 0)

    def _value_uniforms(self, generators, vals: torch.Tensor, idx: torch.Tensor) -> None:
        model = self.el_model.index_select(0, idx)
        self._uniform(vals, model, _rank_within(model, self.M), self.step, 1)

    def _more_uniforms(self, generators, ids, lens, local, r: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Round ``r`` of the continuation with counted draws: streams ``2 + 2r`` (gaps) and ``3 + 2r`` (values)."""
        model = torch.div(ids[local], self.n, rounding_mode="floor")
        index = _rank_within(model, self.M)
        ug = torch.empty(local.numel(), dtype=torch.float32, device=self.u_gap.device)
        uv = torch.empty_like(ug)
        self._uniform(ug, model, index, self.step, 2 + 2 * r)
        self._uniform(uv, model, index, self.step, 3 + 2 * r)
        return ug, uv


def _rank_within(model: torch.Tensor, M: int) -> torch.Tensor:
    """Each element's index among the elements of its model (``model`` sorted), on the device."""
    first = torch.searchsorted(model, torch.arange(M, device=model.device, dtype=model.dtype))
    return torch.arange(model.numel(), device=model.device) - first[model]
