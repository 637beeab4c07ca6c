"""Run a grid of configurations through a content-addressed result cache.

Each point is a JSON-serialisable config dict.  Its key is the sha256 of the function's name, the
function's ``SWEEP_VERSION`` salt (bump it when the computation changes) and the canonical JSON of
the config.  Results are JSON files written atomically (temp file + fsync + rename) with a checksum
of their payload, verified on read; a corrupt or half-written entry is recomputed, never trusted.
An interrupted sweep therefore resumes where it stopped: finished points are read back, not
recomputed.

Functions come in two shapes:

* ``fn(config) -> dict`` (one point at a time);
* ``fn(configs) -> list[dict]`` with ``batched=True``: points that share ``group_by(config)`` are
  handed over together (e.g. toy models of one shape trained as one batch), at most
  ``max_batch`` at a time, and each result is cached as soon as its batch returns.

Where the work runs.  :func:`run` cuts the pending points into :class:`PointTask` s.  A task is
self-contained: wherever it executes (this process, or a Dask worker, see
:mod:`repcap.sweep_dask`), it first reads the cache (a point finished meanwhile is not computed
again), then computes the missing points and **writes their cache entries itself**, before
returning.  The client only collects.  So a point that a worker finishes is kept even if the client
dies, and a task that a cluster re-runs after losing a worker recomputes nothing already written.

The cache folder must therefore be visible to every worker at the same path (a shared file
system); each task checks for the folder's marker file and refuses to run where it is missing.

Temp files are named ``.<key>.json.<host>.<pid>.<random>.tmp`` (never ``*.json``, so no reader
mistakes one for a result); those left by a killed process are removed by the next :func:`run`
on the same host, and any older than :data:`STALE_TEMP_S` by any host.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import socket
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence

from tqdm.auto import tqdm

from . import RepcapError, show_progress
from . import io as rio
from .paths import cache_dir

#: A temp file from another host (whose process we cannot see) is removed after this many seconds.
STALE_TEMP_S = 3600.0
#: The marker file that tells a worker it sees the same cache folder as the client.
MARKER = ".repcap-cache"


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


def error_message(exc: BaseException) -> str:
    """A failed point's message: a :class:`RepcapError` speaks for itself, anything else is
    prefixed with its type (``"OSError: ..."``)."""
    return str(exc) if isinstance(exc, RepcapError) else f"{type(exc).__name__}: {exc}"


def _host_token() -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in socket.gethostname())[:40] or "host"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file in the same folder (fsync, then rename).

    The temp name carries host and pid so that :meth:`Cache.clean_temp` can tell a dead writer's
    leftover from a live writer's file, and ends in ``.tmp`` so that no glob for entries sees it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{_host_token()}.{os.getpid()}.", suffix=".tmp",
                               dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@dataclass
class Cache:
    """One folder of content-addressed JSON results: ``root/<key[:2]>/<key>.json``.

    An entry is ``{"key", "config", "result", "sha256"}`` where ``sha256`` is the digest of the
    canonical JSON of ``result``.
    """

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
            return self._verified(json.loads(p.read_text()), key)
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, OSError):
            p.unlink(missing_ok=True)
            return None

    @staticmethod
    def _verified(entry: Any, key: str) -> dict:
        payload = canonical(entry["result"])
        if entry.get("key") != key or entry.get("sha256") != hashlib.sha256(payload.encode()).hexdigest():
            raise ValueError("checksum mismatch")
        return entry["result"]

    def put(self, key: str, config: dict, result: dict) -> None:
        payload = canonical(result)
        entry = {"key": key, "config": config, "result": json.loads(payload),
                 "sha256": hashlib.sha256(payload.encode()).hexdigest()}
        atomic_write_text(self.path(key), json.dumps(entry, sort_keys=True) + "\n")

    def entries(self) -> Iterator[Path]:
        """The entry files (temp files excluded)."""
        if self.root.exists():
            yield from (p for p in self.root.glob("??/*.json") if not p.name.startswith("."))

    def __len__(self) -> int:
        return sum(1 for _ in self.entries())

    def verify(self) -> tuple[int, list[Path]]:
        """Check every entry's checksum without touching anything: ``(n_good, corrupt_paths)``."""
        good, bad = 0, []
        for p in self.entries():
            try:
                self._verified(json.loads(p.read_text()), p.stem)
                good += 1
            except (ValueError, KeyError, TypeError, UnicodeDecodeError, OSError):
                bad.append(p)
        return good, bad

    def temp_files(self) -> list[Path]:
        return sorted(self.root.glob("??/.*.tmp")) if self.root.exists() else []

    def clean_temp(self, stale_s: float = STALE_TEMP_S) -> int:
        """Remove temp files left by writers that died: those of a dead process on this host, and
        any older than ``stale_s``.  Returns how many were removed."""
        host, now, n = _host_token(), time.time(), 0
        for p in self.temp_files():
            parts = p.name.split(".")
            # "", <key>, "json", <host>, <pid>, <random>, "tmp"
            dead = False
            if len(parts) >= 7 and parts[-4] == host and parts[-3].isdigit():
                dead = not _pid_alive(int(parts[-3]))
            with contextlib.suppress(FileNotFoundError):
                if dead or now - p.stat().st_mtime > stale_s:
                    p.unlink()
                    n += 1
        return n

    def ensure_marker(self) -> None:
        """Create the folder and its marker file (what a worker checks before it runs a task)."""
        m = self.root / MARKER
        if not m.exists():
            atomic_write_text(m, json.dumps({"repcap_sweep_cache": str(self.root)}) + "\n")


# ---------------------------------------------------------------------------------------------
# Tasks: the unit of work an executor runs; computes and writes its own cache entries.


@dataclass
class PointTask:
    """A batch of points of one function, with everything needed to compute and cache them anywhere.

    ``configs`` and ``keys`` have equal length; ``root`` is the cache folder (absolute path);
    ``batched`` says whether ``fn`` takes a list of configs.  Calling the task returns a
    :class:`TaskOutcome`.
    """

    fn: Callable
    configs: list[dict]
    keys: list[str]
    root: str
    batched: bool = False
    collect_errors: bool = False  # a point's exception is returned as a message, not raised (not cached)

    @property
    def name(self) -> str:
        """A stable id (the same points into the same cache give the same id: a Dask key shared by
        clients, so two clients sweeping the same points share the work)."""
        h = hashlib.sha256((self.root + "|" + "".join(self.keys)).encode()).hexdigest()[:20]
        return f"repcap-sweep-{fn_name(self.fn).split(':')[-1].replace('.', '-')[:40]}-{h}"

    def __call__(self) -> "TaskOutcome":
        store = Cache(self.root)
        if not (store.root / MARKER).exists():
            raise RepcapError(
                f"this worker ({socket.gethostname()}) cannot see the sweep cache folder {self.root}: put the cache "
                f"(REPCAP_CACHE) on a file system shared by the client and every worker, at the same path")
        results: list[dict | None] = [store.get(k) for k in self.keys]
        todo = [i for i, r in enumerate(results) if r is None]
        errors: list[str | None] = [None] * len(self.keys)
        if self.batched and todo:
            sub = [self.configs[i] for i in todo]
            try:
                outs = self.fn(sub)
            except Exception as exc:
                if not self.collect_errors:
                    raise
                outs = None
                for i in todo:
                    errors[i] = error_message(exc)
            if outs is not None:
                if not isinstance(outs, (list, tuple)) or len(outs) != len(sub):
                    n = len(outs) if isinstance(outs, (list, tuple)) else type(outs).__name__
                    raise RepcapError(f"{fn_name(self.fn)} returned {n} results for {len(sub)} configs")
                for i, out in zip(todo, outs):
                    results[i] = self._store(store, i, out)
        elif todo:
            for i in todo:
                try:
                    out = self.fn(self.configs[i])
                except Exception as exc:
                    if not self.collect_errors:
                        raise
                    errors[i] = error_message(exc)
                    continue
                results[i] = self._store(store, i, out)
        done = {i for i in todo if errors[i] is None}
        return TaskOutcome(results=results, computed=[i in done for i in range(len(self.keys))],  # type: ignore[arg-type]
                           errors=errors)

    def _store(self, store: Cache, i: int, out: Any) -> dict:
        if not isinstance(out, dict):
            raise RepcapError(f"sweep function {fn_name(self.fn)} must return a dict, got {type(out).__name__}")
        store.put(self.keys[i], self.configs[i], out)
        return json.loads(canonical(out))


@dataclass
class TaskOutcome:
    results: list[dict | None]  # None where the point failed (with collect_errors)
    computed: list[bool]  # False: found in the cache by the task (finished meanwhile), or failed
    errors: list[str | None] = field(default_factory=list)  # the error message of a failed point


class Executor(Protocol):
    """Runs tasks somewhere and reports each outcome, in any order, as soon as it is known.

    ``run_tasks`` returns when every task is reported, and raises the first task error (after which
    it need not run the rest).  Tasks write their own cache entries, so an executor that dies
    mid-way loses only points that were not finished.
    """

    def run_tasks(self, tasks: Sequence[PointTask], on_done: Callable[[int, TaskOutcome], None]) -> None: ...


class LocalExecutor:
    """Runs the tasks one after another in this process (the default)."""

    def run_tasks(self, tasks: Sequence[PointTask], on_done: Callable[[int, TaskOutcome], None]) -> None:
        for j, t in enumerate(tasks):
            on_done(j, t())


LOCAL = LocalExecutor()
_default_executor: Any = None


def set_default_executor(executor: Any) -> Any:
    """Make ``executor`` (``None`` or ``"local"``: this process) the one :func:`run` uses when it is
    not given one; returns the previous default.  Notebooks call it once with
    ``repcap.sweep_dask.make_executor(executor, scheduler)``."""
    global _default_executor
    prev, _default_executor = _default_executor, executor
    return prev


@contextlib.contextmanager
def using(executor: Any) -> Iterator[Any]:
    """``with sweep.using(ex): ...``: the default executor inside the block."""
    prev = set_default_executor(executor)
    try:
        yield executor
    finally:
        set_default_executor(prev)


def _resolve_executor(executor: Any) -> Executor:
    if executor is None:
        executor = _default_executor
    if executor is None or executor == "local":
        return LOCAL
    if hasattr(executor, "run_tasks"):
        return executor
    if type(executor).__name__ == "Client" and type(executor).__module__.startswith("distributed"):
        from .sweep_dask import DaskExecutor

        return DaskExecutor(executor)
    raise RepcapError(f"sweep executor {executor!r} is not one: give None, 'local', a distributed.Client or "
                      f"repcap.sweep_dask.make_executor(...)")


@dataclass
class SweepReport:
    results: list[dict]
    n_cached: int
    n_computed: int
    seconds: float = field(default=0.0)
    #: with ``on_error="collect"``: ``{"index", "config", "error"}`` per failed config (its result is None)
    errors: list[dict] = field(default_factory=list)


def run(fn: Callable, configs: Sequence[dict], *, cache: str | Cache, batched: bool = False,
        group_by: Callable[[dict], Any] | None = None, max_batch: int | None = None,
        desc: str | None = None, progress: bool = True, executor: Any = None,
        on_error: str = "raise") -> SweepReport:
    """Evaluate ``fn`` on every config, reading finished points from ``cache``.

    Returns the results in the order of ``configs``; ``n_cached`` counts configs answered by the
    cache, ``n_computed`` the points ``fn`` computed in this call.  ``executor``: ``None`` (the
    default set by :func:`set_default_executor`, else this process), ``"local"``, a
    :class:`~repcap.sweep_dask.DaskExecutor` or a ``distributed.Client``.  Wherever the points run,
    each task writes its own entries to ``cache``, so the folder must be shared with the workers.

    ``on_error="collect"``: a point whose function raises (a model that cannot be fetched, a
    missing tensor, out of memory) gets result ``None`` and an entry in ``report.errors`` (see
    :func:`error_message`), and the sweep goes on; it is not cached, so a re-run tries it again.
    ``KeyboardInterrupt`` and ``SystemExit`` always propagate.  (A batched function's error fails
    its whole batch.)
    """
    if on_error not in ("raise", "collect"):
        raise RepcapError(f"on_error={on_error!r} must be 'raise' or 'collect'")
    t0 = time.perf_counter()
    store = cache if isinstance(cache, Cache) else Cache.named(cache)
    configs = [dict(c) for c in configs]
    keys = [point_key(fn, c) for c in configs]
    results: list[dict | None] = [store.get(k) for k in keys]
    todo = [i for i, r in enumerate(results) if r is None]
    n_cached = len(configs) - len(todo)
    if not todo:
        return SweepReport(results=results, n_cached=n_cached, n_computed=0,  # type: ignore[arg-type]
                           seconds=time.perf_counter() - t0)

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
            step = int(min(size, len(members)))
            batches.extend(members[s:s + step] for s in range(0, len(members), step))
    else:
        batches = [[i] for i in pending]

    ex = _resolve_executor(executor)
    store = Cache(store.root.resolve())
    store.root.mkdir(parents=True, exist_ok=True)
    store.ensure_marker()
    store.clean_temp()
    root = str(store.root)
    tasks = [PointTask(fn, [configs[i] for i in b], [keys[i] for i in b], root, batched, on_error == "collect")
             for b in batches]
    by_key: dict[str, dict] = {}
    failed: dict[str, str] = {}
    counts = {"computed": 0, "late": 0}
    n_dup = {k: 0 for k in first}
    for i in todo:
        n_dup[keys[i]] += 1

    bar = tqdm(total=len(configs), initial=n_cached, desc=desc or fn_name(fn).split(":")[-1],
               disable=not show_progress(progress), unit="pt", leave=False)

    def on_done(j: int, outcome: TaskOutcome) -> None:
        errs = outcome.errors or [None] * len(outcome.results)
        for k, out, comp, err in zip(tasks[j].keys, outcome.results, outcome.computed, errs):
            if err is not None:
                failed[k] = err
            else:
                by_key[k] = out  # type: ignore[assignment]
                counts["computed" if comp else "late"] += 1
            bar.update(n_dup[k])

    try:
        ex.run_tasks(tasks, on_done)
    finally:
        bar.close()
    errors = [{"index": i, "config": configs[i], "error": failed[keys[i]]} for i in todo if keys[i] in failed]
    for i in todo:
        if keys[i] not in failed:
            results[i] = by_key[keys[i]] if keys[i] in by_key else store.get(keys[i])
    missing = [configs[i] for i, r in enumerate(results) if r is None and keys[i] not in failed]
    if missing:
        raise RepcapError(f"sweep {fn_name(fn)}: the executor returned without {len(missing)} points "
                          f"(first: {missing[0]!r}); run again to compute them")
    return SweepReport(results=results, n_cached=n_cached + counts["late"],  # type: ignore[arg-type]
                       n_computed=counts["computed"], seconds=time.perf_counter() - t0, errors=errors)


def grid(**axes: Iterable[Any]) -> list[dict]:
    """The Cartesian product of named axes, as a list of config dicts (last axis fastest)."""
    import itertools

    names = list(axes)
    return [dict(zip(names, vals)) for vals in itertools.product(*(list(axes[n]) for n in names))]
