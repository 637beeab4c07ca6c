"""Atomic file writes: write to a temporary file in the same folder, fsync, then rename.

A reader (or a re-run after SIGKILL) sees either the old complete file or the new complete file,
never half of one.

And the one safe read of a cache file, :func:`read_regular_bytes`: a FIFO, device, socket or folder
put where a cache expects a file is reported as such (:class:`NotRegularFile`), never opened for a
blocking read (reading a FIFO waits for ever for a writer).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it replaces ``path`` atomically.

    The temporary name is ``.<name>.<random><suffix>`` with ``suffix`` defaulting to ``.tmp``, so
    that no glob for the final extension (``*.png``, ``*.json``) ever matches a half-written file
    left by a killed writer; writers must therefore be told the format explicitly (matplotlib's
    ``format=``).  On an exception the temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=suffix if suffix is not None else ".tmp", dir=path.parent
    )
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def file_kind(mode: int) -> str:
    """What a file of ``mode`` (``st_mode``) is, in words: "a regular file", "a FIFO (named pipe)"..."""
    for test, kind in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


class NotRegularFile(OSError):
    """``path`` exists but is not a regular file (``kind`` says what it is: "a FIFO (named pipe)"),
    or is larger than its reader allows (``kind`` "too large"); an :class:`OSError`, so that a
    handler of read failures catches it too.  ``str()``: the path and ``why``, in one line."""

    def __init__(self, path: str | os.PathLike, kind: str, why: str | None = None):
        self.path = Path(path)
        self.kind = kind
        self.why = why or f"{kind}, not a regular file"
        super().__init__(errno.EINVAL, self.why, str(path))

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


def regular_file(path: str | os.PathLike, *, follow_links: bool = True) -> bool:
    """Whether ``path`` is a regular file (``follow_links=False``: itself, not a link to one); False
    where it is missing or cannot be examined.  Never opens it."""
    try:
        st = os.stat(path) if follow_links else os.lstat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode)


def open_regular(path: str | os.PathLike, *, follow_links: bool = True) -> BinaryIO:
    """``path`` open for reading in binary, checked to be a regular file before a byte is read.

    It is opened with ``O_NONBLOCK`` (and ``O_NOFOLLOW`` where ``follow_links`` is False) and checked
    with ``fstat``, so a FIFO in its place cannot block.  Raises :class:`FileNotFoundError` (or
    :class:`NotADirectoryError`) where there is nothing: absent; :class:`NotRegularFile` where
    something is there that is not a regular file; any other :class:`OSError` as it comes (no
    permission, a disk error).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise
        try:  # a link met by O_NOFOLLOW (ELOOP), a socket (ENXIO): say what is there
            st = os.stat(path) if follow_links else os.lstat(path)
        except OSError:
            raise exc from None
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path, file_kind(st.st_mode)) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, file_kind(mode))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(path: str | os.PathLike, limit: int | None = None, *, follow_links: bool = True) -> bytes:
    """The bytes of ``path``, which must be a regular file (of at most ``limit`` bytes), read
    without ever blocking on a FIFO: :func:`open_regular` and its errors, and
    :class:`NotRegularFile` with ``kind`` "too large" for a file of more than ``limit`` bytes."""
    with open_regular(path, follow_links=follow_links) as fh:
        size = os.fstat(fh.fileno()).st_size
        if limit is not None and size > limit:
            raise NotRegularFile(path, "too large", f"{size:,} bytes, more than the {limit:,} bytes it may hold")
        data = fh.read() if limit is None else fh.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise NotRegularFile(path, "too large", f"more than the {limit:,} bytes it may hold")
    return data


def read_regular_text(path: str | os.PathLike, limit: int | None = None, *, follow_links: bool = True) -> str:
    """:func:`read_regular_bytes` decoded as UTF-8 (a :class:`UnicodeDecodeError` as it comes)."""
    return read_regular_bytes(path, limit, follow_links=follow_links).decode("utf-8")


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_text(path: str | os.PathLike, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path: str | os.PathLike, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
