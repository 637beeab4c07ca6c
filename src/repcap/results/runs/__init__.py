"""Named point sets: what a profile computes outside the notebooks, as data and code in one place.
A point set is a list of :class:`Experiment` s, each one call of :func:`repcap.sweep.run`;
``repcap bundle compute SET`` runs a set and :mod:`repcap.results.bundle` ships its points.

Modules: :mod:`.experiment` (what a set is made of), :mod:`.points` (the sources' grids), :mod:`.cost`
(how long points take), :mod:`.names` (the sets' names and scales), :mod:`.sets` (the named sets), :mod:`.computing` (running a set) and
:mod:`.point_functions` (what a bundle may name).  The face loads them on first use (:mod:`._lazy`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import __dir__ as __dir__
from ._lazy import __getattr__ as __getattr__

__all__ = ["POINT_FUNCTIONS", "PROFILE_OF_SET", "SCALES", "SETS", "Experiment", "ExperimentRun", "PointSet"]
__all__ += ["compute", "finding_profile", "point_function", "point_set"]

if TYPE_CHECKING:
    from .computing import ExperimentRun, compute
    from .experiment import Experiment, PointSet
    from .names import PROFILE_OF_SET, SCALES, SETS, finding_profile
    from .point_functions import POINT_FUNCTIONS, point_function
    from .sets import point_set
