"""Computing a point set: its experiments through the sweep cache, resumably, under a time budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .cost import duration as _duration
from .experiment import Experiment, PointSet


@dataclass
class ExperimentRun:
    """What :func:`compute` did for one experiment."""

    name: str
    n_points: int
    n_cached: int = 0
    n_computed: int = 0
    n_left: int = 0  # not started: the time budget ran out
    seconds: float = 0.0


def _chunks(e: Experiment, max_batch: int | None) -> list[list[dict]]:
    """The experiment's configs in the batches :func:`repcap.sweep.run` would form (so a time budget
    is checked between batches)."""
    from repcap.sweep import canonical

    if not e.batched:
        return [[c] for c in e.configs]
    groups: dict[str, list[dict]] = {}
    for c in e.configs:
        groups.setdefault(canonical(e.group_by(c)) if e.group_by else "", []).append(c)
    size = max_batch or len(e.configs)
    return [g[i : i + size] for g in groups.values() for i in range(0, len(g), size)]


def compute(
    pset: PointSet,
    *,
    only: Sequence[str] | None = None,
    executor: Any = None,
    budget_s: float | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> list[ExperimentRun]:
    """Run the experiments of ``pset`` (those named in ``only``; all by default) through
    :func:`repcap.sweep.run`: finished points are read from the cache, so an interrupted run
    resumes.  With ``budget_s`` a batch starts only if the cost model (:mod:`.cost`) expects its
    points not yet in the cache to end within that many seconds of the start; a batch that would
    not is left, and later, cheaper batches may still run (what is left is reported, and computed
    by the next call).  Logs one line before and after each experiment."""
    import time

    from repcap.base.devices import resolve_device

    kind = resolve_device("auto").type
    t0, out = time.perf_counter(), []
    for e in pset.only(only):
        log(
            f"== {e.name} ({len(e.configs)} points, estimated {_duration(e.estimate_seconds(kind))} on {kind}): {e.what}"
        )
        run = _run_experiment(e, kind, t0, budget_s, progress, executor)
        log(
            f"   {e.name}: {run.n_computed} computed, {run.n_cached} cached"
            + (f", {run.n_left} left (not expected to end within the time budget)" if run.n_left else "")
            + f"; wall time {run.seconds:.1f} s"
        )
        out.append(run)
    return out


def _run_experiment(
    e: Experiment, kind: str, t0: float, budget_s: float | None, progress: bool, executor: Any
) -> ExperimentRun:
    """Run one experiment of :func:`compute` (``t0``: when the run began, for ``budget_s``)."""
    import time

    from repcap import sweep
    from repcap.sweep.checks import read

    from .cost import point_seconds

    run = ExperimentRun(e.name, len(e.configs))
    mb = e.max_batch()
    if budget_s is not None:  # which points the cache lacks (the cost of a batch is theirs alone)
        store, code = sweep.Cache.named(e.cache), sweep.code_digest(e.fn)
    for chunk in _chunks(e, mb) if budget_s is not None else [list(e.configs)]:
        if budget_s is not None:
            # a damaged, unreadable or impossible entry is not a cached point: it is computed again
            todo = [c for c in chunk if read(store, e.fn, sweep.point_key(e.fn, c, code), c) is None]
            expected = sum(point_seconds(e.fn, c, kind) for c in todo)
            if todo and time.perf_counter() - t0 + expected > budget_s:
                run.n_left += len(todo)
                run.n_cached += len(chunk) - len(todo)
                continue
        t1 = time.perf_counter()
        rep = sweep.run(
            e.fn,
            chunk,
            cache=e.cache,
            batched=e.batched,
            group_by=e.group_by,
            max_batch=mb,
            desc=e.name,
            progress=progress,
            executor=executor,
        )
        run.n_cached, run.n_computed = run.n_cached + rep.n_cached, run.n_computed + rep.n_computed
        run.seconds += time.perf_counter() - t1
    return run
