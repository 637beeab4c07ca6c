"""The bundle format (version 2) and its checks: the manifest ``bundle.json`` and one
``<experiment>.json`` per experiment (see :mod:`repcap.results.bundle`).  Every field is type-checked,
configs and results must be plain finite JSON, a function that is not a registered point function
is refused, every entry's key must follow from its identity, and any damage refuses the whole
bundle: :func:`read` checks everything and writes nothing.

Each entry's freshness is decided here, against this checkout (:class:`Freshness`): *stale* means
that the point's identity differs, i.e. its engine's numerics version, its data or the spelling of
its config; what only annotates a fresh point (its engine's source edited since, other package
versions, another device) is reported, not held against it."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.sweep import Cache, canonical
from repcap.sweep.checks import impossible
from repcap.sweep.keys import computation_digest, config_part, data_part
from repcap.sweep.provenance import other_versions, source_digest
from repcap.sweep.registry import registered

from .. import runs as _runs
from .jsonio import _alphabet, _keys, _parse, _plain, _read_bytes, _sha, _want

FORMAT, VERSION, MANIFEST = "repcap-bundle", 2, "bundle.json"
#: Result fields a bundle leaves out unless the experiment keeps them (:attr:`Experiment.keep_large`).
LARGE_FIELDS = ("norms",)
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_HEX = re.compile(r"^[0-9a-f]{64}$")
_NUMERICS = re.compile(r"^[a-z][a-z0-9_-]*/[1-9][0-9]*$")
_PROV_TYPES: dict[str, tuple] = {
    "device": (str,),
    "seconds": (int, float, type(None)),
    "computed": (str,),
    "commit": (str,),
    "versions": (dict,),
    "code": (str,),
    "set": (str,),
    "experiment": (str,),
}
_MANIFEST_PROV: dict[str, Any] = {
    "commit": str,
    "exported": str,
    "versions": dict,
    "devices": list,
    "wall_s": (int, float),
}
_ENTRY_KEYS = {
    "fn",
    "config",
    "identity",
    "numerics",
    "data",
    "key",
    "result",
    "sha256",
    "omitted",
    "primary",
    "provenance",
}
#: Result fields with a physical range, checked on import and export: a forged bundle cannot carry
#: an impossible number (a packing's eps* is a cosine, its largest angle at most 180 degrees).
RANGES: dict[str, tuple[float, float]] = {
    "eps_star": (0.0, 1.0),
    "eps_curve": (0.0, 1.0),
    "mean_abs": (0.0, 1.0),
    "mean_sq": (0.0, 1.0),
    "max_angle_deg": (0.0, 180.0),
    "seconds": (0.0, float("inf")),
    "n_pairs": (0.0, float("inf")),
    "n_orthogonal": (0.0, float("inf")),
    "n_represented": (0.0, float("inf")),
}


#: Slack on the ranges of :data:`RANGES` for float32 rounding: a cosine of two nearly parallel unit
#: vectors computed in float32 can come out as 1 + 1.2e-7 (seen: a packing's first step at d = 2).
RANGE_SLACK = 1e-5


def _ranges(result: dict, where: str) -> None:
    for k, (lo, hi) in RANGES.items():
        if k not in result or result[k] is None:
            continue
        vals = result[k] if isinstance(result[k], list) else [result[k]]
        for v in vals:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise RepcapError(f"{where}.{k} must be a number, not {type(v).__name__}")
            if not lo - RANGE_SLACK * max(1.0, abs(lo)) <= v <= hi + RANGE_SLACK * max(1.0, abs(hi)):
                raise RepcapError(f"{where}.{k} = {v!r} is outside its possible range [{lo:g}, {hi:g}]")


def _load(path: Path, sha256: str | None = None) -> Any:
    """One JSON file of a bundle: a regular file (no link), bounded size, strict JSON (no NaN, no
    infinity, no number that overflows to one).  With ``sha256``, the bytes are checked against it
    *before* they are parsed (a damaged or swapped file is refused without reading it whole into
    Python objects)."""
    data = _read_bytes(path)
    if sha256 is not None and _sha(data) != sha256:
        raise RepcapError(f"{path}: does not match the checksum in {MANIFEST} (the bundle is damaged)")
    return data, _parse(path, data)


def _check_provenance(p: Any, where: str) -> dict:
    _want(p, dict, where)
    _keys(p, set(_PROV_TYPES), where)
    for k, v in p.items():
        _want(v, _PROV_TYPES[k], f"{where}.{k}")
        if isinstance(v, str) and len(v) > 400:
            raise RepcapError(f"{where}.{k}: longer than 400 characters")
    for k, v in p.get("versions", {}).items():
        _want(v, str, f"{where}.versions.{k}")
    _plain(p, where)
    _alphabet(p, where)
    return p


@dataclass
class Freshness:
    """How an entry stands against this checkout.  ``stale`` lists why its identity is not today's
    (``"numerics toy/1 -> toy/2"``, ``"data"``, ``"config"``): a stale point is not used.  The rest
    annotates a point without making it stale: ``edited`` (its engine's source differs from the one
    that computed it, numerics unchanged) and ``versions`` (the packages it ran with that differ from
    this environment's, ``"torch 2.11.0 -> 2.13.0"``)."""

    stale: list[str]
    edited: bool
    versions: list[str]

    @property
    def fresh(self) -> bool:
        return not self.stale


@dataclass
class BundleEntry:
    """One checked entry: its function, how it stands against this checkout, and where it goes."""

    experiment: str
    cache: str
    fn: Callable
    data: dict
    freshness: Freshness

    @property
    def fresh(self) -> bool:
        return self.freshness.fresh

    @property
    def complete(self) -> bool:
        return not self.data["omitted"]

    @property
    def primary(self) -> bool:
        return bool(self.data["primary"])

    @property
    def key(self) -> str:
        return str(self.data["key"])


def entry_key(name: str, identity: dict, numerics: str, data: str) -> str:
    """The key an entry's identity gives: what :func:`repcap.sweep.point_key` computes for the
    function registered as ``name`` at a config whose :func:`~repcap.sweep.keys.config_part` is
    ``identity``, with that numerics version and data digest."""
    parts = {"fn": name, "config": canonical(identity), "computation": computation_digest(numerics, data)}
    return _sha(canonical(parts))


def freshness(fn: Callable, e: dict, now: dict[str, Any]) -> Freshness:
    """How entry ``e`` of point function ``fn`` stands against this checkout (``now``: a cache of
    what this checkout gives per function, filled on first use)."""
    pf = registered(fn)
    assert pf is not None
    if pf.name not in now:
        now[pf.name] = {"numerics": pf.numerics, "data": data_part(fn), "code": source_digest(fn)}
    here = now[pf.name]
    stale = []
    if e["numerics"] != here["numerics"]:
        stale.append(f"numerics {e['numerics']} -> {here['numerics']}")
    if e["data"] != here["data"]:
        stale.append("data")
    try:
        same_config = canonical(config_part(fn, e["config"])) == canonical(e["identity"])
    except RepcapError:
        same_config = False
    if not same_config:
        stale.append("config")
    code = e["provenance"].get("code", "")
    return Freshness(stale, bool(code) and code != here["code"], other_versions(e["provenance"]["versions"]))


def _check_entry(e: Any, where: str, fn_expected: str, now: dict[str, Any]) -> tuple[Callable, Freshness]:
    _want(e, dict, where)
    _keys(e, _ENTRY_KEYS, where)
    if e["fn"] != fn_expected:
        raise RepcapError(f"{where}: function {str(e['fn'])[:80]!r} differs from its experiment's {fn_expected}")
    fn = _runs.point_function(e["fn"])
    for k in ("config", "identity", "result"):
        _want(e[k], dict, f"{where}.{k}")
        _plain(e[k], f"{where}.{k}")
    for k in ("key", "sha256", "data"):
        if not (isinstance(e[k], str) and _HEX.match(e[k])):
            raise RepcapError(f"{where}.{k} must be 64 lower-case hex digits")
    if not (isinstance(e["numerics"], str) and _NUMERICS.match(e["numerics"])):
        raise RepcapError(f"{where}.numerics must read 'engine/N'")
    _want(e["primary"], bool, f"{where}.primary")
    _want(e["omitted"], list, f"{where}.omitted")
    if any(f not in LARGE_FIELDS for f in e["omitted"]):
        raise RepcapError(f"{where}.omitted may only name {list(LARGE_FIELDS)}")
    _check_provenance(e["provenance"], f"{where}.provenance")
    if _sha(canonical(e["result"])) != e["sha256"]:
        raise RepcapError(f"{where}: the result does not match its checksum (the bundle is damaged)")
    for k in ("config", "identity", "result"):
        _alphabet(e[k], f"{where}.{k}")
    _ranges(e["result"], f"{where}.result")
    why = impossible(fn, e["config"], e["result"])
    if why is not None:  # a checksum finds damage, not forgery: the engine's bounds find this
        raise RepcapError(f"{where}: an impossible result ({why}); the bundle is refused")
    if entry_key(e["fn"], e["identity"], e["numerics"], e["data"]) != e["key"]:
        raise RepcapError(
            f"{where}: its key does not match its function, identity, numerics and data (the bundle is damaged)"
        )
    return fn, freshness(fn, e, now)


@dataclass
class Bundle:
    """A checked bundle folder (nothing written)."""

    path: Path
    manifest: dict
    entries: list[BundleEntry]
    missing: dict[str, list[dict]]


def _check_manifest(m: Any, where: str) -> dict:
    _want(m, dict, where)
    _keys(m, {"format", "version", "set", "scale", "provenance", "experiments", "sha256"}, where)
    if m["format"] == FORMAT and m["version"] == 1:
        raise RepcapError(
            f"{where}: a {FORMAT} of version 1 (points keyed by their code's source text), which this checkout "
            f"no longer reads: compute the set again (repcap bundle compute) for a version {VERSION} bundle"
        )
    if m["format"] != FORMAT or m["version"] != VERSION:
        raise RepcapError(f"{where}: not a {FORMAT} version {VERSION} manifest")
    body = {k: v for k, v in m.items() if k != "sha256"}
    if m["sha256"] != _sha(canonical(body)):
        raise RepcapError(f"{where}: the manifest does not match its checksum (the bundle is damaged)")
    if not (isinstance(m["sha256"], str) and _HEX.match(m["sha256"])):
        raise RepcapError(f"{where}.sha256 must be 64 lower-case hex digits")
    for k in ("set", "scale"):
        if not (isinstance(m[k], str) and _NAME.match(m[k])):
            raise RepcapError(f"{where}.{k} must be a short lower-case name")
    prov = _want(m["provenance"], dict, f"{where}.provenance")
    _keys(prov, set(_MANIFEST_PROV), f"{where}.provenance")
    for k, kind in _MANIFEST_PROV.items():
        _want(prov[k], kind, f"{where}.provenance.{k}")
    for i, d in enumerate(prov["devices"]):
        _want(d, str, f"{where}.provenance.devices[{i}]")
    for k, v in prov["versions"].items():
        _want(v, str, f"{where}.provenance.versions.{k}")
    _plain(prov, f"{where}.provenance")
    _alphabet(prov, f"{where}.provenance")
    exps = _want(m["experiments"], list, f"{where}.experiments")
    if len(exps) > 64:
        raise RepcapError(f"{where}: more than 64 experiments")
    names = set()
    for i, x in enumerate(exps):
        w = f"{where}.experiments[{i}]"
        _want(x, dict, w)
        _keys(x, {"name", "fn", "cache", "file", "sha256", "n_entries", "n_missing", "wall_s"}, w)
        for k in ("name", "cache"):
            if not (isinstance(x[k], str) and _NAME.match(x[k])):
                raise RepcapError(f"{w}.{k} must be a short lower-case name")
        if x["file"] != f"{x['name']}.json" or x["name"] in names:
            raise RepcapError(f"{w}.file must be '<name>.json', one per experiment")
        names.add(x["name"])
        for k, kind in (("sha256", str), ("n_entries", int), ("n_missing", int), ("wall_s", (int, float))):
            _want(x[k], kind, f"{w}.{k}")
        if not _HEX.match(x["sha256"]):
            raise RepcapError(f"{w}.sha256 must be 64 lower-case hex digits")
        if x["n_entries"] < 0 or x["n_missing"] < 0 or not 0 <= x["wall_s"] < float("inf"):
            raise RepcapError(f"{w}: counts and wall time must be finite and >= 0")
        _runs.point_function(x["fn"])
        Cache.named(x["cache"])
    return m


def read(path: str | Path) -> Bundle:
    """Read and check a bundle folder (every file, every entry), computing and writing nothing."""
    root = Path(path)
    try:
        if not root.is_dir():
            raise RepcapError(f"bundle {str(root)[:200]}: not a folder")
        os.listdir(root)
    except OSError as exc:
        raise RepcapError(f"bundle {str(root)[:200]}: cannot read the folder ({exc.strerror})") from None
    _, m = _load(root / MANIFEST)
    _check_manifest(m, f"{root / MANIFEST}")
    entries: list[BundleEntry] = []
    missing: dict[str, list[dict]] = {}
    now: dict[str, Any] = {}
    for x in m["experiments"]:
        f = root / x["file"]
        _, doc = _load(f, x["sha256"])
        _want(doc, dict, str(f))
        _keys(doc, {"experiment", "fn", "cache", "missing", "entries"}, str(f))
        if (doc["experiment"], doc["fn"], doc["cache"]) != (x["name"], x["fn"], x["cache"]):
            raise RepcapError(f"{f}: its experiment, function or cache differs from {MANIFEST}")
        for i, c in enumerate(_want(doc["missing"], list, f"{f}.missing")):
            _want(c, dict, f"{f}.missing[{i}]")
            _plain(c, f"{f}.missing[{i}]")
            _alphabet(c, f"{f}.missing[{i}]")
        missing[x["name"]] = doc["missing"]
        mine: list[BundleEntry] = []
        for i, e in enumerate(_want(doc["entries"], list, f"{f}.entries")):
            fn, fresh = _check_entry(e, f"{f} entry {i}", x["fn"], now)
            mine.append(BundleEntry(x["name"], x["cache"], fn, e, fresh))
        _check_replicas(mine, str(f))
        entries += mine
    return Bundle(root, m, entries, missing)


def _check_replicas(entries: list[BundleEntry], where: str) -> None:
    """Several entries of one experiment may hold one identity (replicas: another device, other
    versions), exactly one of them primary; the same result twice from the same run is refused."""
    by_key: dict[str, list[BundleEntry]] = {}
    for be in entries:
        by_key.setdefault(be.key, []).append(be)
    for key, group in by_key.items():
        n_primary = sum(be.primary for be in group)
        if n_primary != 1:
            raise RepcapError(
                f"{where}: the point {key[:12]} has {len(group)} entries and {n_primary} primaries; exactly one "
                "entry of a point is its primary (the bundle is damaged)"
            )
        seen = set()
        for be in group:
            p = be.data["provenance"]
            run = (be.data["sha256"], p["computed"], p["device"])
            if run in seen:
                raise RepcapError(
                    f"{where}: the point {key[:12]} holds the same result of the same run twice (the bundle is damaged)"
                )
            seen.add(run)
