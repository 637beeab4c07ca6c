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
Nothing here is trusted because repcap wrote it: a ref, record or manifest that is not as
:meth:`put` writes it (a range that is not ``{tensor, start, end, sha256}`` with whole numbers inside
the file's size), or a blob that is missing, not a regular file or not its sha256, is *damaged*,
which is not the same as absent.  A file is opened without following links or blocking
(:func:`repcap.base.io.read_regular_bytes`: a FIFO in a blob's place is named, never read).  Online
(the default) a damaged entry is reported in one line on stderr and fetched again, like an absent
one; a ``strict`` cache (offline: nothing can be fetched again) raises :class:`DamagedEntry`, one
line naming the entry's path and how to refresh or remove it.
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
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

from repcap import RepcapError
from repcap.base import io as rio
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


def _shown(v: object) -> str:
    return repr(v)[:40]


def _range_problem(i: int, r: object, size: int) -> str | None:
    """Why range ``i`` of a record is not as :meth:`SliceCache.put` writes it (None: it is)."""
    n = f"range {i + 1}"
    if not isinstance(r, dict):
        return f"{n} is {_shown(r)}, not an object"
    if not isinstance(r.get("tensor"), str):
        return f"{n} names no tensor"
    for k in ("start", "end"):
        if type(r.get(k)) is not int:
            return f"{n}'s {k} is {_shown(r.get(k))}, not a whole number"
    if not 0 <= r["start"] <= r["end"]:
        return f"{n} runs from {r['start']} to {r['end']}"
    if r["end"] > size:
        return f"{n} ends at byte {r['end']:,}, past the file's {size:,} bytes"
    if not isinstance(r.get("sha256"), str) or _SHA256.match(r["sha256"]) is None:
        return f"{n}'s sha256 is {_shown(r.get('sha256'))}, not a digest"
    return None


def _record_problem(rec: dict) -> str | None:
    """Why a file's record is not as :meth:`SliceCache.put` writes it (an etag, a size, and ranges
    that each name a tensor, a byte range inside the size and a sha256), or None."""
    size, ranges = rec.get("size"), rec.get("ranges")
    if not isinstance(rec.get("etag"), str):
        return f"its etag is {_shown(rec.get('etag'))}, not text"
    if type(size) is not int or size < 0:
        return f"its size is {_shown(size)}, not a whole number"
    if not isinstance(ranges, list):
        return f"its ranges are {_shown(ranges)}, not a list"
    return next((why for i, r in enumerate(ranges) if (why := _range_problem(i, r, size))), None)


class DamagedEntry(RepcapError):
    """An entry of a strict (offline) slice cache that is there but damaged: one line naming its
    path, why, and what to do."""

    def __init__(self, repo_id: str, root: Path, path: Path, why: str):
        self.path = path
        self.why = why
        super().__init__(
            f"hub model {repo_id!r}: repcap's slice cache entry {path} is damaged: {why}; HF_HUB_OFFLINE is set, "
            f"so it cannot be fetched again: run once with the network to refetch it, or delete {path} (or the "
            f"whole folder {root}) to clear it"
        )


class SliceCache:
    """The cached slices of one hub repository (see the module docstring).  ``strict``: a damaged
    entry raises :class:`DamagedEntry` (offline); else it is reported on stderr and counts as absent."""

    def __init__(self, repo_id: str, root: Path | None = None, *, strict: bool = False):
        self.repo_id = repo_id
        self.root = (root or cache_dir() / "hub-slices") / repo_id.replace("/", "--")
        self.strict = strict
        self._said: set[Path] = set()

    # reading, with absent and damaged told apart ----------------------------------------------
    def _damaged(self, path: Path, why: str) -> None:
        """A damaged entry: raised where strict, else reported once and treated as absent."""
        if self.strict:
            raise DamagedEntry(self.repo_id, self.root, path, why)
        if path not in self._said:
            self._said.add(path)
            print(
                f"repcap: hub model {self.repo_id!r}: repcap's slice cache entry {path} is damaged: {why}; "
                "fetching it again",
                file=sys.stderr,
                flush=True,
            )

    def _read(self, path: Path, limit: int) -> bytes | None:
        """The bytes of ``path``; None where it is absent, or damaged (not strict): not a regular file
        (never opened for a blocking read, never followed as a link), too large, unreadable."""
        try:
            return rio.read_regular_bytes(path, limit, follow_links=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except rio.NotRegularFile as exc:
            self._damaged(path, exc.why)
        except OSError as exc:
            self._damaged(path, f"cannot read it: {exc.strerror or type(exc).__name__}")
        return None

    def _read_json(self, path: Path) -> dict | None:
        raw = self._read(path, MAX_META_BYTES)
        if raw is None:
            return None
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            self._damaged(path, "not readable JSON")
            return None
        if not isinstance(obj, dict):
            self._damaged(path, f"a JSON {type(obj).__name__}, not an object")
            return None
        return obj

    # revisions and file lists --------------------------------------------------------------
    def ref(self, revision: str) -> str | None:
        path = self.root / "refs" / quote(revision, safe="")
        raw = self._read(path, 1024)
        if raw is None:
            return None
        sha = raw.decode("ascii", errors="replace").strip()
        if not _COMMIT.match(sha):
            self._damaged(path, f"it holds {_shown(sha)}, not a commit sha")
            return None
        return sha

    def set_ref(self, revision: str, commit: str) -> None:
        if revision != commit:
            _atomic_write(self.root / "refs" / quote(revision, safe=""), commit.encode())

    def files(self, commit: str) -> list[str] | None:
        path = self.root / commit / "manifest.json"
        m = self._read_json(path)
        if m is None:
            return None
        files = m.get("files")
        if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
            self._damaged(path, "its file list is not a list of names")  # online: the hub is asked again
            return None
        return files

    def set_files(self, commit: str, files: list[str]) -> None:
        _atomic_write(self.root / commit / "manifest.json", json.dumps({"files": sorted(files)}).encode())

    # per-file records ----------------------------------------------------------------------
    def _record_path(self, commit: str, file: str) -> Path:
        return self.root / commit / (quote(file, safe="") + ".json")

    def record(self, commit: str, file: str) -> dict | None:
        """``{etag, size, ranges: [...]}`` of ``file`` at ``commit``, or None: absent, or (not strict)
        damaged: not as :meth:`put` writes it."""
        path = self._record_path(commit, file)
        rec = self._read_json(path)
        if rec is None:
            return None
        why = _record_problem(rec)
        if why is not None:
            self._damaged(path, why)
            return None
        return rec

    def meta(self, commit: str, file: str) -> tuple[str, int] | None:
        """``(etag, size)`` recorded for ``file`` at ``commit``."""
        rec = self.record(commit, file)
        return (rec["etag"], rec["size"]) if rec else None

    def get(self, commit: str, file: str, etag: str, tensor: str, start: int, end: int) -> bytes | None:
        """The cached bytes ``[start, end)`` of ``file`` read for ``tensor``, if the record's etag is
        ``etag`` and the blob still hashes to the recorded sha256; else None.  A blob that does not
        (or is missing, or not a regular file) is damaged: dropped where not strict, to be read again."""
        rec = self.record(commit, file)
        if rec is None or rec.get("etag") != etag:
            return None
        for r in rec["ranges"]:
            if (r["tensor"], r["start"], r["end"]) == (tensor, start, end):
                blob = self.root / "blobs" / r["sha256"]
                if not os.path.lexists(blob):
                    what = "its header" if tensor == HEADER else f"tensor {tensor}"
                    self._damaged(
                        self._record_path(commit, file),
                        f"it lists {what} in blob {r['sha256'][:12]}..., which is missing",
                    )
                    return None
                data = self._read(blob, end - start)
                if data is not None and len(data) == end - start and hashlib.sha256(data).hexdigest() == r["sha256"]:
                    return data
                if data is not None:
                    self._damaged(blob, "its bytes do not match their sha256")
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
        if not rio.regular_file(blob, follow_links=False) or blob.stat().st_size != len(data):
            _atomic_write(blob, data)
        rec = self.record(commit, file)
        if rec is None or rec.get("etag") != etag:
            rec = {"repo": self.repo_id, "commit": commit, "file": file, "etag": etag, "size": size, "ranges": []}
        rng = {"tensor": tensor, "start": start, "end": start + len(data), "sha256": sha}
        rec["ranges"] = [r for r in rec["ranges"] if r.get("tensor") != tensor] + [rng]
        _atomic_write(self._record_path(commit, file), json.dumps(rec, indent=1).encode())
