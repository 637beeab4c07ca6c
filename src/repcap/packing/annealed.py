"""The packing optimisation with a decaying learning rate: Adam whose rate follows a cosine from
``learning_rate`` down to ``lr_floor x learning_rate`` over the run (:func:`optimise_annealed`),
and its sweep point :func:`sweep_annealed`.

At a fixed rate Adam's steps keep a noise floor: Yoder's exp(20 cos^2) run on 10,000 vectors in
R^100 flattens at a worst-pair angle of 73.2 degrees after 600 of 4000 steps (the ``yoder``
reference run).  A decaying rate lets the packing settle below that noise, which is what this
module measures.

It sits beside :mod:`.optimiser` rather than inside it on purpose: the fixed-rate optimiser's code
is part of the cache key of every shipped packing point (:mod:`repcap.codehash`), so a schedule
added there would make them all stale.  The loop, the loss and the statistics are the optimiser's
own (its ``_adam_loop`` drives a wrapped Adam here); only the rate differs.  The next full
recompute folds the schedule into :class:`PackConfig` and this module away.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict

import torch
from tqdm.auto import tqdm

from .. import RepcapError, config, show_progress
from ..devices import cpu_threads, device_name, resolve_device
from ..sweep.registry import point_function
from .config import PackConfig, check_seed
from .losses import default_block, default_tile, flush_denormal, loss_and_grad, normalise
from .numerics import NUMERICS
from .optimiser import PackResult, _adam_loop, _check_finite, _Curve, _result
from .points import EXECUTION_FIELDS, pack_config
from .stats import pair_stats


def annealed_rate(lr: float, step: int, steps: int, floor: float) -> float:
    """The rate at ``step`` of ``steps``: ``lr (floor + (1 - floor) (1 + cos(pi step / steps)) / 2)``,
    ``lr`` at step 0 and ``floor x lr`` at the end."""
    return lr * (floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * min(step, steps) / steps)))


class _AnnealedAdam:
    """Adam whose rate is :func:`annealed_rate` of the step: what the optimiser's loop calls
    (``zero_grad``, ``step``, ``state``), the rate set before each step."""

    def __init__(self, params, lr: float, steps: int, floor: float):
        self.adam = torch.optim.Adam(params, lr=lr)
        self.lr, self.steps, self.floor, self.done = lr, steps, floor, 0

    @property
    def state(self):
        return self.adam.state

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.adam.zero_grad(set_to_none=set_to_none)

    def step(self) -> None:
        for g in self.adam.param_groups:
            g["lr"] = annealed_rate(self.lr, self.done, self.steps, self.floor)
        self.adam.step()
        self.done += 1


def check_floor(floor: float) -> float:
    """``lr_floor`` must be a number in [0, 1] (the final rate as a fraction of the first)."""
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not (0.0 <= float(floor) <= 1.0):
        raise RepcapError(f"lr_floor={floor!r} must be a number from 0 to 1 (the final rate over the first)")
    return float(floor)


def optimise_annealed(
    cfg: PackConfig, *, lr_floor: float = 0.0, seeds: list[int] | None = None, progress: bool = True
) -> PackResult:
    """:func:`repcap.packing.optimise` with the rate decaying from ``cfg.learning_rate`` to
    ``lr_floor x cfg.learning_rate`` along a cosine (``lr_floor = 1``: the fixed-rate run)."""
    floor = check_floor(lr_floor)
    seeds = [int(s) for s in (seeds if seeds is not None else [cfg.seed])]
    if not seeds:
        raise RepcapError("optimise_annealed needs at least one seed")
    for s in seeds:
        check_seed("seed", s)
    dev = resolve_device(cfg.device)
    k, d, B = cfg.k, cfg.d, len(seeds)
    p, lr = cfg.exponent, cfg.learning_rate
    tile = int(cfg.tile or (default_block(k, B, dev) if dev.type == "cpu" else default_tile(k, B, dev)))
    W0 = torch.stack([torch.randn(d, k, generator=torch.Generator().manual_seed(s)) for s in seeds])
    W = torch.nn.Parameter(normalise(W0.to(dev)))
    opt = _AnnealedAdam([W], lr, cfg.steps, floor)
    curve = _Curve(cfg.record_every or max(1, cfg.steps // 200), [], [], [])
    t0 = time.perf_counter()
    bar = tqdm(
        range(cfg.steps),
        desc=f"pack k={k} d={d} {cfg.loss}, rate to {floor:g}x",
        disable=not show_progress(progress),
        leave=False,
        mininterval=0.5,
    )
    with flush_denormal(dev), cpu_threads(dev, B * k * k, cfg.threads):
        try:
            _adam_loop(cfg, W, opt, bar, tile, p, curve, progress)
        finally:
            bar.close()
        with torch.no_grad():
            V = normalise(W).detach()
            final, _, _ = loss_and_grad(V, cfg.loss, beta=cfg.beta, p=p, tile=tile, want_max=False)
            _check_finite(cfg, final, cfg.steps, opt)
            stats = pair_stats(V, n_bins=cfg.n_bins)
        devname = device_name(dev)
    return _result(cfg, seeds, dev, V, final, stats, curve, p, lr, tile, t0, devname)


def _split(config_: dict) -> tuple[PackConfig, float]:
    values = dict(config_)
    floor = check_floor(values.pop("lr_floor", 0.0))
    return pack_config(values), floor


def annealed_config(config_: dict) -> dict:
    """The key form of a :func:`sweep_annealed` config: every :class:`PackConfig` setting resolved,
    and ``lr_floor``."""
    cfg, floor = _split(config_)
    return asdict(cfg) | {"lr_floor": floor}


@point_function(
    "packing.annealed",
    numerics=NUMERICS,
    normalise=annealed_config,
    execution=EXECUTION_FIELDS,
    defaults=config.defaults(PackConfig) | {"lr_floor": 0.0},
    metrics=("eps_star", "mean_abs"),
    legacy=("repcap.packing.annealed:sweep_annealed",),
)
def sweep_annealed(config_: dict) -> dict:
    """Sweep point: :class:`PackConfig` fields plus ``lr_floor`` (default 0: the rate decays to 0).
    Returns what :func:`repcap.packing.sweep_packed` returns for one config (summary, curves,
    histogram), with ``lr_floor``."""
    cfg, floor = _split(config_)
    res = optimise_annealed(cfg, lr_floor=floor, progress=False)
    s = res.summary(0)
    s["lr_floor"] = floor
    s["curve_steps"] = res.curve_steps.tolist()
    s["eps_curve"] = res.eps_curve[0].tolist()
    s["loss_curve"] = res.loss_curve[0].tolist()
    s["hist"] = res.hist[0].tolist()
    s["seconds"] = res.seconds
    return s
