"""The point functions of repcap's engines, registered under stable names.

A *point function* computes one sweep point (or a batch of them) from a plain config dict.  Each
registers itself where it is defined::

    @point_function("toy.train", numerics=NUMERICS, normalise=sweep_config, execution=("device",))
    def train_points(configs): ...

and the registry is then the one place that knows, for a name:

* ``numerics``: the numerics version of the engine that computes it (``"toy/1"``): the engine's
  single declaration, bumped when its fingerprints (``tests/fingerprints/``) move;
* ``normalise``: how a config is spelled for the point's identity (defaults filled in, one spelling
  per value), ``call`` saying whether it takes the dict (``"dict"``) or keywords (``"kwargs"``);
* ``execution``: the fields that say where and how the work runs (device, threads, tile size), not
  what it computes, which the identity leaves out;
* ``defaults``: the settings' defaults; a setting at its default is left out of the identity, so a
  new setting whose default keeps the old behaviour moves no identity (a default that changes moves
  the engine's fingerprints, and with them its numerics version);
* ``metrics``: the result fields a comparison of two replicas looks at first;
* ``legacy``: the ``module:qualname`` the function had before the registry (history only: bundles
  of format 1, which named it so, are no longer read, and nothing resolves a function by it);
* ``check``: ``check(config, result) -> reason or None``, what a rigorous bound says a result
  cannot be (:mod:`repcap.sweep.checks` runs it on every cache read and bundle import);
* ``data``: the ``data/reference`` files whose bytes its numbers depend on (``()``: none); None, the
  cautious default, takes every file that a module of its import closure declares it reads
  (``DATA_FILES``), which includes files read only for messages and checks.

A point's identity is :func:`repcap.sweep.keys.point_key`: the name, the numerics version, the
normalised config and the data it reads.  Where the function's module lives, or how its code is
written, is no part of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import RepcapError

_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_-]*)+$")
_NUMERICS = re.compile(r"^[a-z][a-z0-9_-]*/[1-9][0-9]*$")


@dataclass(frozen=True)
class PointFunction:
    """One registered point function (see the module docstring)."""

    name: str
    fn: Callable
    numerics: str
    normalise: Callable[..., Any] | None = None
    call: str = "dict"
    execution: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    batched: bool = False
    metrics: tuple[str, ...] = ()
    legacy: tuple[str, ...] = ()
    check: Callable[[dict, Any], str | None] | None = None
    data: tuple[str, ...] | None = None

    @property
    def engine(self) -> str:
        """The engine that computes it: the part of ``numerics`` before the slash."""
        return self.numerics.split("/", 1)[0]


_REGISTRY: dict[str, PointFunction] = {}


def point_function(
    name: str,
    *,
    numerics: str,
    normalise: Callable[..., Any] | None = None,
    call: str = "dict",
    execution: tuple[str, ...] = (),
    defaults: Mapping[str, Any] | None = None,
    batched: bool = False,
    metrics: tuple[str, ...] = (),
    legacy: tuple[str, ...] = (),
    check: Callable[[dict, Any], str | None] | None = None,
    data: tuple[str, ...] | None = None,
) -> Callable[[Callable], Callable]:
    """Register the decorated function as the point function ``name`` (see the module docstring).
    Registering a name twice with another function is refused (a module imported twice under two
    names would otherwise register two functions)."""
    if not _NAME.match(name):
        raise RepcapError(f"point function name {name!r} must be dotted lower-case words, e.g. 'toy.train'")
    if not _NUMERICS.match(numerics):
        raise RepcapError(f"numerics version {numerics!r} must read 'engine/N', e.g. 'toy/1'")
    if call not in ("dict", "kwargs"):
        raise RepcapError(f"call={call!r} must be 'dict' or 'kwargs'")

    def register(fn: Callable) -> Callable:
        pf = PointFunction(
            name,
            fn,
            numerics,
            normalise,
            call,
            tuple(execution),
            dict(defaults or {}),
            batched,
            metrics,
            legacy,
            check,
            None if data is None else tuple(data),
        )
        old = _REGISTRY.get(name)
        if old is not None and _qualname(old.fn) != _qualname(fn):
            raise RepcapError(f"point function {name} is registered twice: {_qualname(old.fn)} and {_qualname(fn)}")
        _REGISTRY[name] = pf
        fn.__repcap_point__ = name  # type: ignore[attr-defined]
        return fn

    return register


def _qualname(fn: Callable) -> str:
    return f"{fn.__module__}:{getattr(fn, '__qualname__', fn.__name__)}"


def registered(fn: Callable) -> PointFunction | None:
    """The registration of ``fn`` (None for a function that is not a registered point function)."""
    name = getattr(fn, "__repcap_point__", None)
    pf = _REGISTRY.get(name) if isinstance(name, str) else None
    return pf if pf is not None and pf.fn is fn else None


def get(name: str) -> PointFunction:
    """The point function registered as ``name``; one clear line for anything else."""
    if isinstance(name, str) and name in _REGISTRY:
        return _REGISTRY[name]
    raise RepcapError(
        f"point function {str(name)[:80]!r} is not one of repcap's registered point functions ({', '.join(names())})"
    )


def names() -> list[str]:
    """Every registered name, sorted."""
    return sorted(_REGISTRY)


def all_registered() -> list[PointFunction]:
    return [_REGISTRY[n] for n in names()]
