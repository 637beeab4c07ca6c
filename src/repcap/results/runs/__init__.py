"""Named point sets: what a profile computes outside the notebooks, as data and code in one place.

A point set is a list of :class:`Experiment` s; an experiment is one call of
:func:`repcap.sweep.run` (a point function, its configs, the cache it writes to, how its points
batch).  ``repcap bundle compute SET`` runs a set, :mod:`repcap.results.bundle` ships its finished points
with their provenance, and the book reads them back with :func:`repcap.results.bundle.lookup`.  The sets
themselves (``reference``, ``paper-gpu``) are described once, in :mod:`.sets`.

Modules (import them directly; this face holds only what other packages use): :mod:`.experiment`
(what a set is made of), :mod:`.points` (the sources' grids and one point of each), :mod:`.cost`
(how long points take), :mod:`.sets` (the named sets), :mod:`.computing` (running a set) and
:mod:`.point_functions` (what a bundle may name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

#: Each name of the face and the module that defines it.  The face loads a module when one of its
#: names is first used (PEP 562): ``repcap bundle --help`` reads :data:`SETS` and :data:`SCALES`
#: without loading the engines that :mod:`.point_functions` and :mod:`.computing` import.
_WHERE = {
    "ExperimentRun": "computing",
    "compute": "computing",
    "Experiment": "experiment",
    "PointSet": "experiment",
    "POINT_FUNCTIONS": "point_functions",
    "point_function": "point_functions",
    "PROFILE_OF_SET": "sets",
    "SCALES": "sets",
    "SETS": "sets",
    "finding_profile": "sets",
    "point_set": "sets",
}

__all__ = [
    "POINT_FUNCTIONS",
    "PROFILE_OF_SET",
    "SCALES",
    "SETS",
    "Experiment",
    "ExperimentRun",
    "PointSet",
    "compute",
    "finding_profile",
    "point_function",
    "point_set",
]

if TYPE_CHECKING:
    from .computing import ExperimentRun, compute
    from .experiment import Experiment, PointSet
    from .point_functions import POINT_FUNCTIONS, point_function
    from .sets import PROFILE_OF_SET, SCALES, SETS, finding_profile, point_set


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where == "computing":
        from . import computing

        value = getattr(computing, name)
    elif where == "experiment":
        from . import experiment

        value = getattr(experiment, name)
    elif where == "point_functions":
        from . import point_functions

        value = getattr(point_functions, name)
    elif where == "sets":
        from . import sets

        value = getattr(sets, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
