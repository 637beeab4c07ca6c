"""Writing a bundle: the finished points of a named set, read from the sweep caches, written as a
folder with their provenance (device, commit, date, wall time, package versions)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from .. import RepcapError
from .. import runs as _runs
from ..sweep import Cache, atomic_write_text, canonical, code_digest, fn_name, point_key
from .index import _read_record, _stored, point_id
from .schema import _PROV_TYPES, FORMAT, LARGE_FIELDS, MANIFEST, VERSION, _sha


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    from .. import __version__

    out = {"repcap": __version__}
    for pkg in ("torch", "numpy"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:  # pragma: no cover
            out[pkg] = "absent"
    return out


def _provenance(cache: Cache, name: str, config: dict, key: str, result: dict, mtime: float, here: dict) -> dict:
    """Where a cached point was computed: its import record's, if it came from a bundle, else here."""
    rec = _read_record(cache, point_id(name, config))
    if rec and rec.get("key") == key and rec.get("result_sha256") == _sha(canonical(result)):
        return {k: v for k, v in rec["provenance"].items() if k in _PROV_TYPES}
    dev = result.get("device")
    return {
        "device": dev if isinstance(dev, str) else here["device"],
        "seconds": result.get("seconds") if isinstance(result.get("seconds"), (int, float)) else None,
        "computed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime)),
        "commit": here["commit"],
        "versions": here["versions"],
    }


def _write(path: Path, text: str) -> None:
    """Atomically, readable by all (a bundle is meant to be committed and shared)."""
    atomic_write_text(path, text)
    os.chmod(path, 0o644)


def _dump_experiment(header: dict, entries: list[dict]) -> str:
    """One JSON object, one entry per line (readable diffs)."""
    head = json.dumps(header, sort_keys=True, allow_nan=False)[:-1]
    body = ",\n".join(json.dumps(e, sort_keys=True, separators=(",", ":"), allow_nan=False) for e in entries)
    return f'{head}, "entries": [\n{body}\n]}}\n'


def export(set_name: str, out_dir: str | Path, *, scale: str = "full", keep_large: bool | None = None) -> dict:
    """Write the finished points of set ``set_name`` to ``out_dir`` (see the module docstring);
    returns the manifest.  ``keep_large``: keep :data:`LARGE_FIELDS` (None: as each experiment says)."""
    from ..context import git_revision
    from ..devices import device_name, resolve_device

    pset = _runs.point_set(set_name, scale)
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise RepcapError(f"bundle folder {out} exists and is not a folder")
    here = {"device": device_name(resolve_device("auto")), "commit": git_revision(), "versions": _versions()}
    lines, devices, total = [], set(), 0.0
    for e in pset.experiments:
        cache, name, code = Cache.named(e.cache), fn_name(e.fn), code_digest(e.fn)
        keep = e.keep_large if keep_large is None else keep_large
        entries, missing, wall = [], [], 0.0
        for c in e.configs:
            key = point_key(e.fn, c, code)
            got = _stored(cache, key)
            if got is None:
                missing.append(c)
                continue
            result, mtime = got
            prov = _provenance(cache, name, c, key, result, mtime, here) | {"set": set_name, "experiment": e.name}
            omitted = [] if keep else [f for f in LARGE_FIELDS if f in result]
            result = {k: v for k, v in result.items() if k not in omitted}
            entries.append(
                {
                    "fn": name,
                    "config": c,
                    "key": key,
                    "code": code,
                    "result": result,
                    "sha256": _sha(canonical(result)),
                    "omitted": omitted,
                    "provenance": prov,
                }
            )
            devices.add(prov["device"])
            wall += prov["seconds"] or 0.0
        text = _dump_experiment({"experiment": e.name, "fn": name, "cache": e.cache, "missing": missing}, entries)
        _write(out / f"{e.name}.json", text)
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
    _write(out / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest
