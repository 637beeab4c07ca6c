"""The lazy face of :mod:`repcap.results.runs`: each name of the face and the module that defines
it, loaded when the name is first used (PEP 562), so that ``repcap bundle --help`` reads
:data:`SETS` and :data:`SCALES` without loading the engines that :mod:`.point_functions` and
:mod:`.computing` import.  The modules are imported by name (a structure checker reads them)."""

from __future__ import annotations

import sys
from typing import Any

WHERE = {
    "ExperimentRun": "computing",
    "compute": "computing",
    "Experiment": "experiment",
    "PointSet": "experiment",
    "POINT_FUNCTIONS": "point_functions",
    "point_function": "point_functions",
    "PROFILE_OF_SET": "names",
    "SCALES": "names",
    "SETS": "names",
    "finding_profile": "names",
    "point_set": "sets",
}


def __getattr__(name: str) -> Any:
    where = WHERE.get(name)
    if where == "computing":
        from . import computing

        value = getattr(computing, name)
    elif where == "experiment":
        from . import experiment

        value = getattr(experiment, name)
    elif where == "point_functions":
        from . import point_functions

        value = getattr(point_functions, name)
    elif where == "names":
        from . import names

        value = getattr(names, name)
    elif where == "sets":
        from . import sets

        value = getattr(sets, name)
    else:
        raise AttributeError(f"module {__package__!r} has no attribute {name!r}")
    setattr(sys.modules[__package__], name, value)
    return value


def __dir__() -> list[str]:
    return sorted([*vars(sys.modules[__package__]), *WHERE])
