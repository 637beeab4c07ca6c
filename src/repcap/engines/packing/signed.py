"""Signed mode: pack *points* instead of lines, that is maximise the smallest angle between any two of
k unit vectors (a spherical code), with the cosine's sign kept.  The loss of problem b is
``sum_{i != j} f(max(G_ij, 0))`` with the engine's own functions f (:mod:`.losses`: Guha's
``|c|^p``, Yoder's ``exp(beta c^2)``, 3Blue1Brown's ``|c|``) applied to the clipped cosine instead of
``|c|``: only pairs closer than 90 degrees are pushed apart (:func:`.losses.loss_and_grad` with
``signed=True``).  :func:`optimise_signed` runs the engine's
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
from repcap.base.devices import cpu_threads, device_name
from repcap.engines.settings.packing import PackConfig

from .losses import flush_denormal, loss_and_grad, normalise
from .numerics import NUMERICS
from .optimiser import PackResult, _check_finite, _Curve, _result, start
from .points import GROUP_FIELDS, pack_config, settings_point
from .stats import pair_stats


def max_cos(V: torch.Tensor) -> np.ndarray:
    """The largest off-diagonal cosine of unit columns ``V: (B, d, k)``, in float64 -> ``(B,)``."""
    return loss_and_grad(V.double(), want_max=True, signed=True)[2].cpu().numpy()


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
                total, grad, mx = loss_and_grad(
                    V.detach(), cfg.loss, beta=cfg.beta, p=p, tile=tile, want_max=sample, signed=True
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
            final, _, _ = loss_and_grad(V, cfg.loss, beta=cfg.beta, p=p, tile=tile, signed=True)
            _check_finite(cfg, final, cfg.steps, opt)
            stats = pair_stats(V, n_bins=cfg.n_bins)
            mc = max_cos(V)
        devname = device_name(dev)
    res = _result(cfg, seeds, dev, V, final, stats, curve, p, lr, tile, t0, devname)
    res.eps_curve[:, -1] = mc  # the curve of signed mode is the largest cosine, to its end
    return res, mc


@settings_point(
    "packing.signed",
    PackConfig,
    pack_config,
    NUMERICS,
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
