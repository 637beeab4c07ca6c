"""A chapter's parameters: the literal defaults of its ``parameters`` cell, layered with a profile
file (``notebooks/params/<profile>.yaml``) and command-line overrides, each name and type checked
*before* anything runs (papermill itself only warns about an unknown name).
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path
from typing import Any

import yaml

from . import RepcapError
from .paths import notebooks_dir

PROFILES = ("smoke", "quick", "paper")
_LITERALS = (bool, int, float, str, list, dict, type(None))
#: Largest value a parameter may hold once resolved (JSON characters, list and dict items): a YAML
#: alias bomb (`a: &a [*b, *b, ...]`) is refused instead of expanded.
MAX_PARAM_CHARS = 1_000_000
MAX_PARAM_ITEMS = 100_000


class _Loader(yaml.SafeLoader):
    """YAML as people write numbers: PyYAML follows YAML 1.1, which reads ``1e-3`` (no dot) as a
    string; here it is a float, as in YAML 1.2 and Python."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def _yaml(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)  # a SafeLoader subclass: no Python objects


def read_notebook(path: Path):
    import jupytext

    try:
        return jupytext.read(path)
    except Exception as exc:  # jupytext raises many types on a malformed file
        raise RepcapError(f"{path}: cannot read this notebook source ({exc})") from exc


def notebook_parameters(path: str | os.PathLike) -> dict[str, Any]:
    """The defaults of the cell tagged ``parameters``: ``{name: literal}`` in source order."""
    path = Path(path)
    nb = read_notebook(path)
    cells = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise RepcapError(f"{path}: needs exactly one code cell tagged 'parameters' (found {len(cells)})")
    try:
        tree = ast.parse(cells[0].source)
    except SyntaxError as exc:
        raise RepcapError(f"{path}: the parameters cell is not valid Python: {exc}") from exc
    out: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0], node.value
        else:
            raise RepcapError(f"{path}: the parameters cell may only hold `name = literal` lines (line {node.lineno})")
        try:
            out[target.id] = ast.literal_eval(value)
        except ValueError as exc:
            raise RepcapError(f"{path}: parameter {target.id!r} must be a literal (line {node.lineno})") from exc
    return out


def _type_name(v: Any) -> str:
    return "None" if v is None else type(v).__name__


def _short(v: Any, limit: int = 120) -> str:
    """``repr(v)``, cut to ``limit`` characters (a message is one line, whatever the value)."""
    r = repr(v)
    return r if len(r) <= limit else f"{r[: limit - 20]} ... ({len(r):,} characters)"


def _coerce(name: str, value: Any, default: Any, where: str) -> Any:
    """Check ``value`` against the type of ``default``; ints are accepted where floats are, and
    ``None`` (YAML ``null``) anywhere: chapters use it for "off" or "use the sources' rule"."""
    if default is None or value is None:
        return value
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok:
            value = float(value)
    elif isinstance(default, list):
        ok = isinstance(value, list)
        if ok and default:
            proto = default[0]
            value = [_coerce(f"{name}[{i}]", v, proto, where) for i, v in enumerate(value)]
    else:
        ok = isinstance(value, type(default))
    if not ok:
        raise RepcapError(
            f"{where}: parameter {name!r} must be {_type_name(default)} "
            f"(like the default {_short(default)}), got {_type_name(value)} {_short(value)}"
        )
    return value


def _bounded(name: str, value: Any) -> Any:
    """``value`` if it is small enough to pass to a kernel, else a clear refusal (counts items
    without expanding shared references, so an alias bomb is caught before it is serialised)."""
    todo, items = [value], 0
    while todo:
        v = todo.pop()
        items += 1
        if items > MAX_PARAM_ITEMS:
            raise RepcapError(f"parameter {name!r} holds more than {MAX_PARAM_ITEMS:,} values; refused")
        if isinstance(v, dict):
            todo += list(v.keys()) + list(v.values())
        elif isinstance(v, (list, tuple)):
            todo += list(v)
    if len(json.dumps(value, default=str)) > MAX_PARAM_CHARS:
        raise RepcapError(f"parameter {name!r} is larger than {MAX_PARAM_CHARS:,} characters; refused")
    return value


def parse_override(text: str) -> tuple[str, Any]:
    """``name=value`` -> ``(name, value)`` with ``value`` read as a YAML scalar/list."""
    if "=" not in text:
        raise RepcapError(f"parameter {text!r} must look like name=value")
    name, raw = text.split("=", 1)
    name = name.strip()
    try:
        value = _yaml(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        raise RepcapError(
            f"parameter {name!r}: cannot read value {raw[:80]!r} ({' '.join(str(exc).split())})"
        ) from None
    return name, _bounded(name, value)


def load_profile(profile: str, stem: str) -> dict[str, Any]:
    if profile not in PROFILES:
        raise RepcapError(f"unknown profile {profile!r}; use one of {', '.join(PROFILES)}")
    path = notebooks_dir() / "params" / f"{profile}.yaml"
    if not path.exists():
        raise RepcapError(f"profile file {path} is missing")
    try:
        data = _yaml(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise RepcapError(f"{where}: not valid YAML ({problem}); fix the profile file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RepcapError(f"{path}: cannot read the profile file ({exc})") from None
    if not isinstance(data, dict):
        raise RepcapError(f"{path}: must map notebook names to parameter mappings")
    section = data.get(stem) or {}
    if not isinstance(section, dict):
        raise RepcapError(f"{path}: section {stem!r} must be a mapping of parameters")
    return section


def resolve_parameters(path: Path, profile: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """Defaults <- profile file <- overrides, each name and type checked against the defaults."""
    defaults = notebook_parameters(path)
    valid = ", ".join(f"{k} ({_type_name(v)})" for k, v in defaults.items())
    resolved = dict(defaults)
    for where, layer in (
        (f"notebooks/params/{profile}.yaml [{path.stem}]", load_profile(profile, path.stem)),
        ("command line", overrides),
    ):
        for name, value in layer.items():
            if name not in defaults:
                raise RepcapError(f"{where}: unknown parameter {name!r} for {path.name}; valid parameters: {valid}")
            resolved[name] = _coerce(name, _bounded(name, value), defaults[name], where)
    return resolved
