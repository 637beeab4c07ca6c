"""Toy-model sweeps (Liu, Liu & Gore 2025, arXiv:2505.10465): a sweep point is a plain dict of
settings, every :class:`~repcap.engines.settings.toy.ModelSpec` and
:class:`~repcap.engines.settings.toy.TrainConfig` field but the execution ones (``device``,
``cpu_chunk_elems``), plus ``keep_norms``.  Points of one shape and schedule (:func:`group_key`)
train as one batch through :func:`repcap.sweep.run` (``batched=True``)."""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import typing
from collections.abc import Callable, Sequence
from typing import Any

from repcap import RepcapError
from repcap.base import config
from repcap.base.devices import resolve_device
from repcap.engines.settings.toy import EXECUTION_SETTINGS, ModelSpec, TrainConfig
from repcap.sweep.registry import point_function

from .numerics import NUMERICS
from .training import train

#: Settings that may differ inside a batch (ModelSpec's) and those a batch shares (the rest of
#: TrainConfig's); a name in both (``lr``) is a per-model value.
PER_MODEL = tuple(f.name for f in dataclasses.fields(ModelSpec))
SHARED = tuple(
    f.name for f in dataclasses.fields(TrainConfig) if f.name not in EXECUTION_SETTINGS and f.name not in PER_MODEL
)

#: Keys of a sweep config and their defaults (the dataclasses'; for ``lr``, in both, TrainConfig's).
SWEEP_DEFAULTS: dict[str, Any] = {
    **config.defaults(ModelSpec),
    **{k: v for k, v in config.defaults(TrainConfig).items() if k not in EXECUTION_SETTINGS},
    "keep_norms": False,
}

_HINTS = {**typing.get_type_hints(TrainConfig), **typing.get_type_hints(ModelSpec)}


def _spelling(name: str, v: Any) -> Any:
    """One spelling per value, so that ``alpha=1`` and ``alpha=1.0`` share a cache entry."""
    kinds = typing.get_args(_HINTS.get(name)) or (_HINTS.get(name),)
    if v is None or isinstance(v, (bool, str)):
        return v
    if float in kinds and isinstance(v, numbers.Real):
        return float(v)
    if int in kinds and isinstance(v, numbers.Integral):
        return int(v)
    if int in kinds and isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, (tuple, list)):
        return tuple(float(x) for x in v)
    return v


def sweep_config(**kw: Any) -> dict[str, Any]:
    """A complete sweep config (defaults filled in, unknown keys refused, values checked)."""
    extra = set(kw) - set(SWEEP_DEFAULTS)
    if extra:
        raise RepcapError(f"unknown toy sweep keys {sorted(extra)}; known: {sorted(SWEEP_DEFAULTS)}")
    c = {k: _spelling(k, v) for k, v in {**SWEEP_DEFAULTS, **kw}.items()}
    c["keep_norms"] = bool(c["keep_norms"])
    _model(c), _batch(c)  # refuse a bad value now, not when its batch runs
    return c


def _model(c: dict) -> ModelSpec:
    return ModelSpec(**{k: c[k] for k in PER_MODEL})


def _batch(c: dict, device: str = "auto") -> TrainConfig:
    return TrainConfig(**{k: c[k] for k in SHARED}, device=device)


def group_key(config: dict) -> tuple:
    """Configs with equal keys can share one batch (same shape, steps, batch size, schedule)."""
    c = sweep_config(**config)
    return tuple(c[k] for k in SHARED)


#: The execution-only fields of a toy sweep config: where a point runs, not what it computes.
EXECUTION_FIELDS = ("device", "cpu_chunk_elems")


#: What every batched toy sweep function registers with: the toy numerics, its configs normalised by
#: :func:`sweep_config` and passed as keywords; its numbers read no data file.
_register = functools.partial(
    point_function, numerics=NUMERICS, normalise=sweep_config, call="kwargs", batched=True, data=()
)


def toy_point(name: str, *, metrics: tuple[str, ...], legacy: tuple[str, ...]) -> Callable[[Callable], Callable]:
    """Register a batched toy sweep function under ``name`` (the configs of one :func:`group_key` a call)."""
    return _register(name, execution=EXECUTION_FIELDS, defaults=SWEEP_DEFAULTS, metrics=metrics, legacy=legacy)


@toy_point("toy.train", metrics=("loss", "phi_half", "mean_sq_overlap"), legacy=("repcap.toy.points:train_points",))
def train_points(configs: Sequence[dict], device: str = "auto", progress: bool = False) -> list[dict]:
    """Batched sweep function: train every config (all with one :func:`group_key`) as one batch
    and return one result dict per config: ``loss``, ``phi_half``, ``n_represented``,
    ``mean_sq_overlap``, ``mean_sq_overlap_represented``, ``seconds`` (the batch's wall time
    divided by its size), ``device``, ``sampler`` (the data sampler used: ``"auto"`` resolved), and
    ``norms`` when ``keep_norms``."""
    cs = [sweep_config(**c) for c in configs]
    keys = {group_key(c) for c in cs}
    if len(keys) != 1:
        raise RepcapError(
            f"train_points got configs of {len(keys)} different groups; batch them with group_by=toy.group_key"
        )
    res = train([_model(c) for c in cs], _batch(cs[0], device), progress=progress)
    out = []
    for c, d in zip(cs, res.measurements(keep_norms=True)):
        if not c["keep_norms"]:
            d.pop("norms")
        for key, v in d.items():  # JSON has no NaN: an undefined measurement is None
            if isinstance(v, float) and not math.isfinite(v):
                d[key] = None
        d["seconds"] = res.seconds / len(cs)
        d["device"] = res.device
        d["sampler"] = res.sampler
        out.append(d)
    return out


def models_per_batch(n: int, batch: int, budget_bytes: int | None = None, device: str = "auto") -> int:
    """How many models of ``n`` features fit one batch of ``batch`` samples in the memory budget
    (about 8 float32 tensors of shape ``(batch, n)`` per model)."""
    from repcap.base.devices import memory_budget_bytes

    dev = resolve_device(device)
    budget = budget_bytes if budget_bytes is not None else memory_budget_bytes(dev)
    return max(1, int(budget // (8 * 4 * batch * n)))


def run_sweep(
    configs: Sequence[dict],
    cache: str = "toy",
    *,
    progress: bool = True,
    desc: str | None = None,
    max_batch: int | None = None,
) -> Any:
    """Run toy configs through :func:`repcap.sweep.run`, batched by :func:`group_key`; returns a
    pandas DataFrame with one row per config (config columns + results, ``norms`` dropped unless
    asked for)."""
    import pandas as pd

    from repcap import sweep

    cs = [sweep_config(**c) for c in configs]
    if max_batch is None and cs:
        max_batch = min(models_per_batch(c["n"], c["batch"]) for c in cs)
    rep = sweep.run(
        train_points,
        cs,
        cache=cache,
        batched=True,
        group_by=group_key,
        max_batch=max_batch,
        desc=desc or "toy models",
        progress=progress,
    )
    rows = [{**c, **r} for c, r in zip(cs, rep.results)]
    return pd.DataFrame(rows)
