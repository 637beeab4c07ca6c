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
one line and skipped, never deleted: only a checksum or parse failure makes an entry corrupt.
:meth:`Cache.claim` marks a point as being computed (a lock file holding host, pid and time), so
that two runs of one set do not compute it twice.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import RepcapError
from .. import io as rio
from ..paths import cache_dir

#: A temp file from another host (whose process we cannot see) is removed after this many seconds.
STALE_TEMP_S = 3600.0
#: The marker file that tells a worker it sees the same cache folder as the client.
MARKER = ".repcap-cache"
#: A claim (:meth:`Cache.claim`) from another host is taken over after this many seconds.
STALE_CLAIM_S = 6 * 3600.0


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


def warn(msg: str) -> None:
    """One line on stderr (a point skipped, not an error)."""
    print(f"repcap: {msg}", file=sys.stderr, flush=True)


def canonical(obj: Any) -> str:
    """Canonical JSON (sorted keys, no whitespace); floats must be finite."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False, default=rio._json_default)


def _host_token() -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in socket.gethostname())[:40] or "host"


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host still runs (a zombie, dead but not yet reaped, does not:
    in a container whose first process reaps nothing, a killed process's pid stays a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):  # no /proc (not Linux): the signal test is all there is
        return True
    return state not in ("Z", "X")


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
        may); one this user cannot read (another user's, a disk error) is reported and kept."""
        p = self.path(key)
        try:
            raw = p.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
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
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        prov = entry.get("provenance") if isinstance(entry, dict) else None
        return prov if isinstance(prov, dict) else None

    def claim_path(self, key: str) -> Path:
        return self.root / key[:2] / f".{key}.claim"

    def claim(self, key: str, stale_s: float = STALE_CLAIM_S) -> bool:
        """Mark ``key`` as being computed by this process: True if the claim is ours now, False
        if a live process holds it (then this run should leave the point to that one and read it
        later).  The claim file holds host, pid and time; a claim whose process has died (same
        host) or older than ``stale_s`` (any host) is taken over.  A claim that cannot be written
        (a read-only cache) is not an error: True, and the point is computed as before."""
        p = self.claim_path(key)
        me = {"host": _host_token(), "pid": os.getpid(), "time": time.time()}
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
                fh.write(json.dumps(me) + "\n")
            return True
        return False

    def _claim_stale(self, p: Path, stale_s: float) -> bool:
        try:
            info = json.loads(p.read_text())
            host, pid, when = str(info["host"]), int(info["pid"]), float(info["time"])
        except FileNotFoundError:
            return True
        except (OSError, ValueError, KeyError, TypeError):  # being written, or damaged: by its age
            try:
                return abs(time.time() - p.stat().st_mtime) > 60.0
            except OSError:
                return True
        if host == _host_token() and (pid == os.getpid() or not _pid_alive(pid)):
            return True
        return abs(time.time() - when) > stale_s

    def release(self, key: str) -> None:
        """Remove this process's claim on ``key`` (another's is left alone)."""
        p = self.claim_path(key)
        try:
            info = json.loads(p.read_text())
        except (OSError, ValueError):
            return
        if isinstance(info, dict) and info.get("host") == _host_token() and info.get("pid") == os.getpid():
            with contextlib.suppress(OSError):
                p.unlink()

    def claimed(self, key: str, stale_s: float = STALE_CLAIM_S) -> bool:
        """Whether another live process holds a claim on ``key``."""
        p = self.claim_path(key)
        return p.exists() and not self._claim_stale(p, stale_s)

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
                self._verified(json.loads(p.read_text()), p.stem)
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
