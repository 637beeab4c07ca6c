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

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from repcap import RepcapError
from repcap.sweep import Cache, canonical, fn_name, point_key
from repcap.sweep.keys import computation_digest, computation_parts, config_part
from repcap.sweep.provenance import plain_text
from repcap.sweep.provenance import versions as _env_versions

from .. import runs as _runs
from .folder import _stage_and_swap, check_out
from .index import _read_record, _stored, point_id
from .jsonio import _alphabet, _sha
from .schema import (
    _ENTRY_KEYS,
    _PROV_TYPES,
    FORMAT,
    LARGE_FIELDS,
    MANIFEST,
    VERSION,
    Bundle,
    _ranges,
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
    pset = _runs.point_set(set_name, scale)
    plan = check_out(out_dir, set_name, scale, replace=replace)
    merge = _Merge(set_name, _here(), plan.old)
    files: dict[str, str] = {}
    lines: list[dict] = []
    for e in pset.experiments:
        name, text, line = merge.experiment(e, e.keep_large if keep_large is None else keep_large)
        files[name] = text
        lines.append(line)
    after = merge.n_primaries
    dropped = _n_dropped([be for be in plan.old.entries if be.primary] if plan.old else [], pset)
    rep = ExportReport({}, plan.before, after, merge.n_cache, merge.n_kept, dropped, plan.notes)
    if after < plan.before and not replace:
        raise RepcapError(
            f"bundle {plan.out}: the new bundle would hold {after} points, fewer than the {plan.before} it holds now "
            f"({merge.n_cache} from this machine's cache, {merge.n_kept} kept); nothing written (pass --replace to "
            "write it anyway)"
        )
    body = {
        "format": FORMAT,
        "version": VERSION,
        "set": set_name,
        "scale": scale,
        "experiments": lines,
        "provenance": {
            "commit": merge.here["commit"],
            "exported": _now(),
            "versions": merge.here["versions"],
            "devices": sorted(merge.devices),
            "wall_s": sum(x["wall_s"] for x in lines),
        },
    }
    manifest = {**body, "sha256": _sha(canonical(body))}
    files[MANIFEST] = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    _stage_and_swap(plan.out, files, plan)
    rep.manifest = manifest
    if report is not None:
        report.append(rep)
    return manifest


def _here() -> dict:
    """This machine's device, commit and package versions (a point computed here is recorded so)."""
    from repcap.base.context import git_revision
    from repcap.base.devices import device_name, resolve_device

    return {
        "device": plain_text(device_name(resolve_device("auto"))),
        "commit": plain_text(git_revision()),
        "versions": {k: plain_text(v) for k, v in _env_versions().items()},
    }


@dataclass
class _Merge:
    """The old bundle's entries merged with this machine's cache, one experiment at a time."""

    set_name: str
    here: dict
    old: Bundle | None
    devices: set[str] = field(default_factory=set)
    n_cache: int = 0
    n_kept: int = 0
    n_primaries: int = 0
    # old entries by (experiment, key) for fresh ones (a point's primary and replicas, in order) and
    # (experiment, point id) for stale ones; an experiment "" holds each under any experiment, so that
    # a point the set has moved to another of its experiments (a re-split) is re-homed there
    by_key: dict[tuple[str, str], list[dict]] = field(default_factory=dict)
    by_id: dict[tuple[str, str], list[dict]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for be in self.old.entries if self.old else []:
            index, ref = (self.by_key, be.key) if be.fresh else (self.by_id, point_id(be.data["fn"], be.data["config"]))
            index.setdefault((be.experiment, ref), []).append(be.data)
            if ("", ref) not in index or be.experiment == index[("", ref)][0]["provenance"].get("experiment"):
                index.setdefault(("", ref), [])
                if be.data not in index[("", ref)]:
                    index[("", ref)].append(be.data)

    def experiment(self, e, keep: bool) -> tuple[str, str, dict]:
        """One experiment's file name, text and manifest line."""
        cache, name = Cache.named(e.cache), fn_name(e.fn)
        parts = computation_parts(e.fn)
        code = computation_digest(parts["numerics"], parts["data"])
        entries: list[dict] = []
        missing, wall = [], 0.0
        for c in e.configs:
            key = point_key(e.fn, c, code)
            group = self.by_key.get((e.name, key)) or self.by_key.get(("", key)) or []
            got = _stored(cache, key)
            if got is None:
                pid = point_id(name, c)
                old = group or self.by_id.get((e.name, pid)) or self.by_id.get(("", pid)) or []
                if not old:
                    missing.append(c)
                    continue
                wall += _add(entries, old, e.name, self.devices)
                self.n_kept += 1
                continue
            entry = self._entry(e, c, key, parts, cache, got, keep, group)
            if entry is None:
                wall += _add(entries, group, e.name, self.devices)
                self.n_kept += 1
                continue
            wall += _add(entries, [*group, entry], e.name, self.devices)
            self.n_cache += 1
        self.n_primaries += sum(x["primary"] for x in entries)
        text = _dump_experiment({"experiment": e.name, "fn": name, "cache": e.cache, "missing": missing}, entries)
        line = {
            "name": e.name,
            "fn": name,
            "cache": e.cache,
            "file": f"{e.name}.json",
            "sha256": _sha(text),
            "n_entries": len(entries),
            "n_missing": len(missing),
            "wall_s": wall,
        }
        return f"{e.name}.json", text, line

    def _entry(self, e, c: dict, key: str, parts: dict, cache: Cache, got, keep: bool, group: list) -> dict | None:
        """The entry of a cached result; None where the bundle's own ``group`` is kept instead."""
        result, mtime = got
        name = fn_name(e.fn)
        prov = _provenance(cache, name, c, key, result, mtime, self.here)
        foreign = prov.get("set") not in (None, self.set_name)  # imported from another set's bundle
        prov = prov | {"set": self.set_name, "experiment": e.name}
        omitted = [] if keep else [f for f in LARGE_FIELDS if f in result]
        result = {k: v for k, v in result.items() if k not in omitted}
        sha = _sha(canonical(result))
        same_run = any(
            o["sha256"] == sha
            and (o["provenance"].get("computed"), o["provenance"].get("device")) == (prov["computed"], prov["device"])
            for o in group
        )
        if group and (foreign or same_run):
            # the point this bundle already holds (its first export said where and at which commit
            # it was computed, which a later export must keep), or one another set brought
            return None
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
        return entry


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
