"""The unit of work of a sweep, and where it runs.

:func:`repcap.sweep.run` cuts the pending points into :class:`PointTask` s.  A task is
self-contained: wherever it executes (this process, or a Dask worker, see :mod:`.dask`), it first
reads the cache (a point finished meanwhile is not computed again), then computes the missing
points and **writes their cache entries itself**, before returning.  The client only collects.
So a point that a worker finishes is kept even if the client dies, and a task that a cluster
re-runs after losing a worker recomputes nothing already written.

The cache folder must therefore be visible to every worker at the same path (a shared file
system); each task checks for the folder's marker file and refuses to run where it is missing.
"""

from __future__ import annotations

import hashlib
import json
import math
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import RepcapError
from . import checks
from .cache import MARKER, Cache
from .claims import ClaimInfo
from .files import canonical, warn
from .keys import fn_name
from .provenance import record

#: How often a task looks again at a point another run has claimed (seconds).
CLAIM_POLL_S = 2.0
#: How often a task that waits on another run's claim says so (seconds).
CLAIM_REPORT_S = 300.0


def _waiting(key: str, fn: str, info: ClaimInfo) -> str:
    """The line a task prints while it waits on ``info``: whose claim, and how to break it."""
    if info.local:
        until = f"while pid {info.pid} runs; if it is stuck, stop it (kill {info.pid})"
        brk = f"repcap bundle unclaim --force {info.path}"
    else:
        until = f"until it shows no sign of life for {info.timeout:.0f} s (--claim-timeout / REPCAP_CLAIM_TIMEOUT)"
        brk = f"repcap bundle unclaim {info.path}"
    return (
        f"point {key[:12]} of {fn.split(':')[-1]} is being computed by another run ({info.describe()}); "
        f"waiting {until}; if that run is gone: {brk}"
    )


def error_message(exc: BaseException) -> str:
    """A failed point's message: a :class:`RepcapError` speaks for itself, anything else is
    prefixed with its type (``"OSError: ..."``)."""
    return str(exc) if isinstance(exc, RepcapError) else f"{type(exc).__name__}: {exc}"


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

    def __call__(self) -> TaskOutcome:
        store = Cache(self.root)  # type: ignore[arg-type]  # Cache takes any path
        if not (store.root / MARKER).exists():
            raise RepcapError(
                f"this worker ({socket.gethostname()}) cannot see the sweep cache folder {self.root}: put the cache "
                f"(REPCAP_CACHE) on a file system shared by the client and every worker, at the same path"
            )
        results: list[dict | None] = [checks.read(store, self.fn, k, c) for k, c in zip(self.keys, self.configs)]
        pending = [i for i, r in enumerate(results) if r is None]
        # claim each point before computing it: a point another live run is computing is left to
        # it and read when it is done (two runs of one set share the work instead of doubling it)
        todo = [i for i in pending if store.claim(self.keys[i])]
        mine = set(todo)
        held = [i for i in pending if i not in mine]
        errors: list[str | None] = [None] * len(self.keys)
        try:
            self._compute(store, todo, results, errors)
        finally:
            for i in todo:
                store.release(self.keys[i])
        here = [i for i in held if self._await(store, i, results, errors)]
        done = {i for i in todo + here if errors[i] is None}
        return TaskOutcome(results=results, computed=[i in done for i in range(len(self.keys))], errors=errors)

    def _await(self, store: Cache, i: int, results: list, errors: list) -> bool:
        """The point another run has claimed: read into ``results`` once its claim is gone (or
        stale), or computed here if that run ended without writing it (then True).  While it
        waits it says, every :data:`CLAIM_REPORT_S` seconds, which claim it waits for and how to
        break it."""
        key, said = self.keys[i], -math.inf
        while True:
            info = store.claim_info(key)
            if info is None or info.stale is not None:
                results[i] = checks.read(store, self.fn, key, self.configs[i])
                if results[i] is not None:
                    return False
                if store.claim(key):  # that run ended without it: computed here, under our own claim
                    break
                continue  # another waiting run took the point over first: wait for that one
            if time.monotonic() - said >= CLAIM_REPORT_S:
                said = time.monotonic()
                warn(_waiting(key, fn_name(self.fn), info))
            time.sleep(CLAIM_POLL_S)
        try:
            self._compute(store, [i], results, errors)
        finally:
            store.release(key)
        return True

    def _compute(self, store: Cache, todo: list[int], results: list, errors: list) -> None:
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

    def _store(self, store: Cache, i: int, out: Any) -> dict:
        if not isinstance(out, dict):
            raise RepcapError(f"sweep function {fn_name(self.fn)} must return a dict, got {type(out).__name__}")
        store.put(self.keys[i], self.configs[i], out, record(self.fn, out))
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
