"""Loss and analytic gradient of the toy model ``y = ReLU(x W Wᵀ + b)`` (Liu, Liu & Gore 2025,
arXiv:2505.10465) for sparse data (:class:`~repcap.engines.toy.sparse_data.SparseBatch`): the same
quantities as :func:`repcap.engines.toy.model.loss_and_grad`, at the cost of three dense matrix products.

With ``h = x W`` (a gather and a sum over the few active entries of each sample, ``O(nnz m)``),
over the ``B'`` samples with at least one active feature (the others are added in closed form),
``h' = [h, 1]`` and ``W' = [W, b]`` (the bias rides in the product):

* ``z = h' W'ᵀ``                               ``(B', n)``, GEMM 1;
* ``g = relu(z) - x 1[z > 0]``                 in place: one pass, then ``nnz`` corrections;
* ``loss_sum = (|relu(z)|² + sum_active ((relu(z) - x)² - relu(z)²)) / B``;
* ``(g W)ᵀ = Wᵀ gᵀ``                            ``(m, B')``, GEMM 2;
* ``[dW_dense | db]ᵀ = h'ᵀ g``                  ``(m + 1, n)``, GEMM 3 (``db`` its last row);
* ``dW = c ((gᵀ h) + xᵀ (g W))``, the second term a scatter over the active entries.

Where ``B' x n`` is large (the paper's large run: ``n = 10240``, batch 8192) the rows run in tiles
(:data:`TILE_ELEMS`) so that ``z`` is written, rectified, corrected and read by both backward
products while it is in cache; GEMM 3 sums over the tiles.

The products are written with the long ``B`` / ``n`` axis as the output's rows (``m x B``,
``m+1 x n``): measured with MKL on a 2-core EPYC, one thread, at n = 1000, B = 2048, m = 10,
``g W`` took 3.0 ms as ``B x m`` and 0.77 ms as ``(Wᵀ gᵀ): m x B``, ``gᵀ h`` 4.7 ms as ``n x m`` and
0.7-0.9 ms as ``hᵀ g: m x n`` (at m >= 25 the layouts are within 20%).
"""

from __future__ import annotations

import torch

from .sparse_data import SparseBatch

#: The products run over tiles of at most this many ``B' x n`` entries (per group), so that the
#: tile of ``z`` / ``g`` stays in cache between the ReLU, the corrections and the two backward
#: products.  Measured on a 2-core EPYC (1 MB L2 a core, 32 MB L3), one thread: at n = 10240,
#: batch 8192, m = 8 a forward/backward took 73 ms in tiles of 2^21 (204 rows), 76-86 ms at 2^19-2^20,
#: 89-101 ms at 2^22-2^23 and 110 ms untiled (m = 64: 305-311 ms from 2^21 up, untiled 309); at
#: n = 1000, batch 2048 a tile of 2^21 holds every row (one tile, the fastest).
TILE_ELEMS = 1 << 21


class SparseWorkspace:
    """Buffers of up to ``M`` models, reused every step: ``hb: (M B (m+1),)``, ``Wb: (M, n, m+1)``
    and the tile of ``z``: ``(M rows n,)`` with ``rows = max(1, tile_elems // (M n))`` (flat,
    viewed per step and tile; ``dtype``: the parameters')."""

    def __init__(
        self,
        M: int,
        B: int,
        n: int,
        m: int,
        device: torch.device,
        dtype: torch.dtype = torch.float32,
        tile_elems: int | None = TILE_ELEMS,
    ):
        self.rows = min(B, max(1, tile_elems // (M * n))) if tile_elems else B
        self.hb = torch.empty((M * B * (m + 1),), dtype=dtype, device=device)
        self.Wb = torch.empty((M, n, m + 1), dtype=dtype, device=device)
        self.z = torch.empty((M * self.rows * n,), dtype=dtype, device=device)


def compact_rows(x: SparseBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int]:
    """The samples with an active entry, packed: ``(model, rank, counts, B')``.  ``model, rank:
    (nnz,)``: each entry's model ``k`` and the rank ``r`` of its sample among model ``k``'s
    non-empty ones (its packed row is ``k B' + r``); ``counts: (M,)`` the non-empty samples per
    model; ``B' = max counts``."""
    occupied = torch.zeros(x.M * x.B, dtype=torch.int32, device=x.rows.device)
    occupied[x.rows] = 1
    rank = torch.cumsum(occupied.view(x.M, x.B), dim=1, dtype=torch.int64)
    counts = rank[:, -1]
    Bc = int(counts.max()) if x.M else 0
    return torch.div(x.wrows, x.n, rounding_mode="floor"), rank.view(-1)[x.rows].sub_(1), counts, Bc


def sparse_loss_and_grad(
    x: SparseBatch, W: torch.Tensor, b: torch.Tensor, need_loss: bool = True, ws: SparseWorkspace | None = None
) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """Per-model loss and gradients for sparse data, as :func:`repcap.engines.toy.model.loss_and_grad`.

    ``x``: a batch of ``M`` models (``x.M``), ``W: (M, n, m)``, ``b: (M, n)``.  Returns
    ``(loss_sum: (M,) float64 or None, dW: (M, n, m), db: (M, n))`` (gradients of the mean over
    batch and features of ``(y - x)^2``; ``loss_sum`` is the per-sample squared error summed over
    features).  ``ws`` (optional): reused buffers of the group's shape (and its tile size).

    A sample with no active feature has ``h = 0``, so ``z = b`` and ``g = relu(b)``: it adds
    ``relu(b)`` to ``gᵀ 1`` and ``|relu(b)|²`` to the loss and nothing else.  The products run over
    the ``B'`` non-empty samples only (:func:`compact_rows`; about ``(1 - e^{-sum p}) B``), in
    tiles of ``ws.rows`` of them; the empty ones are added in closed form.
    """
    M, n, m = W.shape
    B = x.B
    if ws is None:
        ws = SparseWorkspace(M, B, n, m, W.device, W.dtype)
    model, rank, counts, Bc = compact_rows(x)
    v = x.vals.to(W.dtype)
    hb = ws.hb[: M * Bc * (m + 1)].view(M, Bc, m + 1)
    Wb = ws.Wb[:M]
    # h = x W (sparse), h' = [h, 1] (0 in the padding rows of a model with fewer samples), W' = [W, b]
    hb[..., :m].zero_()
    torch.lt(torch.arange(Bc, device=W.device)[None, :], counts[:, None], out=hb[..., m])
    hb.view(M * Bc, m + 1)[:, :m].index_add_(0, model * Bc + rank, W.reshape(M * n, m)[x.wrows] * v[:, None])
    Wb[..., :m].copy_(W)
    Wb[..., m].copy_(b)
    loss = torch.zeros(M, dtype=torch.float64, device=W.device) if need_loss else None
    dWt = None
    scatter = []
    for r0, r1, e in _tiles(rank, Bc, ws.rows):
        mk, rk, ve = (model, rank, v) if e is None else (model[e], rank[e], v[e])
        ik, wk = (x.cols, x.wrows) if e is None else (x.cols[e], x.wrows[e])
        g, gWt = _tile(hb[:, r0:r1], Wb, W, ws.z, (mk * (r1 - r0) + rk - r0) * n + ik, ve, mk, loss)
        part = torch.bmm(hb[:, r0:r1].transpose(1, 2), g)  # GEMM 3: [gᵀ h | gᵀ 1]ᵀ, (M, m + 1, n)
        dWt = part if dWt is None else dWt.add_(part)
        gW = gWt.transpose(1, 2).reshape(M * (r1 - r0), m)
        scatter.append((wk, gW[mk * (r1 - r0) + rk - r0] * ve[:, None]))  # xᵀ (g W) over the tile's entries
    if dWt is None:  # no sample active in any model
        dWt = torch.zeros((M, m + 1, n), dtype=W.dtype, device=W.device)
    c = 2.0 / (B * n)
    dW = dWt[:, :m].transpose(1, 2).contiguous()
    for wk, part in scatter:
        dW.view(M * n, m).index_add_(0, wk, part)
    dW.mul_(c)
    empty = (B - counts).to(W.dtype)[:, None]  # (M, 1) samples with no active feature: g = relu(b)
    rb = torch.relu(b)
    db = dWt[:, m].add_(rb * empty).mul_(c)
    if loss is not None:
        loss += rb.double().square().sum(dim=1) * empty[:, 0].double()
        loss /= B
    return loss, dW, db


def _tiles(rank: torch.Tensor, Bc: int, rows: int) -> list[tuple[int, int, torch.Tensor | None]]:
    """``(r0, r1, entries)`` per tile of packed rows ``r0 <= r < r1``; ``entries`` (indices into the
    batch's entries) is None when one tile covers all rows."""
    if Bc <= rows:
        return [(0, Bc, None)] if Bc else []
    order = torch.argsort(rank, stable=True)
    starts = list(range(0, Bc, rows))
    bounds = torch.searchsorted(rank[order], torch.tensor(starts + [Bc], device=rank.device)).tolist()
    return [(r0, min(Bc, r0 + rows), order[bounds[j] : bounds[j + 1]]) for j, r0 in enumerate(starts)]


def _tile(
    hb: torch.Tensor,
    Wb: torch.Tensor,
    W: torch.Tensor,
    zbuf: torch.Tensor,
    lin: torch.Tensor,
    v: torch.Tensor,
    model: torch.Tensor,
    loss: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One tile of rows, ``hb: (M, rows, m+1)``: ``z``, the loss terms (added to ``loss``), ``g`` in
    place of ``z`` and ``(g W)ᵀ: (M, m, rows)``.  ``lin, v, model``: the tile's active entries
    (their index into the tile's ``z``, value and model)."""
    M, rc, _ = hb.shape
    n = Wb.shape[1]
    z = zbuf[: M * rc * n].view(M, rc, n)
    torch.bmm(hb, Wb.transpose(1, 2), out=z)  # GEMM 1: z = h' W'ᵀ
    zf = z.view(-1)
    za = zf[lin]  # z at the active entries
    torch.relu_(z)
    if loss is not None:  # |relu(z)|² and, at the active entries, (relu(z) - x)² - relu(z)²
        loss += torch.linalg.vector_norm(z, dim=2).double().square_().sum(dim=1)
        ra = za.clamp_min(0.0)
        loss.index_add_(0, model, ((ra - v).square_() - ra.square()).double())
    zf[lin] = torch.where(za > 0, za - v, torch.zeros_like(za))  # g = (z - x) 1[z > 0]
    return z, torch.bmm(W.transpose(1, 2), z.transpose(1, 2))  # GEMM 2: (g W)ᵀ
