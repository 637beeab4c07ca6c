"""Settings of a toy-model run (Liu, Liu & Gore 2025, arXiv:2505.10465): :class:`ModelSpec` holds
the values that may differ between the models of one batch, :class:`TrainConfig` those the batch
shares.  Their fields are the single source of every default, type, help text and check: the
``repcap toy`` flags and the sweep configs (:mod:`repcap.engines.toy.points`) derive from them; :mod:`repcap.engines.toy` re-exports them.
Defaults are the paper's main sweep; the large run (exp-17) is ``n=10240``, ``batch=8192``,
``steps=40000``, ``lr_rule="liu-exp17"``, ``warmup_fraction=0.05``, ``loss_window=100``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

from repcap import RepcapError
from repcap.base import config

#: The feature-frequency distributions :func:`repcap.engines.toy.frequencies` knows.
DISTRIBUTIONS = ("power", "exp", "linear", "density")
#: The peak-lr rules :func:`repcap.engines.toy.schedule.rule_lrs` knows.
LR_RULES = ("constant", "liu-exp17")
#: The data samplers a run may ask for (:func:`repcap.engines.toy.sparse_data.choose_sampler`
#: resolves ``"auto"``).
SAMPLERS = ("auto", "dense", "sparse")

#: TrainConfig settings that say where and how the work runs, not what it computes (a sweep point
#: is not keyed on them).
EXECUTION_SETTINGS = ("device", "cpu_chunk_elems")


def warmup_steps(steps: int, warmup: int | None = None, fraction: float | None = None) -> int:
    """Warm-up length: ``warmup`` if given, else ``round(fraction * steps)`` if given, else
    ``steps // 10`` (the main sweep's 2000 of 20000)."""
    if warmup is not None:
        return int(warmup)
    if fraction is not None:
        return int(round(float(fraction) * steps))
    return steps // 10


def _count(name: str, v: Any) -> None:
    """A positive integer (numpy integers too); None passes (an optional count)."""
    if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1):
        raise RepcapError(f"{name}={v!r} must be a positive integer")


def _steps(name: str, v: Any) -> None:
    """A number of steps, 0 allowed; None passes."""
    if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0):
        raise RepcapError(f"{name}={v!r} must be an integer >= 0")


def _rate(name: str, v: Any) -> None:
    """A learning rate: a finite number > 0; None passes (decided elsewhere)."""
    if v is None:
        return
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not (math.isfinite(float(v)) and float(v) > 0):
        raise RepcapError(f"{name}={v!r} must be a finite number > 0")


def _betas(name: str, v: Any) -> None:
    ok = (
        isinstance(v, (tuple, list))
        and len(v) == 2
        and all(isinstance(b, numbers.Real) and not isinstance(b, bool) and 0 <= float(b) < 1 for b in v)
    )
    if not ok:
        raise RepcapError(f"{name}={v!r} must be two numbers in [0, 1)")


@dataclass
class ModelSpec:
    """Per-model values (they may differ inside one batch)."""

    alpha: float = config.setting(
        1.0, "power-law exponent of the feature frequencies p_i ∝ i^-alpha", check=config.at_least(0.0)
    )
    gamma: float = config.setting(0.0, "signed weight decay: < 0 strong, >= 0 weak superposition", check=config.finite)
    seed: int = config.setting(0, "seed of the model's initialisation and of its own data stream", check=config.seed)
    lr: float | None = config.setting(None, "this model's peak learning rate of W; None: the batch's (lr)", check=_rate)
    bias_lr: float | None = config.setting(
        None, "this model's peak learning rate of b; None: the lr rule's (liu-exp17: 2/m), else the W rate", check=_rate
    )
    distribution: str = config.setting(
        "power", "feature-frequency distribution (see toy.frequencies)", choices=DISTRIBUTIONS
    )
    tau: float = config.setting(400.0, "scale of the exp distribution p_i ∝ exp(-i/tau)", check=config.positive)
    density: float = config.setting(
        1.0, "expected active features per sample for the density distribution", check=config.positive
    )

    def __post_init__(self) -> None:
        config.check(self)


@dataclass
class TrainConfig:
    """Shared by every model of a batch.  Defaults are the paper's main sweep."""

    n: int = config.setting(1000, "number of features (paper: 1000; large run 10240)", check=_count)
    m: int = config.setting(10, "hidden width (paper: 10..100; large run 8..1024)", check=_count)
    steps: int = config.setting(20000, "optimiser steps (paper: 20000; large run 40000)", check=_count)
    batch: int = config.setting(2048, "samples per step (paper: 2048; large run 8192)", check=_count)
    lr: float | None = config.setting(
        None, "peak learning rate of W for the models without their own; None: the lr rule's", check=_rate
    )
    lr_rule: str = config.setting(
        "constant",
        "peak learning rates by width: constant (1e-2 for W and b, the main sweep) or liu-exp17 "
        "(the large run: W 0.02 (8/m)^(1/4), b 2/m)",
        choices=LR_RULES,
    )
    warmup: int | None = config.setting(
        None, "warm-up steps; None: warmup_fraction x steps, else steps // 10 (paper: 2000 of 20000)", check=_steps
    )
    warmup_fraction: float | None = config.setting(
        None, "warm-up as a fraction of the steps (large run: 0.05); None: steps // 10", check=config.between(0.0, 1.0)
    )
    final_lr_frac: float = config.setting(
        0.05, "the cosine decays to this fraction of the peak (paper: 0.05)", check=config.between(0.0, 1.0)
    )
    betas: tuple[float, float] = config.setting((0.9, 0.999), "Adam betas (paper: 0.9 0.999)", check=_betas)
    eps: float = config.setting(1e-8, "Adam epsilon (torch default)", check=config.positive)
    loss_window: int | None = config.setting(
        None, "last steps averaged for the final loss (large run: 100); None: max(1, steps // 20)", check=_count
    )
    sampler: str = config.setting(
        "auto",
        "data sampler: dense (B x n uniforms a step), sparse (geometric gaps between active samples, "
        "O(B sum p); with a sparse forward/backward) or auto (sparse for n >= 512 on a CPU, and on a GPU where the fused "
        "kernel runs, else dense); dense and sparse draw different streams of one distribution",
        choices=SAMPLERS,
    )
    device: str = config.setting("auto", "auto | cpu | cuda[:N]")
    cpu_chunk_elems: int | None = config.setting(
        1 << 17,
        "on the CPU, the forward/backward runs over groups of models with at most this many "
        "batch x n entries (cache-sized; the sparse sampler's path 8x as many); None: all at once",
        check=_count,
        cli=False,
    )

    def __post_init__(self) -> None:
        if isinstance(self.betas, list):
            self.betas = tuple(self.betas)
        self.validate()

    def resolved_warmup(self) -> int:
        return warmup_steps(int(self.steps), self.warmup, self.warmup_fraction)

    def resolved_window(self) -> int:
        w = max(1, self.steps // 20) if self.loss_window is None else int(self.loss_window)
        return min(max(1, w), self.steps)

    def validate(self) -> None:
        """Every field's check, then the checks across fields (run again by :func:`train`)."""
        config.check(self)
        if self.warmup is not None and self.warmup_fraction is not None:
            raise RepcapError(f"warmup={self.warmup!r} and warmup_fraction={self.warmup_fraction!r}: give one of them")
        if not 0 <= self.resolved_warmup() <= self.steps:
            raise RepcapError(f"warmup={self.warmup!r} must lie in 0..steps ({self.steps})")
