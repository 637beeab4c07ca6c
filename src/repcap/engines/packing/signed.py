"""Signed mode: pack *points* instead of lines, that is maximise the smallest angle between any two of
k unit vectors (a spherical code), with the cosine's sign kept.  The loss of problem b is
``sum_{i != j} f(max(G_ij, 0))`` with the engine's own functions f (:mod:`.losses`: Guha's
``|c|^p``, Yoder's ``exp(beta c^2)``, 3Blue1Brown's ``|c|``) applied to the clipped cosine instead of
``|c|``: only pairs closer than 90 degrees are pushed apart.  :func:`optimise_signed` runs the engine's
Adam loop on it (the same start from ``N(0, I)`` per seed, the same renormalisation every step) and
:func:`sweep_signed` is its sweep point; the chapter on the achievable frontier checks it against the
600-cell and the snub cube.

Its sweep point is registered as ``packing.signed`` under the packing engine's numerics version (its
fingerprints: ``tests/fingerprints/cases_packing.py``).  It could join :class:`PackConfig` as a loss
name (``signed-power``) now that an edit of the optimiser moves no point's key; it was written
beside it while it still did.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np
import torch

from repcap import RepcapError
from repcap.base import config
from repcap.base.devices import cpu_threads, device_name
from repcap.engines.settings.packing import LOSSES, PackConfig
from repcap.sweep.registry import point_function

from .losses import _f_fprime, default_tile, flush_denormal, normalise
from .numerics import NUMERICS
from .optimiser import PackResult, _check_finite, _Curve, _result, start
from .points import EXECUTION_FIELDS, GROUP_FIELDS, pack_config
from .stats import pair_stats


def signed_loss_and_grad(
    V: torch.Tensor,
    loss: str = "power",
    *,
    beta: float = 20.0,
    p: float = 10.0,
    tile: int | None = None,
    want_max: bool = False,
):
    """``L_b = sum_{i != j} f(max(G_ij, 0))`` and ``dL_b/dV`` for unit columns ``V: (B, d, k)``, tile by
    tile (columns ``V^T V_J``; no k x k tensor).  Returns ``(loss: (B,) float64, grad: (B, d, k),
    maxcos: (B,) or None)``, ``maxcos`` the largest off-diagonal cosine (the closest pair of points)."""
    if V.dim() != 3:
        raise RepcapError(f"V must have shape (B, d, k), got {tuple(V.shape)}")
    if loss not in LOSSES:
        raise RepcapError(f"unknown loss {loss!r}; use one of {', '.join(LOSSES)}")
    B, _, k = V.shape
    total = torch.zeros(B, dtype=torch.float64, device=V.device)
    mx = torch.full((B,), -math.inf, dtype=V.dtype, device=V.device)
    t = int(tile or default_tile(k, B, V.device))
    grad = torch.empty_like(V)
    Vt = V.transpose(1, 2)
    for j0 in range(0, k, t):
        j1 = min(k, j0 + t)
        ar = torch.arange(j1 - j0, device=V.device)
        G = torch.matmul(Vt, V[:, :, j0:j1])  # (B, k, t)
        G[:, j0 + ar, ar] = -1.0  # the diagonal: no pair (clipped to 0 below)
        if want_max:
            mx = torch.maximum(mx, G.amax(dim=(1, 2)))
        G.clamp_(min=0.0)
        f, fp = _f_fprime(G, loss, beta, p)
        f[:, j0 + ar, ar] = 0.0  # exp: f(0) = 1 on the diagonal
        total += f.sum(dim=1).double().sum(dim=1)
        fp[:, j0 + ar, ar] = 0.0
        grad[:, :, j0:j1] = torch.matmul(V, fp)
    grad.mul_(2.0)
    return total, grad, (mx if want_max else None)


def dense_signed_loss(V: torch.Tensor, loss: str = "power", *, beta: float = 20.0, p: float = 10.0) -> torch.Tensor:
    """Reference for ``V: (B, d, k)``: the full Gram and autograd (any dtype) -> ``(B,)``."""
    G = torch.relu(V.transpose(-1, -2) @ V)
    off = ~torch.eye(V.shape[-1], dtype=torch.bool, device=V.device)
    F = {"exp": lambda: torch.exp(beta * G**2), "power": lambda: G**p}.get(loss, lambda: G)()
    return (F * off).sum(dim=(-2, -1))


def max_cos(V: torch.Tensor) -> np.ndarray:
    """The largest off-diagonal cosine of unit columns ``V: (B, d, k)``, in float64 -> ``(B,)``."""
    return signed_loss_and_grad(V.double(), want_max=True)[2].cpu().numpy()


def optimise_signed(cfg: PackConfig, *, seeds: list[int] | None = None) -> tuple[PackResult, np.ndarray]:
    """The engine's Adam loop (:func:`repcap.engines.packing.optimise`: start, rate, steps, renormalisation)
    on the signed loss; returns the :class:`PackResult` (its ``eps_star`` is still the largest
    |cos|) and each problem's largest cosine."""
    seeds, dev, tile, W = start(cfg, seeds, "optimise_signed")
    k, B = cfg.k, len(seeds)
    p, lr = cfg.exponent, cfg.learning_rate
    opt = torch.optim.Adam([W], lr=lr)
    curve = _Curve(cfg.record_every or max(1, cfg.steps // 200), [], [], [])
    t0 = time.perf_counter()
    with flush_denormal(dev), cpu_threads(dev, B * k * k, cfg.threads):
        for step in range(cfg.steps):
            opt.zero_grad(set_to_none=True)
            V = normalise(W)
            sample = step % curve.every == 0
            with torch.no_grad():
                total, grad, mx = signed_loss_and_grad(
                    V.detach(), cfg.loss, beta=cfg.beta, p=p, tile=tile, want_max=sample
                )
            V.backward(grad)
            if sample:
                curve.steps.append(step)
                curve.losses.append(total.cpu().numpy())
                curve.eps.append(mx.double().cpu().numpy())
            opt.step()
            if sample:
                _check_finite(cfg, total, step, opt)
            with torch.no_grad():
                W.copy_(normalise(W))
        with torch.no_grad():
            V = normalise(W).detach()
            final, _, _ = signed_loss_and_grad(V, cfg.loss, beta=cfg.beta, p=p, tile=tile)
            _check_finite(cfg, final, cfg.steps, opt)
            stats = pair_stats(V, n_bins=cfg.n_bins)
            mc = max_cos(V)
        devname = device_name(dev)
    res = _result(cfg, seeds, dev, V, final, stats, curve, p, lr, tile, t0, devname)
    res.eps_curve[:, -1] = mc  # the curve of signed mode is the largest cosine, to its end
    return res, mc


@point_function(
    "packing.signed",
    numerics=NUMERICS,
    normalise=pack_config,
    execution=EXECUTION_FIELDS,
    defaults=config.defaults(PackConfig),
    batched=True,
    metrics=("max_cos", "mean_abs"),
    data=(),  # its numbers read no data file
)
def sweep_signed(configs: list[dict]) -> list[dict]:
    """Batched sweep point of signed mode: :class:`PackConfig` fields (``k, d`` at least); configs that
    differ only in ``seed`` run as one batch.  Returns per config the run's summary with ``max_cos``
    and ``min_angle_deg`` (the closest pair of points) and the curve of the largest cosine."""
    cfgs = [pack_config(c) for c in configs]
    base = cfgs[0]
    if any(dataclasses.replace(c, seed=base.seed) != base for c in cfgs[1:]):
        raise RepcapError(f"sweep_signed: a batch must share every setting but the seed ({', '.join(GROUP_FIELDS)})")
    if base.lr_floor != 1.0:
        raise RepcapError(f"sweep_signed: signed mode runs at a fixed rate; lr_floor={base.lr_floor:g} is not one")
    res, mc = optimise_signed(base, seeds=[c.seed for c in cfgs])
    outs: list[dict[str, Any]] = []
    for b in range(len(cfgs)):
        s = res.summary(b)
        s["max_cos"] = float(mc[b])
        s["min_angle_deg"] = math.degrees(math.acos(max(-1.0, min(1.0, float(mc[b])))))
        s["curve_steps"] = res.curve_steps.tolist()
        s["max_cos_curve"] = res.eps_curve[b].tolist()
        s["seconds"] = res.seconds / len(cfgs)
        outs.append(s)
    return outs
