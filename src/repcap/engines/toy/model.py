"""The toy model ``y = ReLU(x W Wᵀ + b)`` of Liu, Liu & Gore 2025 (arXiv:2505.10465), batched over
models: its initialisation and the analytic gradient of its mean-square reconstruction loss."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from repcap.base.devices import generator


def init_params(
    n: int, m: int, seeds: Sequence[int], device: torch.device
) -> tuple[torch.Tensor, torch.Tensor, list[torch.Generator]]:
    """``W: (n_models, n, m)`` ~ N(0,1)/sqrt(m), ``b: (n_models, n)`` ~ N(0,1), and the per-model
    generators (seeded with ``seeds``; they go on to draw the data)."""
    gens = [generator(int(s), device) for s in seeds]
    W = torch.empty((len(seeds), n, m), dtype=torch.float32, device=device)
    b = torch.empty((len(seeds), n), dtype=torch.float32, device=device)
    for k, g in enumerate(gens):
        torch.randn((n, m), generator=g, out=W[k])
        torch.randn((n,), generator=g, out=b[k])
    W /= math.sqrt(m)
    return W, b, gens


def loss_and_grad(
    x: torch.Tensor,
    W: torch.Tensor,
    b: torch.Tensor,
    need_loss: bool = True,
    z_buf: torch.Tensor | None = None,
    pos_buf: torch.Tensor | None = None,
) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """Per-model loss and analytic gradients of the training objective.

    ``x: (M, B, n)``, ``W: (M, n, m)``, ``b: (M, n)``.  Training objective (as the paper's
    ``MSELoss``): the mean over batch and features of ``(y - x)^2``.  Returns
    ``(loss_sum, dW, db)`` where ``loss_sum: (M,)`` float64 is the per-sample squared error summed
    over features (= n x objective, the quantity the paper plots; ``None`` unless ``need_loss``);
    ``dW: (M, n, m)`` and ``db: (M, n)`` are gradients of the objective.

    With ``z = x W Wᵀ + b`` and ``g = (z - x) 1[z > 0]`` (= ``(y - x) 1[z > 0]``):
    ``dObjective/dW = c (xᵀ (g W) + gᵀ (x W))``, ``dObjective/db = c sum_batch g``,
    ``c = 2 / (B n)``.  ``z_buf`` (float, like ``x``) and ``pos_buf`` (bool) are optional
    workspaces reused across steps (large per-step allocations cost page faults on the CPU).
    """
    _, B, n = x.shape
    h = torch.bmm(x, W)
    if z_buf is not None:
        z = torch.baddbmm(b[:, None, :], h, W.transpose(1, 2), out=z_buf)
    else:
        z = torch.baddbmm(b[:, None, :], h, W.transpose(1, 2))
    loss_sum = None
    if need_loss:
        # per-sample sums over features in float32, the batch sum in float64
        loss_sum = (torch.relu(z) - x).square_().sum(dim=2).sum(dim=1, dtype=torch.float64) / B
    off = torch.le(z, 0, out=pos_buf) if pos_buf is not None else z <= 0  # ReLU inactive
    g = z.sub_(x).masked_fill_(off, 0.0)
    c = 2.0 / (B * n)
    dW = torch.bmm(x.transpose(1, 2), torch.bmm(g, W))
    dW.baddbmm_(g.transpose(1, 2), h).mul_(c)
    db = g.sum(dim=1).mul_(c)
    return loss_sum, dW, db
