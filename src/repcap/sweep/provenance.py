"""What is recorded with a result when it is computed, once: where and how it ran.

A point's identity (:mod:`.keys`) says what it computes.  Its *provenance* says where and with
which bits: the device, the wall time, the date, the commit, the package versions and the digest of
the engine's source text.  :func:`record` builds it when a point is computed; the cache entry keeps
it (:meth:`repcap.sweep.Cache.put`), a results bundle copies it and never re-derives it, and
``repcap bundle status`` reads it to say that a point was computed under other versions, or that
its engine was edited since (numerics unchanged): information, not staleness.

Every string is kept in the plain alphabet of a bundle (:data:`PLAIN`), so that nothing a machine
reports (a device name) can be read as markup where the book shows it.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import re
import time
from collections.abc import Callable
from typing import Any

from repcap.sweep import codehash

from .registry import registered

#: The packages whose versions a result's provenance records (their public version: ``2.13.0+cpu``
#: is ``2.13.0``).  They annotate a point; they are not part of its identity.
ENV_PACKAGES = ("torch", "numpy", "scipy", "numba")

#: The alphabet of every string a bundle carries (provenance, configs, results): what repcap writes
#: (device names, hex commits, ISO dates, versions, loss names, paths), nothing Markdown or HTML
#: would read as markup.
PLAIN = re.compile(r"^[A-Za-z0-9 ._:+\-/()@,=]*$")
UNPLAIN = re.compile(r"[^A-Za-z0-9 ._:+\-/()@,=]")


def plain_text(s: str) -> str:
    """``s`` with every character outside :data:`PLAIN` replaced by ``?`` (what is recorded for a
    device name this machine reports with other characters)."""
    return UNPLAIN.sub("?", s)[:400]


@functools.lru_cache(maxsize=1)
def env_versions() -> dict[str, Any]:
    """The public versions of :data:`ENV_PACKAGES` (None: not installed) and whether numba is
    importable (without it the cosine kernels take their torch path)."""
    out: dict[str, Any] = {}
    for pkg in ENV_PACKAGES:
        try:
            out[pkg] = importlib.metadata.version(pkg).split("+", 1)[0]
        except importlib.metadata.PackageNotFoundError:
            out[pkg] = None
    out["numba_in_use"] = importlib.util.find_spec("numba") is not None
    return out


def versions() -> dict[str, str]:
    """The versions a result records: repcap's and :data:`ENV_PACKAGES`' (``absent`` where not
    installed), and ``numba_in_use`` (``true``/``false``)."""
    from .. import __version__

    env = env_versions()
    out = {"repcap": __version__}
    out.update({k: (str(env[k]) if env[k] is not None else "absent") for k in ENV_PACKAGES})
    out["numba_in_use"] = "true" if env["numba_in_use"] else "false"
    return out


#: The version fields that say the arithmetic may differ (repcap's own version says nothing more
#: than the commit does).
COMPARED_VERSIONS = (*ENV_PACKAGES, "numba_in_use")


def other_versions(recorded: dict[str, Any], here: dict[str, str] | None = None) -> list[str]:
    """The packages whose recorded version differs from this environment's, as ``name a -> b``
    (a version the record lacks is not counted: old records hold only torch and numpy)."""
    here = versions() if here is None else here
    return [
        f"{k} {recorded[k]} -> {here.get(k)}"
        for k in COMPARED_VERSIONS
        if k in recorded and str(recorded[k]).split("+", 1)[0] != str(here.get(k)).split("+", 1)[0]
    ]


def revision() -> str:
    """This checkout's commit (:func:`repcap.base.context.git_revision`): ``REPCAP_GIT_REV`` when it is
    set (read at each call, so that setting it later in a process is not masked), else git's answer,
    asked once per process."""
    return os.environ.get("REPCAP_GIT_REV") or _checkout_revision()


@functools.lru_cache(maxsize=1)
def _checkout_revision() -> str:
    from repcap.base.context import git_revision

    return git_revision()


@functools.lru_cache(maxsize=64)
def source_digest(fn: Callable) -> str:
    """The digest of the source files of the numerical modules ``fn`` runs
    (:func:`repcap.sweep.codehash.file_digest`, the same under every Python version): a bundle compares it
    with today's to say that a point's engine was edited since it was computed (its numerics
    version unchanged)."""
    return codehash.file_digest([fn.__module__])


def record(fn: Callable, result: Any, seconds: float | None = None) -> dict[str, Any]:
    """The provenance of ``result``, computed now by ``fn``: ``device`` (as the result names it,
    else this process's device), ``seconds`` (the result's own, else ``seconds``), ``computed``
    (UTC), ``commit``, ``versions`` (:func:`versions`) and ``code`` (:func:`source_digest`; empty
    for a function that is not registered)."""
    res = result if isinstance(result, dict) else {}
    dev = res.get("device")
    if not isinstance(dev, str):
        from repcap.base.devices import device_name, resolve_device

        dev = device_name(resolve_device("auto"))
    secs = res.get("seconds")
    if isinstance(secs, bool) or not isinstance(secs, (int, float)):
        secs = seconds
    return {
        "device": plain_text(dev),
        "seconds": float(secs) if isinstance(secs, (int, float)) else None,
        "computed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": plain_text(revision()),
        "versions": {k: plain_text(v) for k, v in versions().items()},
        "code": source_digest(fn) if registered(fn) is not None else "",
    }
