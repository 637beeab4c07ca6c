"""Config dataclasses as the single source of every engine setting's default, type, help and check.

An engine declares its settings once, as a dataclass whose fields are made with :func:`setting`::

    @dataclass(frozen=True)
    class PackConfig:
        k: int = setting(2, "number of vectors", check=at_least(2))
        loss: str = setting("power", "packing loss", choices=("power", "exp", "abs-relu"))

and everything else derives from it: :func:`add_arguments` makes the command-line flags
(``--k``, ``--loss`` with the same default, type, help and choices), :func:`from_args` builds the
config from parsed flags, :func:`check` runs every field's check (one clear line on bad input, never
a traceback), and :func:`defaults` / ``dataclasses.asdict`` give the values a sweep point is keyed
on.  (The pattern of SAELens and ``simple_parsing``: the CLI is derived from the config, never
written beside it.)
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import numbers
import typing
from collections.abc import Callable, Sequence
from typing import Any

from repcap import RepcapError

Check = Callable[[str, Any], None]
_MISSING = dataclasses.MISSING


def setting(
    default: Any = _MISSING,
    help: str = "",
    *,
    choices: Sequence[Any] | None = None,
    check: Check | Sequence[Check] | None = None,
    cli: bool = True,
    metavar: str | None = None,
    default_factory: Callable[[], Any] | None = None,
) -> Any:
    """A dataclass field with its help text, allowed choices, checks and whether it is a CLI flag."""
    checks = tuple(check) if isinstance(check, (list, tuple)) else ((check,) if check else ())
    meta = {
        "help": help,
        "choices": tuple(choices) if choices else None,
        "checks": checks,
        "cli": cli,
        "metavar": metavar,
    }
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


# --------------------------------------------------------------------------------------------- checks


def _num(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        raise RepcapError(f"{name}={v!r} must be a finite number")
    return float(v)


def integer(name: str, v: Any) -> None:
    if isinstance(v, bool) or not isinstance(v, int):
        raise RepcapError(f"{name}={v!r} must be an integer")


def at_least(lo: float, *, integer_only: bool = False) -> Check:
    def chk(name: str, v: Any) -> None:
        if v is None:
            return
        if integer_only:
            integer(name, v)
        if _num(name, v) < lo:
            raise RepcapError(f"{name}={v!r} must be >= {lo:g}")

    return chk


def between(lo: float, hi: float, *, integer_only: bool = False, open_lo: bool = False) -> Check:
    def chk(name: str, v: Any) -> None:
        if v is None:
            return
        if integer_only:
            integer(name, v)
        x = _num(name, v)
        if x < lo or x > hi or (open_lo and x == lo):
            raise RepcapError(f"{name}={v!r} must lie in {'(' if open_lo else '['}{lo:g}, {hi:g}]")

    return chk


def positive(name: str, v: Any) -> None:
    if v is not None and _num(name, v) <= 0:
        raise RepcapError(f"{name}={v!r} must be > 0")


def finite(name: str, v: Any) -> None:
    if v is not None:
        _num(name, v)


# ----------------------------------------------------------------------------- the shared checks
#: The four checks every engine needs (a seed, a count, a rate, a probability), written once here.

#: The seeds a torch generator takes (``manual_seed``: a signed 64-bit integer): 0 .. 2**63 - 1.
MAX_SEED = 2**63 - 1


def _is_integer(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def seed(name: str, v: Any) -> None:
    """A generator seed: an integer in 0 .. 2**63 - 1 (numpy integers too)."""
    if not _is_integer(v) or not 0 <= int(v) <= MAX_SEED:
        raise RepcapError(f"{name}={v!r} must be an integer in 0..2**63-1")


def count(lo: int = 1) -> Check:
    """An integer >= ``lo`` (numpy integers too); None passes (an optional count)."""

    def chk(name: str, v: Any) -> None:
        if v is not None and (not _is_integer(v) or int(v) < lo):
            raise RepcapError(f"{name}={v!r} must be an integer >= {lo}")

    return chk


def rate(name: str, v: Any) -> None:
    """A rate (learning rate, exponent): a finite number > 0; None passes (decided elsewhere)."""
    if v is None:
        return
    if not isinstance(v, numbers.Real) or isinstance(v, bool) or not (math.isfinite(float(v)) and float(v) > 0):
        raise RepcapError(f"{name}={v!r} must be a finite number > 0")


def probability(name: str, v: Any) -> None:
    """A probability or fraction: a number in [0, 1]; None passes."""
    if v is None:
        return
    if not isinstance(v, numbers.Real) or isinstance(v, bool) or not 0.0 <= float(v) <= 1.0:
        raise RepcapError(f"{name}={v!r} must be a number in [0, 1]")


def each(inner: Check) -> Check:
    """``inner`` applied to every element of a sequence (``name[i]`` in the message)."""

    def chk(name: str, v: Any) -> None:
        if v is None:
            return
        if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
            raise RepcapError(f"{name}={v!r} must be a list of values")
        for i, x in enumerate(v):
            inner(f"{name}[{i}]", x)

    return chk


# --------------------------------------------------------------------------------------------- use


def fields(cls: type) -> list[dataclasses.Field]:
    return list(dataclasses.fields(cls))


def defaults(cls: type) -> dict[str, Any]:
    """``{name: default}`` of every field that has one."""
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not _MISSING:
            out[f.name] = f.default
        elif f.default_factory is not _MISSING:
            out[f.name] = f.default_factory()
    return out


def check(cfg: Any) -> Any:
    """Run every field's checks and choices; return ``cfg``.  Call it from ``__post_init__``."""
    for f in dataclasses.fields(cfg):
        v = getattr(cfg, f.name)
        ch = f.metadata.get("choices")
        if ch and v is not None and v not in ch:
            raise RepcapError(f"{f.name}={v!r}: use one of {', '.join(map(str, ch))}")
        for c in f.metadata.get("checks", ()):
            c(f.name, v)
    return cfg


def _base_type(tp: Any) -> Any:
    """``int`` for ``int | None``, the element type for ``tuple[float, ...]``, etc."""
    origin = typing.get_origin(tp)
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)) and len(args) == 1:
        return _base_type(args[0])
    return tp


def _parse_number(kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return kind(text) if kind is not int else int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None

    parse.__name__ = kind.__name__
    return parse


def add_arguments(
    parser: argparse.ArgumentParser, cls: type, *, required: Sequence[str] = (), exclude: Sequence[str] = ()
) -> None:
    """One ``--flag`` per CLI field of ``cls``: the field's default, type, help and choices."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.metadata.get("cli", True) or f.name in exclude:
            continue
        flag = "--" + f.name.replace("_", "-")
        tp = _base_type(hints[f.name])
        default = defaults(cls).get(f.name)
        help_ = f.metadata.get("help", "")
        kw: dict[str, Any] = {"dest": f.name, "help": help_ + ("" if f.name in required else f" (default: {default})")}
        if f.metadata.get("choices"):
            kw["choices"] = list(f.metadata["choices"])
        if f.metadata.get("metavar"):
            kw["metavar"] = f.metadata["metavar"]
        if tp is bool:
            kw["action"] = argparse.BooleanOptionalAction
        elif typing.get_origin(tp) in (tuple, list):
            (elem, *_rest) = typing.get_args(tp) or (float,)
            kw.update(nargs="+", type=_parse_number(elem) if elem in (int, float) else elem)
        elif tp in (int, float):
            kw["type"] = _parse_number(tp)
        if f.name in required:
            kw["required"] = True
        else:
            kw["default"] = default
        parser.add_argument(flag, **kw)


def from_args(cls: type, args: argparse.Namespace, **extra: Any) -> Any:
    """The config from parsed flags (fields missing from ``args`` keep their defaults)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if hasattr(args, f.name)}
    for k, v in list(values.items()):
        if isinstance(v, list):
            values[k] = tuple(v)
    values.update(extra)
    return cls(**values)


def replace(cfg: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` with an unknown name refused in one line."""
    names = {f.name for f in dataclasses.fields(cfg)}
    bad = sorted(set(changes) - names)
    if bad:
        raise RepcapError(f"unknown {type(cfg).__name__} settings {bad}; known: {sorted(names)}")
    return dataclasses.replace(cfg, **changes)


def from_mapping(cls: type, values: dict[str, Any], what: str | None = None) -> Any:
    """``cls(**values)``, refusing unknown keys in one line (a sweep config, a profile section)."""
    names = {f.name for f in dataclasses.fields(cls)}
    bad = sorted(set(values) - names)
    if bad:
        raise RepcapError(f"unknown {what or cls.__name__} keys {bad}; known: {sorted(names)}")
    return cls(**values)


def given(**values: Any) -> dict[str, Any]:
    """The keyword arguments whose value is not None: a chapter parameter left at ``None`` means
    "the engine's default", which is then defined once, in the engine's dataclass."""
    return {k: v for k, v in values.items() if v is not None}
