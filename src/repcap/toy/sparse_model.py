"""Loss and analytic gradient of the toy model ``y = ReLU(x W Wᵀ + b)`` (Liu, Liu & Gore 2025,
arXiv:2505.10465) for sparse data (:class:`~repcap.toy.sparse_data.SparseBatch`): the same
quantities as :func:`repcap.toy.model.loss_and_grad`, at the cost of three dense matrix products.

With ``h = x W`` (a gather and a sum over the few active entries of each sample, ``O(nnz m)``),
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
    """Buffers of up to ``M`` models, reused every step: ``hb: (M, B, m+1)``, ``Wb: (M, n, m+1)``,
    ``z: (M, B, n)`` (``dtype``: the parameters')."""

    def __init__(self, M: int, B: int, n: int, m: int, device: torch.device, dtype: torch.dtype = torch.float32):
        self.hb = torch.empty((M, B, m + 1), dtype=dtype, device=device)
        self.Wb = torch.empty((M, n, m + 1), dtype=dtype, device=device)
        self.z = torch.empty((M, B, n), dtype=dtype, device=device)


def sparse_loss_and_grad(x: SparseBatch, W: torch.Tensor, b: torch.Tensor, need_loss: bool = True,
                         ws: SparseWorkspace | None = None
                         ) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """Per-model loss and gradients for sparse data, as :func:`repcap.toy.model.loss_and_grad`.

    ``x``: a batch of ``M`` models (``x.M``), ``W: (M, n, m)``, ``b: (M, n)``.  Returns
    ``(loss_sum: (M,) float64 or None, dW: (M, n, m), db: (M, n))`` (gradients of the mean over
    batch and features of ``(y - x)^2``; ``loss_sum`` is the per-sample squared error summed over
    features).  ``ws`` (optional): reused buffers of the group's shape.
    """
    M, n, m = W.shape
    B = x.B
    if ws is None:
        ws = SparseWorkspace(M, B, n, m, W.device, W.dtype)
    hb, Wb, z = ws.hb[:M], ws.Wb[:M], ws.z[:M]
    v = x.vals.to(W.dtype)
    widx = x.wrows  # row of W: k n + i
    lin = x.rows * n + x.cols  # entry of z: (k B + b) n + i
    # h = x W (sparse), h' = [h, 1], W' = [W, b]
    hb[..., :m].zero_()
    hb[..., m].fill_(1.0)
    hb.view(M * B, m + 1)[:, :m].index_add_(0, x.rows, W.reshape(M * n, m)[widx] * v[:, None])
    Wb[..., :m].copy_(W)
    Wb[..., m].copy_(b)
    torch.bmm(hb, Wb.transpose(1, 2), out=z)  # GEMM 1: z = h' W'ᵀ
    zf = z.view(-1)
    za = zf[lin]  # z at the active entries
    torch.relu_(z)
    loss_sum = None
    if need_loss:
        dense = torch.linalg.vector_norm(z, dim=2).double().square_().sum(dim=1)  # |relu(z)|², (M,)
        ra = za.clamp_min(0.0)
        corr = ((ra - v).square_() - ra.square()).double()  # sum_active (relu z - x)² - relu(z)²
        dense.index_add_(0, torch.div(widx, n, rounding_mode="floor"), corr)
        loss_sum = dense / B
    zf[lin] = torch.where(za > 0, za - v, torch.zeros_like(za))  # g = (z - x) 1[z > 0]
    g = z
    c = 2.0 / (B * n)
    gWt = torch.bmm(W.transpose(1, 2), g.transpose(1, 2))  # GEMM 2: (g W)ᵀ, (M, m, B)
    dWt = torch.bmm(hb.transpose(1, 2), g)  # GEMM 3: [gᵀ h | gᵀ 1]ᵀ, (M, m + 1, n)
    dW = dWt[:, :m].transpose(1, 2).contiguous()
    gW = gWt.transpose(1, 2).reshape(M * B, m)
    dW.view(M * n, m).index_add_(0, widx, gW[x.rows] * v[:, None])  # + xᵀ (g W)
    dW.mul_(c)
    db = dWt[:, m].mul(c)
    return loss_sum, dW, db
