"""Sweep points for :mod:`repcap.sweep`: module-level functions, JSON in and out (Guha 2026's
optimised grid and random baseline, Yoder 2025's random projections).

A config dict holds :class:`PackConfig` fields (or the baseline functions' arguments); a setting
left out takes the dataclass's (or the function's) default, an unknown key is refused.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from repcap import RepcapError
from repcap.base import config
from repcap.engines.settings.packing import MinimaxConfig, PackConfig
from repcap.sweep.registry import point_function

from ..feasible import packing_result
from .baselines import projection_distortion, random_eps_star
from .minimax import solve
from .numerics import MINIMAX, NUMERICS
from .optimiser import optimise

#: The settings a batch of :func:`sweep_packed` shares: every field but the seed.
GROUP_FIELDS = tuple(f.name for f in dataclasses.fields(PackConfig) if f.name != "seed")


def _plain(values: dict) -> dict:
    """Numpy scalars (from a grid) as Python numbers."""
    return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in values.items()}


def pack_config(values: dict) -> PackConfig:
    """A :class:`PackConfig` from a sweep config dict (missing settings take their defaults)."""
    return config.from_mapping(PackConfig, _plain(values), "packing sweep config")


#: The execution-only fields of a packing sweep config: where a point runs, not what it computes.
EXECUTION_FIELDS = ("device", "threads", "tile")


def settings_point(name: str, settings: type, normalise, numerics: str, **kw):
    """Register a packing sweep point whose config is a ``settings`` dataclass (normalised by
    ``normalise``, its defaults filled in), run where :data:`EXECUTION_FIELDS` say; ``kw`` as
    :func:`repcap.sweep.point_function` takes them."""
    defaults = config.defaults(settings)
    return point_function(
        name, numerics=numerics, normalise=normalise, execution=EXECUTION_FIELDS, defaults=defaults, **kw
    )


@settings_point(
    "packing.optimise",
    PackConfig,
    pack_config,
    NUMERICS,
    batched=True,
    metrics=("eps_star", "mean_abs"),
    # a decaying-rate run had a point function of its own before the schedule joined PackConfig
    # (lr_floor); its configs all name their lr_floor, so they are this function's as they stand
    legacy=("repcap.packing.points:sweep_packed", "repcap.packing.annealed:sweep_annealed"),
    data=(),  # its numbers read no data file (the bounds a check reads are not its numbers)
    check=packing_result,
)
def sweep_packed(configs: list[dict]) -> list[dict]:
    """Batched sweep point: configs that differ only in ``seed`` are optimised as one batch.
    Each config: :class:`PackConfig` fields (``k, d`` at least).  Returns per config the
    :meth:`PackResult.summary` (with the |cos| histogram) plus the curves."""
    cfgs = [pack_config(c) for c in configs]
    base = cfgs[0]
    if any(dataclasses.replace(c, seed=base.seed) != base for c in cfgs[1:]):
        raise RepcapError(f"sweep_packed: a batch must share every setting but the seed ({', '.join(GROUP_FIELDS)})")
    res = optimise(base, seeds=[c.seed for c in cfgs], progress=False)
    outs = []
    for b in range(len(configs)):
        s = res.summary(b)
        s["curve_steps"] = res.curve_steps.tolist()
        s["eps_curve"] = res.eps_curve[b].tolist()
        s["loss_curve"] = res.loss_curve[b].tolist()
        s["seconds"] = res.seconds / len(configs)
        outs.append(s)
    return outs


def minimax_config(values: dict) -> MinimaxConfig:
    """A :class:`MinimaxConfig` from a sweep config dict (missing settings take their defaults)."""
    return config.from_mapping(MinimaxConfig, _plain(values), "minimax sweep config")


@settings_point(
    "packing.minimax",
    MinimaxConfig,
    minimax_config,
    MINIMAX,
    metrics=("eps_star", "mean_abs"),
    data=(),  # its numbers read no data file
    check=packing_result,
)
def sweep_minimax(config_: dict) -> dict:
    """Sweep point for the minimax method (:mod:`.minimax`): :class:`MinimaxConfig` fields (``k, d``
    at least).  Returns :meth:`MinimaxResult.summary`."""
    return solve(minimax_config(config_), progress=False).summary()


def packed_group(config_: dict) -> tuple:
    """``group_by`` for :func:`sweep_packed`: every setting but the seed (defaults filled in)."""
    full = config.defaults(PackConfig) | _plain(config_)
    return tuple(full.get(x) for x in GROUP_FIELDS)


def _arguments(values: dict, required: tuple, optional: tuple, what: str) -> dict:
    bad = sorted(set(values) - set(required) - set(optional))
    if bad or any(r not in values for r in required):
        raise RepcapError(
            f"{what} config {sorted(values)}: needs {', '.join(required)}, may have {', '.join(optional)}"
        )
    return _plain(values)


@point_function(
    "packing.random",
    numerics=NUMERICS,
    execution=EXECUTION_FIELDS,
    metrics=("eps_star",),
    legacy=("repcap.packing.points:sweep_random",),
    data=(),  # its numbers read no data file (the bounds a check reads are not its numbers)
    check=packing_result,
)
def sweep_random(config_: dict) -> dict:
    """Sweep point for Guha's random baseline: ``k, d`` and optionally ``trials, seed``
    (:func:`random_eps_star`'s defaults)."""
    c = _arguments(config_, ("k", "d"), ("trials", "seed"), "sweep_random")
    t0 = time.perf_counter()
    out = random_eps_star(c.pop("k"), c.pop("d"), **c)
    return {**out, "k": int(config_["k"]), "d": int(config_["d"]), "seconds": time.perf_counter() - t0}


@point_function(
    "packing.projection",
    numerics=NUMERICS,
    execution=EXECUTION_FIELDS,
    legacy=("repcap.packing.points:sweep_projection",),
    data=(),  # its numbers read no data file (the bounds a check reads are not its numbers)
)
def sweep_projection(config_: dict) -> dict:
    """Sweep point for a random projection: ``N, k`` and optionally ``kind, seed``
    (:func:`projection_distortion`'s defaults)."""
    c = _arguments(config_, ("N", "k"), ("kind", "seed"), "sweep_projection")
    return projection_distortion(c.pop("N"), c.pop("k"), **c)
