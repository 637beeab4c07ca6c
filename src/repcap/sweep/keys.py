"""A sweep point's key, from four explicit parts (:func:`key_parts`).

1. **config**: the point's config normalised through its engine's own settings (defaults filled in,
   one spelling per value: ``alpha=1`` and ``alpha=1.0`` are one point), with the execution-only
   fields (device, threads, tile, CPU chunking) removed: where a point ran does not change what it
   is.  The normaliser of each of repcap's point functions is named in :data:`CONFIG_FORMS`.
2. **code**: the normalised source of every module of the function's import closure, minus the
   declared numerically inert modules (:data:`repcap.codehash.INERT`: orchestration, I/O, paths,
   the hasher, the settings machinery, the error type) and re-export faces
   (:func:`repcap.codehash.numeric_closure`).
3. **data**: the sha256 of every data file that a module of the closure declares it reads
   (``DATA_FILES`` in the module: :func:`repcap.codehash.data_files`).
4. **environment**: the public versions of torch, numpy, scipy and numba, and whether numba is
   importable (the cosine kernels' fallback).

``point_key = sha256(canonical JSON of {"fn", "config", "code": computation digest})``, where the
*computation digest* (:func:`code_digest`) is the sha256 of parts 2 to 4: it is what a results
bundle stores per entry, so that a bundle point is fresh exactly when the code, the data and the
environment it was computed with are this checkout's.  A function defined outside repcap (a
notebook's) has no closure to hash: it is refused unless the caller gives its code digest.
``book/architecture.md`` says what invalidates what.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import typing
from collections.abc import Callable
from typing import Any

from .. import RepcapError, codehash
from .cache import canonical

#: The packages whose versions join every key (their public version: ``2.13.0+cpu`` is ``2.13.0``).
ENV_PACKAGES = ("torch", "numpy", "scipy", "numba")

#: How each of repcap's point functions normalises a config for its key: ``(normaliser, call,
#: execution-only fields)``.  ``normaliser`` is ``module:callable``; ``call`` is ``"dict"`` (it takes
#: the config dict) or ``"kwargs"``; the result (a dict or a dataclass) is turned into a dict and the
#: execution-only fields are dropped.  A test checks that every point function a bundle may name
#: (:data:`repcap.runs.point_functions.POINT_FUNCTIONS`) is here.
CONFIG_FORMS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "repcap.toy.points:train_points": ("repcap.toy.points:sweep_config", "kwargs", ("device", "cpu_chunk_elems")),
    "repcap.toy.overlaps:overlap_points": ("repcap.toy.points:sweep_config", "kwargs", ("device", "cpu_chunk_elems")),
    "repcap.packing.points:sweep_packed": ("repcap.packing.points:pack_config", "dict", ("device", "threads", "tile")),
    "repcap.packing.annealed:sweep_annealed": (
        "repcap.packing.annealed:annealed_config",
        "dict",
        ("device", "threads", "tile"),
    ),
    "repcap.packing.points:sweep_random": ("repcap.sweep.keys:plain_config", "dict", ("device", "threads", "tile")),
    "repcap.packing.points:sweep_projection": ("repcap.sweep.keys:plain_config", "dict", ("device", "threads", "tile")),
    "repcap.survey:describe_point": ("repcap.sweep.keys:plain_config", "dict", ("device", "threads", "tile", "label")),
}


def fn_name(fn: Callable) -> str:
    return f"{fn.__module__}:{getattr(fn, '__qualname__', fn.__name__)}"


def _is_ours(fn: Callable) -> bool:
    return fn.__module__.split(".")[0] == codehash.PACKAGE


def plain_config(config: dict) -> dict:
    """The normaliser of point functions without a settings dataclass: numbers in one spelling
    (an integral float is an int, numpy scalars are Python numbers), everything else as given."""

    def one(v: Any) -> Any:
        if hasattr(v, "item") and callable(v.item) and not isinstance(v, (list, tuple, dict)):
            v = v.item()
        if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
            return int(v)
        if isinstance(v, (list, tuple)):
            return [one(x) for x in v]
        if isinstance(v, dict):
            return {k: one(x) for k, x in v.items()}
        return v

    return {k: one(v) for k, v in config.items()}


@functools.lru_cache(maxsize=64)
def _normaliser(path: str) -> Callable:
    module, name = path.split(":", 1)
    return getattr(importlib.import_module(module), name)


def config_part(fn: Callable, config: dict) -> dict:
    """Part 1: ``config`` as ``fn``'s engine spells it, execution-only fields removed."""
    form = CONFIG_FORMS.get(fn_name(fn))
    if form is None:
        return dict(config)
    path, call, execution = form
    norm = _normaliser(path)
    given = {k: v for k, v in config.items() if k not in execution}
    out = norm(**given) if call == "kwargs" else norm(given)
    if dataclasses.is_dataclass(out) and not isinstance(out, type):
        out = _spelled(out)
    return {k: v for k, v in dict(out).items() if k not in execution}


def _spelled(settings: Any) -> dict:
    """A settings dataclass as a dict, a number in a ``float`` field always a float (``beta=20``
    and ``beta=20.0`` are one setting)."""
    hints = typing.get_type_hints(type(settings))
    out = dataclasses.asdict(settings)
    for name, v in out.items():
        kinds = typing.get_args(hints.get(name)) or (hints.get(name),)
        if float in kinds and isinstance(v, int) and not isinstance(v, bool):
            out[name] = float(v)
    return out


@functools.lru_cache(maxsize=1)
def env_part() -> dict[str, Any]:
    """Part 4: the public versions of :data:`ENV_PACKAGES` (None: not installed) and whether numba
    is importable (without it the cosine kernels take their torch path)."""
    out: dict[str, Any] = {}
    for pkg in ENV_PACKAGES:
        try:
            out[pkg] = importlib.metadata.version(pkg).split("+", 1)[0]
        except importlib.metadata.PackageNotFoundError:
            out[pkg] = None
    out["numba_in_use"] = importlib.util.find_spec("numba") is not None
    return out


def code_part(fn: Callable) -> str:
    """Part 2: the digest of the numerical modules ``fn`` runs."""
    return codehash.numeric_digest([fn.__module__])


def data_part(fn: Callable) -> str:
    """Part 3: the digest of the data files ``fn``'s numerical modules read."""
    return codehash.data_digest([fn.__module__])


def computation_parts(fn: Callable) -> dict[str, Any]:
    """Parts 2 to 4 of ``fn``'s key (refused for a function outside repcap)."""
    if not _is_ours(fn):
        raise RepcapError(
            f"{fn_name(fn)} is defined outside repcap: its code cannot be hashed, so its results would "
            "be served stale after an edit; give its code digest (code=...) to cache it"
        )
    return {"code": code_part(fn), "data": data_part(fn), "env": env_part()}


def code_digest(fn: Callable) -> str:
    """The computation digest of ``fn``: sha256 over its code, data and environment parts."""
    return hashlib.sha256(canonical(computation_parts(fn)).encode()).hexdigest()


def key_parts(fn: Callable, config: dict, code: str | None = None) -> dict[str, Any]:
    """The four parts of a key, by name (``code``: a precomputed :func:`code_digest`)."""
    try:
        cfg = canonical(config_part(fn, config))
    except (TypeError, ValueError) as exc:
        raise RepcapError(f"sweep config {str(config)[:200]} is not plain finite JSON: {exc}") from exc
    return {"fn": fn_name(fn), "config": cfg, "code": code_digest(fn) if code is None else code}


def point_key(fn: Callable, config: dict, code: str | None = None) -> str:
    """The cache key of one point (``code``: a precomputed :func:`code_digest` of ``fn``; required
    for a function defined outside repcap)."""
    parts = key_parts(fn, config, code)
    blob = canonical({"fn": parts["fn"], "code": parts["code"], "config": parts["config"]})
    return hashlib.sha256(blob.encode()).hexdigest()
