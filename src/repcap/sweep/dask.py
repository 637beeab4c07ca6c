"""Run :mod:`repcap.sweep` points on a Dask cluster (``distributed`` futures; dask-jobqueue for
SLURM and PBS).

The executor ships each :class:`repcap.sweep.PointTask` to a worker with ``Client.submit``.  The
task reads the shared cache, computes what is missing and writes the cache entries itself (atomic
write + checksum) before it returns; the client only collects outcomes with ``as_completed``.
Hence:

* a point a worker finishes is kept even if the client dies (the worker's write does not depend on
  the client; with ``detach=True`` the scheduler even finishes every submitted point after the
  client is gone, via ``distributed.fire_and_forget``);
* when a worker dies, the scheduler re-runs its tasks elsewhere; a re-run task first reads the cache,
  so nothing that was written is computed again;
* task keys are content addresses (``PointTask.name``): two clients sweeping the same points share
  the work instead of doing it twice.

The cache folder must be on a file system every worker mounts at the same path (``REPCAP_CACHE``);
tasks refuse to run where they cannot see it.  Workers need the same ``repcap`` installed (and the
sweep function's module, unless it is defined in ``__main__``/a notebook and travels by value);
the scheduler needs neither: it only ever sees ``pickle.loads`` and bytes.

Where the cluster comes from (``DaskExecutor(target)``, or ``make_executor("dask", scheduler)``):

* an existing ``distributed.Client`` (left open when the executor closes);
* a scheduler address, ``"tcp://host:8786"`` (also ``tls://``, ``ucx://``, ``ws://``, ``host:port``);
* ``None`` / ``"local"`` / ``"local:N"``: a ``LocalCluster`` of N single-threaded worker processes
  on this machine (default: one per core);
* a jobqueue config (a mapping, a :class:`JobqueueConfig` or a ``.yaml`` path), e.g.::

      system: slurm          # slurm | pbs (also sge, lsf, htcondor, oar, moab)
      jobs: 4                # batch jobs to start (or adapt: {minimum_jobs: 0, maximum_jobs: 20})
      cores: 8               # everything else goes to dask_jobqueue.SLURMCluster(...)
      memory: 32GB
      walltime: "02:00:00"
      queue: normal
      job_extra_directives: ["--gres=gpu:1"]

  dask-jobqueue is imported only then (``pip install dask-jobqueue``).

Connections and clusters are made lazily, on the first sweep with something to compute.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import RepcapError
from .tasks import PointTask, TaskOutcome

#: The dask-jobqueue cluster class of each batch system.
JOBQUEUE_SYSTEMS: dict[str, str] = {
    "slurm": "SLURMCluster",
    "pbs": "PBSCluster",
    "sge": "SGECluster",
    "lsf": "LSFCluster",
    "htcondor": "HTCondorCluster",
    "oar": "OARCluster",
    "moab": "MoabCluster",
}
_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ucx|ws|wss|inproc)://\S+|[A-Za-z0-9_.\-\[\]:]+:\d{1,5})$")
EXECUTORS = ("local", "dask")


def _run_task(task: PointTask) -> dict:
    """What a worker runs: compute the missing points of ``task`` and write their cache entries.
    Returns the outcome as plain data (``TaskOutcome`` fields)."""
    out = task()
    return {"results": out.results, "computed": out.computed, "errors": out.errors}


class _RunOnLoad:
    """Pickles as "call ``_run_task(task)``": a worker that unpickles the payload runs the task.

    The executor submits ``pickle.loads(payload)``, so the scheduler (which deserialises task
    specs) only ever sees ``pickle.loads`` and bytes, and needs neither repcap nor the module of
    the sweep function; only the workers do.
    """

    def __init__(self, task: PointTask) -> None:
        self.task = task

    def __reduce__(self) -> tuple:
        return (_run_task, (self.task,))


def _payload(task: PointTask) -> bytes:
    import cloudpickle

    return cloudpickle.dumps(_RunOnLoad(task))


def _import_distributed():
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - the cluster extra is installed in CI
        raise RepcapError("executor 'dask' needs dask.distributed: pip install 'repcap[cluster]'") from exc
    return distributed


@dataclass
class JobqueueConfig:
    """A dask-jobqueue cluster described by a few lines of YAML (see the module docstring)."""

    system: str  # batch system: slurm | pbs | sge | lsf | htcondor | oar | moab
    jobs: int = 1  # batch jobs to start (cluster.scale(jobs=...)); ignored with adapt
    adapt: dict | None = None  # e.g. {"minimum_jobs": 0, "maximum_jobs": 20}: follow the queue
    options: dict = field(default_factory=dict)  # to the cluster class: cores, memory, walltime, queue, account, ...

    @classmethod
    def from_mapping(cls, m: Mapping[str, Any], source: str = "jobqueue config") -> JobqueueConfig:
        if not isinstance(m, Mapping):
            raise RepcapError(f"{source} must be a mapping like {{system: slurm, cores: 8, memory: 32GB, jobs: 4}}")
        m = dict(m)
        system = str(m.pop("system", "")).lower()
        if system not in JOBQUEUE_SYSTEMS:
            raise RepcapError(f"{source}: 'system' must be one of {sorted(JOBQUEUE_SYSTEMS)}, got {system or None!r}")
        jobs = m.pop("jobs", 1)
        if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 0:
            raise RepcapError(f"{source}: 'jobs' must be a non-negative integer, got {jobs!r}")
        adapt = m.pop("adapt", None)
        if adapt is not None and not isinstance(adapt, Mapping):
            raise RepcapError(f"{source}: 'adapt' must be a mapping like {{minimum_jobs: 0, maximum_jobs: 20}}")
        return cls(system=system, jobs=jobs, adapt=dict(adapt) if adapt else None, options=m)

    @classmethod
    def load(cls, path: str | os.PathLike) -> JobqueueConfig:
        import yaml

        p = Path(path).expanduser()
        if not p.is_file():
            raise RepcapError(f"jobqueue config {str(path)!r} does not exist")
        try:
            data = yaml.safe_load(p.read_text())
        except yaml.YAMLError as exc:
            raise RepcapError(f"jobqueue config {p} is not valid YAML: {exc}") from exc
        return cls.from_mapping(data or {}, source=f"jobqueue config {p}")

    def build(self) -> Any:
        """Start the cluster (submits the batch jobs)."""
        try:
            import dask_jobqueue
        except ImportError as exc:
            raise RepcapError(
                f"a {self.system.upper()} cluster needs dask-jobqueue, which is not installed: "
                f"pip install dask-jobqueue"
            ) from exc
        cls = getattr(dask_jobqueue, JOBQUEUE_SYSTEMS[self.system])
        try:
            cluster = cls(**self.options)
        except (TypeError, ValueError) as exc:
            raise RepcapError(f"dask-jobqueue refused the {self.system} config {self.options}: {exc}") from exc
        if self.adapt:
            cluster.adapt(**self.adapt)
        elif self.jobs:
            cluster.scale(jobs=self.jobs)
        return cluster


class DaskExecutor:
    """A :mod:`repcap.sweep` executor on a Dask cluster.

    ``target``: a ``distributed.Client``, a scheduler address, ``None``/``"local"``/``"local:N"``
    (a ``LocalCluster`` here), a jobqueue config (mapping, :class:`JobqueueConfig`, ``.yaml`` path),
    or a cluster object with a ``scheduler_address``.  ``detach``: let the scheduler finish every
    submitted point even if this client dies or is interrupted (the points land in the cache; a
    re-run collects them).  ``retries``: re-runs of a task that raised (worker deaths are retried
    by the scheduler anyway).
    """

    def __init__(
        self, target: Any = None, *, detach: bool = False, retries: int = 0, connect_timeout: str = "20s"
    ) -> None:
        self.detach = detach
        self.retries = retries
        self.connect_timeout = connect_timeout
        self._target = target
        self._client = None
        self._owned: list[Any] = []  # what we created and must close
        if type(target).__name__ == "Client" and type(target).__module__.startswith("distributed"):
            self._client = target
        elif isinstance(target, str) and target.startswith("local:"):
            workers = target.split(":", 1)[1]
            cap = 4 * (os.cpu_count() or 1)
            if not workers.isdigit() or not 1 <= int(workers) <= cap:
                raise RepcapError(f"scheduler {target!r}: local:N needs 1 <= N <= {cap} worker processes")
        elif isinstance(target, str) and not _is_local(target) and not _ADDRESS.match(target):
            if target.endswith((".yaml", ".yml")):
                self._target = JobqueueConfig.load(target)
            else:
                raise RepcapError(
                    f"scheduler {target!r} is neither an address (tcp://host:8786), 'local[:N]' nor "
                    f"a jobqueue .yaml file"
                )
        elif isinstance(target, Mapping):
            self._target = JobqueueConfig.from_mapping(target)

    def __repr__(self) -> str:
        return f"DaskExecutor({self.describe()})"

    def describe(self) -> str:
        t = self._target
        if self._client is not None:
            return f"scheduler {self._client.scheduler.address}"
        if t is None or _is_local(t):
            return "a LocalCluster on this machine"
        if isinstance(t, JobqueueConfig):
            return f"a {t.system.upper()} cluster via dask-jobqueue"
        return f"scheduler {t}" if isinstance(t, str) else repr(t)

    @property
    def client(self) -> Any:
        """The ``distributed.Client``, connected (or the cluster started) on first use."""
        if self._client is None:
            distributed = _import_distributed()
            t = self._target
            if t is None or _is_local(t):
                n = int(t.split(":", 1)[1]) if isinstance(t, str) and ":" in t else None
                cluster = distributed.LocalCluster(
                    n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
                )
                self._owned.append(cluster)
                address: Any = cluster
            elif isinstance(t, JobqueueConfig):
                cluster = t.build()
                self._owned.append(cluster)
                address = cluster
            elif isinstance(t, str) or hasattr(t, "scheduler_address"):
                address = t
            else:
                raise RepcapError(f"cannot make a Dask client from {t!r}")
            try:
                self._client = distributed.Client(address, timeout=self.connect_timeout)
            except (OSError, TimeoutError) as exc:
                raise RepcapError(
                    f"cannot reach the Dask scheduler at {t}: {exc}; is it running, and is the address right?"
                ) from exc
            self._owned.insert(0, self._client)
        return self._client

    def run_tasks(self, tasks: Sequence[PointTask], on_done: Callable[[int, TaskOutcome], None]) -> None:
        distributed = _import_distributed()
        import pickle

        from distributed.client import FutureCancelledError

        client = self.client
        futures = [
            client.submit(pickle.loads, _payload(t), key=t.name, pure=False, retries=self.retries) for t in tasks
        ]
        if self.detach:
            distributed.fire_and_forget(futures)
        index = {f.key: j for j, f in enumerate(futures)}
        finished = 0
        from distributed.comm.core import CommClosedError

        key = None
        try:
            for fut in distributed.as_completed(futures):
                key = fut.key
                j = index[key]
                outcome = TaskOutcome(**fut.result())
                on_done(j, outcome)
                finished += 1
                futures[j] = None  # drop our reference: the scheduler forgets the result
        except (FutureCancelledError, distributed.KilledWorker, CommClosedError) as exc:
            # The cluster (a worker, or the scheduler itself) went away; a point function's own
            # errors are not of these types and pass through unchanged.
            raise RepcapError(
                f"the Dask cluster lost sweep task {key or '?'} ({type(exc).__name__}: {exc}); the "
                f"{finished} tasks finished so far are cached: run the sweep again to resume"
            ) from exc
        finally:
            rest = [f for f in futures if f is not None]
            if rest and not self.detach:
                try:
                    client.cancel(rest)
                except Exception:
                    pass

    def close(self) -> None:
        """Close the client and any cluster this executor started (never a Client it was given).
        ``distributed``'s ``CancelledError`` tracebacks of a client closed mid-reconnect (its
        scheduler was killed; repcap has already said so in one line) are dropped from the log."""
        if self._owned:
            quiet_cancellations()
        for obj in self._owned:
            try:
                obj.close()
            except Exception:
                pass
        if self._owned:
            self._client = None
        self._owned = []

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _DropCancelled(logging.Filter):
    """Drops a log record whose exception (or message) is an ``asyncio.CancelledError``: the
    noise of a client or cluster closed while a reconnect or a heartbeat is in flight."""

    def filter(self, record: logging.LogRecord) -> bool:
        import asyncio
        import concurrent.futures

        exc = record.exc_info[0] if record.exc_info else None
        if exc is not None and issubclass(exc, (asyncio.CancelledError, concurrent.futures.CancelledError)):
            return False
        try:
            msg = record.getMessage()
        except Exception:
            return True
        return "CancelledError" not in msg


_DROP = _DropCancelled()


def quiet_cancellations() -> None:
    """Install :class:`_DropCancelled` on the loggers (and their handlers) that ``distributed``,
    ``tornado`` and ``asyncio`` report shutdown cancellations through (idempotent)."""
    for name in ("", "distributed", "distributed.client", "distributed.core", "distributed.comm", "asyncio", "tornado"):
        lg = logging.getLogger(name)
        if _DROP not in lg.filters:
            lg.addFilter(_DROP)
        for h in lg.handlers:
            if _DROP not in h.filters:
                h.addFilter(_DROP)


def _is_local(t: Any) -> bool:
    return isinstance(t, str) and (t == "local" or re.fullmatch(r"local:\d+", t) is not None)


def make_executor(executor: str = "local", scheduler: Any = None, **kwargs: Any) -> DaskExecutor | None:
    """The executor for a notebook's or the CLI's ``executor`` / ``scheduler`` parameters.

    ``executor="local"`` gives ``None`` (points run in this process); ``"dask"`` gives a
    :class:`DaskExecutor` on ``scheduler`` (an address ``tcp://host:8786``, ``"local[:N]"`` or
    ``None`` for a LocalCluster here, or a jobqueue ``.yaml``).  Pass the result to
    ``repcap.sweep.set_default_executor`` (or ``sweep.run(..., executor=...)``).
    """
    name = (executor or "local").strip().lower() if isinstance(executor, str) else executor
    if name == "local":
        if scheduler not in (None, ""):
            raise RepcapError(f"scheduler={scheduler!r} is only used with executor='dask' (got executor='local')")
        return None
    if name == "dask":
        return DaskExecutor(scheduler or None, **kwargs)
    raise RepcapError(f"executor {executor!r} is not one of {list(EXECUTORS)}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--executor`` and ``--scheduler`` to a CLI sub-command that runs sweeps."""
    parser.add_argument(
        "--executor",
        default="local",
        choices=list(EXECUTORS),
        help="where sweep points run: this process (local) or a Dask cluster (dask)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="with --executor dask: tcp://host:8786, local[:N] (default: a LocalCluster here) "
        "or a dask-jobqueue YAML file (SLURM, PBS)",
    )


def from_args(args: argparse.Namespace) -> DaskExecutor | None:
    return make_executor(getattr(args, "executor", "local"), getattr(args, "scheduler", None))


__all__ = [
    "EXECUTORS",
    "JOBQUEUE_SYSTEMS",
    "DaskExecutor",
    "JobqueueConfig",
    "add_arguments",
    "from_args",
    "make_executor",
]
