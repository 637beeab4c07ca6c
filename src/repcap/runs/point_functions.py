"""The point functions a results bundle may name, and importing one by its name."""

from __future__ import annotations

from collections.abc import Callable

from .. import RepcapError

#: The point functions a bundle may name (``module:qualname``); nothing else is ever imported.
POINT_FUNCTIONS: dict[str, str] = {
    "repcap.packing.points:sweep_packed": "repcap.packing.points",
    "repcap.packing.annealed:sweep_annealed": "repcap.packing.annealed",
    "repcap.packing.points:sweep_random": "repcap.packing.points",
    "repcap.packing.points:sweep_projection": "repcap.packing.points",
    "repcap.toy.points:train_points": "repcap.toy.points",
    "repcap.toy.overlaps:overlap_points": "repcap.toy.overlaps",
    "repcap.survey:describe_point": "repcap.survey",
}


def point_function(name: str) -> Callable:
    """The point function called ``name`` (one of :data:`POINT_FUNCTIONS`), imported on demand."""
    import importlib

    from ..sweep import fn_name

    if not isinstance(name, str) or name not in POINT_FUNCTIONS:
        raise RepcapError(
            f"point function {str(name)[:80]!r} is not one of repcap's sweep point functions "
            f"({', '.join(POINT_FUNCTIONS)})"
        )
    fn = getattr(importlib.import_module(POINT_FUNCTIONS[name]), name.split(":", 1)[1])
    if fn_name(fn) != name:  # pragma: no cover - the table above is out of date
        raise RepcapError(f"point function {name} now lives at {fn_name(fn)}; update repcap.runs.POINT_FUNCTIONS")
    return fn
