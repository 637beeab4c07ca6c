"""The packing losses and their gradients, tile by tile (Guha 2026 Sec. 3.3; Yoder 2025).

For unit columns ``V: (B, d, k)`` and the Gram ``G = V^T V``, the loss of problem b is
``L_b = sum_{i != j} f(G_ij)`` with ``f(c) = |c|^p`` (Guha's power loss), ``exp(beta c^2)``
(Yoder's exp loss) or ``relu(|c|) = |c|`` (3Blue1Brown's abs-relu).  :func:`loss_and_grad` forms
the loss and ``dL/dV = 2 V f'(G)`` in the same pass over Gram tiles, so no k x k tensor is ever
held: working memory O(B * tile^2) (symmetric blocks, CPU) or O(B * tile * k) (column tiles, GPU).
float32 compute, float64 reductions.  :func:`dense_loss` is the full-Gram reference.
"""

from __future__ import annotations

import math

import torch

from repcap import RepcapError
from repcap.base.devices import memory_budget_bytes
from repcap.engines.settings.packing import LOSSES


def normalise(W: torch.Tensor) -> torch.Tensor:
    """Unit columns of ``W: (..., d, k)``."""
    return W / W.norm(dim=-2, keepdim=True).clamp_min(1e-12)


def _f_fprime(G: torch.Tensor, loss: str, beta: float, p: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Elementwise loss ``f(G)`` and derivative ``f'(G)``; may overwrite ``G``."""
    if loss == "exp":
        f = (G * G).mul_(beta).exp_()
        fp = G.mul_(f).mul_(2.0 * beta)
    elif loss == "power":
        a = G.abs()
        if p == 1:
            return a, G.sign_()
        am1 = _int_pow(a, int(p) - 1) if float(p).is_integer() and p <= 64 else a.pow(p - 1.0)
        f = am1 * a
        fp = am1.mul_(G.sign_()).mul_(p)
    else:  # abs-relu: relu(|c|) = |c|, derivative sign(c)
        f = G.abs()
        fp = G.sign_()
    return f, fp


def _int_pow(a: torch.Tensor, n: int) -> torch.Tensor:
    """``a ** n`` for a small integer n >= 1 by repeated squaring (much faster than ``pow`` on a
    CPU); may overwrite ``a``."""
    result = None
    base = a
    while n:
        if n & 1:
            result = base.clone() if result is None else result.mul_(base)
        n >>= 1
        if n:
            base = base * base
    assert result is not None, "n >= 1"
    return result


def default_tile(k: int, batch: int, device: torch.device) -> int:
    """Columns per tile.  GPU: about five (B, k, tile) float32 temporaries within the memory
    budget, at most 8192.  CPU: a (B, k, tile) tile of about 256 Ki floats (1 MiB), between 64 and
    512 columns, so the elementwise passes run in cache (measured: 2-4x faster than 512 columns at
    k = 2000..10000)."""
    if device.type == "cpu":
        return int(min(k, max(64, min(512, (1 << 18) // k))))
    budget = memory_budget_bytes(device)
    t = budget // (5 * 4 * max(1, batch) * k)
    return int(max(32, min(k, 8192, t)))


def default_block(k: int, batch: int, device: torch.device) -> int:
    """Side of the square Gram blocks of the symmetric pass: 256 on a CPU (a 256 KiB block stays in
    cache; measured fastest of 128..1024 at k = 2000 and 10000), up to 8192 within the memory
    budget on a GPU."""
    if device.type == "cpu":
        return int(min(k, 256))
    budget = memory_budget_bytes(device)
    t = int(math.sqrt(budget / (5 * 4 * max(1, batch))))
    return int(max(64, min(k, 8192, t)))


class flush_denormal:
    """On a CPU, treat subnormal floats as zero while packing: |cos|^p of small cosines underflows
    into subnormals, which are 10-100x slower to compute with (measured 3x on the power loss).
    Their contribution to the loss (< 1e-38 each) is below float32 resolution anyway."""

    def __init__(self, device: torch.device):
        self.on = device.type == "cpu"

    def __enter__(self):
        if self.on:
            torch.set_flush_denormal(True)

    def __exit__(self, *exc):
        if self.on:
            torch.set_flush_denormal(False)


def loss_and_grad(
    V: torch.Tensor,
    loss: str = "power",
    *,
    beta: float = 20.0,
    p: float = 10.0,
    tile: int | None = None,
    want_max: bool = False,
    symmetric: bool | None = None,
    signed: bool = False,
):
    """Tiled ``L_b = sum_{i != j} f(G_ij)`` and ``dL_b/dV`` for unit columns ``V: (B, d, k)``.

    Returns ``(loss: (B,) float64, grad: (B, d, k) V.dtype, maxabs: (B,) or None)`` where
    ``maxabs`` is the largest off-diagonal |cos| (only with ``want_max``; fused into the pass, it
    is the curve of the optimisation hot loop).

    ``symmetric`` (default: on the CPU) visits only the blocks ``I <= J`` of the Gram and uses
    ``G_JI = G_IJ^T``: half the Gram products and half the elementwise work, working memory
    O(B * tile^2).  Otherwise whole column tiles ``V^T V_J`` (fewer, larger matmuls, better on a
    GPU), working memory O(B * tile * k).  Either way ``grad[:, :, J] = 2 sum_I V_I f'(G_IJ)``.

    ``signed`` packs points, not lines (:mod:`.signed`): ``f(max(G_ij, 0))`` instead of ``f(G_ij)``,
    by column tiles only, and ``maxabs`` is then the largest off-diagonal cosine (the closest pair).
    """
    if V.dim() != 3:
        raise RepcapError(f"V must have shape (B, d, k), got {tuple(V.shape)}")
    if loss not in LOSSES:
        raise RepcapError(f"unknown loss {loss!r}; use one of {', '.join(LOSSES)}")
    if signed and symmetric:
        raise RepcapError("loss_and_grad: the signed loss runs by column tiles only (symmetric=False)")
    B = V.shape[0]
    if symmetric is None:
        symmetric = V.device.type == "cpu" and not signed
    if symmetric and B > 1 and V.device.type == "cpu":
        # On a CPU a batch gains nothing from batched matmuls of small blocks (measured 0.64x of a
        # loop at B = 8, k = 1000); run the problems one after another through the same pass.
        outs = [
            loss_and_grad(V[b : b + 1], loss, beta=beta, p=p, tile=tile, want_max=want_max, symmetric=True)
            for b in range(B)
        ]
        return (
            torch.cat([o[0] for o in outs]),
            torch.cat([o[1] for o in outs]),
            torch.cat([o[2] for o in outs]) if want_max else None,
        )
    if symmetric:
        return _symmetric_pass(V, loss, beta, p, tile, want_max)
    return _column_pass(V, loss, beta, p, tile, want_max, signed)


def _symmetric_pass(V, loss, beta, p, tile, want_max):
    """Blocks ``I <= J`` of the Gram, ``G_JI = G_IJ^T`` (see :func:`loss_and_grad`)."""
    B, _, k = V.shape
    total = torch.zeros(B, dtype=torch.float64, device=V.device)
    mx = torch.zeros(B, dtype=V.dtype, device=V.device)
    tile = int(tile or default_block(k, B, V.device))
    grad = torch.zeros_like(V)
    starts = list(range(0, k, tile))
    for i0 in starts:
        i1 = min(k, i0 + tile)
        Vi = V[:, :, i0:i1]
        ViT = Vi.transpose(1, 2)
        for j0 in starts:
            if j0 < i0:
                continue
            j1 = min(k, j0 + tile)
            Vj = V[:, :, j0:j1]
            G = torch.matmul(ViT, Vj)  # (B, ti, tj)
            diag = j0 == i0
            if diag:
                ar = torch.arange(i1 - i0, device=V.device)
                G[:, ar, ar] = 0.0
            if want_max:
                mx = torch.maximum(mx, G.abs().amax(dim=(1, 2)))
            f, fp = _f_fprime(G, loss, beta, p)
            if diag:
                if loss == "exp":
                    f[:, ar, ar] = 0.0
                fp[:, ar, ar] = 0.0
                total += f.sum(dim=1).double().sum(dim=1)
                grad[:, :, i0:i1] += torch.matmul(Vi, fp)
            else:
                total += 2.0 * f.sum(dim=1).double().sum(dim=1)
                grad[:, :, j0:j1] += torch.matmul(Vi, fp)
                grad[:, :, i0:i1] += torch.matmul(Vj, fp.transpose(1, 2))
    grad.mul_(2.0)
    return total, grad, (mx if want_max else None)


def _column_pass(V, loss, beta, p, tile, want_max, signed):
    """Whole column tiles ``V^T V_J`` (see :func:`loss_and_grad`); ``signed``: of ``max(G, 0)``."""
    B, _, k = V.shape
    total = torch.zeros(B, dtype=torch.float64, device=V.device)
    mx = torch.full((B,), -math.inf if signed else 0.0, dtype=V.dtype, device=V.device)
    tile = int(tile or default_tile(k, B, V.device))
    grad = torch.empty_like(V)
    Vt = V.transpose(1, 2)
    for j0 in range(0, k, tile):
        j1 = min(k, j0 + tile)
        ar = torch.arange(j1 - j0, device=V.device)
        G = torch.matmul(Vt, V[:, :, j0:j1])  # (B, k, t)
        G[:, j0 + ar, ar] = -1.0 if signed else 0.0  # the diagonal: no pair (signed: clipped to 0 below)
        if want_max:
            mx = torch.maximum(mx, (G if signed else G.abs()).amax(dim=(1, 2)))
        if signed:
            G.clamp_(min=0.0)
        f, fp = _f_fprime(G, loss, beta, p)
        f[:, j0 + ar, ar] = 0.0  # exp: f(0) = 1 on the (zeroed) diagonal; the others are 0 there already
        total += f.sum(dim=1).double().sum(dim=1)  # float32 column sums (cascade), float64 across
        fp[:, j0 + ar, ar] = 0.0
        grad[:, :, j0:j1] = torch.matmul(V, fp)
    grad.mul_(2.0)
    return total, grad, (mx if want_max else None)


class TiledPackingLoss(torch.autograd.Function):
    """Autograd wrapper of :func:`loss_and_grad`: forward forms loss and gradient in one tiled
    pass and keeps only the (B, d, k) gradient for backward (no k x k tensor is ever held)."""

    @staticmethod
    def forward(ctx, V, loss, beta, p, tile):
        total, grad, _ = loss_and_grad(V.detach(), loss, beta=beta, p=p, tile=tile)
        ctx.save_for_backward(grad)
        return total

    @staticmethod
    def backward(ctx, g):
        (grad,) = ctx.saved_tensors
        return grad * g.to(grad.dtype)[:, None, None], None, None, None, None


def dense_loss(
    V: torch.Tensor, loss: str = "power", *, beta: float = 20.0, p: float = 10.0, signed: bool = False
) -> torch.Tensor:
    """Reference implementation for ``V: (B, d, k)``: the full (B, k, k) Gram and autograd (any
    dtype), -> ``(B,)``; ``signed``: of ``max(G, 0)``.  O(k^2) memory."""
    G = V.transpose(-1, -2) @ V
    if signed:
        G = torch.relu(G)
    k = V.shape[-1]
    off = ~torch.eye(k, dtype=torch.bool, device=V.device)
    if loss == "exp":
        F = torch.exp(beta * G**2)
    elif loss == "power":
        F = G.abs() ** p
    else:
        F = torch.relu(G.abs())
    return (F * off).sum(dim=(-2, -1))
