"""The slice cache: byte ranges of hub files that :mod:`repcap.models.hub.remote` read, kept so that a
second run downloads nothing and ``HF_HUB_OFFLINE=1`` works (a range read bypasses the hub's own
cache, which holds whole files only).

Layout, under ``<repcap cache>/hub-slices/<owner>--<name>/``:

* ``refs/<revision>`` -- the commit sha a branch or tag resolved to when last online;
* ``<commit>/manifest.json`` -- the repository's file list at that commit;
* ``<commit>/<file>.json`` -- per file: its etag and size, and each range read from it
  ``{tensor, start, end, sha256}`` (``tensor`` is ``__header__`` for the header bytes);
* ``blobs/<sha256>`` -- the bytes of each range, content-addressed.

So a range is found by repo, commit, file, etag, tensor name and byte range, and its bytes are
checked against their sha256 on every read (a blob that does not match is dropped and read again).
Nothing here is trusted because repcap wrote it: a record or manifest that is not as :meth:`put`
writes it (a range that is not ``{tensor, start, end, sha256}`` with whole numbers inside the file's
size) counts as absent, and a file is opened only when ``lstat`` says it is a regular file, without
following links or blocking (a FIFO in a blob's place is dropped, not read).
Every file is written to a temporary name and moved into place (``os.replace``), so an interrupted
run leaves either the old state or the new one.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from urllib.parse import quote

from repcap import RepcapError
from repcap.base.paths import cache_dir

HEADER = "__header__"


#: The most a record or manifest file may hold (a record lists a few ranges; a manifest the file
#: names of one commit): a larger one is not read.
MAX_META_BYTES = 16 << 20
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in its folder; a failure of the disk
    (full, read-only, no permission) is one line naming the cache folder and what to do."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        cause = "no space left on the device" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        raise RepcapError(
            f"cannot write repcap's slice cache in {path.parent} ({cause}); free space there, or point "
            "REPCAP_CACHE at a folder with room"
        ) from None
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise


def _regular(path: Path) -> bool:
    """Whether ``path`` is a regular file itself (not a link, FIFO, device or folder)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes, else None; opened
    without following a link and without blocking (a FIFO put in its place cannot hang a run)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_json(path: Path) -> dict | None:
    raw = _read_regular(path, MAX_META_BYTES)
    if raw is None:
        return None
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _valid_range(r: object) -> bool:
    return (
        isinstance(r, dict)
        and isinstance(r.get("tensor"), str)
        and type(r.get("start")) is int
        and type(r.get("end")) is int
        and 0 <= r["start"] <= r["end"]
        and isinstance(r.get("sha256"), str)
        and _SHA256.match(r["sha256"]) is not None
    )


def _valid_record(rec: dict) -> bool:
    """A file's record as :meth:`SliceCache.put` writes it: an etag, a size, and ranges that each
    name a tensor, a byte range inside the size and a sha256."""
    size, ranges = rec.get("size"), rec.get("ranges")
    return (
        isinstance(rec.get("etag"), str)
        and type(size) is int
        and size >= 0
        and isinstance(ranges, list)
        and all(_valid_range(r) and r["end"] <= size for r in ranges)
    )


class SliceCache:
    """The cached slices of one hub repository (see the module docstring)."""

    def __init__(self, repo_id: str, root: Path | None = None):
        self.repo_id = repo_id
        self.root = (root or cache_dir() / "hub-slices") / repo_id.replace("/", "--")

    # revisions and file lists --------------------------------------------------------------
    def ref(self, revision: str) -> str | None:
        raw = _read_regular(self.root / "refs" / quote(revision, safe=""), 1024)
        sha = raw.decode("ascii", errors="replace").strip() if raw is not None else ""
        return sha if _COMMIT.match(sha) else None

    def set_ref(self, revision: str, commit: str) -> None:
        if revision != commit:
            _atomic_write(self.root / "refs" / quote(revision, safe=""), commit.encode())

    def files(self, commit: str) -> list[str] | None:
        m = _read_json(self.root / commit / "manifest.json")
        files = m.get("files") if m else None
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            return None  # damaged or not ours: as if never read (online, the hub is asked again)
        return files

    def set_files(self, commit: str, files: list[str]) -> None:
        _atomic_write(self.root / commit / "manifest.json", json.dumps({"files": sorted(files)}).encode())

    # per-file records ----------------------------------------------------------------------
    def _record_path(self, commit: str, file: str) -> Path:
        return self.root / commit / (quote(file, safe="") + ".json")

    def record(self, commit: str, file: str) -> dict | None:
        """``{etag, size, ranges: [...]}`` of ``file`` at ``commit``, or None (also for a record
        that is not as :meth:`put` writes it: a damaged record is as good as none)."""
        rec = _read_json(self._record_path(commit, file))
        if rec is None or not _valid_record(rec):
            return None
        return rec

    def meta(self, commit: str, file: str) -> tuple[str, int] | None:
        """``(etag, size)`` recorded for ``file`` at ``commit``."""
        rec = self.record(commit, file)
        return (rec["etag"], rec["size"]) if rec else None

    def get(self, commit: str, file: str, etag: str, tensor: str, start: int, end: int) -> bytes | None:
        """The cached bytes ``[start, end)`` of ``file`` read for ``tensor``, if the record's etag is
        ``etag`` and the blob still hashes to the recorded sha256; else None."""
        rec = self.record(commit, file)
        if rec is None or rec.get("etag") != etag:
            return None
        for r in rec["ranges"]:
            if (r["tensor"], r["start"], r["end"]) == (tensor, start, end):
                blob = self.root / "blobs" / r["sha256"]
                data = _read_regular(blob, end - start)
                if data is not None and len(data) == end - start and hashlib.sha256(data).hexdigest() == r["sha256"]:
                    return data
                with contextlib.suppress(OSError):  # damaged, or not a plain file: read it again
                    if os.path.lexists(blob):
                        blob.unlink()
                return None
        return None

    def find(self, commit: str, file: str, tensor: str) -> tuple[int, int] | None:
        """The byte range recorded for ``tensor`` in ``file`` (offline: which range to look up)."""
        rec = self.record(commit, file)
        for r in rec["ranges"] if rec else []:
            if r["tensor"] == tensor:
                return r["start"], r["end"]
        return None

    def put(self, commit: str, file: str, etag: str, size: int, tensor: str, start: int, data: bytes) -> None:
        """Keep ``data`` (bytes ``[start, start + len)`` of ``file``, read for ``tensor``)."""
        sha = hashlib.sha256(data).hexdigest()
        blob = self.root / "blobs" / sha
        if not _regular(blob) or blob.stat().st_size != len(data):
            _atomic_write(blob, data)
        rec = self.record(commit, file)
        if rec is None or rec.get("etag") != etag:
            rec = {"repo": self.repo_id, "commit": commit, "file": file, "etag": etag, "size": size, "ranges": []}
        rng = {"tensor": tensor, "start": start, "end": start + len(data), "sha256": sha}
        rec["ranges"] = [r for r in rec["ranges"] if r.get("tensor") != tensor] + [rng]
        _atomic_write(self._record_path(commit, file), json.dumps(rec, indent=1).encode())

    def cached_files(self, commit: str) -> list[str]:
        """Files with a recorded header at ``commit`` (for ``--list-tensors`` offline)."""
        return sorted(f for f in (self.files(commit) or []) if self.find(commit, f, HEADER))
