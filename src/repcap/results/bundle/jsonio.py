"""Plain finite JSON, read and checked as a bundle must hold it: a regular file of bounded size,
strict JSON (no NaN, no infinity, no duplicate field), bounded depth, the plain alphabet in every
string, and one line naming the file and the field for anything else."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.base import io as rio
from repcap.sweep.provenance import PLAIN, UNPLAIN

MAX_FILE_BYTES = 128 << 20
MAX_DEPTH = 64
_UNPLAIN = UNPLAIN


def _shown(s: str, limit: int = 60) -> str:
    """A string from a bundle as an error message may show it: its repr, cut."""
    r = repr(s)
    return r if len(r) <= limit else f"{r[: limit - 5]}...'"


def _alphabet(obj: Any, where: str) -> None:
    """Refuse a string (value or key) outside :data:`PLAIN` anywhere in ``obj``."""
    todo = [(obj, where)]
    while todo:
        o, w = todo.pop()
        if isinstance(o, str):
            if not PLAIN.match(o):
                bad = _UNPLAIN.search(o)
                ch = bad.group() if bad else "?"
                raise RepcapError(
                    f"{w}: {_shown(o)} holds {ch!r}, outside the plain alphabet of a bundle (letters, digits, "
                    "space and . _ : + - / ( ) @ , =)"
                )
        elif isinstance(o, list):
            todo += [(v, f"{w}[{i}]") for i, v in enumerate(o)]
        elif isinstance(o, dict):
            for k, v in o.items():
                todo += [(k, f"{w} (a key)"), (v, f"{w}.{k if PLAIN.match(str(k)) else '?'}")]


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def _plain(obj: Any, where: str, depth: int = 0) -> None:
    """Refuse anything that is not plain finite JSON (str keys; no NaN; bounded depth)."""
    if depth > MAX_DEPTH:
        raise RepcapError(f"{where}: nested deeper than {MAX_DEPTH} levels")
    if obj is None or isinstance(obj, (bool, int, str)):
        return
    if isinstance(obj, float):
        if obj != obj or obj in (float("inf"), float("-inf")):
            raise RepcapError(f"{where}: {obj!r} is not a finite number")
        return
    if isinstance(obj, list):
        for i, v in enumerate(obj):
            _plain(v, f"{where}[{i}]", depth + 1)
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not isinstance(k, str):
                raise RepcapError(f"{where}: key {k!r} is not a string")
            _plain(v, f"{where}.{k}", depth + 1)
        return
    raise RepcapError(f"{where}: a {type(obj).__name__} is not plain JSON")


def _want(obj: Any, kind: type | tuple, where: str) -> Any:
    if isinstance(obj, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise RepcapError(f"{where} must be {getattr(kind, '__name__', kind)}, not a boolean")
    if not isinstance(obj, kind):
        raise RepcapError(f"{where} must be {getattr(kind, '__name__', kind)}, not {type(obj).__name__}")
    return obj


def _keys(obj: dict, want: set, where: str) -> None:
    if set(obj) != want:
        extra, lack = sorted(set(obj) - want), sorted(want - set(obj))
        raise RepcapError(f"{where}: unexpected fields {extra} / missing fields {lack}")


def _no_dupes(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate field {next(k for k in keys if keys.count(k) > 1)!r}")
    return dict(pairs)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    v = float(text)
    if v != v or v in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is not a finite number")
    return v


def _read_bytes(path: Path) -> bytes:
    """The bytes of one bundle file: a regular file (no link, never a FIFO opened for a blocking
    read) of bounded size; any OS failure is one line naming the file and the cause."""
    try:
        return rio.read_regular_bytes(path, MAX_FILE_BYTES, follow_links=False)
    except FileNotFoundError:
        raise RepcapError(f"{path}: missing from the bundle") from None
    except rio.NotRegularFile as exc:
        if exc.kind == "too large":
            raise RepcapError(f"{path}: {exc.why} (the most a bundle file may hold)") from None
        raise RepcapError(f"{path}: {exc.kind}, not a regular file of the bundle") from None
    except OSError as exc:
        raise RepcapError(f"{path}: cannot read it ({exc.strerror or type(exc).__name__})") from None


def _parse(path: Path, data: bytes) -> Any:
    try:
        return json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_no_dupes,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
        )
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise RepcapError(f"{path}: not a valid bundle file ({type(exc).__name__}: {str(exc)[:120]})") from None
