"""The content-addressed result cache of a sweep: one JSON file per point, written atomically
(temp file + fsync + rename) with a checksum of its payload, verified on read; a corrupt or
half-written entry is recomputed, never trusted.

Temp files are named ``.<key>.json.<host>.<pid>.<random>.tmp`` (never ``*.json``, so no reader
mistakes one for a result); those left by a killed process are removed by the next sweep on the
same host, and any older than :data:`STALE_TEMP_S` by any host.  The point keys themselves come
from :mod:`.keys`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
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


def canonical(obj: Any) -> str:
    """Canonical JSON (sorted keys, no whitespace); floats must be finite."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False, default=rio._json_default)


def _host_token() -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in socket.gethostname())[:40] or "host"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file in the same folder (fsync, then rename).

    The temp name carries host and pid so that :meth:`Cache.clean_temp` can tell a dead writer's
    leftover from a live writer's file, and ends in ``.tmp`` so that no glob for entries sees it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{_host_token()}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@dataclass
class Cache:
    """One folder of content-addressed JSON results: ``root/<key[:2]>/<key>.json``.

    An entry is ``{"key", "config", "result", "sha256"}`` where ``sha256`` is the digest of the
    canonical JSON of ``result``.
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
        """The cached result, or ``None`` if absent or corrupt (a corrupt entry is removed)."""
        p = self.path(key)
        try:
            return self._verified(json.loads(p.read_text()), key)
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, OSError):
            p.unlink(missing_ok=True)
            return None

    @staticmethod
    def _verified(entry: Any, key: str) -> dict:
        payload = canonical(entry["result"])
        if entry.get("key") != key or entry.get("sha256") != hashlib.sha256(payload.encode()).hexdigest():
            raise ValueError("checksum mismatch")
        return entry["result"]

    def put(self, key: str, config: dict, result: dict) -> None:
        payload = canonical(result)
        entry = {
            "key": key,
            "config": config,
            "result": json.loads(payload),
            "sha256": hashlib.sha256(payload.encode()).hexdigest(),
        }
        atomic_write_text(self.path(key), json.dumps(entry, sort_keys=True) + "\n")

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
            except (ValueError, KeyError, TypeError, UnicodeDecodeError, OSError):
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
            with contextlib.suppress(FileNotFoundError):
                if dead or now - p.stat().st_mtime > stale_s:
                    p.unlink()
                    n += 1
        return n

    def ensure_marker(self) -> None:
        """Create the folder and its marker file (what a worker checks before it runs a task)."""
        m = self.root / MARKER
        if not m.exists():
            atomic_write_text(m, json.dumps({"repcap_sweep_cache": str(self.root)}) + "\n")
