"""A sweep point's identity: *what* it computes, never *where* or *with which bits*.

For a point function registered with :func:`repcap.sweep.registry.point_function`, the key is the
sha256 of the canonical JSON of four parts (:func:`key_parts`):

1. **fn**: the function's stable registered name (``"toy.train"``), not its module path;
2. **numerics**: the numerics version of the engine that computes it (``"toy/1"``), declared once
   per engine and bumped when the engine's fingerprints move (``tests/fingerprints/``);
3. **config**: the config as the engine spells it (its normaliser: defaults filled in, one spelling
   per value, ``alpha=1`` and ``alpha=1.0`` one point), minus the execution-only fields (device,
   threads, tile, CPU chunking: where a point ran does not change what it is) and minus the
   settings at their defaults (so that a setting added with a default that keeps the old behaviour
   moves no key);
4. **data**: the sha256 of the data files its numbers depend on, as the function registered them
   (``data=``; the packing and toy engines read none), else every data file that a module of its
   import closure declares it reads (``DATA_FILES``: :func:`repcap.sweep.codehash.data_files`).

Parts 2 and 4 enter the key as one digest, :func:`computation_digest`, which a caller may compute
once for many configs (:func:`code_digest`).  The engine's source text, the package versions and the
machine are *provenance* (:mod:`.provenance`): recorded once with each result when it is computed, shown, compared, never
part of the key.  ``book/architecture.md`` says what makes a point stale and what only annotates it.

A function that is not registered (a notebook's, a test's) has no numerics version: it is refused
unless the caller gives a code digest of its own (``code=...``), which then stands for parts 2 and 4.
"""

from __future__ import annotations

import dataclasses
import hashlib
import typing
from collections.abc import Callable
from typing import Any

from repcap import RepcapError
from repcap.sweep import codehash

from .files import canonical
from .registry import PointFunction, registered


def fn_name(fn: Callable) -> str:
    """The name a point function goes by: its registered name, else ``module:qualname``."""
    pf = registered(fn)
    if pf is not None:
        return pf.name
    return f"{fn.__module__}:{getattr(fn, '__qualname__', fn.__name__)}"


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


def spelled(settings: Any) -> dict:
    """A settings dataclass as a dict, a number in a ``float`` field always a float (``beta=20``
    and ``beta=20.0`` are one setting)."""
    hints = typing.get_type_hints(type(settings))
    out = dataclasses.asdict(settings)
    for name, v in out.items():
        kinds = typing.get_args(hints.get(name)) or (hints.get(name),)
        if float in kinds and isinstance(v, int) and not isinstance(v, bool):
            out[name] = float(v)
    return out


def _normalised(pf: PointFunction, config: dict) -> dict:
    given = {k: v for k, v in config.items() if k not in pf.execution}
    if pf.normalise is None:
        out: Any = plain_config(given)
    else:
        out = pf.normalise(**given) if pf.call == "kwargs" else pf.normalise(given)
    if dataclasses.is_dataclass(out) and not isinstance(out, type):
        out = spelled(out)
    return {k: v for k, v in dict(out).items() if k not in pf.execution}


def _plain_json(v: Any) -> str:
    """A value in plain spelling as canonical JSON (``20`` and ``20.0`` alike), for comparing a
    setting with its default."""
    return canonical(plain_config({"v": v})["v"])


_DEFAULTS: dict[str, dict[str, str]] = {}


def _defaults(pf: PointFunction) -> dict[str, str]:
    """The registered defaults in plain spelling, as canonical JSON (worked out once per name)."""
    if pf.name not in _DEFAULTS:
        _DEFAULTS[pf.name] = {k: _plain_json(v) for k, v in pf.defaults.items() if k not in pf.execution}
    return _DEFAULTS[pf.name]


def config_part(fn: Callable, config: dict) -> dict:
    """Part 3: ``config`` as ``fn``'s engine spells it, execution-only fields and settings at their
    defaults removed (a function that is not registered: the config in plain spelling)."""
    pf = registered(fn)
    if pf is None:
        return plain_config(dict(config))
    full = _normalised(pf, config)
    defaults = _defaults(pf)
    try:
        return {k: v for k, v in full.items() if not (k in defaults and _plain_json(v) == defaults[k])}
    except (TypeError, ValueError) as exc:
        raise RepcapError(f"sweep config {str(config)[:200]} is not plain finite JSON: {exc}") from exc


def data_part(fn: Callable) -> str:
    """Part 4: the digest of the data files ``fn``'s numbers depend on: those it registered
    (``data=``), else every file its modules declare they read."""
    pf = registered(fn)
    if pf is not None and pf.data is not None:
        return codehash.files_digest(pf.data)
    return codehash.data_digest([fn.__module__])


def computation_parts(fn: Callable) -> dict[str, Any]:
    """Parts 2 and 4 of a registered function's key, ``{"numerics", "data"}`` (refused for a
    function that is not registered: it has no numerics version)."""
    pf = registered(fn)
    if pf is None:
        raise RepcapError(
            f"{fn_name(fn)} is not a registered point function (repcap.sweep.registry): it has no numerics "
            "version, so its results would be served after any edit; give a code digest (code=...) to cache it"
        )
    return {"numerics": pf.numerics, "data": data_part(fn)}


def computation_digest(numerics: str, data: str) -> str:
    """The digest that stands for parts 2 and 4 in a key: sha256 of ``{"numerics", "data"}``."""
    return hashlib.sha256(canonical({"numerics": numerics, "data": data}).encode()).hexdigest()


def code_digest(fn: Callable) -> str:
    """:func:`computation_digest` of a registered function as this checkout defines it: what may be
    computed once and passed to :func:`point_key` as ``code`` for many configs."""
    parts = computation_parts(fn)
    return computation_digest(parts["numerics"], parts["data"])


def key_parts(fn: Callable, config: dict, code: str | None = None) -> dict[str, Any]:
    """The parts of a key, by name: ``fn`` (the registered name), ``config`` (canonical JSON of
    :func:`config_part`) and ``computation`` (``code`` if given, else :func:`code_digest`; required
    for a function that is not registered)."""
    try:
        cfg = canonical(config_part(fn, config))
    except (TypeError, ValueError) as exc:
        raise RepcapError(f"sweep config {str(config)[:200]} is not plain finite JSON: {exc}") from exc
    return {"fn": fn_name(fn), "config": cfg, "computation": code_digest(fn) if code is None else code}


def point_key(fn: Callable, config: dict, code: str | None = None) -> str:
    """The cache key of one point: sha256 of :func:`key_parts`.  ``code``: a precomputed
    :func:`code_digest` (or, for a function that is not registered, the digest of its code)."""
    return hashlib.sha256(canonical(key_parts(fn, config, code)).encode()).hexdigest()
