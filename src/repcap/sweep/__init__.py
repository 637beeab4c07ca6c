"""Sweeps: a grid of configurations through a content-addressed result cache, here or on a Dask
cluster.  :mod:`.run` (the entry point), :mod:`.cache` (the cache), :mod:`.claims` (who computes a
point), :mod:`.files` (canonical JSON, atomic writes), :mod:`.keys` (a point's identity),
:mod:`.registry` (the point functions by name), :mod:`.provenance` (where a result was computed),
:mod:`.tasks` (the unit of work and the local executor), :mod:`.dask` (the cluster), :mod:`.checks`
(what a result cannot be), :mod:`.codehash` (digests of the code a computation runs).

The results store's core, below the engines (which register their point functions here): it may
import :mod:`repcap.base` only."""

from .cache import MARKER, STALE_TEMP_S, Cache
from .files import atomic_write_text, canonical
from .keys import code_digest, fn_name, point_key
from .registry import point_function, registered
from .run import SweepReport, grid, run, set_default_executor, using
from .tasks import LOCAL, Executor, LocalExecutor, PointTask, TaskOutcome, error_message

__all__ = ["LOCAL", "MARKER", "STALE_TEMP_S", "Cache", "Executor", "LocalExecutor", "PointTask", "SweepReport"]
__all__ += ["TaskOutcome", "atomic_write_text", "canonical", "code_digest", "error_message", "fn_name", "grid"]
__all__ += ["point_function", "point_key", "registered", "run", "set_default_executor", "using"]
