"""Claims on a point: the lock file :meth:`repcap.sweep.Cache.claim` writes while a point is
computed (host, pid, boot, process start, time), how old or dead a claim is, and the heartbeat that
keeps this process's claims alive for runs on other hosts."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repcap.base import io as rio

from .. import RepcapError
from .files import _host_token

#: A claim (:meth:`Cache.claim`) from another host is trusted this many seconds past its last sign
#: of life (by default; ``REPCAP_CLAIM_TIMEOUT`` or ``repcap bundle compute --claim-timeout`` set it).
STALE_CLAIM_S = 600.0
#: How often a process touches the claims it holds (its sign of life to runs on other hosts).
HEARTBEAT_S = 60.0
#: A claim file that does not parse (being written, or damaged) is stale after this many seconds.
DAMAGED_CLAIM_S = 60.0


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
