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

from repcap import RepcapError
from repcap.base.paths import notebooks_dir

from .paramyaml import compose_yaml, read_yaml, short, yaml_problem

PROFILES = ("smoke", "quick", "paper")
_LITERALS = (bool, int, float, str, list, dict, type(None))
#: Largest value a parameter may hold once resolved (JSON characters, list and dict items): a YAML
#: alias bomb (`a: &a [*b, *b, ...]`) is refused instead of expanded.
MAX_PARAM_CHARS = 1_000_000
MAX_PARAM_ITEMS = 100_000


def _json_value(name: str, value: Any, where: str) -> Any:
    """Refuse a value JSON cannot hold (a date, ``!!binary`` bytes, a set, NaN, a non-string
    key): a parameter travels to papermill and the caches as JSON."""
    todo = [(value, name)]
    while todo:
        v, at = todo.pop()
        if v is None or isinstance(v, (bool, int, str)):
            continue
        if isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                raise RepcapError(f"{where}: parameter {short(at, 80)} holds {v!r}, not a finite number")
            continue
        if isinstance(v, list):
            todo += [(x, f"{at}[{i}]") for i, x in enumerate(v)]
            continue
        if isinstance(v, dict):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise RepcapError(f"{where}: parameter {short(at, 80)} has a key {short(k, 60)} that is not text")
                todo.append((x, f"{at}.{k}"))
            continue
        raise RepcapError(
            f"{where}: parameter {short(at, 80)} holds a {type(v).__name__} ({short(v, 60)}); only numbers, "
            "text, true/false, null, lists and mappings are accepted"
        )
    return value


def read_notebook(path: Path):
    import jupytext

    try:
        return jupytext.read(path)
    except Exception as exc:  # jupytext raises many types on a malformed file
        raise RepcapError(f"{path}: cannot read this notebook source ({exc})") from exc


def notebook_parameters(path: str | os.PathLike) -> dict[str, Any]:
    """The defaults of the cell tagged ``parameters``: ``{name: literal}`` in source order."""
    return _parameter_cell(Path(path))[0]


def notebook_configs(path: str | os.PathLike) -> dict[str, str]:
    """The parameters of a chapter that are engine configs: ``{name: kind}`` for every
    ``name: "kind" = {...}`` line of its parameters cell, ``kind`` a key of
    :data:`repcap.engines.settings.CHAPTER_CONFIGS` (``train: "toy_train" = {}``)."""
    return _parameter_cell(Path(path))[1]


def _parameter_cell(path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    from repcap.engines.settings import CHAPTER_CONFIGS

    nb = read_notebook(path)
    cells = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise RepcapError(f"{path}: needs exactly one code cell tagged 'parameters' (found {len(cells)})")
    try:
        tree = ast.parse(cells[0].source)
    except SyntaxError as exc:
        raise RepcapError(f"{path}: the parameters cell is not valid Python: {exc}") from exc
    out: dict[str, Any] = {}
    kinds: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value = node.target, node.value
            ann = node.annotation
            if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
                if ann.value not in CHAPTER_CONFIGS:
                    raise RepcapError(
                        f"{path}: parameter {target.id!r} is annotated {ann.value!r}, no engine config; "
                        f"known: {', '.join(CHAPTER_CONFIGS)} (line {node.lineno})"
                    )
                kinds[target.id] = ann.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0], node.value
        else:
            raise RepcapError(f"{path}: the parameters cell may only hold `name = literal` lines (line {node.lineno})")
        try:
            out[target.id] = ast.literal_eval(value)
        except ValueError as exc:
            raise RepcapError(f"{path}: parameter {target.id!r} must be a literal (line {node.lineno})") from exc
        if target.id in kinds and not isinstance(out[target.id], dict):
            raise RepcapError(f"{path}: engine config {target.id!r} must be a mapping (line {node.lineno})")
    return out, kinds


def _type_name(v: Any) -> str:
    return "None" if v is None else type(v).__name__


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
        hint = ""
        if isinstance(value, str) and value.lower() in ("yes", "no", "on", "off", "y", "n"):
            hint = " (YAML 1.2 reads yes/no/on/off as text: write true or false)"
        elif isinstance(value, str) and re.fullmatch(r"[0-9]+(:[0-5]?[0-9])+", value):
            hint = " (YAML 1.2 reads 5:00 as text, not sexagesimal 300: write the number)"
        raise RepcapError(
            f"{where}: parameter {short(name, 80)} must be {_type_name(default)} "
            f"(like the default {short(default)}), got {_type_name(value)} {short(value)}{hint}"
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
    """``name=value`` -> ``(name, value)`` with ``value`` read as a YAML scalar/list (YAML 1.2
    core numbers and booleans, see :mod:`.paramyaml`)."""
    if "=" not in text:
        raise RepcapError(f"parameter {short(text, 80)} must look like name=value")
    name, raw = text.split("=", 1)
    name = name.strip()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,80}(\.[A-Za-z_][A-Za-z0-9_]{0,80})?", name):
        raise RepcapError(
            f"parameter name {short(name, 80)} is not a Python name (or config.setting, such as train.steps)"
        )
    try:
        value = read_yaml(raw) if raw.strip() else ""
    except RecursionError:
        raise RepcapError(f"parameter {name!r}: value {short(raw, 80)} is nested too deeply") from None
    except yaml.YAMLError as exc:
        raise RepcapError(f"parameter {name!r}: cannot read value {short(raw, 80)} ({yaml_problem(exc)})") from None
    return name, _json_value(name, _bounded(name, value), "command line")


def chapter_stems() -> list[str]:
    """The chapters a profile file may have sections for: the notebooks' file stems."""
    return sorted(p.stem for p in notebooks_dir().glob("[0-9][0-9]_*.py"))


def _profile_path(profile: str) -> Path:
    if profile == "reference":
        raise RepcapError(
            "'reference' is not a profile but a point set: its results are shipped in data/runs/reference and "
            "shown in the quick book; `repcap bundle compute reference` recomputes them"
        )
    if profile not in PROFILES:
        raise RepcapError(f"unknown profile {short(profile, 60)}; use one of {', '.join(PROFILES)}")
    path = notebooks_dir() / "params" / f"{profile}.yaml"
    if not path.exists():
        raise RepcapError(f"profile file {path} is missing")
    return path


def _read_profile(path: Path) -> tuple[dict, str]:
    try:
        text = path.read_text(encoding="utf-8")
        data = read_yaml(text) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise RepcapError(f"{where}: not valid YAML ({yaml_problem(exc)}); fix the profile file") from None
    except RecursionError:
        raise RepcapError(f"{path}: nested too deeply; fix the profile file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RepcapError(f"{path}: cannot read the profile file ({exc})") from None
    if not isinstance(data, dict):
        raise RepcapError(f"{path}: must map notebook names to parameter mappings")
    stems = chapter_stems()
    for name in data:
        if stems and name not in stems:
            import difflib

            near = difflib.get_close_matches(str(name), stems, n=1, cutoff=0.5)
            hint = f"; did you mean {near[0]}?" if near else f"; chapters: {', '.join(stems)}"
            raise RepcapError(f"{path}: section {short(name, 80)} names no chapter{hint}")
    return data, text


def load_profile(profile: str, stem: str) -> dict[str, Any]:
    path = _profile_path(profile)
    data, _ = _read_profile(path)
    section = data.get(stem) or {}
    if not isinstance(section, dict):
        raise RepcapError(f"{path}: section {stem!r} must be a mapping of parameters")
    for name, value in section.items():
        _json_value(str(name), value, f"{path} [{stem}]")
    return section


def _comments(text: str, stem: str) -> dict[str, tuple[int, str]]:
    """``{parameter: (line, comment)}`` of one section of a profile file: the comment on the
    parameter's line, else the comment lines just above it; a comment that opens with names
    (``# steps, lr: the engine's defaults are Guha's``) is about those parameters, set or not."""
    try:
        root = compose_yaml(text)
    except yaml.YAMLError:
        return {}
    lines = text.splitlines()
    out: dict[str, tuple[int, str]] = {}
    named = re.compile(r"^#\s*([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*:\s*(.+)$")
    for k, v in getattr(root, "value", []) or []:
        if getattr(k, "value", None) != stem or not isinstance(v, yaml.MappingNode):
            continue
        for j in range(k.start_mark.line + 1, v.end_mark.line + 1):
            m = named.match(lines[j].strip()) if j < len(lines) else None
            if m:
                for n in re.split(r"\s*,\s*", m.group(1)):
                    out.setdefault(n, (j + 1, m.group(2).strip()))
        for pk, _ in v.value:
            ln = pk.start_mark.line
            same = lines[ln].split(" #", 1)[1].strip() if " #" in lines[ln] else ""
            above: list[str] = []
            j = ln - 1
            while j >= 0 and lines[j].strip().startswith("#") and lines[j].startswith(" "):
                if named.match(lines[j].strip()):
                    break
                above.insert(0, lines[j].strip().lstrip("#").strip())
                j -= 1
            note = same or " ".join(above)
            if note or str(pk.value) not in out:
                out[str(pk.value)] = (ln + 1, note)
    return out


def explain_parameters(path: Path, profile: str, overrides: dict[str, Any] | None = None) -> list[tuple]:
    """What a chapter runs under ``profile``: ``(name, value, source, comment)`` per parameter,
    where ``source`` is the notebook's default, the profile file's line or the command line, and
    ``comment`` the profile file's comment on that parameter (what ``repcap run --list-params``
    prints)."""
    resolved = resolve_parameters(path, profile, overrides or {})
    ppath = _profile_path(profile)
    section = load_profile(profile, path.stem)
    notes = _comments(ppath.read_text(encoding="utf-8"), path.stem)
    rows = []
    yml = f"notebooks/params/{profile}.yaml"
    from .configs import config_rows

    kinds = notebook_configs(path)
    for name, value in resolved.items():
        line, note = notes.get(name, (0, ""))
        if name in kinds:  # one row per setting: its type, default and help from the settings class
            raw = section.get(name)
            given = raw if isinstance(raw, dict) else {}
            for key, tname, default, help_ in config_rows(kinds[name]):
                dotted = f"{name}.{key}"
                if overrides and (dotted in overrides or key in (overrides.get(name) or {})):
                    src = "command line"
                elif key in given:
                    src = f"{yml}:{line}" if line else yml
                elif key in (notebook_parameters(path).get(name) or {}):
                    src = f"notebooks/{path.name} (default)"
                else:
                    src = f"{kinds[name]} default"
                rows.append((dotted, value[key], src, f"{tname}, default {default!r}: {help_}"))
            continue
        if overrides and name in overrides:
            src, note = "command line", ""
        elif name in section:
            src = f"{yml}:{line}" if line else yml
        else:
            src = f"notebooks/{path.name} (default" + (", null: the chapter's own rule)" if value is None else ")")
            if note:
                note = f"{yml}:{line}: {note}"
        rows.append((name, value, src, note))
    return rows


def resolve_parameters(path: Path, profile: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """Defaults <- profile file <- overrides, each name and type checked against the defaults.

    An engine config (a mapping annotated with its kind, ``train: "toy_train" = {}``) is merged key
    by key, from a mapping (``train: {steps: 1500}``) or one dotted name (``-p train.steps=3000``),
    and resolved against its settings class (:func:`.configs.resolve_config`): the result holds
    every setting, the defaults filled in."""
    from .configs import resolve_config

    defaults, kinds = _parameter_cell(path)
    valid = ", ".join(f"{k} ({'mapping of ' + kinds[k] if k in kinds else _type_name(v)})" for k, v in defaults.items())
    resolved = dict(defaults)
    config_layers: dict[str, list[tuple[str, dict[str, Any]]]] = {
        k: [(f"notebooks/{path.name}", dict(defaults[k]))] for k in kinds
    }
    for where, layer in (
        (f"notebooks/params/{profile}.yaml [{path.stem}]", load_profile(profile, path.stem)),
        ("command line", overrides),
    ):
        for name, value in layer.items():
            head, _, key = str(name).partition(".")
            if head in kinds:
                if key:
                    config_layers[head].append((where, {key: value}))
                elif isinstance(value, dict):
                    config_layers[head].append((where, value))
                else:
                    raise RepcapError(
                        f"{where}: parameter {head} is the engine config {kinds[head]}: give a mapping, or one "
                        f"setting as {head}.<setting> (such as {head}.steps=3000); `repcap run --list-params` lists them"
                    )
                continue
            if name not in defaults or key:
                import difflib

                near = difflib.get_close_matches(str(name), list(defaults), n=1, cutoff=0.6)
                hint = f"did you mean {near[0]}? " if near else ""
                raise RepcapError(
                    f"{where}: unknown parameter {short(name, 80)} for {path.name}; {hint}valid parameters: "
                    f"{valid[:600]}"
                )
            resolved[name] = _unique(name, _coerce(name, _bounded(name, value), defaults[name], where), where)
    for name, kind in kinds.items():
        resolved[name] = resolve_config(name, kind, config_layers[name])
    return resolved


def _unique(name: str, value: Any, where: str) -> Any:
    """A list parameter whose every value is new: a value written twice (``[3, 3]``, or a YAML
    alias ``[&d 3, *d]``) would run twice, or break a cell that expects distinct values."""
    if not isinstance(value, list):
        return value
    seen: set[str] = set()
    for v in value:
        k = json.dumps(v, sort_keys=True, default=str)
        if k in seen:
            raise RepcapError(
                f"{where}: parameter {short(name, 80)} lists {short(v, 60)} more than once ({short(value, 120)}); "
                "each value runs once - remove the repeat"
            )
        seen.add(k)
    return value
