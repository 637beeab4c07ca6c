"""The packing optimisation: Adam on k unit columns in R^d (Guha 2026 Sec. 3.3: Adam, 5000 steps,
lr 0.005 / 0.0025, p = min(floor(M / ln d), 20); Yoder 2025's exp loss).

Each step: ``V = W / |W|`` (columns), the tiled loss and gradient (:mod:`.losses`), an Adam step
on ``W``, then ``W`` is renormalised.  A batch of B problems ``W: (B, d, k)`` shares everything but
the seed; problem b starts from ``N(0, I)`` drawn with its own seed, so its result does not depend
on what else is in the batch.  The final statistics come from :mod:`.stats` (the cosine engine).

References (facts in ``../shared/reference/README.md``):

* Guha 2026 (arXiv:2606.02765), Sec. 3.2-3.3, packing simulation: unit columns ``V in R^{d x k}``,
  loss ``sum_{i != j} |G_ij|^p`` on the column-normalised Gram ``G = V^T V``, Adam, 5000 steps,
  lr 0.005 (d <= 1024) else 0.0025, exponent ``p = min(floor(M / ln d), 20)`` with M = 40 if
  k <= 4000, else 50 if d >= 3072, else 60.  Random baseline: min over T trials of max |cos|.
* Yoder 2025 ("Beyond Orthogonality"): 3Blue1Brown's 10,000 vectors in R^100; the loss
  ``sum relu(|cos|)`` (gradient trap, "99% solution") against ``sum exp(beta cos^2)``, beta = 20,
  and the worst-pair angle it reaches (the quote `yoder2025.exp_angle_deg` in data/reference/quotes.yaml).
* Random projections of the N standard basis vectors of R^N into R^k (Johnson & Lindenstrauss 1984;
  Achlioptas 2003 for +-1 entries; Ailon & Chazelle 2009 for the subsampled randomised Hadamard
  transform), with the empirical constant ``C = eps^2 k / ln N``.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, fields

import numpy as np
import torch
from tqdm.auto import tqdm

from repcap import RepcapError, show_progress
from repcap.base.devices import cpu_threads, device_name, resolve_device
from repcap.engines.settings.packing import PackConfig, check_seed

from . import graph
from .losses import TiledPackingLoss, default_block, default_tile, flush_denormal, loss_and_grad, normalise
from .stats import PackingStats, finite_or_none, pair_stats


@dataclass
class PackResult(PackingStats):
    """The outcome of :func:`optimise` for a batch of B problems: the final packings' pair
    statistics (the :class:`~repcap.engines.packing.stats.PackingStats` fields), the vectors, the curves
    and the settings used (arrays have a leading B axis)."""

    config: dict
    seeds: list[int]
    V: torch.Tensor  # (B, d, k) unit columns, float32, on the CPU
    curve_steps: np.ndarray  # (T,) steps at which the curve was sampled
    loss_curve: np.ndarray  # (B, T) loss per problem
    eps_curve: np.ndarray  # (B, T) max |cos| at those steps
    loss_final: np.ndarray  # (B,) loss after the last step
    seconds: float
    device: str
    tile: int

    def summary(self, b: int = 0) -> dict:
        """JSON-able record of problem ``b``: its settings, its statistics
        (:meth:`~repcap.engines.packing.stats.PackingStats.to_dict`), the final loss, the time and the device
        (a non-finite number is ``None``)."""
        c = self.config
        out = {
            "k": c["k"],
            "d": c["d"],
            "loss": c["loss"],
            "p": c["p_used"] if c["loss"] == "power" else None,
            "beta": c["beta"] if c["loss"] == "exp" else None,
            "steps": c["steps"],
            "lr": c["lr_used"],
            "seed": self.seeds[b],
            **self.to_dict(b),
            "loss_final": finite_or_none(self.loss_final[b]),
            "seconds": finite_or_none(self.seconds),
            "device": self.device,
        }
        if c.get("lr_floor", 1.0) != 1.0:  # a decaying rate says so; a fixed-rate record is as it always was
            out["lr_floor"] = c["lr_floor"]
        return out


@dataclass
class _Curve:
    """The loss and max-|cos| curve, sampled every ``every`` steps."""

    every: int
    steps: list
    losses: list
    eps: list


def start(
    cfg: PackConfig, seeds: list[int] | None, who: str
) -> tuple[list[int], torch.device, int, torch.nn.Parameter]:
    """What every Adam loop of the engine starts from: the checked seeds (default ``[cfg.seed]``),
    the device, the tile side and the seeded random unit columns ``W: (B, d, k)``."""
    seeds = [int(s) for s in (seeds if seeds is not None else [cfg.seed])]
    if not seeds:
        raise RepcapError(f"{who} needs at least one seed")
    for s in seeds:
        check_seed("seed", s)
    dev = resolve_device(cfg.device)
    k, d, B = cfg.k, cfg.d, len(seeds)
    tile = int(cfg.tile or (default_block(k, B, dev) if dev.type == "cpu" else default_tile(k, B, dev)))
    W0 = torch.stack([torch.randn(d, k, generator=torch.Generator().manual_seed(s)) for s in seeds])
    return seeds, dev, tile, torch.nn.Parameter(normalise(W0.to(dev)))


def optimise(
    cfg: PackConfig, *, seeds: list[int] | None = None, progress: bool = True, desc: str | None = None
) -> PackResult:
    """Optimise a batch of packings (one per seed; default ``[cfg.seed]``) with Adam (see the
    module docstring).  A loss that turns non-finite stops the run with the setting to lower."""
    seeds, dev, tile, W = start(cfg, seeds, "optimise")
    k, d, B = cfg.k, cfg.d, len(seeds)
    p, lr = cfg.exponent, cfg.learning_rate
    captured = graph.usable(dev, cfg.lr_floor)  # on CUDA the step is captured once and replayed
    opt: torch.optim.Adam | _AnnealedAdam = torch.optim.Adam([W], lr=lr, capturable=captured)
    if cfg.lr_floor != 1.0:  # the fixed rate is Adam as it stands: its runs stay bit for bit what they were
        opt = _AnnealedAdam([W], lr, cfg.steps, cfg.lr_floor)
    curve = _Curve(cfg.record_every or max(1, cfg.steps // 200), [], [], [])
    t0 = time.perf_counter()
    rate = "" if cfg.lr_floor == 1.0 else f", rate to {cfg.lr_floor:g}x"
    bar = tqdm(
        range(cfg.steps),
        desc=desc or f"pack k={k} d={d} {cfg.loss}{rate}",
        disable=not show_progress(progress),
        leave=False,
        mininterval=0.5,
    )
    with flush_denormal(dev), cpu_threads(dev, B * k * k, cfg.threads):
        try:
            if captured:  # pragma: no cover (CUDA only)
                graph.captured_loop(
                    bar, curve.every, lambda t, keep: _adam_step(cfg, W, opt, bar, tile, p, curve, progress, t, keep)
                )
            else:
                _adam_loop(cfg, W, opt, bar, tile, p, curve, progress)
        finally:
            bar.close()
        with torch.no_grad():
            V = normalise(W).detach()
            final, _, _ = loss_and_grad(V, cfg.loss, beta=cfg.beta, p=p, tile=tile, want_max=False)
            _check_finite(cfg, final, cfg.steps, opt)
            stats = pair_stats(V, n_bins=cfg.n_bins)
        devname = device_name(dev)  # records the thread count actually used
    return _result(cfg, seeds, dev, V, final, stats, curve, p, lr, tile, t0, devname)


def annealed_rate(lr: float, step: int, steps: int, floor: float) -> float:
    """The rate at ``step`` of ``steps`` under ``lr_floor = floor``:
    ``lr (floor + (1 - floor) (1 + cos(pi step / steps)) / 2)``, ``lr`` at step 0 and ``floor x lr``
    at the end."""
    return lr * (floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * min(step, steps) / steps)))


class _AnnealedAdam:
    """Adam whose rate is :func:`annealed_rate` of the step: what the loop calls (``zero_grad``,
    ``step``, ``state``), the rate set before each step.  At a fixed rate Adam's steps keep a noise
    floor (Yoder's exp(20 cos^2) run on 10,000 vectors in R^100 flattens at a worst-pair angle of
    73.2 degrees after 600 of 4000 steps); a decaying rate lets the packing settle below it."""

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


def _check_finite(cfg: PackConfig, total: torch.Tensor, step: int, opt=None) -> None:
    """Stop a run whose loss, or Adam's second moment (the squared gradient), left float32."""
    what = None
    if not bool(torch.isfinite(total).all()):
        what = f"the {cfg.loss} loss became non-finite"
    elif opt is not None and any(
        not bool(torch.isfinite(st["exp_avg_sq"]).all()) for st in opt.state.values() if "exp_avg_sq" in st
    ):
        what = f"Adam's squared gradient of the {cfg.loss} loss became infinite"
    if what:
        raise RepcapError(
            f"{what} at step {step} (k={cfg.k}, d={cfg.d}, lr={cfg.learning_rate:g}"
            f"{f', beta={cfg.beta:g}' if cfg.loss == 'exp' else ''}"
            f"{f', p={cfg.exponent:g}' if cfg.loss == 'power' else ''}): the run left float32's range; "
            f"lower {cfg.setting_to_lower}"
        )


def _adam_loop(cfg: PackConfig, W, opt, bar, tile: int, p: float, curve: _Curve, progress: bool) -> None:
    for step in bar:
        _adam_step(cfg, W, opt, bar, tile, p, curve, progress, step)


def _adam_step(
    cfg: PackConfig, W, opt, bar, tile: int, p: float, curve: _Curve, progress: bool, step: int, keep_grad=False
) -> torch.Tensor:
    """One step: the loss and its gradient (on a curve step, with the max |cos| recorded), Adam, and
    the columns renormalised; returns the per-problem loss.  ``keep_grad``: zero the gradient in place
    rather than dropping it (a captured step reads it where it was captured)."""
    opt.zero_grad(set_to_none=not keep_grad)
    V = normalise(W)
    if step % curve.every == 0:  # sample the curve: loss and max |cos| at this step
        with torch.no_grad():
            total, grad, mx = loss_and_grad(V.detach(), cfg.loss, beta=cfg.beta, p=p, tile=tile, want_max=True)
        V.backward(grad)
        curve.steps.append(step)
        curve.losses.append(total.cpu().numpy())
        curve.eps.append(mx.double().cpu().numpy())
        if progress:
            bar.set_postfix(eps=f"{float(mx.max()):.4f}", refresh=False)
    else:
        total = TiledPackingLoss.apply(V, cfg.loss, cfg.beta, p, tile)
        total.sum().backward()
    opt.step()
    if step % curve.every == 0:
        _check_finite(cfg, total, step, opt)
    with torch.no_grad():
        W.copy_(normalise(W))
    return total


def _result(cfg, seeds, dev, V, final, stats: PackingStats, curve: _Curve, p, lr, tile, t0, devname) -> PackResult:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)  # pragma: no cover (CUDA only)
    seconds = time.perf_counter() - t0
    curve.steps.append(cfg.steps)
    curve.losses.append(final.cpu().numpy())
    curve.eps.append(stats.eps_star)
    return PackResult(
        **{f.name: getattr(stats, f.name) for f in fields(PackingStats)},
        config=asdict(cfg) | {"p_used": p, "lr_used": lr},
        seeds=seeds,
        V=V.float().cpu(),
        curve_steps=np.asarray(curve.steps),
        loss_curve=np.stack(curve.losses, axis=1),
        eps_curve=np.stack(curve.eps, axis=1),
        loss_final=final.cpu().numpy(),
        seconds=seconds,
        device=devname,
        tile=tile,
    )
