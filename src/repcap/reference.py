"""The sources' numbers and data, read from ``data/reference/`` (never retyped in a notebook).

* :func:`quote` -- one number a source states (or that we read off its figures, code or data), with
  where it stands and whether it is *published* or *ours* (``data/reference/quotes.yaml``).  Ids are
  ``<source>.<name>``; two families are made from tables: ``guha2026.laws.<law>.<column>``
  (``guha2026_laws.csv``: the published constants and fit metrics) and
  ``guha2026.table1.<catalog key>.eps`` (``guha2026_table1.csv``).
* :func:`claims` -- the scorecard rows (``data/reference/claims.yaml``), checked by
  :mod:`repcap.scorecard`.
* :func:`guha_packings` -- Guha's own stored packing results (``code/vector_packing/*.json`` of his
  repository, MIT licence), so his fits can be redone here.

"Reported" in the book means ``status == "published"``; anything else is labelled as ours.
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import RepcapError, paths

#: How each source is cited in prose and tables.
SOURCES: dict[str, str] = {"guha2026": "Guha 2026", "liu2025": "Liu, Liu & Gore 2025", "yoder2025": "Yoder 2025"}
#: The bibliography keys of ``book/references.bib``.
BIBKEYS: dict[str, str] = {"guha2026": "guha2026", "liu2025": "liu2025", "yoder2025": "yoder2025"}
STATUSES = ("published", "ours")

#: The files of ``data/reference`` this module reads: a sweep point whose code imports it is keyed
#: on their bytes too (:func:`repcap.codehash.data_digest`).
DATA_FILES = (
    "quotes.yaml",
    "claims.yaml",
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


def _num(x: Any) -> float | None:
    if x is None or (isinstance(x, str) and not x.strip()):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise RepcapError(f"data/reference: {x!r} is not a number") from exc
    return None if math.isnan(v) else v


@functools.lru_cache(maxsize=1)
def quotes() -> dict[str, Quote]:
    """Every quote by id (see the module docstring)."""
    import yaml

    root = reference_dir()
    out: dict[str, Quote] = {}
    data = yaml.safe_load((root / "quotes.yaml").read_text(encoding="utf-8")) or {}
    for source, entries in data.items():
        if source not in SOURCES:
            raise RepcapError(f"{root / 'quotes.yaml'}: unknown source {source!r}; known: {', '.join(SOURCES)}")
        for name, e in entries.items():
            qid = f"{source}.{name}"
            status = e.get("status")
            if status not in STATUSES:
                raise RepcapError(f"{root / 'quotes.yaml'}: {qid}: status must be one of {STATUSES}, got {status!r}")
            q = Quote(
                id=qid,
                source=source,
                quantity=str(e.get("quantity", name)),
                where=str(e["where"]),
                status=status,
                value=_num(e.get("value")),
                low=_num(e.get("low")),
                high=_num(e.get("high")),
                note=str(e.get("note") or ""),
                guard=e.get("guard"),
            )
            if q.value is None and (q.low is None or q.high is None):
                raise RepcapError(f"{root / 'quotes.yaml'}: {qid} needs a value or a low and a high")
            out[qid] = q
    for row in _read_csv(root / "guha2026_laws.csv"):
        for col in ("C", "a", "b", "c", "R2", "MAPE_pct", "NRMSE_pct"):
            v = _num(row.get(col))
            if v is not None:
                qid = f"guha2026.laws.{row['law']}.{col}"
                out[qid] = Quote(
                    id=qid,
                    source="guha2026",
                    quantity=f"{row['label']}: {col}",
                    where=row["where"],
                    status=row["status"],
                    value=v,
                )
    for row in _read_csv(root / "guha2026_table1.csv"):
        v = _num(row.get("eps_reported"))
        if v is not None:
            qid = f"guha2026.table1.{key_of(row['hf_repo'])}.eps"
            out[qid] = Quote(
                id=qid,
                source="guha2026",
                quantity=f"{row['model']}: eps",
                where="Table 1",
                status="published",
                value=v,
                guard=True,
            )
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


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(row for row in fh if not row.startswith("#")))


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

COMPARES = ("abs", "rel", "range", "above", "below", "equal")
DERIVES = (None, "ratio", "slope")


@dataclass(frozen=True)
class Claim:
    """One scorecard row (``data/reference/claims.yaml``; the fields are described there)."""

    id: str
    source: str
    claim: str
    compare: str
    tolerance: float
    tolerance_why: str
    ours: str
    checked_by: tuple[str, ...] | None  # None: every profile
    chapter: str
    figure: str | None = None
    quote_ids: tuple[str, ...] = ()
    derive: str | None = None
    at: tuple[float, ...] = ()
    threshold: float | None = None
    source_text: str = ""
    fmt: str = ".4g"
    if_differs: str = ""
    where_text: str = ""  # where the claim stands, for rows that quote no number
    short: str = ""  # a few words naming the claim

    @property
    def quotes(self) -> list[Quote]:
        return [quote(q) for q in self.quote_ids]

    def source_value(self) -> tuple[float | None, float | None, float | None]:
        """``(value, low, high)`` the verdict compares with (derived where the row says so)."""
        if self.threshold is not None and not self.quote_ids:
            return self.threshold, None, None
        if self.derive is None:
            q = self.quotes[0]
            return q.value, q.low, q.high
        return self.derived(), None, None

    def derived(self) -> float:
        """The ratio (``derive: ratio``) or the log-log slope through ``(at_i, value_i)``
        (``derive: slope``) of the row's quotes, which must be single numbers."""
        vals = [value(q) for q in self.quote_ids]  # a range quote is a clear error here
        if self.derive == "ratio":
            return vals[1] / vals[0]
        if self.derive != "slope":
            raise RepcapError(f"claim {self.id}: derive is {self.derive!r}, not 'ratio' or 'slope'")
        (x0, x1), (y0, y1) = self.at, vals
        return math.log(y1 / y0) / math.log(x1 / x0)

    def source_display(self) -> str:
        if self.source_text:
            return self.source_text
        qs = self.quotes
        if self.derive == "ratio":
            v = self.derived()
            return f"{qs[0].text()} → {qs[1].text()} (×{pretty(v, '.3g')})"
        if self.derive == "slope":
            v = self.derived()
            return " and ".join(q.text() for q in qs) + f" (slope {v:+.3f})"
        prefix = {"above": "> ", "below": "≤ "}.get(self.compare, "")
        return prefix + qs[0].text()

    def where(self) -> str:
        if self.where_text:
            return f"{SOURCES.get(self.source, self.source)}, {self.where_text}"
        if not self.quote_ids:
            return SOURCES.get(self.source, self.source)
        wheres = list(dict.fromkeys(q.where for q in self.quotes))
        return f"{SOURCES.get(self.source, self.source)}, {'; '.join(wheres)}"

    def status(self) -> str:
        """``published`` if every quote behind the row is, else ``ours`` (read off a figure, ...)."""
        return "published" if all(q.published for q in self.quotes) else "ours"


@functools.lru_cache(maxsize=1)
def claims() -> dict[str, Claim]:
    """Every scorecard row by id, in file order; malformed rows are a clear error."""
    import yaml

    path = reference_dir() / "claims.yaml"
    rows = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    out: dict[str, Claim] = {}
    for r in rows:
        cid = r.get("id")
        where = f"{path}: claim {cid!r}"
        if not cid or cid in out:
            raise RepcapError(f"{where}: needs a unique id")
        if r.get("compare") not in COMPARES:
            raise RepcapError(f"{where}: compare must be one of {COMPARES}")
        if r.get("derive") not in DERIVES:
            raise RepcapError(f"{where}: derive must be one of {DERIVES[1:]}")
        q = r.get("quote")
        qids = tuple(q) if isinstance(q, list) else ((q,) if q else ())
        if not qids and r.get("threshold") is None:
            raise RepcapError(f"{where}: needs a quote or a threshold")
        if qids and r.get("threshold") is not None:
            raise RepcapError(f"{where}: give a quote or a threshold, not both")
        cb = r.get("checked_by")
        checked_by = None if cb == "all" else tuple(cb or ())
        c = Claim(
            id=cid,
            source=r["source"],
            claim=str(r["claim"]),
            compare=r["compare"],
            tolerance=float(r.get("tolerance") or 0.0),
            tolerance_why=str(r.get("tolerance_why", "")),
            ours=str(r.get("ours", "")),
            checked_by=checked_by,
            chapter=str(r["chapter"]),
            figure=r.get("figure"),
            quote_ids=qids,
            derive=r.get("derive"),
            at=tuple(float(x) for x in r.get("at") or ()),
            threshold=_num(r.get("threshold")),
            source_text=str(r.get("source_text") or ""),
            fmt=str(r.get("fmt") or ".4g"),
            if_differs=str(r.get("if_differs") or ""),
            where_text=str(r.get("where") or ""),
            short=str(r.get("short") or cid),
        )
        for qid in qids:
            quote(qid)  # unknown quote ids fail here, naming the claim's file
        out[cid] = c
    return out


def claim(cid: str) -> Claim:
    try:
        return claims()[cid]
    except KeyError:
        raise RepcapError(
            f"no scorecard claim {cid!r} in data/reference/claims.yaml; known: {', '.join(list(claims())[:6])}, ..."
        ) from None


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
    "COMPARES",
    "SOURCES",
    "Claim",
    "Quote",
    "claim",
    "claims",
    "guarded_literals",
    "guha_packings",
    "laws_table",
    "quote",
    "quotes",
    "reference_dir",
    "value",
]
