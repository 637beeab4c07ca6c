"""Results read back from the cache, held to what the engine that computes them knows cannot be.

An entry's checksum finds damage, not forgery.  A point function whose results obey a rigorous
bound registers a check with it (``check(config, result) -> reason or None``,
:func:`repcap.sweep.registry.point_function`); :func:`read` is :meth:`Cache.get` followed by that
check, and an impossible result is reported in one line and treated as absent (computed again, and
overwritten).  A bundle's import runs the same check on every entry.  :func:`repcap.sweep.run`, the tasks and the
time budget of :func:`repcap.results.runs.compute` read through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cache import Cache
from .files import warn
from .registry import get, registered


def impossible(fn: Callable | str, config: dict, result: Any) -> str | None:
    """Why ``result`` cannot be ``fn``'s at ``config`` (None if it can, or ``fn`` registered no
    check).  ``fn``: a point function or its registered name."""
    pf = registered(fn) if callable(fn) else get(fn)
    check = pf.check if pf is not None else None
    return None if check is None else check(config, result)


def read(store: Cache, fn: Callable | str, key: str, config: dict) -> dict | None:
    """:meth:`Cache.get` of ``key``, and None (with one line) where the result is impossible."""
    result = store.get(key)
    if result is None:
        return None
    why = impossible(fn, config, result)
    if why is None:
        return result
    where = str(store.path(key))
    if (where, why) not in _SAID:  # once per entry and process (a sweep reads a pending point more than once)
        _SAID.add((where, why))
        warn(f"cache entry {where}: {why}: an impossible result, not used (the point is computed again)")
    return None


#: The impossible entries this process has reported.
_SAID: set[tuple[str, str]] = set()
