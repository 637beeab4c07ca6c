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
#: The scorecard rows' sources: the three sources, and this book's own findings (measurements no source
#: claims, shown and counted apart from the sources' claims and always labelled as ours).
OURS = "ours"
CLAIM_SOURCES: dict[str, str] = {**SOURCES, OURS: "This book (our finding)"}
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
    "liu2025_llm_models.csv",
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


@functools.lru_cache(maxsize=1)
def quotes() -> dict[str, Quote]:
    """Every quote by id (see the module docstring); a malformed entry is one line naming it."""
    root = reference_dir()
    out = load_quotes(root / "quotes.yaml")
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
#: What a row's number is (Methods defines them): the source's formula on the source's inputs, the
#: source's own method on the source's own data, or data we computed.
KINDS = ("arithmetic", "re-analysis", "measurement")
#: The profiles a row may name in ``checked_by`` (``reference``: the committed reference bundle).
CHECK_PROFILES = ("smoke", "quick", "reference", "paper")
CLAIM_FIELDS = (
    "id",
    "short",
    "source",
    "kind",
    "context",
    "claim",
    "quote",
    "derive",
    "at",
    "threshold",
    "source_text",
    "where",
    "compare",
    "tolerance",
    "tolerance_why",
    "ours",
    "checked_by",
    "if_differs",
    "explained",
    "decide",
    "min_n",
    "chapter",
    "figure",
    "fmt",
)


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
    kind: str = "measurement"
    context: bool = False  # a context note: shown, not a claim of the source, not counted
    figure: str | None = None
    quote_ids: tuple[str, ...] = ()
    derive: str | None = None
    at: tuple[float, ...] = ()
    threshold: float | None = None
    source_text: str = ""
    fmt: str = ".4g"
    if_differs: str = ""
    explained: str = ""  # a systematic, explained gap: the verdict says "differs (explained: ...)"
    decide: str = ""  # what would decide the row when the evidence is inconclusive
    min_n: int = 1  # the fewest points (widths, seeds, models) on which the row may be decided
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
        name = CLAIM_SOURCES.get(self.source, self.source)
        if self.where_text:
            return f"{name}, {self.where_text}"
        if not self.quote_ids:
            return name
        wheres = list(dict.fromkeys(q.where for q in self.quotes))
        return f"{name}, {'; '.join(wheres)}"

    def status(self) -> str:
        """``published`` if every quote behind the row is, else ``ours`` (read off a figure, ...)."""
        return "published" if all(q.published for q in self.quotes) else "ours"


def check_fmt(fmt: str) -> str | None:
    """Why ``fmt`` cannot print a number (None if it can): it is tried on one."""
    if fmt == "d":
        return None
    try:
        pretty(1234.5678, fmt)
        pretty(-0.012345, fmt)
    except (ValueError, TypeError) as exc:
        return str(exc)
    return None


def _chapters() -> set[str] | None:
    """The notebook names of this checkout (None where there is no notebooks folder)."""
    nb = reference_dir().parents[1] / "notebooks"
    return {p.stem for p in nb.glob("[0-9][0-9]_*.py")} if nb.is_dir() else None


def _claim_row(path: Path, i: int, r: Any, seen: dict[str, Claim], chapters: set[str] | None) -> Claim:
    name = r.get("id") if isinstance(r, dict) else None
    label = f"claim {name!r}" if isinstance(name, str) and name.strip() else f"row {i + 1}"
    f = _Fields(f"{_display(path)}: {label}", r, CLAIM_FIELDS)
    cid = f.text("id", required=True)
    if cid in seen:
        raise f.fail("its id is used by an earlier row")
    source = f.choice("source", tuple(CLAIM_SOURCES), required=True)
    compare = f.choice("compare", COMPARES, required=True)
    derive = f.choice("derive", DERIVES)
    kind = f.choice("kind", KINDS, required=True)
    qids = f.names("quote")
    threshold = f.number("threshold")
    if not qids and threshold is None:
        raise f.fail("needs a quote or a threshold")
    if qids and threshold is not None:
        raise f.fail("give a quote or a threshold, not both")
    for qid in qids:
        if qid not in quotes():
            raise f.fail(
                f"quote {qid!r} is not in data/reference (quotes.yaml, guha2026_laws.csv, guha2026_table1.csv)"
            )
    at_raw = r.get("at")
    if at_raw is not None and not isinstance(at_raw, list):
        raise f.fail(f"at {_short(at_raw)} is not a list of numbers")
    at = tuple(_Fields(f.where, {"at": x}, ("at",)).number("at") or 0.0 for x in at_raw or ())
    if derive is not None and len(qids) != 2:
        raise f.fail(f"derive {derive!r} needs two quotes, has {len(qids)}")
    if derive == "slope" and (len(at) != 2 or min(at) <= 0 or at[0] == at[1]):
        raise f.fail("derive 'slope' needs at: two different positive numbers, one per quote")
    if compare == "range" and not qids:
        raise f.fail("compare 'range' needs a quote with a low and a high")
    if compare == "rel" and threshold == 0:
        raise f.fail("compare 'rel' needs a non-zero source value")
    tolerance = f.number("tolerance", required=True, low=0.0)
    cb = r.get("checked_by")
    if cb is None:
        raise f.fail("needs checked_by: 'all' or a list of profiles")
    checked_by: tuple[str, ...] | None
    if cb == "all":
        checked_by = None
    else:
        checked_by = () if cb == [] else f.names("checked_by")
        bad = [p for p in checked_by if p not in CHECK_PROFILES]
        if bad:
            raise f.fail(f"checked_by {bad[0]!r} is not a profile; use 'all' or some of {', '.join(CHECK_PROFILES)}")
    chapter = f.text("chapter", required=True)
    if chapters is not None and chapter not in chapters:
        import difflib

        near = difflib.get_close_matches(chapter, sorted(chapters), n=1)
        raise f.fail(f"chapter {chapter!r} is not a notebook" + (f" (did you mean {near[0]!r}?)" if near else ""))
    figure = f.text("figure") or None
    if figure is not None and not figure.startswith("fig-"):
        raise f.fail(f"figure {figure!r} is not a figure label (fig-...)")
    fmt = f.text("fmt", default=".4g")
    bad_fmt = check_fmt(fmt)
    if bad_fmt:
        raise f.fail(f"fmt {fmt!r} cannot print a number ({bad_fmt})")
    min_n = f.number("min_n", low=1)
    if min_n is not None and not float(min_n).is_integer():
        raise f.fail(f"min_n {min_n:g} is not a whole number")
    c = Claim(
        id=cid,
        source=source,
        claim=f.text("claim", required=True),
        compare=compare,
        tolerance=float(tolerance or 0.0),
        tolerance_why=f.text("tolerance_why", required=True),
        ours=f.text("ours", required=True),
        checked_by=checked_by,
        chapter=chapter,
        kind=kind,
        context=bool(f.flag("context")),
        figure=figure,
        quote_ids=qids,
        derive=derive,
        at=at,
        threshold=threshold,
        source_text=f.text("source_text"),
        fmt=fmt,
        if_differs=f.text("if_differs"),
        explained=f.text("explained"),
        decide=f.text("decide"),
        min_n=int(min_n or 1),
        where_text=f.text("where"),
        short=f.text("short", default=cid),
    )
    if (
        c.compare in ("abs", "rel", "equal", "above", "below")
        and c.derive is None
        and qids
        and c.quotes[0].value is None
    ):
        raise f.fail(f"compare {compare!r} needs a quote with a value; {qids[0]!r} is a range")
    check_source_value(c, f.fail)
    return c


def quote_file(qid: str) -> str:
    """The data file a quote id comes from (for messages)."""
    if qid.startswith("guha2026.laws."):
        return "data/reference/guha2026_laws.csv"
    if qid.startswith("guha2026.table1."):
        return "data/reference/guha2026_table1.csv"
    return "data/reference/quotes.yaml"


def check_source_value(c: Claim, fail: Any) -> None:
    """Compute, now, every number a verdict on ``c`` will use: the ratio or slope it derives from
    its quotes, and the region its ``compare`` makes of them; a value that cannot be computed (a
    ratio over 0, the log of a number that is not positive, a relative tolerance around 0, a range
    from a quote of one value) is ``fail(message)`` naming the quote and the file it is in."""

    def named(q: Quote) -> str:
        return f"quote {q.id!r} ({quote_file(q.id)})"

    qs = c.quotes
    if c.derive is not None:
        for q in qs:
            if q.value is None:
                raise fail(f"derive {c.derive!r} needs quotes with a value; {named(q)} is a range ({q.text()})")
        if c.derive == "ratio" and qs[0].value == 0:
            raise fail(f"derive 'ratio' divides by {named(qs[0])}, which is 0")
        if c.derive == "slope":
            for q in qs:
                if q.value is not None and q.value <= 0:
                    raise fail(
                        f"derive 'slope' takes the log of {named(q)}, which is {q.value:g}; a log-log slope needs "
                        "positive values"
                    )
    try:
        value, low, high = c.source_value()
    except (RepcapError, ArithmeticError, ValueError) as exc:
        raise fail(f"its source value cannot be computed from {', '.join(named(q) for q in qs)} ({exc})") from None
    if any(x is not None and not math.isfinite(x) for x in (value, low, high)):
        raise fail(f"its source value from {', '.join(named(q) for q in qs)} is not a finite number")
    if c.compare == "rel" and value == 0:
        src = ", ".join(named(q) for q in qs) or "its threshold"
        raise fail(f"compare 'rel' takes the tolerance relative to the source value, which is 0 ({src})")
    if c.compare == "range" and (low is None or high is None):
        which = f"{named(qs[0])} gives one value ({qs[0].text()})" if qs else "it has no quote"
        raise fail(f"compare 'range' needs a quote with a low and a high; {which}")
    if c.compare in ("abs", "rel", "equal", "above", "below") and value is None:
        raise fail(f"compare {c.compare!r} needs a source value; {', '.join(named(q) for q in qs)} gives none")


def _table1_rows() -> list[Claim]:
    """One row per model of Guha's Table 1 (issue 19.5): his ε against ours, within his bf16 rounding,
    checked by the ``paper`` profile, which loads the 45 models."""
    out = []
    for row in _read_csv(reference_dir() / "guha2026_table1.csv"):
        key = key_of(row["hf_repo"])
        qid = f"guha2026.table1.{key}.eps"
        if qid not in quotes():
            continue
        eps = quotes()[qid].value or 0.0
        class1 = eps > 0.2
        out.append(
            Claim(
                id=f"guha-table1-eps-{key}",
                source="guha2026",
                claim=f"{row['model']} (d = {row['d_model']}) has ε = {eps:.5f} (Table 1).",
                compare="abs",
                tolerance=1e-3 if class1 else 3e-4,
                tolerance_why=(
                    "his bf16 pipeline rounds μ and σ to bf16 (8 significant bits): at a Class 1 ε of "
                    "0.2-0.6 that is of order 1e-4 to 1e-3"
                    if class1
                    else "his bf16 pipeline rounds μ and σ to bf16 (8 significant bits): at a Class 2 ε "
                    "below 0.1 that is a few 1e-4"
                ),
                ours="exact ε = μ + 2σ over all pairs of the checkpoint's embedding (float64 moments)",
                checked_by=("paper",),
                chapter="02_embedding_eps",
                kind="measurement",
                figure="fig-eps-vs-d",
                quote_ids=(qid,),
                fmt=".5f",
                if_differs="the checkpoint on the hub is not the one he measured, or his bf16 rounding is larger here",
                short=f"ε of {row['model']}",
            )
        )
    return out


def _liu_head_rows() -> list[Claim]:
    """One row per LM head of Liu et al.'s Fig. 8a (issue 19.5): m E[cos²] against the range of
    its family's points, checked by the ``paper`` profile, which loads the 27 heads."""
    out = []
    for row in _read_csv(reference_dir() / "liu2025_llm_models.csv"):
        fam = row["family"].lower().replace("qwen2.5", "qwen").replace("-", "")
        qid = f"liu2025.fig8a_m_overlap_{fam}"
        if qid not in quotes():
            continue
        key = key_of(row["hf_repo"])
        out.append(
            Claim(
                id=f"liu-head-overlap-{key}",
                source="liu2025",
                claim=f"The LM head of {row['hf_repo']} (m = {row['width_m']}) sits among its family's points of Fig. 8a.",
                compare="range",
                tolerance=0.0,
                tolerance_why="the range of the family's points digitised from Fig. 8a; a single point's reading "
                "is good to a few per cent on its log axis, well inside the family's spread",
                ours="m E[cos²] of the head: all rows, padding included, no centring (their LLMs/overlap-0.py)",
                checked_by=("paper",),
                chapter="04_lm_head_overlap",
                kind="measurement",
                figure="fig-overlap-vs-width",
                quote_ids=(qid,),
                fmt=".1f",
                if_differs="the checkpoint or the head tensor differs from the one they read",
                short=f"head overlap of {key}",
            )
        )
    return out


def load_claims(path: Path) -> dict[str, Claim]:
    """The rows of one ``claims.yaml``, in file order, each field checked (type, range, vocabulary;
    ``fmt`` tried on a number; quote ids resolved); a malformed row is one line naming the file, the
    claim and the field."""
    rows = load_yaml(path) or []
    if not isinstance(rows, list):
        raise RepcapError(f"{_display(path)}: must be a list of claim rows (each starting with '- id:')")
    out: dict[str, Claim] = {}
    chapters = _chapters()
    for i, r in enumerate(rows):
        c = _claim_row(path, i, r, out, chapters)
        out[c.id] = c
    return out


@functools.lru_cache(maxsize=1)
def claims() -> dict[str, Claim]:
    """Every scorecard row by id: those of ``claims.yaml`` in file order, then one per model of
    Guha's Table 1 and of Liu et al.'s 27 heads (checked by ``paper``)."""
    path = reference_dir() / "claims.yaml"
    out = load_claims(path)
    for c in _table1_rows() + _liu_head_rows():
        if c.id in out:
            raise RepcapError(f"{_display(path)}: claim {c.id!r}: the id is taken by a generated per-model row")
        check_source_value(c, lambda msg, c=c: RepcapError(f"generated claim {c.id!r}: {msg}"))
        out[c.id] = c
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
    "CHECK_PROFILES",
    "CLAIM_SOURCES",
    "COMPARES",
    "KINDS",
    "OURS",
    "SOURCES",
    "Claim",
    "Quote",
    "claim",
    "claims",
    "guarded_literals",
    "guha_packings",
    "laws_table",
    "load_claims",
    "load_quotes",
    "load_yaml",
    "quote",
    "quotes",
    "reference_dir",
    "value",
]
