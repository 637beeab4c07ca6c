"""The point functions a results bundle may name: every function registered with
:func:`repcap.sweep.registry.point_function`, by its stable name.

Importing this module imports every engine module that registers one (plain imports: the registry
is filled by the engines themselves, not by a table of module paths), so that a name read from a
bundle resolves without importing anything the bundle chose.
"""

from __future__ import annotations

from collections.abc import Callable

from repcap.engines import survey as _survey
from repcap.engines.layers import points as _layer_points
from repcap.engines.packing import points as _packing_points
from repcap.engines.packing import signed as _signed
from repcap.engines.toy import overlaps as _overlaps
from repcap.engines.toy import points as _toy_points
from repcap.sweep import registry

#: The modules that register point functions (imported above for that).
ENGINE_MODULES = (_survey, _layer_points, _packing_points, _signed, _overlaps, _toy_points)

#: The registered point functions by stable name (``"toy.train"``): what a bundle may name.
POINT_FUNCTIONS: dict[str, Callable] = {pf.name: pf.fn for pf in registry.all_registered()}


def point_function(name: str) -> Callable:
    """The point function registered as ``name``; one clear line for anything else."""
    return registry.get(name).fn
