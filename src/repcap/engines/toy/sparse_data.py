"""The toy model's data stream (Liu, Liu & Gore 2025, arXiv:2505.10465, Sec. 2) drawn sparsely:
the same distribution as :func:`repcap.engines.toy.data.sample_batch`, ``x_bi = 1[u_bi < p_i] v_bi`` with
``v ~ U(0, 2)`` independent over samples ``b`` and features ``i``, in ``O(B sum p + n)`` random
numbers instead of ``O(B n)``.

Which samples a feature fires in is a Bernoulli(``p_i``) process along the batch, so the gaps
between its active samples are i.i.d. geometric: ``G = floor(log U / log(1 - p_i))`` failures before
each success (Devroye 1986, *Non-Uniform Random Variate Generation*, Sec. X.2, "the geometric
distribution").  Feature ``i`` is walked with ``K_i = B p_i + 4 sd + 3`` gaps (``sd`` the binomial
standard deviation of its count); a feature whose ``K_i``-th event still falls inside the batch
continues with fresh gaps from where it stopped (rare; exact), so positions are distinct and the
count per feature is exactly Binomial(``B``, ``p_i``).  Each active entry's value is its own
uniform: ``v = 2 (1 - u')``.

Model ``k`` of a group draws from ``generators[k]`` only (its gap uniforms, then its value
uniforms, then its continuations), so its stream does not depend on the other models of the batch.
The stream differs from the dense sampler's (other random numbers), not its distribution.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from ..cosine.switch import usable

#: ``"auto"`` draws sparsely on a CPU from this many features on.  Measured on a 2-core CPU (one
#: thread, 4 models): the sparse trainer is 2-2.4x faster from n = 128 (batch 256) and 4-5x at
#: n = 512..1000; below 512 ``"auto"`` keeps the dense stream so that the results pinned there
#: (the golden tests, the book's smoke and quick profiles: n <= 256) stay bit for bit.
SPARSE_MIN_N = 512

#: ... and only where at most this fraction of the entries is active on average.
SPARSE_MAX_FRACTION = 1.0 / 16

#: Features rarer than this never fire (the dense sampler's float32 ``u < p`` cannot resolve them
#: either: its ``u`` has a 2^-24 grid).
MIN_P = 1e-30


@dataclass
class SparseBatch:
    """The active entries of one batch of a group of ``M`` models, ``x: (M, B, n)``.

    ``rows: (nnz,)`` int64 ``k * B + b`` (model ``k``, sample ``b``), ``cols: (nnz,)`` int64 the
    feature ``i``, ``vals: (nnz,)`` float32 ``v`` in ``(0, 2]``, ``wrows: (nnz,)`` int64 ``k * n + i``
    (the entry's row of ``W`` flattened to ``(M n, m)``).  Entries are distinct.
    """

    rows: torch.Tensor
    cols: torch.Tensor
    vals: torch.Tensor
    wrows: torch.Tensor
    M: int
    B: int
    n: int

    @classmethod
    def from_dense(cls, x: torch.Tensor) -> SparseBatch:
        """The non-zero entries of ``x: (M, B, n)`` (e.g. a dense sampler's batch)."""
        M, B, n = x.shape
        k, b, i = torch.nonzero(x, as_tuple=True)
        return cls(rows=k * B + b, cols=i, vals=x[k, b, i].float(), wrows=k * n + i, M=M, B=B, n=n)

    def to_dense(self) -> torch.Tensor:
        """``x: (M, B, n)`` float32 (for tests and references)."""
        x = torch.zeros(self.M * self.B * self.n, dtype=torch.float32, device=self.vals.device)
        x[self.rows * self.n + self.cols] = self.vals
        return x.view(self.M, self.B, self.n)


def gap_budget(p: torch.Tensor, batch: int) -> torch.Tensor:
    """Gaps walked per feature and step: ``K_i = min(B + 1, floor(B p + 4 sd + 3))`` with
    ``sd = sqrt(B p (1 - p))``; 0 where ``p < MIN_P``.  ``p: (..., n)`` -> int64 of its shape."""
    p = p.double()
    mu = batch * p
    k = torch.floor(mu + 4.0 * torch.sqrt(mu * (1.0 - p)).nan_to_num(0.0) + 3.0).clamp_(max=batch + 1)
    return torch.where(p >= MIN_P, k, torch.zeros_like(k)).to(torch.int64)


class SparseSampler:
    """Draws :class:`SparseBatch` es for a group of models with frequencies ``p: (M, n)``.

    The layout of the gap walk is fixed per group: element ``j`` of the flat walk belongs to
    segment ``seg[j]`` (= ``k * n + i``), and segments are contiguous, model-major.
    """

    def __init__(self, p: torch.Tensor, batch: int):
        M, n = p.shape
        dev = p.device
        self.M, self.n, self.B = int(M), int(n), int(batch)
        K = gap_budget(p, self.B).cpu()
        self.per_model = K.sum(dim=1).tolist()  # gap uniforms per model and step
        self.seg_len = K.flatten().to(dev)  # (M n,)
        seg = torch.repeat_interleave(torch.arange(M * n, device=dev), self.seg_len)
        self.seg = seg
        self.seg_start = torch.cumsum(self.seg_len, 0) - self.seg_len
        logq = torch.log1p(-p.double().clamp(max=1.0)).flatten()
        self.logq_all = torch.where(p.flatten().double() >= MIN_P, logq, torch.full_like(logq, -1.0)).float()
        self.logq = self.logq_all[seg]
        total = int(sum(self.per_model))
        self.u_gap = torch.empty(total, dtype=torch.float32, device=dev)
        self.start = torch.full((M * n,), -1, dtype=torch.int64, device=dev)  # a walk starts before sample 0
        self.row_base = torch.div(seg, n, rounding_mode="floor").mul_(self.B)  # k B per element
        self.feature = torch.arange(M * n, device=dev) % n  # i per segment
        self.offsets = [0]
        for t in self.per_model:
            self.offsets.append(self.offsets[-1] + int(t))
        self.offsets_t = torch.tensor(self.offsets, dtype=torch.int64, device=dev)

    def sample(self, generators: Sequence[torch.Generator]) -> SparseBatch:
        """One fresh batch per model (model ``k`` from ``generators[k]``: its gap uniforms, then
        one value uniform per active entry, then the continuations' uniforms)."""
        self._gap_uniforms(generators)
        pos, last = _walk(self.u_gap, self.logq, self.seg, self.seg_start, self.seg_len, self.start, self.B)
        idx = torch.nonzero(pos < self.B).squeeze(1)  # sorted: model-major
        seg, pos = self.seg.index_select(0, idx), pos.index_select(0, idx)
        rows = self.row_base.index_select(0, idx).add_(pos)
        vals = torch.empty(idx.numel(), dtype=torch.float32, device=idx.device)
        self._value_uniforms(generators, vals, idx)
        deficient = (self.seg_len > 0) & (last < self.B)
        if bool(deficient.any()):
            seg, rows, vals = self._continue(generators, deficient, last, seg, rows, vals)
        return SparseBatch(
            rows=rows,
            cols=self.feature[seg],
            vals=vals.neg_().add_(1.0).mul_(2.0),
            wrows=seg,
            M=self.M,
            B=self.B,
            n=self.n,
        )

    def _gap_uniforms(self, generators: Sequence[torch.Generator]) -> None:
        """Fill ``u_gap``: model ``k``'s share from ``generators[k]``."""
        for k, g in enumerate(generators):
            a, e = self.offsets[k], self.offsets[k + 1]
            torch.rand((e - a,), generator=g, out=self.u_gap[a:e])

    def _value_uniforms(self, generators: Sequence[torch.Generator], vals: torch.Tensor, idx: torch.Tensor) -> None:
        """Fill ``vals``, one uniform per active entry ``idx`` (model-major), model ``k``'s from ``generators[k]``."""
        ends = [idx.numel()] if self.M == 1 else torch.searchsorted(idx, self.offsets_t[1:]).tolist()
        a = 0
        for g, e in zip(generators, ends):
            torch.rand((e - a,), generator=g, out=vals[a:e])
            a = e

    def _more_uniforms(
        self, generators: Sequence[torch.Generator], ids: torch.Tensor, lens: torch.Tensor, local: torch.Tensor, r: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The gap and value uniforms of continuation round ``r`` for the segments ``ids`` (``lens``
        elements each): model ``k``'s from ``generators[k]``, its gaps, then its values."""
        models = (ids // self.n).tolist()
        per = (
            torch.zeros(self.M, dtype=torch.int64)
            .index_add_(0, torch.tensor(models, dtype=torch.int64), lens.cpu())
            .tolist()
        )
        total = int(sum(per))
        dev = self.u_gap.device
        ug = torch.empty(total, dtype=torch.float32, device=dev)  # gaps, then values, per model
        uv = torch.empty(total, dtype=torch.float32, device=dev)
        a = 0
        for k, cnt in enumerate(per):
            if cnt:
                torch.rand((cnt,), generator=generators[k], out=ug[a : a + cnt])
                torch.rand((cnt,), generator=generators[k], out=uv[a : a + cnt])
                a += cnt
        return ug, uv

    def _continue(self, generators, deficient, last, seg, rows, vals):
        """The module's :func:`_continue` (looked up when called), drawing with :meth:`_more_uniforms`."""
        draw = functools.partial(self._more_uniforms, generators)
        return _continue(self, draw, deficient, last, seg, rows, vals)


def _walk(
    u: torch.Tensor,
    logq: torch.Tensor,
    seg: torch.Tensor,
    seg_start: torch.Tensor,
    seg_len: torch.Tensor,
    start: torch.Tensor,
    B: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Positions of a flat gap walk.  ``u, logq, seg: (L,)`` (the segment of each element;
    segments contiguous), ``seg_start, seg_len, start: (S,)`` (each segment's first element, its
    length and the position it starts after).  Returns ``pos: (L,)`` (strictly increasing within a
    segment) and ``last: (S,)`` the position of each segment's last event (``start`` if empty)."""
    if u.numel() == 0:
        return torch.empty(0, dtype=torch.int64, device=u.device), start.clone()
    gap = torch.div(torch.log1p(-u), logq, rounding_mode="floor").clamp_(max=float(B))  # log U', U' = 1 - u
    step = gap.to(torch.int64).add_(1)  # a clamped gap still lands past the batch's end
    cum = torch.cumsum(step, 0)
    first = seg_start.clamp(max=u.numel() - 1)
    base = (cum - step)[first] - start  # (S,): cum before the segment, less its start position
    pos = cum - base[seg]
    last = torch.where(seg_len > 0, pos[(first + seg_len - 1).clamp_min(0)], start)
    return pos, last


def _continue(
    s: SparseSampler,
    draw: Callable[[torch.Tensor, torch.Tensor, torch.Tensor, int], tuple[torch.Tensor, torch.Tensor]],
    deficient: torch.Tensor,
    last: torch.Tensor,
    seg: torch.Tensor,
    rows: torch.Tensor,
    vals: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Walk on from ``last`` for the segments whose budget ran out inside the batch, round by round,
    until each has passed the batch's end.  ``draw(ids, lens, local, r)`` gives round ``r``'s gap and
    value uniforms (:meth:`SparseSampler._more_uniforms`: model ``k``'s from ``generators[k]``)."""
    segs, rowss, valss = [seg], [rows], [vals]
    dev = s.u_gap.device
    r = 0
    while bool(deficient.any()):
        ids = torch.nonzero(deficient).flatten()  # model-major
        lens = s.seg_len[ids]
        local = torch.repeat_interleave(torch.arange(ids.numel(), device=dev), lens)
        starts = torch.cumsum(lens, 0) - lens
        ug, uv = draw(ids, lens, local, r)
        p_local, l_local = _walk(ug, s.logq_all[ids][local], local, starts, lens, last[ids], s.B)
        act = p_local < s.B
        new = ids[local][act]
        segs.append(new)
        rowss.append(torch.div(new, s.n, rounding_mode="floor") * s.B + p_local[act])
        valss.append(uv[act])
        last = last.clone()
        last[ids] = l_local
        deficient = torch.zeros_like(deficient)
        deficient[ids] = l_local < s.B
        r += 1
    return torch.cat(segs), torch.cat(rowss), torch.cat(valss)


def choose_sampler(sampler: str, p: torch.Tensor, device: torch.device) -> str:
    """``"dense"`` or ``"sparse"`` for frequencies ``p: (M, n)`` on ``device``: ``sampler`` itself
    unless ``"auto"``, which is sparse for ``n >= SPARSE_MIN_N`` when at most ``SPARSE_MAX_FRACTION``
    of the entries are active, on a CPU and on a GPU where the fused kernel runs
    (:func:`repcap.engines.cosine.switch.usable`; the sparse path's torch ops are launch-bound there), else dense.
    The rule is fixed (not timed at run time), so a setting names one random stream on every machine
    of a device kind."""
    if sampler != "auto":
        return sampler
    where = device.type == "cpu" or usable(device)
    sparse = where and p.shape[-1] >= SPARSE_MIN_N and sparse_fraction(p) <= SPARSE_MAX_FRACTION
    return "sparse" if sparse else "dense"


def sparse_fraction(p: torch.Tensor) -> float:
    """The largest expected fraction of active entries among the models, ``max_k sum_i p_ki / n``."""
    return float(p.double().sum(dim=-1).max()) / p.shape[-1] if p.numel() else 0.0
