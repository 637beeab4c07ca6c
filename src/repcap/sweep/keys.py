"""A sweep point's key: the function that computes it, the code it runs, and its config.

``sha256(canonical JSON of {"fn": module:qualname, "code": digest, "config": config})``, where the
digest covers the normalised source of every ``repcap`` module the function's module imports
(:func:`repcap.codehash.digest`).  A bug fix in any of them gives new keys, so a stale result is
never served; a comment, a docstring, or an unrelated module changes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from .. import RepcapError
from ..codehash import function_digest
from .cache import canonical


def fn_name(fn: Callable) -> str:
    return f"{fn.__module__}:{getattr(fn, '__qualname__', fn.__name__)}"


def code_digest(fn: Callable) -> str:
    """The digest of the code ``fn`` runs (functions defined outside ``repcap``, for example in a
    notebook, are keyed on their name alone: their source travels with the notebook's own key)."""
    return function_digest(fn) if fn.__module__.split(".")[0] == "repcap" else ""


def point_key(fn: Callable, config: dict, code: str | None = None) -> str:
    """The cache key of one point (``code``: a precomputed :func:`code_digest` of ``fn``)."""
    try:
        blob = canonical({"fn": fn_name(fn), "code": code_digest(fn) if code is None else code, "config": config})
    except (TypeError, ValueError) as exc:
        raise RepcapError(f"sweep config {str(config)[:200]} is not plain finite JSON: {exc}") from exc
    return hashlib.sha256(blob.encode()).hexdigest()
