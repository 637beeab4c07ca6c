"""The bundle folder on disk: what an export checks before it computes (:func:`check_out`), how it
writes the new bundle beside the old one and swaps the two in one step, and how a later export tidies
what a killed one left behind (see :mod:`.writer` for the guarantees)."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from repcap import RepcapError
from repcap.base import io as rio
from repcap.base.paths import check_path
from repcap.sweep.claims import _pid_alive, _proc_start
from repcap.sweep.files import _cause, _host_token

from .schema import MANIFEST, Bundle, read


def _write_file(path: Path, text: str) -> None:
    """One file of a new bundle (in its staging folder), readable by all, fsynced."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "wb") as fh:
        os.fchmod(fh.fileno(), 0o644)
        fh.write(text.encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(new: Path, out: Path) -> None:
    """Make the staged folder ``new`` the bundle at ``out``; the old one (if any) is removed after."""
    if not out.exists():
        os.rename(new, out)
        return
    if _exchange(new, out):
        shutil.rmtree(new, ignore_errors=True)  # now the old bundle
        return
    old = out.parent / f".{out.name[:100]}.old-{os.getpid()}-{os.urandom(4).hex()}"
    os.rename(out, old)
    with contextlib.suppress(OSError):  # marked as this export's, so that a later one may restore it
        _write_file(old / STAGING_MARKER, _marker_text())
    try:
        os.rename(new, out)
    except BaseException:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


#: The file an export writes first into its staging folder (host, pid, process start): the only
#: mark by which a later export may remove a leftover folder (a folder merely named like one is the
#: user's and is kept).
STAGING_MARKER = ".repcap-export"


def _marker_text() -> str:
    return json.dumps({"host": _host_token(), "pid": os.getpid(), "start": _proc_start(os.getpid()) or ""}) + "\n"


def _left_by_dead_export(folder: Path) -> bool:
    """Whether ``folder`` holds an export's marker whose process (on this host) has ended."""
    try:
        info = json.loads(rio.read_regular_bytes(folder / STAGING_MARKER, 4096, follow_links=False))
        host, pid, start = str(info["host"]), int(info["pid"]), str(info.get("start", ""))
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if host != _host_token():
        return False
    return not _pid_alive(pid) or (bool(start) and (_proc_start(pid) or "") != start)


def _recover(out: Path) -> str | None:
    """Tidy what a killed export left beside ``out``: a staging folder of a dead export (its
    marker says so) is removed; an old bundle moved aside (killed between the two renames of the
    fallback swap) is moved back when ``out`` is gone.  A folder named like a leftover but without
    the marker is the user's: kept.  Returns a line saying what was done, or None."""
    said = []
    parent = out.parent
    if not parent.is_dir():
        return None
    prefix = f".{out.name[:100]}."
    try:
        names = [n for n in os.listdir(parent) if n.startswith(prefix)]
    except OSError:
        return None
    for n in names:
        kind = n[len(prefix) :].partition("-")[0]
        p = parent / n
        if kind not in ("new", "old") or not p.is_dir() or p.is_symlink() or not _left_by_dead_export(p):
            continue
        if kind == "old" and not out.exists() and (p / MANIFEST).is_file():
            os.rename(p, out)
            (out / STAGING_MARKER).unlink(missing_ok=True)
            said.append(f"bundle {out}: restored the previous bundle that an interrupted export had moved aside ({p})")
        else:
            shutil.rmtree(p, ignore_errors=True)
            said.append(f"bundle {out}: removed {p}, left by an interrupted export")
    return "; ".join(said) or None


@dataclass
class ExportPlan:
    """What an export will do to the folder (checked before anything is computed or written)."""

    out: Path
    old: Bundle | None = None  # the bundle the folder holds now (None: a new or empty folder)
    replace: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def before(self) -> int:
        return sum(be.primary for be in self.old.entries) if self.old else 0


def check_out(out_dir: str | Path, set_name: str, scale: str = "full", *, replace: bool = False) -> ExportPlan:
    """Check that ``out_dir`` can take an export of set ``set_name`` (what ``bundle compute --out``
    runs *before* computing): a path the file system accepts, not a file, not a folder of other
    things, and, if it holds a bundle, one that reads and is of the same set and scale (else
    ``replace=True`` is needed).  Nothing is written, except that a killed export's leftovers are
    tidied."""
    out = Path(out_dir)
    check_path(out.absolute(), "bundle folder")
    plan = ExportPlan(out, replace=replace)
    try:
        note = _recover(out)
        if note:
            plan.notes.append(note)
        if out.is_symlink():
            target = out.resolve()
            if not target.is_dir():
                raise RepcapError(f"bundle folder {out}: a link to {target}, which is not a folder")
            plan.notes.append(f"bundle folder {out} is a link to {target}: the bundle is written there")
            plan.out = out = target
        if out.exists() and not out.is_dir():
            raise RepcapError(f"bundle folder {out}: exists and is not a folder (a file)")
        if not out.exists():
            anc = out.absolute().parent
            while not anc.exists():
                anc = anc.parent
            if not anc.is_dir():
                raise RepcapError(f"bundle folder {out}: {anc} is not a folder")
            if not os.access(anc, os.W_OK | os.X_OK):
                raise RepcapError(f"bundle folder {out}: cannot create it in {anc} (permission denied)")
            return plan
        names = os.listdir(out)
        if not os.access(out.absolute().parent, os.W_OK | os.X_OK):
            raise RepcapError(f"bundle folder {out}: cannot replace it in {out.absolute().parent} (permission denied)")
    except OSError as exc:
        raise RepcapError(f"bundle folder {out}: {_cause(exc)}") from None
    if not names:
        return plan
    if MANIFEST not in names:
        raise RepcapError(
            f"bundle folder {out}: holds {len(names)} files but no {MANIFEST}; an export writes only to a new, "
            "empty or bundle folder"
        )
    try:
        old = read(out)
    except RepcapError as exc:
        if not replace:
            raise RepcapError(
                f"bundle folder {out}: the bundle there does not read ({exc}); fix it, or pass --replace to "
                "overwrite it"
            ) from None
        plan.notes.append(f"bundle {out}: replacing an unreadable bundle")
        return plan
    if (old.manifest["set"], old.manifest["scale"]) != (set_name, scale) and not replace:
        raise RepcapError(
            f"bundle folder {out}: holds set {old.manifest['set']} ({old.manifest['scale']}), not {set_name} "
            f"({scale}); pass --replace to overwrite it"
        )
    plan.old = old if (old.manifest["set"], old.manifest["scale"]) == (set_name, scale) else None
    return plan


def _stage_and_swap(out: Path, files: dict[str, str], plan: ExportPlan) -> None:
    parent = out.absolute().parent
    stage: Path | None = None
    try:
        parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name[:100]}.new-{os.getpid()}-", dir=parent))
        os.chmod(stage, 0o755)  # mkdtemp's 0700 would keep the bundle from whoever shares it
        _write_file(stage / STAGING_MARKER, _marker_text())
        ours = {MANIFEST} | ({x["file"] for x in plan.old.manifest["experiments"]} if plan.old else set())
        if out.is_dir() and plan.old is not None:  # anything else the folder holds (a README) stays
            for n in sorted(os.listdir(out)):
                if n not in ours and n not in files:
                    src = out / n
                    if src.is_dir() and not src.is_symlink():
                        shutil.copytree(src, stage / n, symlinks=True)
                    else:
                        shutil.copy2(src, stage / n, follow_symlinks=False)
        for n, text in files.items():
            if n != MANIFEST:
                _write_file(stage / n, text)
        _write_file(stage / MANIFEST, files[MANIFEST])
        _fsync_dir(stage)
        (stage / STAGING_MARKER).unlink()  # the bundle itself carries no marker
        _swap_in(stage, out.absolute())
        stage = None
        _fsync_dir(parent)
    except OSError as exc:
        raise RepcapError(f"bundle {out}: cannot write it ({_cause(exc)}); the previous bundle is unchanged") from None
    finally:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
