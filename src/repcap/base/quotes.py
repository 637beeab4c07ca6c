"""The sources' numbers and data, read from ``data/reference/`` (never retyped in a notebook).

* :func:`quote` -- one number a source states (or that we read off its figures, code or data), with
  where it stands and whether it is *published* or *ours* (``data/reference/quotes.yaml``).  Ids are
  ``<source>.<name>``; two families are made from tables: ``guha2026.laws.<law>.<column>``
  (``guha2026_laws.csv``: the published constants and fit metrics) and
  ``guha2026.table1.<catalog key>.eps`` (``guha2026_table1.csv``).
* :func:`guha_packings` -- Guha's own stored packing results (``code/vector_packing/*.json`` of his
  repository, MIT licence), so his fits can be redone here.
* :func:`guarded_literals` -- the numbers no notebook may retype.

The files are read through :mod:`repcap.base.datafiles` (every field checked, every error one line).

The scorecard's rows are :mod:`repcap.evidence.claims`; :mod:`repcap.evidence.reference` re-exports both.  The engines
that read a number of a source (the laws, the catalog) import this module, not the claims: a sweep
point is keyed on the bytes of the data files its code declares (``DATA_FILES``), and editing a
scorecard row must not touch a survey point's identity.

"Reported" in the book means ``status == "published"``; anything else is labelled as ours.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.base import paths

from .datafiles import _Fields, _num, _read_csv, _short, _UniqueKeyLoader

#: How each source is cited in prose and tables.
SOURCES: dict[str, str] = {"guha2026": "Guha 2026", "liu2025": "Liu, Liu & Gore 2025", "yoder2025": "Yoder 2025"}
#: The bibliography keys of ``book/references.bib``.
BIBKEYS: dict[str, str] = {"guha2026": "guha2026", "liu2025": "liu2025", "yoder2025": "yoder2025"}
STATUSES = ("published", "ours")

#: The files of ``data/reference`` this module reads: a sweep point whose code imports it is keyed
#: on their bytes too (:func:`repcap.sweep.codehash.data_digest`).
DATA_FILES = (
    "quotes.yaml",
    "guha2026_laws.csv",
    "guha2026_table1.csv",
    "guha2026_optimized_packing.csv",
    "guha2026_random_packing.csv",
)


def key_of(hub_id: str) -> str:
    """The catalog key of a hub id: its name, lower case (``google/gemma-3-270m`` -> ``gemma-3-270m``)."""
    return hub_id.split("/")[-1].lower()


def reference_dir() -> Path:
    """``data/reference`` of the checkout this package lives in (or of the project root)."""
    return paths.reference_dir()


@dataclass(frozen=True)
class Quote:
    """One number of a source.  ``value`` may be None where only a range ``low``..``high`` is given."""

    id: str
    source: str
    quantity: str
    where: str
    status: str
    value: float | None = None
    low: float | None = None
    high: float | None = None
    note: str = ""
    guard: bool | None = None  # None: decided by the number of significant digits

    @property
    def cite(self) -> str:
        """``"Guha 2026, Sec. 3.2"``."""
        return f"{SOURCES.get(self.source, self.source)}, {self.where}"

    @property
    def published(self) -> bool:
        return self.status == "published"

    @property
    def label(self) -> str:
        """What the book may call the number: ``reported`` only when the source printed it."""
        return "reported" if self.published else "ours, from the source's data"

    def text(self, fmt: str = "g") -> str:
        """The number as the source gives it: ``0.41554``, ``0.8–0.9``, ``24 (5–100)``, ``3.99 × 10⁷``."""

        def f(x: float) -> str:
            return pretty(x, fmt)

        if self.value is not None and self.low is not None:
            if self.high is None:
                raise RepcapError(f"quote {self.id} gives a low ({f(self.low)}) but no high")
            return f"{f(self.value)} ({f(self.low)}–{f(self.high)})"
        if self.value is not None:
            return f(self.value)
        if self.low is None or self.high is None:
            raise RepcapError(f"quote {self.id} needs a value or a low and a high")
        return f"{f(self.low)}–{f(self.high)}"

    def literals(self) -> list[float]:
        return [x for x in (self.value, self.low, self.high) if x is not None]


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def pretty(x: float, fmt: str = "g") -> str:
    """``format(x, fmt)``, with powers of ten written as ``3.99 × 10⁷`` instead of ``3.99e+07``."""
    s = format(x, fmt)
    if "e" in s and not fmt.endswith("%"):
        mant, exp = s.split("e")
        return f"{mant} × 10{str(int(exp)).translate(_SUPERSCRIPT)}"
    return s


def _display(path: Path) -> str:
    """``data/reference/<name>`` for the project's own files, else the path as given."""
    try:
        own = path.resolve().parent == reference_dir().resolve()
    except OSError:
        own = False
    return f"data/reference/{path.name}" if own else str(path)


def load_yaml(path: Path) -> Any:
    """A data file's YAML; a syntax error or a duplicate key is one line naming the file and line."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RepcapError(f"{_display(path)}: cannot read it ({exc})") from exc
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader.make())  # a SafeLoader: no Python objects
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise RepcapError(f"{_display(path)}:{line}: YAML syntax error: {what}") from exc


QUOTE_FIELDS = ("value", "low", "high", "where", "status", "quantity", "note", "guard")


def _quote_row(path: Path, source: str, name: Any, e: Any) -> Quote:
    if not isinstance(name, str) or not name.strip():
        raise RepcapError(f"{_display(path)}: source {source!r}: quote name {_short(name)} is not a name")
    qid = f"{source}.{name}"
    f = _Fields(f"{_display(path)}: quote {qid!r}", e, QUOTE_FIELDS)
    q = Quote(
        id=qid,
        source=source,
        quantity=f.text("quantity", default=name),
        where=f.text("where", required=True),
        status=f.choice("status", STATUSES, required=True),
        value=f.number("value"),
        low=f.number("low"),
        high=f.number("high"),
        note=f.text("note"),
        guard=f.flag("guard"),
    )
    if q.value is None and (q.low is None or q.high is None):
        raise f.fail("needs a value, or a low and a high")
    if (q.low is None) != (q.high is None):
        raise f.fail("gives one end of a range: give both low and high")
    if q.low is not None and q.high is not None and q.low > q.high:
        raise f.fail(f"low {q.low:g} is above high {q.high:g}")
    return q


def load_quotes(path: Path) -> dict[str, Quote]:
    """The quotes of one ``quotes.yaml``, each field checked (type, range, vocabulary); a malformed
    entry is one line naming the file, the quote and the field."""
    out: dict[str, Quote] = {}
    data = load_yaml(path) or {}
    if not isinstance(data, dict):
        raise RepcapError(f"{_display(path)}: must map each source to its quotes")
    for source, entries in data.items():
        if source not in SOURCES:
            raise RepcapError(f"{_display(path)}: unknown source {_short(source)}; known: {', '.join(SOURCES)}")
        if not isinstance(entries, dict):
            raise RepcapError(f"{_display(path)}: source {source!r}: must map quote names to their fields")
        for name, e in entries.items():
            q = _quote_row(path, source, name, e)
            out[q.id] = q
    return out


def _guha_quote(qid: str, quantity: str, where: str, status: str, number: float, guard: bool | None = None) -> Quote:
    """One number of a row of Guha's tables (``guha2026_laws.csv``, ``guha2026_table1.csv``)."""
    return Quote(id=qid, source="guha2026", quantity=quantity, where=where, status=status, value=number, guard=guard)


def _law_quotes(root: Path) -> Iterator[Quote]:
    """``guha2026.laws.<law>.<column>``: each law's published constants and fit metrics."""
    for row in _read_csv(root / "guha2026_laws.csv"):
        for col in ("C", "a", "b", "c", "R2", "MAPE_pct", "NRMSE_pct"):
            v = _num(row.get(col))
            if v is not None:
                qid = f"guha2026.laws.{row['law']}.{col}"
                yield _guha_quote(qid, f"{row['label']}: {col}", row["where"], row["status"], v)


def _table1_quotes(root: Path) -> Iterator[Quote]:
    """``guha2026.table1.<catalog key>.eps``: the eps Guha's Table 1 reports for each model."""
    for row in _read_csv(root / "guha2026_table1.csv"):
        v = _num(row.get("eps_reported"))
        if v is not None:
            qid = f"guha2026.table1.{key_of(row['hf_repo'])}.eps"
            yield _guha_quote(qid, f"{row['model']}: eps", "Table 1", "published", v, guard=True)


@functools.lru_cache(maxsize=1)
def quotes() -> dict[str, Quote]:
    """Every quote by id (see the module docstring); a malformed entry is one line naming it."""
    root = reference_dir()
    out = load_quotes(root / "quotes.yaml")
    for q in (*_law_quotes(root), *_table1_quotes(root)):
        out[q.id] = q
    return out


def quote(qid: str) -> Quote:
    """One quote by id; an unknown id is a clear error naming the file to add it to."""
    try:
        return quotes()[qid]
    except KeyError:
        near = [k for k in quotes() if k.split(".")[0] == str(qid).split(".")[0]][:8]
        raise RepcapError(
            f"no quote {qid!r} in data/reference (quotes.yaml, guha2026_laws.csv, "
            f"guha2026_table1.csv); e.g. {', '.join(near)}"
        ) from None


def value(qid: str) -> float:
    """The single number of a quote (a range quote has none: use :func:`quote`)."""
    q = quote(qid)
    if q.value is None:
        raise RepcapError(f"quote {qid} is a range ({q.text()}); read .low and .high")
    return q.value


def laws_table() -> list[dict[str, str]]:
    """``guha2026_laws.csv``: one row per published law (form, constants, fit metrics, citation)."""
    return _read_csv(reference_dir() / "guha2026_laws.csv")


def guha_packings(kind: str = "optimized") -> Any:
    """Guha's stored packing results as a DataFrame ``k, d, eps_star``: ``"optimized"``
    (optimised packings, Sec. 3.3) or ``"random"`` (best of 1000 random draws, Sec. 3.2)."""
    import pandas as pd

    if kind not in ("optimized", "random"):
        raise RepcapError(f"guha_packings kind {kind!r}: use 'optimized' or 'random'")
    return pd.read_csv(reference_dir() / f"guha2026_{kind}_packing.csv")


# ---------------------------------------------------------------------------------------------
# scorecard rows


def significant_digits(x: float) -> int:
    """Significant digits of ``x`` as written (``0.0645`` -> 3, ``8.4`` -> 2, ``1500`` -> 2,
    ``12288`` -> 5, ``3.99e7`` -> 3)."""
    mant = f"{abs(float(x)):.15g}".split("e")[0]
    if "." in mant:
        return len(mant.replace(".", "").lstrip("0"))
    return len(mant.lstrip("0").rstrip("0")) or 1


def guarded_literals() -> dict[str, str]:
    """``{literal text: quote id}`` of the numbers no notebook may retype (see quotes.yaml)."""
    out: dict[str, str] = {}
    for q in quotes().values():
        for x in q.literals():
            guard = q.guard if q.guard is not None else significant_digits(x) >= 3
            if not guard:
                continue
            for text in _spellings(x):
                out.setdefault(text, q.id)
    return out


def _spellings(x: float) -> list[str]:
    """How a number is typed: ``76.5``; ``3.99e7`` / ``3.99e+07``; ``12288`` / ``12,288``."""
    if x < 0:  # a slope of -1.005 is also written "1.005"
        return sorted(set(_spellings(-x)) | {"-" + t for t in _spellings(-x)})
    out = {repr(x), f"{x:g}"}
    if float(x).is_integer() and abs(x) < 1e6:
        out |= {str(int(x)), f"{int(x):,}"}
    if abs(x) >= 1e5 or (x != 0 and abs(x) < 1e-3):
        m, e = f"{x:e}".split("e")
        m = m.rstrip("0").rstrip(".")
        out |= {f"{m}e{int(e)}", f"{m}e+{int(e):02d}" if int(e) >= 0 else f"{m}e-{-int(e):02d}"}
    return sorted(s for s in out if s not in ("0", "-0"))


__all__ = [
    "BIBKEYS",
    "SOURCES",
    "STATUSES",
    "Quote",
    "guarded_literals",
    "guha_packings",
    "key_of",
    "laws_table",
    "load_quotes",
    "load_yaml",
    "pretty",
    "quote",
    "quotes",
    "reference_dir",
    "significant_digits",
    "value",
]
