"""Lookup: a set's points read back from the caches with their provenance and replicas, computing
nothing, and the provenance sentence the book prints for them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repcap.sweep import Cache, canonical, code_digest, fn_name, point_key
from repcap.sweep.provenance import plain_text

from .. import runs as _runs
from .index import DAMAGED, _record_state, _stored, point_id
from .jsonio import _sha


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
    fn: str = ""  # the registered point function whose results these are

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
            parts += self._found_parts(set_name, scale, e)
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

    def _found_parts(self, set_name: str, scale: str, e: Callable[[str], str]) -> list[str]:
        """The clauses of :meth:`provenance_text` about the points found (``e`` escapes a value)."""
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
            (dates[0] if dates and dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}") if dates else "unknown date"
        )
        at = f" at commit {', '.join(commits)}" if commits else ""
        took = f"{secs / 60:.0f} min" if secs >= 90 else f"{secs:.0f} s"
        parts = [
            f"{len(prov)} point{'s' * (len(prov) != 1)} of the `{set_name}` set{scale} ({self.experiment}), "
            f"{where}: computed on {', '.join(devices)}{at}, {when}, in {took} of computing"
        ]
        with_replicas = [f for f in self.found if f.replicas]
        if with_replicas:
            rdev = sorted({e(str(r.get("device") or "another device")) for f in with_replicas for r in f.replicas})
            parts.append(
                f"{len(with_replicas)} of them also computed on {', '.join(rdev)} (replicas, shown here as their "
                "first computed result; the Reproducibility page compares them)"
            )
        return parts


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
    return Lookup(experiment, found, missing, stale, fn=name)


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


def provenance_markdown(found: Lookup | list[Lookup], set_name: str = "reference") -> str:
    """The provenance sentence of a :func:`lookup` (or of several, merged: the experiments a chapter
    draws, each point counted once) for a Markdown cell of the book, every value from the data
    escaped (what chapters 6, 7 and 9 paste into their profile box and text)."""
    merged = merge(found)
    return merged.provenance_markdown(set_name) if merged is not None else ""
