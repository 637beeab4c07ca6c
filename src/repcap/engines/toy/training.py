"""Batched training of the toy model (Liu, Liu & Gore 2025, arXiv:2505.10465): many models of one
shape ``(n, m)`` trained at once, every tensor with a leading model axis (``W: (M, n, m)``).

Each step: a fresh batch per model (:func:`~repcap.engines.toy.data.sample_batch`, or its active entries
only, :class:`~repcap.engines.toy.sparse_data.SparseSampler`, by ``TrainConfig.sampler``) -> loss and
analytic gradient (:func:`~repcap.engines.toy.model.loss_and_grad`, or
:func:`~repcap.engines.toy.sparse_model.sparse_loss_and_grad` for sparse data) -> signed decay of ``W``
(:func:`~repcap.engines.toy.optim.decay_`) -> Adam steps of ``W`` and ``b`` with their own learning rates
(:mod:`repcap.engines.toy.schedule`).  Every model draws its initialisation and its data from its own
generator seeded with its ``seed``, so a model trained in a batch equals the same model trained
alone (up to float round-off).  On CUDA with triton the sparse path's draws (counted, keyed by each
model's seed) and its forward/backward run as Triton kernels (:mod:`repcap.engines.toy.fused`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from repcap import RepcapError, show_progress
from repcap.base import config
from repcap.base.devices import cpu_threads, resolve_device
from repcap.engines.settings.toy import ModelSpec, TrainConfig

from ..cosine.switch import usable as fused_usable
from .data import frequencies, sample_batch
from .measurements import measure
from .model import init_params, loss_and_grad
from .optim import AdamState, adam_, decay_, gamma_signs
from .schedule import peak_lrs, schedule
from .sparse_data import SparseSampler, choose_sampler
from .sparse_model import SparseWorkspace, sparse_loss_and_grad


@dataclass
class TrainResult:
    """Trained parameters and per-model measurements (CPU tensors).

    ``W: (M, n, m)``, ``b: (M, n)``, ``loss: (M,)`` float64 (final loss, summed over features),
    ``curve: (M, n_points)`` float64 per-step loss averaged over logging intervals,
    ``curve_steps: (n_points,)`` the last step of each interval.  The learning rates used:
    ``lr: (M,)`` and ``bias_lr: (M,)`` the peak rates of ``W`` and ``b``, ``schedule: (steps,)``
    the multiplier of each step (model ``k`` stepped ``W`` at ``lr[k] * schedule[t]`` at step ``t``);
    ``sampler`` the data sampler used (``"dense"`` or ``"sparse"``, ``cfg.sampler`` resolved).
    """

    W: torch.Tensor
    b: torch.Tensor
    loss: torch.Tensor
    curve: torch.Tensor
    curve_steps: torch.Tensor
    specs: list[ModelSpec]
    config: TrainConfig
    seconds: float
    device: str
    lr: torch.Tensor
    bias_lr: torch.Tensor
    schedule: torch.Tensor
    sampler: str = "dense"

    def measurements(self, keep_norms: bool = False) -> list[dict[str, Any]]:
        """One dict per model: loss, phi_half, mean_sq_overlap(_represented), n_represented."""
        meas = measure(self.W)
        out = []
        for k in range(self.W.shape[0]):
            d = {"loss": float(self.loss[k]), **{key: _py(v[k]) for key, v in meas.items() if key != "norms"}}
            if keep_norms:
                d["norms"] = [round(float(x), 6) for x in meas["norms"][k]]
            out.append(d)
        return out


def _py(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def _specs(models: Sequence[ModelSpec | dict]) -> list[ModelSpec]:
    out = []
    for s in models:
        if isinstance(s, ModelSpec):
            out.append(config.check(s))  # a spec may have been changed since it was made
        elif isinstance(s, dict):
            out.append(config.from_mapping(ModelSpec, s, "model spec"))
        else:
            raise RepcapError(f"a model spec must be a ModelSpec or a dict, got {type(s).__name__}")
    if not out:
        raise RepcapError("train() needs at least one model")
    return out


class _Models:
    """The batch's per-model values and its state: ``p: (M, n)``, ``gamma, peak_w, peak_b: (M,)``
    float32 (``rates: (M, 2)``: the peak rates of W and b in float64), ``W: (M, n, m)``,
    ``b: (M, n)``, the generators and the Adam moments."""

    def __init__(self, specs: list[ModelSpec], cfg: TrainConfig, dev: torch.device):
        n, m = int(cfg.n), int(cfg.m)
        self.p = torch.stack([frequencies(n, s.distribution, s.alpha, s.tau, s.density) for s in specs]).to(
            dev, torch.float32
        )
        self.gamma = torch.tensor([float(s.gamma) for s in specs], dtype=torch.float32, device=dev)
        lrs = [peak_lrs(cfg.lr_rule, m, cfg.lr, s.lr, s.bias_lr) for s in specs]
        self.rates = torch.tensor(lrs, dtype=torch.float64)  # (M, 2): the peak rates of W and b, as given
        self.peak_w = self.rates[:, 0].to(dev, torch.float32)
        self.peak_b = self.rates[:, 1].to(dev, torch.float32)
        self.signs = gamma_signs(s.gamma for s in specs)
        self.seeds = [int(s.seed) for s in specs]
        self.W, self.b, self.gens = init_params(n, m, [s.seed for s in specs], dev)
        self.sW, self.sb = AdamState.zeros_like(self.W), AdamState.zeros_like(self.b)

    def step_(self, dW: torch.Tensor, db: torch.Tensor, mult: float, cfg: TrainConfig) -> None:
        """Decay, then Adam, at ``mult`` x the peak rates."""
        lr = self.peak_w * mult
        decay_(self.W, lr, self.gamma, signs=self.signs)
        adam_(self.W, dW, self.sW, lr, cfg.betas, cfg.eps)
        adam_(self.b, db, self.sb, self.peak_b * mult, cfg.betas, cfg.eps)


#: On the CPU the sparse path groups up to this many times ``cpu_chunk_elems`` entries: its work
#: tensor is ``B' x n`` (about 0.6 ``B x n``) and its per-step cost has a fixed part of ~100 small
#: ops per group.  Measured (one thread, 16-32 models): 2^20 entries a group was within 10% of the
#: best of 2^17 .. 2^22 at n = 128, 256 and 512 and 1.3-2x faster than 2^17; at n = 1000, batch
#: 2048, one model a group (any limit below 2^22) was fastest.
SPARSE_CHUNK_FACTOR = 8


class _Workspace:
    """Buffers reused every step, and the groups of models one forward/backward covers: all of
    them on a GPU; on the CPU as many as keep the ``(group, B, n)`` work tensors cache-sized
    (memory-bound ops slow down ~2x beyond that).  ``sampler``: ``"dense"`` (``x: (group, B, n)``
    and :func:`~repcap.engines.toy.model.loss_and_grad`) or ``"sparse"`` (the active entries only,
    :class:`~repcap.engines.toy.sparse_data.SparseSampler` and
    :func:`~repcap.engines.toy.sparse_model.sparse_loss_and_grad`)."""

    def __init__(self, models: _Models, cfg: TrainConfig, dev: torch.device, sampler: str):
        M, n = models.p.shape
        B = self.B = int(cfg.batch)
        self.sparse = sampler == "sparse"
        limit = int(cfg.cpu_chunk_elems or 0) * (SPARSE_CHUNK_FACTOR if self.sparse else 1)
        per = max(1, limit // (B * n)) if dev.type == "cpu" and limit else M
        per = min(per, M)
        self.groups = [(a, min(M, a + per)) for a in range(0, M, per)]
        if self.sparse:
            # on CUDA one Triton kernel a step and counted draws for the whole group (repcap.engines.toy.fused),
            # else torch ops and each model's generator
            self.fused = fused_usable(dev)
            self.samplers: list[SparseSampler]
            if self.fused:  # pragma: no cover (CUDA only; tests/unit runs both under Triton's interpreter)
                from .fused import CounterSampler

                self.samplers = [CounterSampler(models.p[a:e], B, models.seeds[a:e]) for a, e in self.groups]
            else:
                self.samplers = [SparseSampler(models.p[a:e], B) for a, e in self.groups]
                self.sparse_ws = SparseWorkspace(per, B, n, int(cfg.m), dev)
        else:
            self.scratch = torch.empty((per, B, n), dtype=torch.float32, device=dev)
            self.z_buf = torch.empty_like(self.scratch)
            self.bool_buf = torch.empty((per, B, n), dtype=torch.bool, device=dev)  # data mask, then z > 0
        self.dW = torch.empty_like(models.W)
        self.db = torch.empty_like(models.b)
        self.loss_sum = torch.zeros(M, dtype=torch.float64, device=dev)

    def _group(
        self, models: _Models, j: int, need_loss: bool
    ) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
        a, e = self.groups[j]
        if self.sparse:
            xs = self.samplers[j].sample(models.gens[a:e])
            if self.fused:  # pragma: no cover (CUDA only; tests/unit runs the kernel under Triton's interpreter)
                from .fused import fused_loss_and_grad

                return fused_loss_and_grad(xs, models.W[a:e], models.b[a:e], need_loss=need_loss)
            return sparse_loss_and_grad(xs, models.W[a:e], models.b[a:e], need_loss=need_loss, ws=self.sparse_ws)
        k = e - a
        x = sample_batch(models.p[a:e], self.B, models.gens[a:e], out=self.scratch[:k], mask=self.bool_buf[:k])
        return loss_and_grad(
            x, models.W[a:e], models.b[a:e], need_loss=need_loss, z_buf=self.z_buf[:k], pos_buf=self.bool_buf[:k]
        )

    def gradients(self, models: _Models, need_loss: bool) -> tuple[torch.Tensor, torch.Tensor]:
        """Fresh data and the gradients ``(dW, db)`` of every model; the losses go to ``loss_sum``."""
        single = len(self.groups) == 1
        for j, (a, e) in enumerate(self.groups):
            ls, gW, gb = self._group(models, j, need_loss)
            if ls is not None:
                self.loss_sum[a:e] = ls
            if single:
                return gW, gb
            self.dW[a:e] = gW
            self.db[a:e] = gb
        return self.dW, self.db


class _LossLog:
    """The loss curve (``n_curve`` intervals, logged every few steps) and the final loss (every
    step of the last ``window``)."""

    def __init__(self, M: int, steps: int, window: int, n_curve: int, dev: torch.device, every_step: bool):
        self.steps, self.window, self.every_step = steps, window, every_step
        n_curve = max(1, min(n_curve, steps))
        self.edges = np.linspace(0, steps, n_curve + 1).astype(int)
        self.every = max(1, steps // (4 * n_curve))  # outside the final window the loss is logged every few steps
        self.curve = torch.zeros((M, n_curve), dtype=torch.float64, device=dev)
        self.counts = np.zeros(n_curve)
        self.tail = torch.zeros(M, dtype=torch.float64, device=dev)
        self.seg = 0

    def in_tail(self, step: int) -> bool:
        return step >= self.steps - self.window

    def needs(self, step: int) -> bool:
        return self.in_tail(step) or step % self.every == 0 or self.every_step

    def record(self, step: int, loss_sum: torch.Tensor | None) -> None:
        while step >= self.edges[self.seg + 1]:
            self.seg += 1
        if loss_sum is not None:
            if self.in_tail(step):
                self.tail += loss_sum
            self.curve[:, self.seg] += loss_sum
            self.counts[self.seg] += 1

    def results(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(loss: (M,), curve: (M, n_curve), curve_steps: (n_curve,))`` on the CPU."""
        counts = torch.tensor(self.counts, dtype=torch.float64, device=self.curve.device).clamp_min(1)
        return ((self.tail / self.window).cpu(), (self.curve / counts).cpu(), torch.tensor(self.edges[1:] - 1))


def train(
    models: Sequence[ModelSpec | dict],
    config: TrainConfig | None = None,
    *,
    progress: bool = False,
    n_curve: int = 50,
    callback: Callable[[int, torch.Tensor], None] | None = None,
) -> TrainResult:
    """Train ``len(models)`` toy models of one shape ``(config.n, config.m)`` as one batch.

    ``callback(step, loss_sum)`` (``loss_sum: (M,)``) is called after every step if given.  On the
    CPU the work runs in cache-sized groups of many short ops, on one thread
    (:class:`repcap.base.devices.cpu_threads`).
    """
    cfg = config or TrainConfig()
    cfg.validate()
    work = cfg.cpu_chunk_elems if cfg.cpu_chunk_elems else 1 << 30
    with cpu_threads(resolve_device(cfg.device), work):
        return _train(_specs(models), cfg, progress=progress, n_curve=n_curve, callback=callback)


def _train(specs: list[ModelSpec], cfg: TrainConfig, *, progress: bool, n_curve: int, callback) -> TrainResult:
    from tqdm.auto import trange

    dev = resolve_device(cfg.device)
    steps, M = int(cfg.steps), len(specs)
    models = _Models(specs, cfg, dev)
    sampler = choose_sampler(cfg.sampler, models.p, dev)
    ws = _Workspace(models, cfg, dev, sampler)
    log = _LossLog(M, steps, cfg.resolved_window(), n_curve, dev, every_step=callback is not None)
    mults = schedule(steps, cfg.resolved_warmup(), cfg.final_lr_frac)
    t0 = time.perf_counter()
    bar = trange(
        steps, disable=not show_progress(progress), desc=f"toy n={cfg.n} m={cfg.m} x{M}", leave=False, unit="step"
    )
    for step in bar:
        need = log.needs(step)
        dW, db = ws.gradients(models, need)
        models.step_(dW, db, mults[step], cfg)
        log.record(step, ws.loss_sum if need else None)
        if callback is not None:
            callback(step, ws.loss_sum)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)  # pragma: no cover (CUDA only)
    seconds = time.perf_counter() - t0
    if not torch.isfinite(models.W).all():
        bad = [i for i in range(M) if not torch.isfinite(models.W[i]).all()]
        raise RepcapError(f"training diverged (non-finite weights) for models {bad}; lower the learning rate")
    loss, curve, curve_steps = log.results()
    return TrainResult(
        W=models.W.cpu(),
        b=models.b.cpu(),
        loss=loss,
        curve=curve,
        curve_steps=curve_steps,
        specs=specs,
        config=cfg,
        seconds=seconds,
        device=str(dev),
        lr=models.rates[:, 0].clone(),
        bias_lr=models.rates[:, 1].clone(),
        schedule=torch.tensor(mults, dtype=torch.float64),
        sampler=sampler,
    )
