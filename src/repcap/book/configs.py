"""A chapter's engine configs: the mappings of its parameters cell annotated with an engine
config (``train: "toy_train" = {}``), each resolved against its settings class
(:data:`repcap.engines.settings.CHAPTER_CONFIGS`) before the kernel starts.

The settings class stays the only place a setting is written: its type, default, help and checks
are read from the dataclass.  A resolved config holds every setting of the mapping, the defaults
filled in, as JSON values (a tuple is a list), so the run's recorded parameters and every figure's
sidecar say what ran.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import typing
from typing import Any

from repcap import RepcapError

from .paramyaml import short


def _spec(kind: str):
    from repcap.engines.settings import CHAPTER_CONFIGS

    return CHAPTER_CONFIGS[kind]


def settings_fields(kind: str) -> list[dataclasses.Field]:
    """The fields of ``kind``'s settings class that its chapter mapping holds, in class order."""
    spec = _spec(kind)
    return [f for f in dataclasses.fields(spec.settings_class()) if f.name not in spec.grid]


def _hint(kind: str, name: str) -> Any:
    return typing.get_type_hints(_spec(kind).settings_class())[name]


def _optional(tp: Any) -> tuple[Any, bool]:
    args = typing.get_args(tp)
    if type(None) in args and typing.get_origin(tp) is not tuple:
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else tp), True
    return tp, False


def type_name(kind: str, name: str) -> str:
    """A setting's type as a message says it: ``int``, ``float or null``, ``list of 2 float``."""
    tp, optional = _optional(_hint(kind, name))
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        text = f"list of {len(args)} {args[0].__name__}" if args and args[-1] is not Ellipsis else "list"
    else:
        text = getattr(tp, "__name__", str(tp))
    return f"{text} or null" if optional else text


def default_value(f: dataclasses.Field) -> Any:
    factory = f.default_factory
    v = f.default if f.default is not dataclasses.MISSING or not callable(factory) else factory()
    return _as_json(v)


def _as_json(v: Any) -> Any:
    return [_as_json(x) for x in v] if isinstance(v, (tuple, list)) else v


def _real(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v))


def _coerce(kind: str, name: str, value: Any) -> Any:
    """``value`` of the setting ``name`` as its type, or None when it is not of that type."""
    tp, optional = _optional(_hint(kind, name))
    if value is None:
        return None if optional else _BAD
    if tp is bool:
        return value if isinstance(value, bool) else _BAD
    if tp is int:
        return int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else _BAD
    if tp is float:
        return float(value) if _real(value) else _BAD
    if tp is str:
        return value if isinstance(value, str) else _BAD
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        if not isinstance(value, (list, tuple)) or (args and args[-1] is not Ellipsis and len(value) != len(args)):
            return _BAD
        if args and args[0] is float:
            return [float(x) for x in value] if all(_real(x) for x in value) else _BAD
        return list(value)
    return value


_BAD = object()


def resolve_config(param: str, kind: str, layers: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The config ``param`` of kind ``kind``: the settings class's defaults <- each ``(where,
    mapping)`` layer in turn, every key and type checked, then the class's own checks; one
    :class:`RepcapError` line naming ``param.setting`` and its type on bad input."""
    spec = _spec(kind)
    fields = settings_fields(kind)
    names = [f.name for f in fields]
    out = {f.name: default_value(f) for f in fields}
    for where, layer in layers:
        for key, value in layer.items():
            if key not in out:
                import difflib

                near = difflib.get_close_matches(str(key), names, n=1, cutoff=0.6)
                hint = f"did you mean {param}.{near[0]}? " if near else ""
                why = (
                    f"{key} is set per point by the chapter's grid, or says where a point runs"
                    if key in spec.grid
                    else f"unknown setting {short(key, 60)} of {spec.cls}"
                )
                raise RepcapError(
                    f"{where}: {param}: {why}; {hint}valid settings: "
                    + ", ".join(f"{n} ({type_name(kind, n)})" for n in names)
                )
            v = _coerce(kind, key, value)
            if v is _BAD:
                raise RepcapError(
                    f"{where}: setting {param}.{key} must be {type_name(kind, key)} (like the default "
                    f"{short(default_value(fields[names.index(key)]))}), "
                    f"got {type(value).__name__} {short(value)}"
                )
            out[key] = v
    try:
        spec.settings_class()(
            **dict(spec.probe), **out
        )  # the class's checks, across fields too (warm-up within the steps)
    except RepcapError as exc:
        raise RepcapError(f"{layers[-1][0] if layers else 'defaults'}: {param}: {exc}") from None
    except TypeError as exc:  # a settings class that needs a field the mapping leaves out
        raise RepcapError(f"{param}: {exc}") from None
    return out


def config_rows(kind: str) -> list[tuple[str, str, Any, str]]:
    """``(setting, type, default, help)`` of every setting a ``kind`` mapping holds (``--list-params``)."""
    return [
        (f.name, type_name(kind, f.name), default_value(f), str(f.metadata.get("help", "")))
        for f in settings_fields(kind)
    ]
