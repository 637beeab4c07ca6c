"""Checked reading of the files of ``data/reference``: a YAML loader that refuses a key written twice,
typed access to a row's fields (every error one line naming the file, the row and the field), and
CSV files with ``#`` comment lines.  :mod:`repcap.base.quotes` reads the sources' numbers with them,
:mod:`repcap.evidence.claims` the scorecard's rows."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from repcap import RepcapError


def number(x: Any, what: str, *, blank: bool = False, infinite: bool = True) -> float | None:
    """``x`` as a float: None where it is None or NaN (and, with ``blank``, an empty string; without
    ``infinite``, an infinity); anything else that is not a number is one line,
    ``"{what} {x!r} is not a number"``."""
    if x is None or (blank and isinstance(x, str) and not x.strip()):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise RepcapError(f"{what} {x!r} is not a number") from exc
    return None if math.isnan(v) or (not infinite and math.isinf(v)) else v


def _num(x: Any) -> float | None:
    return number(x, "data/reference:", blank=True)


def _short(x: Any, n: int = 80) -> str:
    """A value as a message shows it: its repr, cut to about ``n`` characters."""
    r = repr(x)
    return r if len(r) <= n else r[: n - 1] + "…"


class _UniqueKeyLoader:
    """A YAML safe loader that refuses a key written twice in one mapping (naming its line)."""

    @staticmethod
    def make() -> Any:
        import yaml

        class Loader(yaml.SafeLoader):
            pass

        def construct_mapping(loader: Any, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = loader.construct_object(key_node, deep=deep)
                if isinstance(key, (str, int, float, bool)) and key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {_short(key)} is written twice", key_node.start_mark
                    )
                seen.add(key)
            return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

        Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
        return Loader


class _Fields:
    """Typed access to one row of a data file: every read names the file, the row and the field."""

    def __init__(self, where: str, row: Any, known: tuple[str, ...]) -> None:
        self.where = where
        if not isinstance(row, dict):
            raise RepcapError(f"{where}: is {_short(row)}, not a mapping of fields")
        self.row = row
        for k in row:
            if k not in known:
                import difflib

                near = difflib.get_close_matches(str(k), known, n=1)
                hint = f" (did you mean {near[0]!r}?)" if near else f"; known fields: {', '.join(known)}"
                raise RepcapError(f"{where}: unknown field {_short(k)}{hint}")

    def fail(self, msg: str) -> RepcapError:
        return RepcapError(f"{self.where}: {msg}")

    def text(self, key: str, *, required: bool = False, default: str = "") -> str:
        v = self.row.get(key)
        if v is None or (isinstance(v, str) and not v.strip()):
            if required:
                raise self.fail(f"needs {key} (a text)")
            return default
        if not isinstance(v, str):
            raise self.fail(f"{key} {_short(v)} is not a text")
        return v

    def number(self, key: str, *, required: bool = False, low: float | None = None) -> float | None:
        v = self.row.get(key)
        if v is None:
            if required:
                raise self.fail(f"needs {key} (a number)")
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise self.fail(f"{key} {_short(v)} is not a number")
        try:
            x = float(v)
        except ValueError:
            raise self.fail(f"{key} {_short(v)} is not a number") from None
        if not math.isfinite(x):
            raise self.fail(f"{key} {_short(v)} is not a finite number")
        if low is not None and x < low:
            raise self.fail(f"{key} {x:g} must be at least {low:g}")
        return x

    def choice(self, key: str, allowed: tuple[Any, ...], *, required: bool = False) -> Any:
        v = self.row.get(key)
        if v is None and not required:
            return None
        if v not in allowed:
            names = ", ".join(str(a) for a in allowed if a is not None)
            raise self.fail(f"{key} {_short(v)} is not one of {names}")
        return v

    def flag(self, key: str) -> bool | None:
        v = self.row.get(key)
        if v is None:
            return None
        if not isinstance(v, bool):
            raise self.fail(f"{key} {_short(v)} is not true or false")
        return v

    def names(self, key: str) -> tuple[str, ...]:
        """A list of names; a single name written without brackets is a list of one."""
        v = self.row.get(key)
        if v is None:
            return ()
        items = [v] if isinstance(v, str) else v
        if not isinstance(items, list) or not all(isinstance(x, str) and x.strip() for x in items):
            raise self.fail(f"{key} {_short(v)} is not a name or a list of names")
        return tuple(items)


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(row for row in fh if not row.startswith("#")))
