"""The YAML of a chapter's profile files and ``-p`` values: the YAML 1.2 core schema (numbers and
booleans as people write them), a key written twice refused with its line, and messages cut to one
line whatever the value."""

from __future__ import annotations

import re
from typing import Any

import yaml

#: What a message shows of any value or name from a file or the command line, at most.
MAX_ECHO = 200


class ParamYAMLError(yaml.YAMLError):
    """A YAML value refused while it is read (one line, with its line in the file)."""

    def __init__(self, problem: str, mark: Any = None) -> None:
        super().__init__(problem)
        self.problem, self.problem_mark = problem, mark


class _Loader(yaml.SafeLoader):
    """YAML as people write numbers, the YAML 1.2 core schema instead of PyYAML's YAML 1.1:

    - booleans are only ``true``/``false`` (``yes``, ``no``, ``on``, ``off`` stay text, and a
      boolean parameter refuses them);
    - integers are decimal, ``0x...`` or ``0o...``; a leading zero (``0300``, octal 192 in YAML 1.1)
      is refused with "did you mean 300?";
    - ``5:00`` (sexagesimal 300 in YAML 1.1) and dates stay text;
    - ``1e-3`` (no dot) is a float, as in YAML 1.2 and Python;
    - a key written twice in one mapping is refused with its line.
    """


_Loader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in rs if tag.rsplit(":", 1)[-1] not in ("bool", "int", "float", "timestamp")]
    for ch, rs in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)


def _construct_int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    if text.startswith(("0x", "0o")):
        return int(text[2:], 16 if text[1] == "x" else 8)
    digits = text.lstrip("+-")
    if len(digits) > 1 and digits.startswith("0"):
        sign = "-" if text.startswith("-") else ""
        raise ParamYAMLError(
            f"{text[:40]}: a leading zero is octal in YAML 1.1 and decimal elsewhere; did you mean "
            f"{sign}{digits.lstrip('0') or '0'}?",
            node.start_mark,
        )
    return int(text)


def _construct_float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    text = str(loader.construct_scalar(node)).lower()  # type: ignore[arg-type]
    if text.lstrip("+-") == ".inf":
        return float("-inf") if text.startswith("-") else float("inf")
    if text == ".nan":
        return float("nan")
    return float(text)


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.Node) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in getattr(node, "value", []):
        key = loader.construct_object(key_node)
        try:
            hash(key)
        except TypeError:
            raise ParamYAMLError("a mapping key must be a plain name", key_node.start_mark) from None
        if key in seen:
            raise ParamYAMLError(
                f"{short(key, 60)} is written twice in one mapping (lines {seen[key] + 1} and "
                f"{key_node.start_mark.line + 1}); keep one",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line
    loader.flatten_mapping(node)  # type: ignore[arg-type]
    return dict(loader.construct_pairs(node))


_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
_Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)


def read_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)  # a SafeLoader subclass: no Python objects


def short(v: Any, limit: int = 120) -> str:
    """``repr(v)``, cut to ``limit`` characters (a message is one line, whatever the value)."""
    r = repr(v)
    return r if len(r) <= limit else f"{r[: limit - 20]} ... ({len(r):,} characters)"


def yaml_problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return " ".join(str(problem).split())[:MAX_ECHO]


def compose_yaml(text: str) -> Any:
    """The YAML node tree of ``text``, read as :func:`read_yaml` reads it (for its comments' lines)."""
    return yaml.compose(text, Loader=_Loader)
