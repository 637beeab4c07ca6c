"""The optimiser of Liu, Liu & Gore 2025 (arXiv:2505.10465): their signed decoupled weight decay
followed by an Adam step, written out over batched tensors with a per-model learning rate.

* ``gamma >= 0``: ``W <- W (1 - lr gamma)``;
* ``gamma < 0``:  ``W_i <- W_i + lr gamma W_i (1 - 1/||W_i||)`` per row (row norms pulled to 1:
  strong superposition).

The decay acts on ``W`` only, before the Adam step; the bias gets the plain Adam step.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


def decay_(
    W: torch.Tensor, lr: torch.Tensor, gamma: torch.Tensor, min_norm: float = 1e-12, signs: str | None = None
) -> torch.Tensor:
    """The paper's signed decoupled weight decay, in place.  ``W: (M, n, m)``; ``lr, gamma: (M,)``.

    ``gamma >= 0``: ``W <- W (1 - lr gamma)``.  ``gamma < 0``: each row
    ``W_i <- W_i + lr gamma W_i (1 - 1/||W_i||)``, which moves every row norm toward 1 (rows of
    norm exactly 0 stay 0).  ``signs`` (``"pos"``, ``"neg"`` or ``"mixed"``; None: read from
    ``gamma``) lets a training loop skip the branch it does not need.
    """
    if signs is None:
        signs = "pos" if bool((gamma >= 0).all()) else "neg" if bool((gamma < 0).all()) else "mixed"
    lg = (lr * gamma).to(W.dtype)[:, None, None]
    if signs == "pos":
        return W.mul_(1.0 - lg)
    norms = torch.linalg.vector_norm(W, dim=2, keepdim=True).clamp_min_(min_norm)
    signed = norms.reciprocal_().neg_().add_(1.0).mul_(lg).add_(1.0)  # 1 + lr gamma (1 - 1/||W_i||)
    if signs == "neg":
        return W.mul_(signed)
    factor = torch.where(gamma[:, None, None] >= 0, 1.0 - lg, signed)
    return W.mul_(factor)


def gamma_signs(gammas) -> str:
    """``"pos"`` if every ``gamma >= 0``, ``"neg"`` if every ``gamma < 0``, else ``"mixed"``."""
    gammas = list(gammas)
    return "pos" if all(g >= 0 for g in gammas) else "neg" if all(g < 0 for g in gammas) else "mixed"


@dataclass
class AdamState:
    """First and second moments for one parameter tensor; ``step`` counts updates."""

    exp_avg: torch.Tensor
    exp_avg_sq: torch.Tensor
    step: int = 0

    @classmethod
    def zeros_like(cls, t: torch.Tensor) -> AdamState:
        return cls(torch.zeros_like(t), torch.zeros_like(t))


def adam_(
    param: torch.Tensor,
    grad: torch.Tensor,
    state: AdamState,
    lr: torch.Tensor,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
) -> torch.Tensor:
    """One Adam step in place (as ``torch.optim.Adam``), with a per-model learning rate
    ``lr: (M,)`` broadcast over the remaining axes of ``param: (M, ...)``."""
    b1, b2 = betas
    state.step += 1
    state.exp_avg.lerp_(grad, 1.0 - b1)
    state.exp_avg_sq.mul_(b2).addcmul_(grad, grad, value=1.0 - b2)
    bc1 = 1.0 - b1**state.step
    bc2 = 1.0 - b2**state.step
    denom = (state.exp_avg_sq / bc2).sqrt_().add_(eps)
    step = (lr / bc1).to(param.dtype).reshape((-1,) + (1,) * (param.dim() - 1))
    param.addcdiv_(state.exp_avg * step, denom, value=-1.0)
    return param
