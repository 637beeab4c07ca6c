"""The import index: one record per point a bundle brought, ``<cache root>/imported/<id[:2]>/<id>.json``
(id: the point's function and config, whatever the code), holding its provenance, whether its key
was fresh, and for a summary its result; checksummed like a cache entry, written atomically."""

from __future__ import annotations

import json
from pathlib import Path

from repcap.base import io as rio
from repcap.sweep import Cache, atomic_write_text, canonical

from .jsonio import _sha


def point_id(name: str, config: dict) -> str:
    """The id of a point regardless of the code: its function's name and its config."""
    return _sha(canonical({"fn": name, "config": config}))


def _record_path(cache: Cache, pid: str) -> Path:
    return cache.root / "imported" / pid[:2] / f"{pid}.json"


#: What :func:`_record_state` returns for a record that exists but does not read or check.
DAMAGED = "damaged"


def _record_state(cache: Cache, pid: str) -> dict | str | None:
    """The index record of a point, None if there is none, or :data:`DAMAGED` if there is one that
    does not parse or match its checksum (a truncated write, an edit): the point's origin is then
    unknown, not "this machine's cache"."""
    p = _record_path(cache, pid)
    try:
        text = rio.read_regular_text(p)  # a FIFO in its place is damaged, never a blocking read
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError):
        return DAMAGED
    try:
        rec = json.loads(text)
        body = {k: v for k, v in rec.items() if k != "sha256"}
        ok = isinstance(rec, dict) and rec.get("sha256") == _sha(canonical(body))
    except (ValueError, TypeError, AttributeError):
        return DAMAGED
    return {k: v for k, v in rec.items() if k != "sha256"} if ok else DAMAGED


def _read_record(cache: Cache, pid: str) -> dict | None:
    """The index record of a point (None if absent or damaged)."""
    rec = _record_state(cache, pid)
    return rec if isinstance(rec, dict) else None


def _write_record(cache: Cache, pid: str, body: dict) -> None:
    body = {k: v for k, v in body.items() if k != "sha256"}
    atomic_write_text(
        _record_path(cache, pid), json.dumps({**body, "sha256": _sha(canonical(body))}, sort_keys=True) + "\n"
    )


def _stored(cache: Cache, key: str) -> tuple[dict, float] | None:
    """A cache entry's result and its file's modification time (None if absent or damaged)."""
    res = cache.get(key)
    if res is None:
        return None
    try:
        return res, cache.path(key).stat().st_mtime
    except OSError:
        return None
