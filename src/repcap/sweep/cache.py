"""The content-addressed result cache of a sweep: one JSON file per point, written atomically
(temp file + fsync + rename) with a checksum of its payload, verified on read; a corrupt or
half-written entry is recomputed, never trusted.

Temp files are named ``.<key>.json.<host>.<pid>.<random>.tmp`` (never ``*.json``, so no reader
mistakes one for a result); those left by a killed process are removed by the next sweep on the
same host, and any older than :data:`STALE_TEMP_S` by any host (or dated in the future by more than
that: a clock skew).  The point keys themselves come from :mod:`.keys`.

A cache may be shared (a team folder, the cluster recipe): entries are written ``0o666 & ~umask``
like any file (folders are made by :func:`os.makedirs`, ``0o777 & ~umask``, and inherit a setgid
group), so whoever can read the folder can read them; an entry this user cannot read is reported in
one line and skipped, never deleted: only a checksum or parse failure makes an entry corrupt, or
something that is not a regular file in an entry's place (a FIFO, a folder: reported, removed where
this user may, and the point recomputed; it is never opened for a blocking read).
:meth:`Cache.claim` marks a point as being computed (a lock file holding host, pid and time), so
that two runs of one set do not compute it twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repcap.base import io as rio
from repcap.base.paths import cache_dir

from .. import RepcapError
from . import claims as _claims
from .claims import ClaimInfo, _pid_alive, _read_claim_file, claim_record, read_claim
from .files import _cause, _host_token, atomic_write_text, canonical, file_mode, warn

#: A temp file from another host (whose process we cannot see) is removed after this many seconds.
STALE_TEMP_S = 3600.0
#: The marker file that tells a worker it sees the same cache folder as the client.
MARKER = ".repcap-cache"


@dataclass
class Cache:
    """One folder of content-addressed JSON results: ``root/<key[:2]>/<key>.json``.

    An entry is ``{"key", "config", "result", "sha256", "provenance"}`` where ``sha256`` is the
    digest of the canonical JSON of ``result`` and ``provenance`` says where and how it was computed
    (absent in entries written before it was recorded).
    """

    root: Path

    def __post_init__(self) -> None:
        self.root = Path(self.root)  # accept a str too

    @classmethod
    def named(cls, name: str, root: str | os.PathLike | None = None) -> Cache:
        if not name or "/" in name or "\\" in name or name.startswith("."):
            raise RepcapError(f"cache name {name!r} must be a plain folder name")
        return cls(Path(root) if root is not None else cache_dir() / "sweeps" / name)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The cached result, or ``None`` if absent, unreadable or corrupt.  Only an entry that
        does not parse or does not match its checksum is corrupt, and removed (where this user
        may), or one that is not a regular file (a FIFO: reported and removed, never read); one
        this user cannot read (another user's, a disk error) is reported and kept."""
        p = self.path(key)
        try:
            raw = rio.read_regular_bytes(p)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except rio.NotRegularFile as exc:
            with contextlib.suppress(OSError):
                p.unlink()
            gone = "removed" if not os.path.lexists(p) else "cannot remove it"
            warn(f"cache entry {p}: {exc.why}, a damaged entry; {gone}, the point is computed again")
            return None
        except OSError as exc:
            warn(f"cache entry {p}: cannot read it ({_cause(exc)}); skipped, not deleted")
            return None
        try:
            return self._verified(json.loads(raw.decode("utf-8")), key)
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError):
            with contextlib.suppress(OSError):
                p.unlink()
            return None

    @staticmethod
    def _verified(entry: Any, key: str) -> dict:
        payload = canonical(entry["result"])
        if entry.get("key") != key or entry.get("sha256") != hashlib.sha256(payload.encode()).hexdigest():
            raise ValueError("checksum mismatch")
        return entry["result"]

    def put(self, key: str, config: dict, result: dict, provenance: dict | None = None) -> None:
        """Write one entry; ``provenance`` (:func:`repcap.sweep.provenance.record`) is where and how
        the result was computed, kept with it once."""
        payload = canonical(result)
        entry = {
            "key": key,
            "config": config,
            "result": json.loads(payload),
            "sha256": hashlib.sha256(payload.encode()).hexdigest(),
        }
        if provenance is not None:
            entry["provenance"] = json.loads(canonical(provenance))
        atomic_write_text(self.path(key), json.dumps(entry, sort_keys=True) + "\n")

    def provenance(self, key: str) -> dict | None:
        """The provenance recorded with the entry of ``key`` when it was computed (None: absent, an
        entry written before provenance was recorded, or one that does not read)."""
        try:
            entry = json.loads(rio.read_regular_text(self.path(key)))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        prov = entry.get("provenance") if isinstance(entry, dict) else None
        return prov if isinstance(prov, dict) else None

    def claim_path(self, key: str) -> Path:
        return self.root / key[:2] / f".{key}.claim"

    def claim(self, key: str, stale_s: float | None = None) -> bool:
        """Mark ``key`` as being computed by this process: True if the claim is ours now, False
        if a live process holds it (then this run should leave the point to that one and read it
        later).  The claim file holds host, pid, time and the process's start (see
        :func:`claim_record`); while it is held, this process touches it every
        :data:`HEARTBEAT_S` seconds.  A stale claim (:meth:`claim_info`) is taken over.  A claim
        that cannot be written (a read-only cache) is not an error: True, and the point is computed
        as before."""
        p = self.claim_path(key)
        for _ in range(3):
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, file_mode())
            except FileExistsError:
                if not self._claim_stale(p, stale_s):
                    return False
                with contextlib.suppress(OSError):
                    p.unlink()
                continue
            except OSError:
                return True
            with os.fdopen(fd, "w") as fh:
                fh.write(json.dumps(claim_record(os.getpid())) + "\n")
            _claims._HEART.hold(p)
            return True
        return False

    def _claim_stale(self, p: Path, stale_s: float | None = None) -> bool:
        info = read_claim(p, stale_s)
        return info is None or info.stale is not None

    def claim_info(self, key: str, stale_s: float | None = None) -> ClaimInfo | None:
        """The claim on ``key`` (who holds it, since when, whether it is stale and why), or None."""
        return read_claim(self.claim_path(key), stale_s)

    def release(self, key: str) -> None:
        """Remove this process's claim on ``key`` (another's is left alone)."""
        p = self.claim_path(key)
        _claims._HEART.drop(p)
        info = _read_claim_file(p)
        if info is not None and info.get("host") == _host_token() and info.get("pid") == os.getpid():
            with contextlib.suppress(OSError):
                p.unlink()

    def claimed(self, key: str, stale_s: float | None = None) -> bool:
        """Whether another live process holds a claim on ``key``."""
        p = self.claim_path(key)
        return os.path.lexists(p) and not self._claim_stale(p, stale_s)

    def claims(self) -> list[Path]:
        """Every claim file of this cache (``repcap bundle unclaim`` lists them)."""
        return sorted(self.root.glob("??/.*.claim")) if self.root.exists() else []

    def entries(self) -> Iterator[Path]:
        """The entry files (temp files excluded)."""
        if self.root.exists():
            yield from (p for p in self.root.glob("??/*.json") if not p.name.startswith("."))

    def __len__(self) -> int:
        return sum(1 for _ in self.entries())

    def verify(self) -> tuple[int, list[Path]]:
        """Check every entry's checksum without touching anything: ``(n_good, corrupt_paths)``."""
        good, bad = 0, []
        for p in self.entries():
            try:
                self._verified(json.loads(rio.read_regular_text(p)), p.stem)
                good += 1
            except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError, OSError):
                bad.append(p)
        return good, bad

    def temp_files(self) -> list[Path]:
        return sorted(self.root.glob("??/.*.tmp")) if self.root.exists() else []

    def clean_temp(self, stale_s: float = STALE_TEMP_S) -> int:
        """Remove temp files left by writers that died: those of a dead process on this host, and
        any older than ``stale_s``.  Returns how many were removed."""
        host, now, n = _host_token(), time.time(), 0
        for p in self.temp_files():
            parts = p.name.split(".")
            # "", <key>, "json", <host>, <pid>, <random>, "tmp"
            dead = False
            if len(parts) >= 7 and parts[-4] == host and parts[-3].isdigit():
                dead = not _pid_alive(int(parts[-3]))
            with contextlib.suppress(OSError):  # gone meanwhile, or another user's in a sticky folder
                if dead or abs(now - p.stat().st_mtime) > stale_s:  # abs: a clock skew dates some ahead
                    p.unlink()
                    n += 1
        return n

    def ensure_marker(self) -> None:
        """Create the folder and its marker file (what a worker checks before it runs a task)."""
        m = self.root / MARKER
        if not m.exists():
            atomic_write_text(m, json.dumps({"repcap_sweep_cache": str(self.root)}) + "\n")
