"""Run a grid of configurations through a content-addressed result cache.

Each point is a JSON-serialisable config dict.  Its key is the sha256 of the function's name, the
function's ``SWEEP_VERSION`` salt (bump it when the computation changes) and the canonical JSON of
the config.  Results are JSON files written atomically (temp file + rename) with a checksum of
their payload, verified on read; a corrupt or half-written entry is recomputed, never trusted.
An interrupted sweep therefore resumes where it stopped: finished points are read back, not
recomputed.

Functions come in two shapes:

* ``fn(config) -> dict`` (one point at a time);
* ``fn(configs) -> list[dict]`` with ``batched=True``: points that share ``group_by(config)`` are
  handed over together (e.g. toy models of one shape trained as one batch), at most
  ``max_batch`` at a time, and each result is cached as soon as its batch returns.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from tqdm.auto import tqdm

from . import RepcapError
from . import io as rio
from .paths import cache_dir


def canonical(obj: Any) -> str:
    """Canonical JSON (sorted keys, no whitespace); floats must be finite."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False, default=rio._json_default)


def fn_name(fn: Callable) -> str:
    return f"{fn.__module__}:{getattr(fn, '__qualname__', fn.__name__)}"


def point_key(fn: Callable, config: dict) -> str:
    salt = getattr(fn, "SWEEP_VERSION", 0)
    try:
        blob = canonical({"fn": fn_name(fn), "version": salt, "config": config})
    except (TypeError, ValueError) as exc:
        raise RepcapError(f"sweep config {config!r} is not plain finite JSON: {exc}") from exc
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass
class Cache:
    """One folder of content-addressed JSON results."""

    root: Path

    def __post_init__(self) -> None:
        self.root = Path(self.root)  # accept a str too

    @classmethod
    def named(cls, name: str, root: str | os.PathLike | None = None) -> "Cache":
        if not name or "/" in name or "\\" in name or name.startswith("."):
            raise RepcapError(f"cache name {name!r} must be a plain folder name")
        return cls(Path(root) if root is not None else cache_dir() / "sweeps" / name)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The cached result, or ``None`` if absent or corrupt (a corrupt entry is removed)."""
        p = self.path(key)
        try:
            entry = json.loads(p.read_text())
            payload = canonical(entry["result"])
            if entry.get("key") != key or entry.get("sha256") != hashlib.sha256(payload.encode()).hexdigest():
                raise ValueError("checksum mismatch")
            return entry["result"]
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, OSError):
            p.unlink(missing_ok=True)
            return None

    def put(self, key: str, config: dict, result: dict) -> None:
        payload = canonical(result)
        entry = {"key": key, "config": config, "result": json.loads(payload),
                 "sha256": hashlib.sha256(payload.encode()).hexdigest()}
        rio.write_text(self.path(key), json.dumps(entry, sort_keys=True) + "\n")

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("??/*.json")) if self.root.exists() else 0


@dataclass
class SweepReport:
    results: list[dict]
    n_cached: int
    n_computed: int


def run(fn: Callable, configs: Sequence[dict], *, cache: str | Cache, batched: bool = False,
        group_by: Callable[[dict], Any] | None = None, max_batch: int | None = None,
        desc: str | None = None, progress: bool = True, executor: Any = None) -> SweepReport:
    """Evaluate ``fn`` on every config, reading finished points from ``cache``.

    Returns the results in the order of ``configs``.  ``executor`` (optional) is an object with a
    ``map_points(fn, batches, on_result)`` method (see :mod:`repcap.sweep_dask`); by default the
    points run here, in this process.
    """
    store = cache if isinstance(cache, Cache) else Cache.named(cache)
    configs = [dict(c) for c in configs]
    keys = [point_key(fn, c) for c in configs]
    results: list[dict | None] = [store.get(k) for k in keys]
    todo = [i for i, r in enumerate(results) if r is None]
    n_cached = len(configs) - len(todo)

    # Unique pending points (the same config twice is computed once).
    first: dict[str, int] = {}
    for i in todo:
        first.setdefault(keys[i], i)
    pending = list(first.values())

    batches: list[list[int]]
    if batched:
        groups: dict[str, list[int]] = {}
        for i in pending:
            g = canonical(group_by(configs[i])) if group_by else ""
            groups.setdefault(g, []).append(i)
        size = max_batch or math.inf
        batches = []
        for members in groups.values():
            for s in range(0, len(members), int(min(size, len(members)))):
                batches.append(members[s:s + int(min(size, len(members)))])
    else:
        batches = [[i] for i in pending]

    bar = tqdm(total=len(configs), initial=n_cached, desc=desc or fn_name(fn).split(":")[-1],
               disable=not progress, unit="pt", leave=False)

    def on_result(idx: list[int], outs: list[dict]) -> None:
        for i, out in zip(idx, outs):
            if not isinstance(out, dict):
                raise RepcapError(f"sweep function {fn_name(fn)} must return a dict, got {type(out).__name__}")
            store.put(keys[i], configs[i], out)
            results[i] = json.loads(canonical(out))
        bar.update(sum(1 for k in keys if k in {keys[i] for i in idx}))

    try:
        if executor is not None:
            executor.map_points(fn, [[configs[i] for i in b] for b in batches], batched,
                                lambda j, outs: on_result(batches[j], outs))
        else:
            for b in batches:
                outs = fn([configs[i] for i in b]) if batched else [fn(configs[b[0]])]
                if len(outs) != len(b):
                    raise RepcapError(f"{fn_name(fn)} returned {len(outs)} results for {len(b)} configs")
                on_result(b, list(outs))
    finally:
        bar.close()
    # duplicates of a computed key
    for i, r in enumerate(results):
        if r is None:
            results[i] = store.get(keys[i])
    return SweepReport(results=results, n_cached=n_cached, n_computed=len(pending))  # type: ignore[arg-type]


def grid(**axes: Iterable[Any]) -> list[dict]:
    """The Cartesian product of named axes, as a list of config dicts (last axis fastest)."""
    import itertools

    names = list(axes)
    return [dict(zip(names, vals)) for vals in itertools.product(*(list(axes[n]) for n in names))]
