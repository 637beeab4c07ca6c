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
import errno
import hashlib
import json
import os
import socket
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repcap.base import io as rio
from repcap.base.paths import cache_dir

from .. import RepcapError

#: A temp file from another host (whose process we cannot see) is removed after this many seconds.
STALE_TEMP_S = 3600.0
#: The marker file that tells a worker it sees the same cache folder as the client.
MARKER = ".repcap-cache"
#: A claim (:meth:`Cache.claim`) from another host is trusted this many seconds past its last sign
#: of life (by default; ``REPCAP_CLAIM_TIMEOUT`` or ``repcap bundle compute --claim-timeout`` set it).
STALE_CLAIM_S = 600.0
#: How often a process touches the claims it holds (its sign of life to runs on other hosts).
HEARTBEAT_S = 60.0
#: A claim file that does not parse (being written, or damaged) is stale after this many seconds.
DAMAGED_CLAIM_S = 60.0


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


def claim_timeout() -> float:
    """Seconds a claim from another host is trusted past its last sign of life:
    ``REPCAP_CLAIM_TIMEOUT`` if set, else :data:`STALE_CLAIM_S`."""
    env = os.environ.get("REPCAP_CLAIM_TIMEOUT", "").strip()
    if not env:
        return STALE_CLAIM_S
    try:
        v = float(env)
    except ValueError:
        v = -1.0
    if not 0 <= v < 1e9:
        raise RepcapError(
            f"REPCAP_CLAIM_TIMEOUT={env[:40]!r}: give a number of seconds (0 or more) that another host's "
            "claim on a point is trusted"
        )
    return v


def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        return None


def _proc_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, /proc/PID/stat field 22), or None
    where there is no /proc.  A pid reused by a later process has another start."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _proc_command(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return " ".join(raw.decode("utf-8", errors="replace").split("\0")).strip()


def claim_record(pid: int) -> dict:
    """What a claim file holds for process ``pid`` of this host: host, pid, time, the boot it
    runs in and its start time (so that a pid reused after it died, or after a reboot, is not
    taken for the process that claimed)."""
    rec: dict[str, Any] = {"host": _host_token(), "pid": int(pid), "time": time.time()}
    boot, start = _boot_id(), _proc_start(pid)
    if boot:
        rec["boot"] = boot
    if start:
        rec["start"] = start
    return rec


def _read_claim_file(p: Path) -> dict | None:
    """A claim file's JSON object; None if it is missing, not a regular file, too large or does
    not parse (opened without following a link or blocking on a FIFO)."""
    try:
        obj = json.loads(rio.read_regular_bytes(p, 4096, follow_links=False).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def _age(seconds: float) -> str:
    s = abs(seconds)
    text = f"{s:.0f} s" if s < 120 else (f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h")
    return text if seconds >= 0 else f"{text} in the future"


@dataclass
class ClaimInfo:
    """One claim: who holds it and whether it is stale (``stale``: why, or None while it holds)."""

    path: Path
    host: str
    pid: int | None
    since: float | None  # the claim's own date (the holder's clock)
    beat: float  # the file's mtime: the holder's last sign of life
    local: bool  # claimed on this host
    stale: str | None
    timeout: float
    command: str = ""

    def describe(self) -> str:
        now = time.time()
        since = f"claimed {_age(now - self.since)} ago" if self.since is not None else "a damaged claim"
        if self.since is not None and self.since > now:
            since = f"dated {_age(now - self.since)} (a clock skew)"
        who = f"pid {self.pid}" + (f" ({self.command[:60]})" if self.command else "")
        where = "this host" if self.local else f"host {self.host}"
        return f"{where}, {who}, {since}, last sign of life {_age(now - self.beat)} ago"


#: Claims of other hosts this process has watched: path -> (the mtime last seen, when it was seen
#: to change, by this process's monotonic clock).  A claim is trusted at most ``timeout`` seconds
#: of this clock without a sign of life, whatever the dates in it say.
_WATCHED: dict[str, tuple[int, float]] = {}


def read_claim(p: Path, stale_s: float | None = None) -> ClaimInfo | None:
    """The claim at ``p`` and whether it is stale, or None where there is none.  Stale: a claim of
    this process (taken over by it); on this host, a process that has died, a pid that now belongs
    to another process (its start time differs, the machine has restarted since, or, for a claim
    without a start time, a process that is not Python or repcap); from another host, no sign of
    life (the holder touches its claims every :data:`HEARTBEAT_S`) for ``stale_s`` (default
    :func:`claim_timeout`) seconds, by its file's date or by this process's own clock since it
    first saw the claim, or a date further in the future than that (a clock skew cannot extend
    the trust); a claim that does not parse, after :data:`DAMAGED_CLAIM_S` seconds."""
    timeout = claim_timeout() if stale_s is None else float(stale_s)
    try:
        st = os.lstat(p)
    except OSError:
        return None
    now = time.time()
    info = _read_claim_file(p)
    try:
        host, pid = str(info["host"]), int(info["pid"])  # type: ignore[index]
        since = float(info["time"])  # type: ignore[index]
    except (TypeError, KeyError, ValueError):
        stale = None if abs(now - st.st_mtime) <= DAMAGED_CLAIM_S else "damaged (not a claim repcap wrote)"
        if not stat.S_ISREG(st.st_mode):
            stale = "not a regular file"
        return ClaimInfo(p, "?", None, None, st.st_mtime, False, stale, timeout)
    local = host == _host_token()
    c = ClaimInfo(p, host, pid, since, st.st_mtime, local, None, timeout)
    if local:
        c.command = _proc_command(pid)
        boot, start = info.get("boot"), info.get("start")  # type: ignore[union-attr]
        if pid == os.getpid() and (start is None or start == _proc_start(pid)):
            c.stale = "this process's own"
        elif not _pid_alive(pid):
            c.stale = f"pid {pid} is not running"
        elif boot is not None and _boot_id() is not None and boot != _boot_id():
            c.stale = "claimed before this machine restarted"
        elif start is not None and _proc_start(pid) is not None and start != _proc_start(pid):
            c.stale = f"pid {pid} is now another process"
        elif start is None and c.command and not any(w in c.command for w in ("python", "repcap")):
            c.stale = f"pid {pid} is now {c.command[:40]!r}, not a repcap run"
        return c
    key = str(p)
    seen = _WATCHED.get(key)
    mono = time.monotonic()
    if seen is None or seen[0] != st.st_mtime_ns:
        seen = (st.st_mtime_ns, mono)
        _WATCHED[key] = seen
    if since - now > timeout:
        c.stale = f"dated {_age(now - since)}, beyond the {timeout:.0f} s a claim is trusted (a clock skew)"
    elif now - st.st_mtime > timeout:
        c.stale = f"no sign of life for {_age(now - st.st_mtime)}"
    elif mono - seen[1] > timeout:
        c.stale = f"no sign of life for {mono - seen[1]:.0f} s while this run waited"
    return c


class _Heartbeat:
    """Touches the claim files this process holds every :data:`HEARTBEAT_S` seconds, from a
    daemon thread started with the first claim (and again in a forked child)."""

    def __init__(self) -> None:
        self.paths: set[Path] = set()
        self.lock = threading.Lock()
        self.owner = -1
        self.thread: threading.Thread | None = None

    def hold(self, p: Path) -> None:
        with self.lock:
            if self.owner != os.getpid():  # a forked child: its parent's claims are not its own
                self.paths, self.owner, self.thread = set(), os.getpid(), None
            self.paths.add(p)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="repcap-claims", daemon=True)
                self.thread.start()

    def drop(self, p: Path) -> None:
        with self.lock:
            self.paths.discard(p)

    def _run(self) -> None:
        while True:
            time.sleep(HEARTBEAT_S)
            with self.lock:
                held = list(self.paths) if self.owner == os.getpid() else []
            for p in held:
                with contextlib.suppress(OSError):
                    os.utime(p)


_HEART = _Heartbeat()


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
            _HEART.hold(p)
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
        _HEART.drop(p)
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
