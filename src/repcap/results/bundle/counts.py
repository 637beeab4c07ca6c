"""Status: a bundle's fresh, stale, summary, missing and replica points per experiment, what
annotates its fresh points, and what its missing points would cost to compute (nothing written)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from repcap import RepcapError

from .. import runs as _runs
from ..runs.cost import duration, point_seconds
from ..runs.experiment import PointSet
from .index import point_id
from .schema import Bundle, BundleEntry, read


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
        _tally(prim, mine, reasons, notes, devices)
        counts[x["name"]] = {
            "fresh": sum(be.fresh and be.complete for be in prim),
            "stale": sum(not be.fresh for be in prim),
            "summaries": sum(be.fresh and not be.complete for be in prim),
            "missing": _missing(b, x, mine, pset, kind, cost),
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


def _missing(b: Bundle, x: dict, mine: list[BundleEntry], pset: PointSet | None, kind: str, cost: dict) -> int:
    """How many points of experiment ``x`` (a manifest line) the bundle lacks: the configs of the
    set as defined now (their cost model's seconds go into ``cost``), else the bundle's own list."""
    have = {point_id(x["fn"], be.data["config"]) for be in mine}
    try:
        if pset is None:
            raise RepcapError("no set")
        e = pset.experiment(x["name"])
        lacking = [c for c in e.configs if point_id(x["fn"], c) not in have]
        seconds = sum(point_seconds(e.fn, c, kind) for c in lacking)
    except RepcapError:
        return len(b.missing[x["name"]])
    cost[x["name"]] = seconds
    return len(lacking)


def _tally(prim: list[BundleEntry], mine: list[BundleEntry], reasons: dict, notes: dict, devices: dict) -> None:
    """Count why the primaries ``prim`` are stale, which versions annotate the fresh ones, and the
    device of every entry of ``mine``."""
    for be in prim:
        for why in be.freshness.stale:
            reasons[why] = reasons.get(why, 0) + 1
        if be.fresh:
            for v in be.freshness.versions:
                notes[v] = notes.get(v, 0) + 1
    for be in mine:
        dev = str(be.data["provenance"]["device"])
        devices[dev] = devices.get(dev, 0) + 1
