"""Import: seed the sweep caches with a bundle's fresh entries and record, beside them, where each
point came from (its provenance and replicas)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from repcap.sweep import Cache, canonical

from .index import _read_record, _write_record, point_id
from .jsonio import _sha
from .lookups import _shown_path
from .schema import BundleEntry, read


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
        _import_fresh(cache, pid, be, rec, old, where, rep)
    return rep


def _import_fresh(
    cache: Cache, pid: str, be: BundleEntry, rec: dict, old: dict | None, where: dict, rep: ImportReport
) -> None:
    """Import one fresh primary ``be`` (its record ``rec``; ``old``: the record the cache has): into
    the cache, as a summary record, or as a replica beside the result the cache keeps."""
    e = be.data
    have = cache.get(e["key"])
    if not be.complete:
        if have is None:
            _write_record(cache, pid, {**rec, "summary": e["result"]})
            rep.summaries += 1
        return
    held = old if old and old.get("key") == e["key"] and have is not None else None
    if held is not None and held.get("result_sha256") != _sha(canonical(have)):
        held = None  # the record is of another result than the cache's (computed here since)
    if have is None:
        cache.put(e["key"], e["config"], e["result"], e["provenance"])
        rep.imported += 1
    elif held is None:
        # a result computed on this machine: kept, this one recorded beside it when it differs
        rep.already += 1
        return
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
        return
    _write_record(cache, pid, rec)


def _same_run(a: dict, b: dict) -> bool:
    """Whether two provenances are of one run (the same date and device)."""
    return (a.get("computed"), a.get("device")) == (b.get("computed"), b.get("device"))


def _bundle_of(rec: dict) -> dict:
    b = rec.get("bundle")
    return {"set": str(b.get("set", "")) if isinstance(b, dict) else ""}
