"""The toy model ``y = ReLU(x W Wᵀ + b)`` of Liu, Liu & Gore 2025 (arXiv:2505.10465), batched over
models: its initialisation and the analytic gradient of its mean-square reconstruction loss.

Model (one per batch entry k)::

    y = ReLU(x W_k W_kᵀ + b_k),   W_k: (n, m) rows = feature vectors,  b_k: (n,)
    W ~ N(0, 1)/sqrt(m),  b ~ N(0, 1)

Data: ``x_i = 1[u_i < p_i] v_i`` with ``u ~ U(0,1)``, ``v ~ U(0,2)``, a fresh batch every step,
feature frequencies ``p`` from :func:`frequencies` (power law ``i^-alpha`` normalised to sum 1,
exponential, linear, or a power law scaled to a chosen activation density).

Data are drawn densely (``B x n`` uniforms a step, :func:`sample_batch`) or, with
``TrainConfig.sampler="sparse"`` (``"auto"``: on a CPU from ``n = 512`` on), as the active entries
only (geometric gaps, :class:`SparseSampler`; same distribution, another stream), and the sparse
batch runs through a forward/backward of three dense products (:func:`sparse_loss_and_grad`).

Optimiser: the paper's signed decoupled weight-decay AdamW, written out over batched tensors
(:func:`decay_`, :func:`adam_`): the decay acts first, then the Adam step; the bias is not decayed.

* ``gamma >= 0``: ``W <- W (1 - lr gamma)``;
* ``gamma < 0``:  ``W_i <- W_i + lr gamma W_i (1 - 1/||W_i||)`` per row (row norms pulled to 1:
  strong superposition).

Schedule: linear warm-up to the peak lr, then cosine decay to ``final_lr_frac`` (0.05) x peak.
Peak rates: 1e-2 for ``W`` and ``b`` (the main sweep), or per width (``lr_rule="liu-exp17"``, the
large run: ``W`` 0.02 (8/m)^(1/4), ``b`` 2/m).

Batching: every tensor carries a leading model axis, ``W: (n_models, n, m)``.  Models of one
``(n, m)`` (and one step count / batch size / schedule) share a batch; ``alpha``, ``gamma``,
``seed``, ``lr``, ``bias_lr`` and the frequency distribution are per-model values.

Measurements (:func:`measure`): the final loss (mean over the last ``loss_window`` steps of the
per-sample squared error summed over features), the represented fraction ``phi_half`` (rows with
``||W_i|| > 1/2``), row norms, and the mean square overlap of normalised rows.  Loss-against-width
exponents come from :func:`repcap.engines.fits.fit_exponent`; the weak-regime prediction (loss carried by
the features a width-m model leaves out, exponent ``alpha - 1``) from :func:`unlearned_loss`.
"""

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
