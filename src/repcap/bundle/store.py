"""Import, lookup and status: seed the sweep caches with a bundle's fresh entries, read points back
with their provenance without computing anything, and count a bundle's fresh, stale and missing
points."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import RepcapError
from .. import runs as _runs
from ..sweep import Cache, canonical, code_digest, fn_name, point_key
from .index import DAMAGED, _read_record, _record_state, _stored, _write_record, point_id
from .schema import _sha, plain_text, read


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
    already: int = 0  # the cache held the same key already (its own result is kept)
    summaries: int = 0  # fresh entries without their large fields: index records only
    stale: list[tuple[str, dict]] = field(default_factory=list)  # (experiment, config)

    def describe(self) -> str:
        return (
            f"{self.path}: {self.imported} points imported, {self.already} already in the cache, "
            f"{self.summaries} summaries (no cache entry), {len(self.stale)} stale (computed by other code or other torch, numpy, scipy or numba versions; not imported)"
        )


def import_(path: str | Path) -> ImportReport:
    """Seed the sweep caches with the fresh entries of the bundle at ``path`` (see the module
    docstring); the whole bundle is checked before anything is written."""
    b = read(path)
    rep = ImportReport(b.path)
    where = {
        "path": str(b.path.resolve()),
        "set": b.manifest["set"],
        "scale": b.manifest["scale"],
        "exported": b.manifest["provenance"]["exported"],
    }
    for be in sorted(b.entries, key=lambda x: not x.complete):  # complete entries first
        e, cache = be.data, Cache.named(be.cache)
        pid = point_id(e["fn"], e["config"])
        rec = {
            "fn": e["fn"],
            "config": e["config"],
            "key": e["key"],
            "code": e["code"],
            "result_sha256": e["sha256"],
            "omitted": e["omitted"],
            "provenance": e["provenance"],
            "bundle": where,
            "status": "fresh" if be.fresh else "stale",
            "summary": None,
        }
        if not be.fresh:
            rep.stale.append((be.experiment, e["config"]))
            old = _read_record(cache, pid)
            if not (old and old.get("status") == "fresh"):
                _write_record(cache, pid, rec)
            continue
        have = cache.get(e["key"])
        if not be.complete:
            if have is None:
                _write_record(cache, pid, {**rec, "summary": e["result"]})
                rep.summaries += 1
            continue
        if have is None:
            cache.put(e["key"], e["config"], e["result"])
            rep.imported += 1
        elif _sha(canonical(have)) == e["sha256"]:
            rep.already += 1
        else:
            rep.already += 1
            continue  # a result computed here is kept, with its own provenance
        _write_record(cache, pid, rec)
    return rep


@dataclass
class Found:
    config: dict
    key: str
    result: dict
    provenance: dict  # "source": "bundle" (with "bundle": where it came from) or "cache" (computed here)
    complete: bool = True  # False: a bundle summary without its large fields


def _shown_path(where: Any) -> str:
    """A bundle's folder as the book shows it: relative to the project when inside it."""
    from ..paths import project_root

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
                f"`repcap bundle compute {set_name}{flag} --only {self.experiment}` computes "
                f"{'them' if todo > 1 else 'it'}"
            )
        return "; ".join(parts) + "."


def lookup_configs(fn: Callable, configs: list[dict], cache: str, experiment: str = "") -> Lookup:
    """The cached results of ``fn`` at ``configs`` with their provenance, computing nothing."""
    store, name, code = Cache.named(cache), fn_name(fn), code_digest(fn)
    found, missing, stale = [], [], []
    for c in configs:
        key = point_key(fn, c, code)
        state = _record_state(store, point_id(name, c))
        rec = _clean(state) if isinstance(state, dict) else None
        got = _stored(store, key)
        if got is not None:
            result, mtime = got
            if rec and rec.get("key") == key and rec.get("result_sha256") == _sha(canonical(result)):
                prov = {**rec["provenance"], "source": "bundle", "bundle": rec["bundle"]}
            elif state == DAMAGED:
                prov = {"source": "unknown", "device": None, "seconds": result.get("seconds"), "computed": None}
            else:
                dev = result.get("device")
                prov = {
                    "source": "cache",
                    "device": plain_text(dev) if isinstance(dev, str) else None,
                    "seconds": result.get("seconds"),
                    "computed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime)),
                }
            found.append(Found(c, key, result, prov))
        elif rec and rec.get("key") == key and rec.get("status") == "fresh" and isinstance(rec.get("summary"), dict):
            prov = {**rec["provenance"], "source": "bundle", "bundle": rec["bundle"], "omitted": rec["omitted"]}
            found.append(Found(c, key, rec["summary"], prov, complete=False))
        elif rec and rec.get("key") != key:
            stale.append({"config": c, "provenance": {**rec["provenance"], "bundle": rec["bundle"]}})
        else:
            missing.append(c)
    return Lookup(experiment, found, missing, stale)


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
    counts: dict[str, dict[str, int]]  # experiment -> {"fresh", "stale", "summaries", "missing"}
    provenance: dict

    def total(self, what: str) -> int:
        return sum(c[what] for c in self.counts.values())

    def describe(self) -> str:
        p = self.provenance
        lines = [
            f"{self.path}: set {self.set} ({self.scale}), exported {p['exported']} at {p['commit']} on "
            f"{', '.join(p['devices']) or 'no device'}; {p['wall_s']:.0f} s of computing"
        ]
        for name, c in self.counts.items():
            lines.append(
                f"  {name:14s} {c['fresh']:6d} fresh {c['stale']:6d} stale {c['summaries']:6d} summaries "
                f"{c['missing']:6d} missing"
            )
        return "\n".join(lines)


def status(path: str | Path) -> Status:
    """Fresh, stale and missing counts of a bundle, per experiment (nothing written).  Missing: the
    configs of the set as defined now that the bundle lacks (the bundle's own list if the set or
    experiment no longer exists)."""
    b = read(path)
    counts: dict[str, dict[str, int]] = {}
    for x in b.manifest["experiments"]:
        mine = [be for be in b.entries if be.experiment == x["name"]]
        have = {point_id(x["fn"], be.data["config"]) for be in mine}
        try:
            e = _runs.point_set(b.manifest["set"], b.manifest["scale"]).experiment(x["name"])
            missing = sum(point_id(x["fn"], c) not in have for c in e.configs)
        except RepcapError:
            missing = len(b.missing[x["name"]])
        counts[x["name"]] = {
            "fresh": sum(be.fresh and be.complete for be in mine),
            "stale": sum(not be.fresh for be in mine),
            "summaries": sum(be.fresh and not be.complete for be in mine),
            "missing": missing,
        }
    return Status(b.path, b.manifest["set"], b.manifest["scale"], counts, b.manifest["provenance"])
