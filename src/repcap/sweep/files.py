"""Writing and naming files the way the caches share them: canonical JSON, an atomic write that
keeps a shared folder shared (``0o666 & ~umask``), and one plain cause for an OS failure."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

from repcap.base import io as rio

from .. import RepcapError


def _umask() -> int:
    """The process umask, read without changing it where Linux shows it (else set and restored)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def file_mode() -> int:
    """The mode a new file gets from ``open()``: ``0o666 & ~umask``."""
    return 0o666 & ~_umask()


def _cause(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.EDQUOT:
        return "disk quota exceeded"
    if exc.errno == errno.EROFS:
        return "read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENAMETOOLONG:
        return "file name too long"
    return exc.strerror or type(exc).__name__


def _host_token() -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in socket.gethostname())[:40] or "host"


def warn(msg: str) -> None:
    """One line on stderr (a point skipped, not an error)."""
    print(f"repcap: {msg}", file=sys.stderr, flush=True)


def canonical(obj: Any) -> str:
    """Canonical JSON (sorted keys, no whitespace); floats must be finite."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False, default=rio._json_default)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file in the same folder (fsync, then rename).

    The temp name carries host and pid so that :meth:`Cache.clean_temp` can tell a dead writer's
    leftover from a live writer's file, and ends in ``.tmp`` so that no glob for entries sees it.
    The file gets the mode a plain ``open()`` would give (``0o666 & ~umask``), not mkstemp's 0600,
    so that a shared folder stays shared.  Any OS failure (a full disk, a read-only folder, no
    permission, a name too long) is one :class:`RepcapError` naming the path and the cause; nothing
    is left behind.
    """
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name[:120]}.{_host_token()}.{os.getpid()}.", suffix=".tmp", dir=path.parent
        )
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), file_mode())
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        hint = (
            " (a cache shared by several users needs a group-writable folder: setgid, and umask 002 for each)"
            if exc.errno in (errno.EACCES, errno.EPERM)
            else ""
        )
        raise RepcapError(f"cannot write {str(path)[:200]}: {_cause(exc)}{hint}") from None
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
