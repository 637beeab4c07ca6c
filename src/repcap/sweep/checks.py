"""Results read back from the cache, held to what the engine that computes them knows cannot be.

An entry's checksum finds damage, not forgery.  For point functions whose results obey a rigorous
bound, :data:`RESULT_CHECKS` names a check (``module:callable``, ``check(config, result) -> reason or
None``, imported on demand as :mod:`.keys` imports its normalisers); :func:`read` is
:meth:`Cache.get` followed by that check, and an impossible result is reported in one line and
treated as absent (computed again, and overwritten).  :func:`repcap.sweep.run`, the tasks and the
time budget of :func:`repcap.runs.compute` read through it.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from .cache import Cache, warn
from .keys import fn_name

#: The check of each point function whose results a rigorous bound constrains.
RESULT_CHECKS: dict[str, str] = {
    "repcap.packing.points:sweep_packed": "repcap.feasible:packing_result",
    "repcap.packing.annealed:sweep_annealed": "repcap.feasible:packing_result",
    "repcap.packing.points:sweep_random": "repcap.feasible:packing_result",
}


@functools.lru_cache(maxsize=16)
def _check(path: str) -> Callable[[dict, Any], str | None]:
    module, name = path.split(":", 1)
    return getattr(importlib.import_module(module), name)


def impossible(fn: Callable | str, config: dict, result: Any) -> str | None:
    """Why ``result`` cannot be ``fn``'s at ``config`` (None if it can, or ``fn`` has no check)."""
    path = RESULT_CHECKS.get(fn if isinstance(fn, str) else fn_name(fn))
    return None if path is None else _check(path)(config, result)


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
