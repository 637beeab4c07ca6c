"""Import, lookup and status: seed the sweep caches with a bundle's fresh entries, read points back
with their provenance without computing anything, and count a bundle's fresh, stale and missing
points."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.sweep import Cache, canonical, code_digest, fn_name, point_key
from repcap.sweep.provenance import plain_text

from .. import runs as _runs
from ..runs.cost import duration, point_seconds
from .index import DAMAGED, _read_record, _record_state, _stored, _write_record, point_id
from .schema import _sha, read


def _clean(obj: Any) -> Any:
    """Every string in ``obj`` (an import record's provenance) in the plain alphabet of a bundle:
    what an import checked, made sure of again where it is read back (a record can be edited)."""
    if isinstance(obj, str):
        return plain_text(obj)
    if isinstance(obj, dict):
        return {plain_text(str(k)): _clean(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_clean(v) for v in obj]
    return obj


_MD_SPECIAL = set("\\`*_{}[]<>#!|~$&\"'")


def markdown_escape(text: str) -> str:
    """``text`` as literal Markdown (MyST) and HTML: every character that could start markup is
    backslash-escaped, and ``<``, ``>``, ``&`` and quotes become entities."""
    import html

    out = []
    for ch in str(text):
        if ch in "<>&\"'":
            out.append(html.escape(ch, quote=True))
        elif ch in _MD_SPECIAL:
            out.append("\\" + ch)
        elif ch < " " or ch == "\x7f":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


@dataclass
class ImportReport:
    path: Path
    imported: int = 0
    already: int = 0  # the cache held the same result already, or keeps its own (computed here, or first)
    summaries: int = 0  # fresh entries without their large fields: index records only
    replicas: int = 0  # other results for points the cache holds: recorded beside them, not used
    stale: list[tuple[str, dict]] = field(default_factory=list)  # (experiment, config)

    def describe(self) -> str:
        return (
            f"{self.path}: {self.imported} points imported, {self.already} already in the cache, "
            f"{self.summaries} summaries (no cache entry), {self.replicas} replicas (recorded beside their point), "
            f"{len(self.stale)} stale (another numerics version, other data or another config spelling; not imported)"
        )


#: The result fields a replica's index record keeps (besides each function's own metrics).
_REPLICA_FIELDS = ("seconds",)


def _replica(e: dict, where: dict) -> dict:
    """What an index record keeps of a result that is not its point's primary."""
    from repcap.sweep.registry import get

    metrics = get(e["fn"]).metrics
    res, prov = e["result"], e.get("provenance") or {}
    return {
        "sha256": e["sha256"],
        "device": str(prov.get("device") or "unknown device"),
        "computed": str(prov.get("computed") or ""),
        "commit": str(prov.get("commit") or ""),
        "versions": prov.get("versions") if isinstance(prov.get("versions"), dict) else {},
        "bundle": where.get("path", ""),
        "set": where.get("set", ""),
        "metrics": {m: res[m] for m in (*metrics, *_REPLICA_FIELDS) if isinstance(res.get(m), (int, float))},
    }


def _add_replica(rec: dict, replica: dict) -> dict:
    """``rec`` with ``replica`` among its replicas (once: the same run is one replica; the primary's
    own run is none)."""
    have = rec.get("replicas") or []
    run = (replica["sha256"], replica["computed"], replica["device"])
    prim = rec.get("provenance") or {}
    if any((r.get("sha256"), r.get("computed"), r.get("device")) == run for r in have) or (
        (rec.get("result_sha256"), prim.get("computed"), prim.get("device")) == run
    ):
        return rec
    return {**rec, "replicas": [*have, replica]}


def import_(path: str | Path) -> ImportReport:
    """Seed the sweep caches with the fresh entries of the bundle at ``path`` (see the module
    docstring); the whole bundle is checked before anything is written.

    A point's primary goes into the cache.  Where the cache already holds another result for the
    same identity, the first computed stays: a result computed on this machine is kept, and of two
    results from bundles the one computed earlier is the primary (the first shipped); the other is
    recorded as a replica beside it.  Replicas of the bundle are recorded the same way."""
    b = read(path)
    rep = ImportReport(b.path)
    where = {
        "path": str(b.path.resolve()),
        "set": b.manifest["set"],
        "scale": b.manifest["scale"],
        "exported": b.manifest["provenance"]["exported"],
    }
    # complete primaries first, then summaries, then replicas (which need their point's record)
    for be in sorted(b.entries, key=lambda x: (not x.primary, not x.complete)):
        e, cache = be.data, Cache.named(be.cache)
        pid = point_id(e["fn"], e["config"])
        rec = {
            "fn": e["fn"],
            "config": e["config"],
            "key": e["key"],
            "result_sha256": e["sha256"],
            "omitted": e["omitted"],
            "provenance": e["provenance"],
            "bundle": where,
            "status": "fresh" if be.fresh else "stale",
            "stale": be.freshness.stale,
            "summary": None,
            "replicas": [],
        }
        old = _read_record(cache, pid)
        if not be.fresh:
            rep.stale.append((be.experiment, e["config"]))
            if not (old and old.get("status") == "fresh"):
                _write_record(cache, pid, rec)
            continue
        if old and old.get("key") == e["key"]:
            rec["replicas"] = old.get("replicas") or []
        if not be.primary:
            base = old if old and old.get("key") == e["key"] else None
            if base is not None:
                new = _add_replica(base, _replica(e, where))
                if new is not base:
                    _write_record(cache, pid, new)
            rep.replicas += 1
            continue
        have = cache.get(e["key"])
        if not be.complete:
            if have is None:
                _write_record(cache, pid, {**rec, "summary": e["result"]})
                rep.summaries += 1
            continue
        held = old if old and old.get("key") == e["key"] and have is not None else None
        if held is not None and held.get("result_sha256") != _sha(canonical(have)):
            held = None  # the record is of another result than the cache's (computed here since)
        if have is None:
            cache.put(e["key"], e["config"], e["result"], e["provenance"])
            rep.imported += 1
        elif held is None:
            # a result computed on this machine: kept, this one recorded beside it when it differs
            rep.already += 1
            continue
        elif _same_run(held.get("provenance", {}), e["provenance"]):
            rep.already += 1
        elif str(e["provenance"].get("computed", "")) < str(held.get("provenance", {}).get("computed", "")):
            # the cache holds a later run from another bundle: this one, computed first, is the primary
            displaced = {"fn": e["fn"], "sha256": held["result_sha256"], "provenance": held.get("provenance", {})}
            displaced["result"] = have
            if e["sha256"] != held["result_sha256"]:
                cache.put(e["key"], e["config"], e["result"], e["provenance"])
            rec = _add_replica(rec, _replica(displaced, {"path": _shown_path(held.get("bundle")), **_bundle_of(held)}))
            rep.imported += e["sha256"] != held["result_sha256"]
            rep.replicas += 1
        else:
            _write_record(cache, pid, _add_replica(held, _replica(e, where)))
            rep.replicas += 1
            continue
        _write_record(cache, pid, rec)
    return rep


def _same_run(a: dict, b: dict) -> bool:
    """Whether two provenances are of one run (the same date and device)."""
    return (a.get("computed"), a.get("device")) == (b.get("computed"), b.get("device"))


def _bundle_of(rec: dict) -> dict:
    b = rec.get("bundle")
    return {"set": str(b.get("set", "")) if isinstance(b, dict) else ""}


@dataclass
class Found:
    config: dict
    key: str
    result: dict
    provenance: dict  # "source": "bundle" (with "bundle": where it came from) or "cache" (computed here)
    complete: bool = True  # False: a bundle summary without its large fields
    #: other results of the same identity (another device, other versions): device, computed, commit,
    #: versions, bundle, set and the function's metrics; the book shows the primary and says so
    replicas: list[dict] = field(default_factory=list)


def _shown_path(where: Any) -> str:
    """A bundle's folder as the book shows it: relative to the project when inside it."""
    from repcap.base.paths import project_root

    path = where.get("path") if isinstance(where, dict) else where
    try:
        return str(Path(str(path)).resolve().relative_to(project_root().resolve()))
    except ValueError:
        return str(path)


@dataclass
class Lookup:
    experiment: str
    found: list[Found]
    missing: list[dict]
    stale: list[dict]  # {"config", "provenance"}: computed elsewhere by code that has changed since
    scale: str = "full"  # the scale of the set the experiment belongs to

    @property
    def results(self) -> list[dict]:
        return [f.result for f in self.found]

    def describe(self) -> str:
        n_b = sum(f.provenance.get("source") == "bundle" for f in self.found)
        return (
            f"{self.experiment}: {len(self.found)} points found ({n_b} from a bundle), "
            f"{len(self.missing)} missing, {len(self.stale)} stale"
        )

    def provenance_markdown(self, set_name: str = "reference") -> str:
        """:meth:`provenance_text` for a Markdown cell: every value taken from a bundle or the
        cache (devices, commits, dates, paths) escaped, so that nothing in a bundle is read as
        Markdown or HTML."""
        return self.provenance_text(set_name, esc=markdown_escape)

    def provenance_text(self, set_name: str = "reference", esc: Callable[[str], str] | None = None) -> str:
        """One sentence for the book: how many points, where they come from (a bundle, or this
        machine's cache), on which device, at which commit, when and in how much computing time;
        and what is missing or stale, with the command that computes it.  ``esc`` is applied to
        every value from the data (:meth:`provenance_markdown` escapes them for Markdown)."""
        e = esc or (lambda x: x)
        parts = []
        scale = "" if self.scale == "full" else f" at its {self.scale} scale"
        if self.found:
            prov = [f.provenance for f in self.found]
            n_b = sum(p.get("source") == "bundle" for p in prov)
            n_u = sum(p.get("source") == "unknown" for p in prov)
            bundles = sorted({e(_shown_path(p.get("bundle"))) for p in prov if p.get("source") == "bundle"})
            devices = sorted(
                {e(str(p.get("device") or "unknown device").replace("(1 threads)", "(1 thread)")) for p in prov}
            )
            commits = sorted(
                {e(str(p["commit"])[:40]) for p in prov if p.get("commit")}
            )  # "-dirty" kept: it says the tree differed
            dates = sorted(e(str(p["computed"])[:10]) for p in prov if p.get("computed"))
            secs = sum(float(p.get("seconds") or 0.0) for p in prov if isinstance(p.get("seconds"), (int, float)))
            n_c = len(prov) - n_b - n_u
            bits = [f"from the bundle {', '.join(bundles)}"] if n_b == len(prov) else []
            if not bits:
                bits = [
                    f"{n} {what}"
                    for n, what in (
                        (n_b, f"from the bundle {', '.join(bundles)}"),
                        (n_c, "from this machine's cache"),
                        (n_u, "of unknown origin (their import record is damaged; import the bundle again)"),
                    )
                    if n
                ]
                if len(bits) == 1 and n_c == len(prov):
                    bits = ["from this machine's cache"]
            where = ", ".join(bits)
            when = (
                (dates[0] if dates and dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}")
                if dates
                else "unknown date"
            )
            at = f" at commit {', '.join(commits)}" if commits else ""
            took = f"{secs / 60:.0f} min" if secs >= 90 else f"{secs:.0f} s"
            parts.append(
                f"{len(prov)} point{'s' * (len(prov) != 1)} of the `{set_name}` set{scale} ({self.experiment}), "
                f"{where}: computed on {', '.join(devices)}{at}, {when}, in {took} of computing"
            )
            with_replicas = [f for f in self.found if f.replicas]
            if with_replicas:
                rdev = sorted({e(str(r.get("device") or "another device")) for f in with_replicas for r in f.replicas})
                parts.append(
                    f"{len(with_replicas)} of them also computed on {', '.join(rdev)} (replicas, shown here as their "
                    "first computed result; the Reproducibility page compares them)"
                )
        else:
            parts.append(f"no point of the `{set_name}` set{scale} ({self.experiment}) is available here")
        todo = len(self.missing) + len(self.stale)
        if self.stale:
            parts.append(
                f"{len(self.stale)} stale (computed by code or package versions other than this checkout's; not used)"
            )
        if self.missing:
            parts.append(f"{len(self.missing)} not computed yet")
        if todo:
            flag = "" if self.scale == "full" else f" --scale {self.scale}"
            parts.append(
                f"`repcap bundle compute {set_name}{flag} --only {self.experiment.replace(', ', ' ')}` computes "
                f"{'them' if todo > 1 else 'it'}"
            )
        return "; ".join(parts) + "."


def merge(lookups: Any) -> Lookup | None:
    """One :class:`Lookup` over several (the experiments a figure or a chapter draws), each point
    once: what a provenance sentence is written from, so that it counts the points drawn (None
    where there is no lookup)."""
    ls = [lk for lk in (lookups if isinstance(lookups, (list, tuple)) else [lookups]) if lk is not None]
    if not ls:
        return None
    seen: set[str] = set()
    found = []
    for lk in ls:
        for f in lk.found:
            if f.key not in seen:
                seen.add(f.key)
                found.append(f)
    names = ", ".join(dict.fromkeys(lk.experiment for lk in ls))
    missing = [c for lk in ls for c in lk.missing]
    stale = [c for lk in ls for c in lk.stale]
    return Lookup(names, found, missing, stale, ls[0].scale)


def lookup_configs(fn: Callable, configs: list[dict], cache: str, experiment: str = "") -> Lookup:
    """The cached results of ``fn`` at ``configs`` with their provenance and replicas, computing
    nothing."""
    store, name, code = Cache.named(cache), fn_name(fn), code_digest(fn)
    found, missing, stale = [], [], []
    for c in configs:
        key = point_key(fn, c, code)
        state = _record_state(store, point_id(name, c))
        rec = _clean(state) if isinstance(state, dict) else None
        got = _stored(store, key)
        replicas = list(rec.get("replicas") or []) if rec and rec.get("key") == key else []
        if got is not None:
            result, mtime = got
            if rec and rec.get("key") == key and rec.get("result_sha256") == _sha(canonical(result)):
                prov = {**rec["provenance"], "source": "bundle", "bundle": rec["bundle"]}
            elif state == DAMAGED:
                prov = {"source": "unknown", "device": None, "seconds": result.get("seconds"), "computed": None}
            else:
                prov = _computed_here(store, key, result, mtime)
            found.append(Found(c, key, result, prov, replicas=replicas))
        elif rec and rec.get("key") == key and rec.get("status") == "fresh" and isinstance(rec.get("summary"), dict):
            prov = {**rec["provenance"], "source": "bundle", "bundle": rec["bundle"], "omitted": rec["omitted"]}
            found.append(Found(c, key, rec["summary"], prov, complete=False, replicas=replicas))
        elif rec and rec.get("key") != key:
            stale.append({"config": c, "provenance": {**rec["provenance"], "bundle": rec["bundle"]}})
        else:
            missing.append(c)
    return Lookup(experiment, found, missing, stale)


def _computed_here(store: Cache, key: str, result: dict, mtime: float) -> dict:
    """The provenance of a point this machine's cache computed: what its entry recorded when it was
    computed, else (an entry written before provenance was recorded) what the result says."""
    prov = store.provenance(key)
    if prov is not None:
        return {**_clean(prov), "source": "cache"}
    dev = result.get("device")
    return {
        "source": "cache",
        "device": plain_text(dev) if isinstance(dev, str) else None,
        "seconds": result.get("seconds"),
        "computed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime)),
    }


def lookup(set_name: str, experiment: str, scale: str = "full") -> Lookup:
    """For the book: the results in the cache for experiment ``experiment`` of set ``set_name``,
    each with its provenance, and the configs missing or stale; nothing is computed."""
    e = _runs.point_set(set_name, scale).experiment(experiment)
    found = lookup_configs(e.fn, list(e.configs), e.cache, e.name)
    found.scale = scale
    return found


@dataclass
class Status:
    path: Path
    set: str
    scale: str
    #: experiment -> {"fresh", "stale", "summaries", "missing", "replicas", "edited", "other_versions"}
    counts: dict[str, dict[str, int]]
    provenance: dict
    #: why points are stale ("numerics toy/1 -> toy/2": n), what versions differ ("torch 2.11.0 -> 2.13.0": n)
    stale_reasons: dict[str, int] = field(default_factory=dict)
    version_notes: dict[str, int] = field(default_factory=dict)
    devices: dict[str, int] = field(default_factory=dict)  # device -> points (primaries and replicas)
    #: experiments of the set as defined now that the export did not have (its manifest does not list
    #: them): not in this bundle yet, not missing -> their points
    added: dict[str, int] = field(default_factory=dict)
    #: experiment -> the cost model's seconds for the points it lacks, missing or added, on ``kind``
    #: (:func:`repcap.results.runs.cost.point_seconds`; none for an experiment the set no longer has)
    cost: dict[str, float] = field(default_factory=dict)
    kind: str = "cpu"

    def total(self, what: str) -> int:
        return sum(c[what] for c in self.counts.values())

    def _plural(self, n: int, what: str) -> str:
        return f"{n} {what}{'s' * (n != 1)}"

    def describe(self) -> str:
        p = self.provenance
        lines = [
            f"{self.path}: set {self.set} ({self.scale}), exported {p['exported']} at {p['commit']} on "
            f"{', '.join(p['devices']) or 'no device'}; {p['wall_s']:.0f} s of computing"
        ]
        for name, c in self.counts.items():
            lines.append(
                f"  {name:18s} {c['fresh']:5d} fresh {c['stale']:5d} stale {c['summaries']:5d} summaries "
                f"{c['missing']:5d} missing {c['replicas']:5d} replicas"
            )
        for name, n in self.added.items():
            lines.append(
                f"  {name:18s} not in this bundle yet: {self._plural(n, 'point')}, added to the set since the export; "
                f"about {duration(self.cost.get(name, 0.0))} to compute on {self.kind}"
            )
        lines.append(
            f"  {'total':18s} {self.total('fresh'):5d} fresh {self.total('stale'):5d} stale "
            f"{self.total('summaries'):5d} summaries {self.total('missing'):5d} missing {self.total('replicas'):5d} replicas"
        )
        n_missing = self.total("missing")
        if n_missing:
            costed = [k for k, c in self.counts.items() if c["missing"] and k in self.cost]
            n_costed = sum(self.counts[k]["missing"] for k in costed)
            secs = duration(sum(self.cost[k] for k in costed))
            lines.append(
                f"  missing: {self._plural(n_missing, 'point')} of experiments the export had, absent from the bundle "
                + (
                    f"(about {secs} on {self.kind})"
                    if n_costed == n_missing
                    else f"(about {secs} on {self.kind} for the {n_costed} the set still has)"
                )
            )
        if self.added:
            scale = "" if self.scale == "full" else f" --scale {self.scale}"
            lines.append(
                f"  not in this bundle yet: {self._plural(sum(self.added.values()), 'point')} of "
                f"{self._plural(len(self.added), 'experiment')} added to set {self.set} since the export (about "
                f"{duration(sum(self.cost.get(k, 0.0) for k in self.added))} on {self.kind}): "
                f"repcap bundle compute {self.set}{scale} --only {' '.join(self.added)} --out {self.path}"
            )
        for why, n in sorted(self.stale_reasons.items()):
            lines.append(f"  stale: {n} point{'s' * (n != 1)} ({why})")
        n_edit = self.total("edited")
        if n_edit:
            lines.append(
                f"  information: {n_edit} fresh point{'s' * (n_edit != 1)} computed by an engine edited since "
                "(numerics unchanged)"
            )
        n_other = self.total("other_versions")
        if n_other:
            notes = "; ".join(f"{k}: {v}" for k, v in sorted(self.version_notes.items()))
            lines.append(
                f"  information: {n_other} fresh point{'s' * (n_other != 1)} computed under other versions ({notes})"
            )
        if self.devices:
            lines.append("  computed on: " + "; ".join(f"{d} ({n})" for d, n in sorted(self.devices.items())))
        return "\n".join(lines)


def status(path: str | Path) -> Status:
    """Fresh, stale, missing and replica counts of a bundle, per experiment, with what annotates its
    fresh points (nothing written).  Missing: the configs of the set as defined now that the bundle
    lacks, for the experiments the export had (its manifest lists every experiment of the set then,
    finished or not; the bundle's own list if the set or experiment no longer exists).  An
    experiment of the set the manifest does not list was added since the export: its points are
    ``added`` (not in this bundle yet), not missing.  ``cost``: the cost model's estimate of the
    points each experiment lacks, on this machine's device kind.  Stale means only that a point's
    identity differs from this checkout's (numerics version, data, config spelling)."""
    from repcap.base.devices import resolve_device

    b = read(path)
    kind = resolve_device("auto").type
    counts: dict[str, dict[str, int]] = {}
    reasons: dict[str, int] = {}
    notes: dict[str, int] = {}
    devices: dict[str, int] = {}
    cost: dict[str, float] = {}
    try:
        pset = _runs.point_set(b.manifest["set"], b.manifest["scale"])
    except RepcapError:  # a set this checkout no longer has
        pset = None
    for x in b.manifest["experiments"]:
        mine = [be for be in b.entries if be.experiment == x["name"]]
        prim = [be for be in mine if be.primary]
        have = {point_id(x["fn"], be.data["config"]) for be in mine}
        try:
            if pset is None:
                raise RepcapError("no set")
            e = pset.experiment(x["name"])
            lacking = [c for c in e.configs if point_id(x["fn"], c) not in have]
            missing = len(lacking)
            cost[x["name"]] = sum(point_seconds(e.fn, c, kind) for c in lacking)
        except RepcapError:
            missing = len(b.missing[x["name"]])
        for be in prim:
            for why in be.freshness.stale:
                reasons[why] = reasons.get(why, 0) + 1
            if be.fresh:
                for v in be.freshness.versions:
                    notes[v] = notes.get(v, 0) + 1
        for be in mine:
            dev = str(be.data["provenance"]["device"])
            devices[dev] = devices.get(dev, 0) + 1
        counts[x["name"]] = {
            "fresh": sum(be.fresh and be.complete for be in prim),
            "stale": sum(not be.fresh for be in prim),
            "summaries": sum(be.fresh and not be.complete for be in prim),
            "missing": missing,
            "replicas": sum(not be.primary for be in mine),
            "edited": sum(be.fresh and be.freshness.edited for be in prim),
            "other_versions": sum(be.fresh and bool(be.freshness.versions) for be in prim),
        }
    added: dict[str, int] = {}  # the set's experiments the export did not have: not in this bundle yet
    for e in pset.experiments if pset is not None else ():
        if e.name not in counts:
            added[e.name] = len(e.configs)
            cost[e.name] = e.estimate_seconds(kind)
    return Status(
        b.path,
        b.manifest["set"],
        b.manifest["scale"],
        counts,
        b.manifest["provenance"],
        reasons,
        notes,
        devices,
        added,
        cost,
        kind,
    )
