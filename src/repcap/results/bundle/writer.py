"""Writing a bundle: the finished points of a named set, read from the sweep caches, written as a
folder with the provenance each result recorded when it was computed (device, commit, date, wall
time, package versions, engine source digest), copied, never re-derived.

An export never loses points and never leaves a bundle half-written:

- *Merge.*  Where the folder already holds a bundle of the same set, its entries are kept wherever
  this machine's cache lacks the point: a fresh entry (its identity is this checkout's for a config
  of the set) as it is, with its replicas, a stale one (another numerics version) until the point is
  computed again; an entry whose point the set now has under another of its experiments (a
  re-split) is written under that one.  A result of the cache for a point the bundle already holds
  with another result (computed on another device, under other versions) is added as a *replica*:
  the bundle's first result stays the point's primary.  Only entries of configs the set no longer has (or copies of a point it
  holds under another experiment) can be dropped, and then only with ``replace=True``: an export
  that would leave fewer points than before is refused, with both counts.
- *Atomic.*  The new bundle is written to a folder beside the old one (``.<name>.new-<pid>-*``),
  each file fsynced, and the two folders are then swapped in one ``renameat2(RENAME_EXCHANGE)``
  (or, where the system lacks it, two renames, undone on failure).  A full disk, Ctrl-C or a kill
  before the swap leaves the old bundle exactly as it was; what was half-written is removed (a
  killed export's leftovers by the next export).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from repcap import RepcapError
from repcap.base import io as rio
from repcap.base.paths import check_path
from repcap.sweep import Cache, canonical, fn_name, point_key
from repcap.sweep.cache import _cause, _pid_alive
from repcap.sweep.keys import computation_digest, computation_parts, config_part
from repcap.sweep.provenance import plain_text
from repcap.sweep.provenance import versions as _env_versions

from .. import runs as _runs
from .index import _read_record, _stored, point_id
from .schema import (
    _ENTRY_KEYS,
    _PROV_TYPES,
    FORMAT,
    LARGE_FIELDS,
    MANIFEST,
    VERSION,
    Bundle,
    _alphabet,
    _ranges,
    _sha,
    read,
)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _provenance(cache: Cache, name: str, config: dict, key: str, result: dict, mtime: float, here: dict) -> dict:
    """Where a cached point was computed: its import record's, if it came from a bundle; else what
    its cache entry recorded when it was computed; else (an entry written before provenance was
    recorded) what the result says, with this checkout's commit and versions."""
    rec = _read_record(cache, point_id(name, config))
    if rec and rec.get("key") == key and rec.get("result_sha256") == _sha(canonical(result)):
        prov = {k: v for k, v in rec["provenance"].items() if k in _PROV_TYPES}
        return prov | {"code": str(prov.get("code", ""))}
    recorded = cache.provenance(key)
    if recorded is not None and {"device", "computed", "commit", "versions"} <= set(recorded):
        prov = {k: v for k, v in recorded.items() if k in _PROV_TYPES}
        return prov | {"code": str(prov.get("code", "")), "seconds": prov.get("seconds")}
    dev = result.get("device")
    return {
        "device": plain_text(dev) if isinstance(dev, str) else here["device"],
        "seconds": result.get("seconds") if isinstance(result.get("seconds"), (int, float)) else None,
        "computed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime)),
        "commit": here["commit"],
        "versions": here["versions"],
        "code": "",
    }


def _dump_experiment(header: dict, entries: list[dict]) -> str:
    """One JSON object, one entry per line (readable diffs)."""
    head = json.dumps(header, sort_keys=True, allow_nan=False)[:-1]
    body = ",\n".join(json.dumps(e, sort_keys=True, separators=(",", ":"), allow_nan=False) for e in entries)
    return f'{head}, "entries": [\n{body}\n]}}\n'


def _write(path: Path, text: str) -> None:
    """Atomically, readable by all (one file in place: what tools/rekey_bundle.py uses; an
    export writes a whole new folder instead, :func:`_stage_and_swap`)."""
    from repcap.sweep import atomic_write_text

    atomic_write_text(path, text)
    os.chmod(path, 0o644)


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
    from repcap.sweep.cache import _host_token

    return json.dumps({"host": _host_token(), "pid": os.getpid(), "start": _process_start(os.getpid())}) + "\n"


def _process_start(pid: int) -> str:
    """The start time of process ``pid`` on this host (``/proc``; empty where unknown), so that a
    reused pid is not taken for the export that left a folder."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _left_by_dead_export(folder: Path) -> bool:
    """Whether ``folder`` holds an export's marker whose process (on this host) has ended."""
    from repcap.sweep.cache import _host_token

    try:
        info = json.loads(rio.read_regular_bytes(folder / STAGING_MARKER, 4096, follow_links=False))
        host, pid, start = str(info["host"]), int(info["pid"]), str(info.get("start", ""))
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if host != _host_token():
        return False
    return not _pid_alive(pid) or (bool(start) and _process_start(pid) != start)


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


@dataclass
class ExportReport:
    manifest: dict
    before: int  # points (primaries) the folder's bundle held before
    after: int  # points (primaries) of the new bundle
    from_cache: int  # results read from this machine's cache (new points and new replicas)
    kept: int  # entries kept from the old bundle (the cache lacked them)
    dropped: int  # old entries of configs the set no longer has, or copies of a point held elsewhere
    notes: list[str] = field(default_factory=list)

    def describe(self, out: str | Path) -> str:
        return (
            f"bundle {out}: {self.before} points before, {self.after} after ({self.from_cache} from this machine's "
            f"cache, {self.kept} kept from the bundle, {self.dropped} dropped)"
        )


def export(
    set_name: str,
    out_dir: str | Path,
    *,
    scale: str = "full",
    keep_large: bool | None = None,
    replace: bool = False,
    report: list | None = None,
) -> dict:
    """Write the finished points of set ``set_name`` to ``out_dir``, merged with the bundle already
    there (see the module docstring); returns the manifest (and appends an :class:`ExportReport`
    to ``report`` if given).  ``keep_large``: keep :data:`LARGE_FIELDS` (None: as each experiment
    says).  ``replace``: allow the new bundle to hold fewer points than the old one."""
    from repcap.base.context import git_revision
    from repcap.base.devices import device_name, resolve_device

    pset = _runs.point_set(set_name, scale)
    plan = check_out(out_dir, set_name, scale, replace=replace)
    out = plan.out
    here = {
        "device": plain_text(device_name(resolve_device("auto"))),
        "commit": plain_text(git_revision()),
        "versions": {k: plain_text(v) for k, v in _env_versions().items()},
    }
    # old entries by (experiment, key) for fresh ones (a point's primary and replicas, in order) and
    # (experiment, point id) for stale ones; an experiment "" holds each under any experiment, so that
    # a point the set has moved to another of its experiments (a re-split) is re-homed there
    old_by_key: dict[tuple[str, str], list[dict]] = {}
    old_by_id: dict[tuple[str, str], list[dict]] = {}
    for be in plan.old.entries if plan.old else []:
        index, ref = (old_by_key, be.key) if be.fresh else (old_by_id, point_id(be.data["fn"], be.data["config"]))
        index.setdefault((be.experiment, ref), []).append(be.data)
        if ("", ref) not in index or be.experiment == index[("", ref)][0]["provenance"].get("experiment"):
            index.setdefault(("", ref), [])
            if be.data not in index[("", ref)]:
                index[("", ref)].append(be.data)
    files: dict[str, str] = {}
    lines: list[dict] = []
    devices: set[str] = set()
    total = 0.0
    n_cache = n_kept = n_primaries = 0
    for e in pset.experiments:
        cache, name = Cache.named(e.cache), fn_name(e.fn)
        parts = computation_parts(e.fn)
        code = computation_digest(parts["numerics"], parts["data"])
        keep = e.keep_large if keep_large is None else keep_large
        entries: list[dict] = []
        missing, wall = [], 0.0

        for c in e.configs:
            key = point_key(e.fn, c, code)
            pid = point_id(name, c)
            group = old_by_key.get((e.name, key)) or old_by_key.get(("", key)) or []
            got = _stored(cache, key)
            if got is None:
                old = group or old_by_id.get((e.name, pid)) or old_by_id.get(("", pid)) or []
                if not old:
                    missing.append(c)
                    continue
                wall += _add(entries, old, e.name, devices)
                n_kept += 1
                continue
            result, mtime = got
            prov = _provenance(cache, name, c, key, result, mtime, here)
            foreign = prov.get("set") not in (None, set_name)  # imported from another set's bundle
            prov = prov | {"set": set_name, "experiment": e.name}
            omitted = [] if keep else [f for f in LARGE_FIELDS if f in result]
            result = {k: v for k, v in result.items() if k not in omitted}
            sha = _sha(canonical(result))
            same_run = any(
                o["sha256"] == sha
                and (o["provenance"].get("computed"), o["provenance"].get("device"))
                == (prov["computed"], prov["device"])
                for o in group
            )
            if group and (foreign or same_run):
                # the point this bundle already holds (its first export said where and at which commit
                # it was computed, which a later export must keep), or one another set brought
                wall += _add(entries, group, e.name, devices)
                n_kept += 1
                continue
            entry = {
                "fn": name,
                "config": c,
                "identity": config_part(e.fn, c),
                "numerics": parts["numerics"],
                "data": parts["data"],
                "key": key,
                "result": result,
                "sha256": sha,
                "omitted": omitted,
                "primary": not group,  # a new result for a point the bundle holds is a replica of it
                "provenance": prov,
            }
            _check_written(entry, f"{e.name} {c}")
            wall += _add(entries, [*group, entry], e.name, devices)
            n_cache += 1
        n_primaries += sum(x["primary"] for x in entries)
        text = _dump_experiment({"experiment": e.name, "fn": name, "cache": e.cache, "missing": missing}, entries)
        files[f"{e.name}.json"] = text
        lines.append(
            {
                "name": e.name,
                "fn": name,
                "cache": e.cache,
                "file": f"{e.name}.json",
                "sha256": _sha(text),
                "n_entries": len(entries),
                "n_missing": len(missing),
                "wall_s": wall,
            }
        )
        total += wall
    after = n_primaries
    dropped = _n_dropped([be for be in plan.old.entries if be.primary] if plan.old else [], pset)
    rep = ExportReport({}, plan.before, after, n_cache, n_kept, dropped, plan.notes)
    if after < plan.before and not replace:
        raise RepcapError(
            f"bundle {out}: the new bundle would hold {after} points, fewer than the {plan.before} it holds now "
            f"({n_cache} from this machine's cache, {n_kept} kept); nothing written (pass --replace to write it anyway)"
        )
    body = {
        "format": FORMAT,
        "version": VERSION,
        "set": set_name,
        "scale": scale,
        "experiments": lines,
        "provenance": {
            "commit": here["commit"],
            "exported": _now(),
            "versions": here["versions"],
            "devices": sorted(devices),
            "wall_s": total,
        },
    }
    manifest = {**body, "sha256": _sha(canonical(body))}
    files[MANIFEST] = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    _stage_and_swap(out, files, plan)
    rep.manifest = manifest
    if report is not None:
        report.append(rep)
    return manifest


def _add(entries: list[dict], group: list[dict], experiment: str, devices: set) -> float:
    """Append ``group`` (a point's entries) to ``entries`` under ``experiment`` (re-homing an entry
    written under another one); returns the computing time it adds (its primary's)."""
    wall = 0.0
    for old in group:
        if old["provenance"].get("experiment") != experiment:
            old = old | {"provenance": old["provenance"] | {"experiment": experiment}}
        entries.append(old)
        devices.add(old["provenance"]["device"])
        wall += (old["provenance"]["seconds"] or 0.0) if old["primary"] else 0.0
    return wall


def _n_dropped(old_entries, pset) -> int:
    """Old entries the new bundle does not hold: those of configs no experiment of the set has, and
    those of experiments the set no longer has whose point is already held under an experiment it
    has (a duplicate).  An entry whose point moved to another experiment is re-homed, not dropped."""
    pid = {id(be): point_id(be.data["fn"], be.data["config"]) for be in old_entries}
    held = {(be.experiment, pid[id(be)]) for be in old_entries}
    homes: dict[str, list[str]] = {}  # point id -> the experiments of the set that have it
    for e in pset.experiments:
        name = fn_name(e.fn)
        for c in e.configs:
            homes.setdefault(point_id(name, c), []).append(e.name)
    n = 0
    for be in old_entries:
        where = homes.get(pid[id(be)], [])
        if be.experiment in where:
            continue
        if not where or all((x, pid[id(be)]) in held for x in where):
            n += 1
    return n


def _check_written(entry: dict, where: str) -> None:
    """What an export writes must pass what an import checks: plain strings, results in range."""
    assert set(entry) == _ENTRY_KEYS
    _alphabet(entry["config"], f"{where}: config")
    _alphabet(entry["result"], f"{where}: result")
    _alphabet(entry["provenance"], f"{where}: provenance")
    _ranges(entry["result"], f"{where}: result")


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
