"""What a point set is made of: an :class:`Experiment` (one :func:`repcap.sweep.run` call) and a
:class:`PointSet` (a named, scaled list of them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from repcap import RepcapError

from .cost import point_seconds


@dataclass(frozen=True)
class Experiment:
    """One :func:`repcap.sweep.run` call: ``fn`` over ``configs`` into the cache ``cache``.

    ``keep_large``: the bundle keeps the large fields of its results (the toy models' ``norms``),
    for small experiments whose chapters plot them; otherwise they are left out of the bundle.
    """

    name: str
    fn: Callable
    configs: tuple[dict, ...]
    cache: str
    what: str = ""
    batched: bool = False
    group_by: Callable[[dict], Any] | None = None
    keep_large: bool = False

    def max_batch(self) -> int | None:
        """How many points one batch may hold (toy models: what fits the device's memory)."""
        from repcap.engines.toy import models_per_batch, train_points

        if self.fn is train_points and self.configs:
            return min(models_per_batch(c["n"], c["batch"]) for c in self.configs)
        return None

    def estimate_seconds(self, device: str = "cpu") -> float:
        """An order-of-magnitude wall time of all its points on ``device`` (``cpu`` or ``cuda``)."""
        return sum(point_seconds(self.fn, c, device) for c in self.configs)


@dataclass(frozen=True)
class PointSet:
    name: str
    scale: str
    experiments: tuple[Experiment, ...]
    what: str = ""

    def experiment(self, name: str) -> Experiment:
        for e in self.experiments:
            if e.name == name:
                return e
        raise RepcapError(f"set {self.name!r} has no experiment {name!r}; it has {', '.join(self.names)}")

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.experiments]

    def only(self, names: Sequence[str] | None) -> list[Experiment]:
        """The experiments named (all when ``names`` is empty), in the set's order."""
        if not names:
            return list(self.experiments)
        wanted = [self.experiment(n).name for n in names]
        return [e for e in self.experiments if e.name in wanted]
