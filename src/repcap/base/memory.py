"""How much memory this process may use, and one line for an allocator's refusal; how many CPU
threads it may ask for.

The limit is the smallest of the machine's RAM, the control group's ``memory.max`` (a container's
cap) and the address-space and data limits (``ulimit -v``, ``ulimit -d``), so that a refusal names
the figure that actually binds.  Nothing here imports torch or numpy.
"""

from __future__ import annotations

import os
import resource
from pathlib import Path

GiB = float(1 << 30)


def _cgroup_max() -> int | None:
    """The cgroup v2 (``memory.max``) or v1 (``memory.limit_in_bytes``) cap of this process."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    caps = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        rel = parts[2].lstrip("/")
        if parts[1] == "":
            cand = [Path("/sys/fs/cgroup") / rel / "memory.max", Path("/sys/fs/cgroup/memory.max")]
        elif "memory" in parts[1].split(","):
            cand = [Path("/sys/fs/cgroup/memory") / rel / "memory.limit_in_bytes"]
        else:
            continue
        for p in cand:
            try:
                text = p.read_text().strip()
            except OSError:
                continue
            if text.isdigit() and int(text) < 1 << 60:
                caps.append(int(text))
            break
    return min(caps) if caps else None


def limits() -> list[tuple[int, str]]:
    """``[(bytes, what)]``: every limit on this process's memory that can be read."""
    out: list[tuple[int, str]] = []
    try:
        out.append((os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), "RAM"))
    except (ValueError, OSError, AttributeError):
        pass
    cg = _cgroup_max()
    if cg is not None:
        out.append((cg, "the container's memory cap"))
    for res, what in ((resource.RLIMIT_AS, "ulimit -v"), (getattr(resource, "RLIMIT_DATA", None), "ulimit -d")):
        if res is None:
            continue
        try:
            soft, _hard = resource.getrlimit(res)
        except (ValueError, OSError):
            continue
        if soft != resource.RLIM_INFINITY and soft > 0:
            out.append((int(soft), what))
    return out


def limit() -> tuple[int, str] | None:
    """``(bytes, what)`` of the tightest limit, or None where none can be read."""
    found = limits()
    return min(found) if found else None


def gib(n: float) -> str:
    """``n`` bytes as GiB: ``"3.2 GiB"``, ``"0.25 GiB"``, ``"2.1e+04 GiB"``."""
    g = n / GiB
    return f"{g:.3g} GiB" if g < 1e4 else f"{g:.2g} GiB"


def machine_text() -> str:
    """``"this machine's 24 GiB"`` (its RAM), or ``"the 4 GiB this process may use (ulimit -v)"``:
    the tightest limit, which a refusal compares with."""
    lim = limit()
    if lim is None:
        return "this machine's memory"
    n, what = lim
    return f"this machine's {gib(n)}" if what == "RAM" else f"the {gib(n)} this process may use ({what})"


def too_big(need: float, share: float = 1.0) -> bool:
    """Whether ``need`` bytes exceed ``share`` of the tightest limit (False where none is known)."""
    lim = limit()
    return lim is not None and need > share * lim[0]


def allocation_error(exc: BaseException) -> bool:
    """Whether ``exc`` is an allocator's refusal: ``MemoryError``, torch's ``DefaultCPUAllocator:
    can't allocate memory`` or CUDA's ``out of memory`` (a ``RuntimeError``), numpy's
    ``ArrayMemoryError``, or ``ENOMEM`` from ``mmap``."""
    if isinstance(exc, MemoryError):
        return True
    if isinstance(exc, OSError) and exc.errno == 12:  # ENOMEM
        return True
    if isinstance(exc, RuntimeError):
        text = str(exc)
        return any(s in text for s in ("can't allocate memory", "out of memory", "Cannot allocate memory"))
    return False


def refusal(what: str | None, exc: BaseException | None = None) -> str:
    """One line for an allocator's refusal (while doing ``what``)."""
    cause = " ".join(str(exc).split())[:120] if exc is not None and str(exc) else ""
    return (
        f"{f'{what}: ' if what else ''}out of memory{f' ({cause})' if cause else ''}; {machine_text()} is the "
        "limit - ask for less (fewer rows, a smaller size), or run where there is more"
    )


def max_cpu_threads() -> int:
    """The most intra-op CPU threads a run may ask for: 4 x this machine's cores (torch crashed,
    SIGSEGV, on ``set_num_threads(100000)``)."""
    return 4 * (os.cpu_count() or 1)
