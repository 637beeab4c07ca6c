"""Loss and analytic gradient of the toy model ``y = ReLU(x W Wᵀ + b)`` (Liu, Liu & Gore 2025,
arXiv:2505.10465) for sparse data (:class:`~repcap.toy.sparse_data.SparseBatch`): the same
quantities as :func:`repcap.toy.model.loss_and_grad`, at the cost of three dense matrix products.

With ``h = x W`` (a gather and a sum over the few active entries of each sample, ``O(nnz m)``),
over the samples with at least one active feature (the others are added in closed form),
``h' = [h, 1]`` and ``W' = [W, b]`` (the bias rides in the product):

* ``z = h' W'ᵀ``                               ``(B, n)``, GEMM 1;
* ``g = relu(z) - x 1[z > 0]``                 in place: one pass, then ``nnz`` corrections;
* ``loss_sum = (|relu(z)|² + sum_active ((relu(z) - x)² - relu(z)²)) / B``;
* ``(g W)ᵀ = Wᵀ gᵀ``                            ``(m, B)``, GEMM 2;
* ``[dW_dense | db]ᵀ = h'ᵀ g``                  ``(m + 1, n)``, GEMM 3 (``db`` its last row);
* ``dW = c ((gᵀ h) + xᵀ (g W))``, the second term a scatter over the active entries.

The products are written with the long ``B`` / ``n`` axis as the output's rows of length ``B`` or
``n`` (``m x B``, ``m+1 x n``): on this machine's MKL those shapes ran 2-6x faster than ``B x m``
and ``n x m`` at ``m <= 12`` (see ``benchmarks/toy_trainer.py``).
"""

from __future__ import annotations

import torch

from .sparse_data import SparseBatch


class SparseWorkspace:
    """Buffers of up to ``M`` models, reused every step: ``hb: (M B (m+1),)``, ``Wb: (M, n, m+1)``,
    ``z: (M B n,)`` (flat, viewed as ``(M, B', ...)`` for the step's ``B'`` rows; ``dtype``: the
    parameters')."""

    def __init__(self, M: int, B: int, n: int, m: int, device: torch.device, dtype: torch.dtype = torch.float32):
        self.hb = torch.empty((M * B * (m + 1),), dtype=dtype, device=device)
        self.Wb = torch.empty((M, n, m + 1), dtype=dtype, device=device)
        self.z = torch.empty((M * B * n,), dtype=dtype, device=device)


def compact_rows(x: SparseBatch) -> tuple[torch.Tensor, torch.Tensor, int]:
    """The samples with an active entry, packed: ``(rows, counts, B')``.  ``rows: (nnz,)`` is each
    entry's row ``k B' + r`` (``r``: the rank of its sample among model ``k``'s non-empty ones),
    ``counts: (M,)`` the non-empty samples per model, ``B' = max counts``."""
    occupied = torch.zeros(x.M * x.B, dtype=torch.int32, device=x.rows.device)
    occupied[x.rows] = 1
    rank = torch.cumsum(occupied.view(x.M, x.B), dim=1, dtype=torch.int64)
    counts = rank[:, -1]
    Bc = int(counts.max()) if x.M else 0
    rows = torch.div(x.rows, x.B, rounding_mode="floor").mul_(Bc).add_(rank.view(-1)[x.rows]).sub_(1)
    return rows, counts, Bc


def sparse_loss_and_grad(
    x: SparseBatch, W: torch.Tensor, b: torch.Tensor, need_loss: bool = True, ws: SparseWorkspace | None = None
) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """Per-model loss and gradients for sparse data, as :func:`repcap.toy.model.loss_and_grad`.

    ``x``: a batch of ``M`` models (``x.M``), ``W: (M, n, m)``, ``b: (M, n)``.  Returns
    ``(loss_sum: (M,) float64 or None, dW: (M, n, m), db: (M, n))`` (gradients of the mean over
    batch and features of ``(y - x)^2``; ``loss_sum`` is the per-sample squared error summed over
    features).  ``ws`` (optional): reused buffers of the group's shape.

    A sample with no active feature has ``h = 0``, so ``z = b`` and ``g = relu(b)``: it adds
    ``relu(b)`` to ``gᵀ 1`` and ``|relu(b)|²`` to the loss and nothing else.  The products run over
    the ``B'`` non-empty samples only (:func:`compact_rows`; about ``(1 - e^{-sum p}) B``); the
    empty ones are added in closed form.
    """
    M, n, m = W.shape
    B = x.B
    if ws is None:
        ws = SparseWorkspace(M, B, n, m, W.device, W.dtype)
    rows, counts, Bc = compact_rows(x)
    hb = ws.hb[: M * Bc * (m + 1)].view(M, Bc, m + 1)
    z = ws.z[: M * Bc * n].view(M, Bc, n)
    Wb = ws.Wb[:M]
    v = x.vals.to(W.dtype)
    widx = x.wrows  # row of W: k n + i
    lin = rows * n + x.cols  # entry of z: (k B' + r) n + i
    # h = x W (sparse), h' = [h, 1] (0 in the padding rows of a model with fewer samples), W' = [W, b]
    hb[..., :m].zero_()
    torch.lt(torch.arange(Bc, device=W.device)[None, :], counts[:, None], out=hb[..., m])
    hb.view(M * Bc, m + 1)[:, :m].index_add_(0, rows, W.reshape(M * n, m)[widx] * v[:, None])
    Wb[..., :m].copy_(W)
    Wb[..., m].copy_(b)
    torch.bmm(hb, Wb.transpose(1, 2), out=z)  # GEMM 1: z = h' W'ᵀ
    zf = z.view(-1)
    za = zf[lin]  # z at the active entries
    torch.relu_(z)
    empty = (B - counts).to(W.dtype)[:, None]  # (M, 1) samples with no active feature: g = relu(b)
    rb = torch.relu(b)
    loss_sum = _loss(z, za, v, rb, empty, widx // n, B) if need_loss else None
    zf[lin] = torch.where(za > 0, za - v, torch.zeros_like(za))  # g = (z - x) 1[z > 0]
    g = z
    c = 2.0 / (B * n)
    gWt = torch.bmm(W.transpose(1, 2), g.transpose(1, 2))  # GEMM 2: (g W)ᵀ, (M, m, B')
    dWt = torch.bmm(hb.transpose(1, 2), g)  # GEMM 3: [gᵀ h | gᵀ 1]ᵀ, (M, m + 1, n)
    dW = dWt[:, :m].transpose(1, 2).contiguous()
    gW = gWt.transpose(1, 2).reshape(M * Bc, m)
    dW.view(M * n, m).index_add_(0, widx, gW[rows] * v[:, None])  # + xᵀ (g W)
    dW.mul_(c)
    db = dWt[:, m].add_(rb.mul_(empty)).mul_(c)
    return loss_sum, dW, db


def _loss(
    z: torch.Tensor,
    za: torch.Tensor,
    v: torch.Tensor,
    rb: torch.Tensor,
    empty: torch.Tensor,
    model: torch.Tensor,
    B: int,
) -> torch.Tensor:
    """Per-sample squared error summed over features, ``(M,)`` float64: ``|relu(z)|²`` over the
    packed rows ``z: (M, B', n)`` (after the ReLU), the active entries' ``(relu(z) - x)² - relu(z)²``
    (``za, v``: ``z`` before the ReLU and ``x``; ``model``: their model) and the empty samples'
    ``|relu(b)|²``, over ``B``."""
    total = torch.linalg.vector_norm(z, dim=2).double().square_().sum(dim=1)
    total += rb.double().square().sum(dim=1) * empty[:, 0].double()
    ra = za.clamp_min(0.0)
    total.index_add_(0, model, ((ra - v).square_() - ra.square()).double())
    return total / B
