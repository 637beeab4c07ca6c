"""The slice cache: byte ranges of hub files that :mod:`repcap.hub.remote` read, kept so that a
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
Every file is written to a temporary name and moved into place (``os.replace``), so an interrupted
run leaves either the old state or the new one.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from urllib.parse import quote

from ..paths import cache_dir

HEADER = "__header__"


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_json(path: Path) -> dict | None:
    try:
        obj = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


class SliceCache:
    """The cached slices of one hub repository (see the module docstring)."""

    def __init__(self, repo_id: str, root: Path | None = None):
        self.repo_id = repo_id
        self.root = (root or cache_dir() / "hub-slices") / repo_id.replace("/", "--")

    # revisions and file lists --------------------------------------------------------------
    def ref(self, revision: str) -> str | None:
        try:
            sha = (self.root / "refs" / quote(revision, safe="")).read_text().strip()
        except OSError:
            return None
        return sha if len(sha) == 40 else None

    def set_ref(self, revision: str, commit: str) -> None:
        if revision != commit:
            _atomic_write(self.root / "refs" / quote(revision, safe=""), commit.encode())

    def files(self, commit: str) -> list[str] | None:
        m = _read_json(self.root / commit / "manifest.json")
        files = m.get("files") if m else None
        return [f for f in files if isinstance(f, str)] if isinstance(files, list) else None

    def set_files(self, commit: str, files: list[str]) -> None:
        _atomic_write(self.root / commit / "manifest.json", json.dumps({"files": sorted(files)}).encode())

    # per-file records ----------------------------------------------------------------------
    def _record_path(self, commit: str, file: str) -> Path:
        return self.root / commit / (quote(file, safe="") + ".json")

    def record(self, commit: str, file: str) -> dict | None:
        """``{etag, size, ranges: [...]}`` of ``file`` at ``commit``, or None."""
        rec = _read_json(self._record_path(commit, file))
        if rec is None or not isinstance(rec.get("ranges"), list):
            return None
        return rec

    def meta(self, commit: str, file: str) -> tuple[str, int] | None:
        """``(etag, size)`` recorded for ``file`` at ``commit``."""
        rec = self.record(commit, file)
        if rec and isinstance(rec.get("etag"), str) and type(rec.get("size")) is int:
            return rec["etag"], rec["size"]
        return None

    def get(self, commit: str, file: str, etag: str, tensor: str, start: int, end: int) -> bytes | None:
        """The cached bytes ``[start, end)`` of ``file`` read for ``tensor``, if the record's etag is
        ``etag`` and the blob still hashes to the recorded sha256; else None."""
        rec = self.record(commit, file)
        if rec is None or rec.get("etag") != etag:
            return None
        for r in rec["ranges"]:
            if isinstance(r, dict) and (r.get("tensor"), r.get("start"), r.get("end")) == (tensor, start, end):
                blob = self.root / "blobs" / str(r.get("sha256"))
                try:
                    data = blob.read_bytes()
                except OSError:
                    return None
                if len(data) == end - start and hashlib.sha256(data).hexdigest() == r.get("sha256"):
                    return data
                blob.unlink(missing_ok=True)  # damaged: read it again
                return None
        return None

    def find(self, commit: str, file: str, tensor: str) -> tuple[int, int] | None:
        """The byte range recorded for ``tensor`` in ``file`` (offline: which range to look up)."""
        rec = self.record(commit, file)
        for r in (rec or {}).get("ranges", []):
            if isinstance(r, dict) and r.get("tensor") == tensor and type(r.get("start")) is int:
                return r["start"], r["end"]
        return None

    def put(self, commit: str, file: str, etag: str, size: int, tensor: str, start: int, data: bytes) -> None:
        """Keep ``data`` (bytes ``[start, start + len)`` of ``file``, read for ``tensor``)."""
        sha = hashlib.sha256(data).hexdigest()
        blob = self.root / "blobs" / sha
        if not blob.is_file():
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
