"""Run a grid of configurations through a content-addressed result cache.

Each point is a JSON-serialisable config dict; its key (:mod:`.keys`) covers the function, the code
it runs and the config.  Results are cached as they finish (:mod:`.cache`), so an interrupted
sweep resumes where it stopped: finished points are read back, not recomputed.

Functions come in two shapes:

* ``fn(config) -> dict`` (one point at a time);
* ``fn(configs) -> list[dict]`` with ``batched=True``: points that share ``group_by(config)`` are
  handed over together (e.g. toy models of one shape trained as one batch), at most
  ``max_batch`` at a time, and each result is cached as soon as its batch returns.

Where the points run is an executor (:mod:`.tasks`): this process by default, a Dask cluster
(:mod:`.dask`) when one is set with :func:`set_default_executor`.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import RepcapError, show_progress
from . import checks
from .cache import Cache
from .files import canonical
from .keys import code_digest, fn_name, point_key
from .tasks import LOCAL, Executor, PointTask, TaskOutcome

_default_executor: Any = None


def set_default_executor(executor: Any) -> Any:
    """Make ``executor`` (``None`` or ``"local"``: this process) the one :func:`run` uses when it is
    not given one; returns the previous default.  Notebooks call it once with
    ``repcap.sweep.dask.make_executor(executor, scheduler)``."""
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
    raise RepcapError(
        f"sweep executor {str(executor)[:120]!r} is not one: give None, 'local', or an object with "
        f"run_tasks (repcap.sweep.dask.make_executor(...), or repcap.sweep.dask.DaskExecutor(client))"
    )


@dataclass
class SweepReport:
    results: list[dict]
    n_cached: int
    n_computed: int
    seconds: float = field(default=0.0)
    #: with ``on_error="collect"``: ``{"index", "config", "error"}`` per failed config (its result is None)
    errors: list[dict] = field(default_factory=list)


def run(
    fn: Callable,
    configs: Sequence[dict],
    *,
    cache: str | Cache,
    batched: bool = False,
    group_by: Callable[[dict], Any] | None = None,
    max_batch: int | None = None,
    desc: str | None = None,
    progress: bool = True,
    executor: Any = None,
    on_error: str = "raise",
    code: str | None = None,
) -> SweepReport:
    """Evaluate ``fn`` on every config, reading finished points from ``cache``.

    Returns the results in the order of ``configs``; ``n_cached`` counts configs answered by the
    cache, ``n_computed`` the points ``fn`` computed in this call.  ``executor``: ``None`` (the
    default set by :func:`set_default_executor`, else this process), ``"local"``, a
    :class:`~repcap.sweep.dask.DaskExecutor` (any object with ``run_tasks``).  Wherever the points run,
    each task writes its own entries to ``cache``, so the folder must be shared with the workers.

    ``on_error="collect"``: a point whose function raises (a model that cannot be fetched, a
    missing tensor, out of memory) gets result ``None`` and an entry in ``report.errors`` (see
    :func:`error_message`), and the sweep goes on; it is not cached, so a re-run tries it again.
    ``KeyboardInterrupt`` and ``SystemExit`` always propagate.  (A batched function's error fails
    its whole batch.)

    ``code``: the code digest of a function defined outside repcap (a notebook's, a test's), which
    has no module closure to hash; such a function is refused without it (:mod:`.keys`).
    """
    if on_error not in ("raise", "collect"):
        raise RepcapError(f"on_error={on_error!r} must be 'raise' or 'collect'")
    t0 = time.perf_counter()
    store = cache if isinstance(cache, Cache) else Cache.named(cache)
    configs = [dict(c) for c in configs]
    code = code_digest(fn) if code is None else code
    keys = [point_key(fn, c, code) for c in configs]
    results: list[dict | None] = [checks.read(store, fn, k, c) for k, c in zip(keys, configs)]
    todo = [i for i, r in enumerate(results) if r is None]
    n_cached = len(configs) - len(todo)
    if not todo:
        return SweepReport(results=results, n_cached=n_cached, n_computed=0, seconds=time.perf_counter() - t0)  # type: ignore[arg-type]

    first: dict[str, int] = {}  # unique pending points: the same config twice is computed once
    for i in todo:
        first.setdefault(keys[i], i)
    batches = _batches(list(first.values()), configs, batched, group_by, max_batch)
    store = _ready(store)
    tasks = [
        PointTask(fn, [configs[i] for i in b], [keys[i] for i in b], str(store.root), batched, on_error == "collect")
        for b in batches
    ]
    n_dup = dict.fromkeys(first, 0)
    for i in todo:
        n_dup[keys[i]] += 1
    bar = {"total": len(configs), "initial": n_cached, "desc": desc or fn_name(fn).split(":")[-1]}
    done = _run_with_bar(_resolve_executor(executor), tasks, n_dup, bar, progress)
    return _report(fn, configs, keys, todo, results, store, done, n_cached, time.perf_counter() - t0)


def _run_with_bar(executor: Any, tasks: list[PointTask], n_dup: dict[str, int], bar: dict, progress: bool) -> Any:
    """Run ``tasks`` on ``executor`` under a progress bar (``bar``: its total, start and label) that
    counts every config a finished key answers (``n_dup``).  tqdm is imported here, where a bar is
    drawn: importing it costs a command's ``--help`` 50 ms."""
    from tqdm.auto import tqdm

    shown = tqdm(**bar, disable=not show_progress(progress), unit="pt", leave=False)
    try:
        return _run_tasks(executor, tasks, lambda k: shown.update(n_dup[k]))
    finally:
        shown.close()


def _batches(
    pending: list[int],
    configs: list[dict],
    batched: bool,
    group_by: Callable[[dict], Any] | None,
    max_batch: int | None,
) -> list[list[int]]:
    """The pending points' indices as the tasks that compute them: one point each, or (batched)
    the points of one ``group_by`` value, at most ``max_batch`` at a time."""
    if not batched:
        return [[i] for i in pending]
    groups: dict[str, list[int]] = {}
    for i in pending:
        g = canonical(group_by(configs[i])) if group_by else ""
        groups.setdefault(g, []).append(i)
    size = max_batch or math.inf
    batches: list[list[int]] = []
    for members in groups.values():
        step = int(min(size, len(members)))
        batches.extend(members[s : s + step] for s in range(0, len(members), step))
    return batches


def _ready(store: Cache) -> Cache:
    """The cache at its absolute path (the workers may run elsewhere), created, marked and with
    the temporary files of interrupted writes removed."""
    store = Cache(store.root.resolve())
    store.root.mkdir(parents=True, exist_ok=True)
    store.ensure_marker()
    store.clean_temp()
    return store


@dataclass
class _Done:
    """What the tasks returned: results and errors by key, and how many were computed here or
    found already finished by another run (``late``)."""

    by_key: dict[str, dict] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    computed: int = 0
    late: int = 0


def _run_tasks(ex: Executor, tasks: list[PointTask], tick: Callable[[str], None]) -> _Done:
    done = _Done()

    def on_done(j: int, outcome: TaskOutcome) -> None:
        errs = outcome.errors or [None] * len(outcome.results)
        for k, out, comp, err in zip(tasks[j].keys, outcome.results, outcome.computed, errs):
            if err is not None:
                done.failed[k] = err
            else:
                done.by_key[k] = out  # type: ignore[assignment]
                if comp:
                    done.computed += 1
                else:
                    done.late += 1
            tick(k)

    ex.run_tasks(tasks, on_done)
    return done


def _report(
    fn: Callable,
    configs: list[dict],
    keys: list[str],
    todo: list[int],
    results: list[dict | None],
    store: Cache,
    done: _Done,
    n_cached: int,
    seconds: float,
) -> SweepReport:
    """Fill in the computed results in the order of ``configs``; refuse a run that lost points."""
    errors = [{"index": i, "config": configs[i], "error": done.failed[keys[i]]} for i in todo if keys[i] in done.failed]
    for i in todo:
        if keys[i] not in done.failed:
            results[i] = done.by_key[keys[i]] if keys[i] in done.by_key else checks.read(store, fn, keys[i], configs[i])
    missing = [configs[i] for i, r in enumerate(results) if r is None and keys[i] not in done.failed]
    if missing:
        raise RepcapError(
            f"sweep {fn_name(fn)}: the executor returned without {len(missing)} points "
            f"(first: {missing[0]!r}); run again to compute them"
        )
    return SweepReport(
        results=results,  # type: ignore[arg-type]
        n_cached=n_cached + done.late,
        n_computed=done.computed,
        seconds=seconds,
        errors=errors,
    )


def grid(**axes: Iterable[Any]) -> list[dict]:
    """The Cartesian product of named axes, as a list of config dicts (last axis fastest)."""
    import itertools

    names = list(axes)
    return [dict(zip(names, vals)) for vals in itertools.product(*(list(axes[n]) for n in names))]
