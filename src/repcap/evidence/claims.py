"""The scorecard's rows, read from ``data/reference/claims.yaml`` (the fields are described at the
top of that file), and one generated row per model of Guha's Table 1 and of Liu et al.'s 27 LM
heads; :mod:`repcap.evidence.scorecard` judges them.  Every field is checked when it is read: a bad row is
one line naming the file, the claim and the field."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.base.quotes import (
    SOURCES,
    STATUSES,
    Quote,
    _display,
    _Fields,
    _read_csv,
    _short,
    key_of,
    load_yaml,
    pretty,
    quote,
    quotes,
    reference_dir,
    value,
)

#: The files this module reads (a sweep point that imported it would be keyed on their bytes; none does).
DATA_FILES = ("claims.yaml", "guha2026_table1.csv", "liu2025_llm_models.csv")

#: The scorecard rows' sources: the three sources, and this book's own findings (measurements no source
#: claims, shown and counted apart from the sources' claims and always labelled as ours).
OURS = "ours"
CLAIM_SOURCES: dict[str, str] = {**SOURCES, OURS: "This book (our finding)"}

COMPARES = ("abs", "rel", "range", "above", "below", "equal", "combined")
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
    "status",
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
    "window",
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
    status_: str = "published"  # the row's status (published / ours), given explicitly on every row
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
    window: float | None = None  # combined rows: the widest pass half-width that may decide
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
            if q.value is None and self.compare in ("above", "below"):
                # a range the claim improves on: "below" passes under its upper end, "above" over its lower
                return (q.high if self.compare == "below" else q.low), None, None
            return q.value, q.low, q.high
        return self.derived(), None, None

    def source_se(self) -> float | None:
        """The source's standard error for ``compare: combined``: half its error bar (the bar read as
        ±1 standard error, as Methods states), or None."""
        if self.compare != "combined":
            return None
        if not self.quote_ids:
            return 0.0  # a threshold (a value the claim implies, such as 0) has no error of its own
        q = self.quotes[0]
        return (q.high - q.low) / 2 if q.low is not None and q.high is not None else None

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
        if self.compare == "combined" and qs:
            q = qs[0]
            se = self.source_se() or 0.0
            return f"{pretty(q.value or 0.0, self.fmt)} ± {pretty(se, self.fmt)} (bar read as ±1 SE)"
        if prefix and qs[0].value is None:
            return prefix + pretty(self.source_value()[0] or 0.0, "g") + f" ({qs[0].text()})"
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
        """The row's explicit status: ``published`` (the source states the claim and its number) or
        ``ours`` (our reading, digitisation, operationalisation or hypothesis); a row cannot be
        ``published`` on a quote that is ours (checked when read)."""
        return self.status_


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
    status = f.choice("status", STATUSES, required=True)
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
        status_=status,
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
        window=f.number("window", low=0.0),
        where_text=f.text("where"),
        short=f.text("short", default=cid),
    )
    if c.compare in ("abs", "rel", "equal", "combined") and c.derive is None and qids and c.quotes[0].value is None:
        raise f.fail(f"compare {compare!r} needs a quote with a value; {qids[0]!r} is a range")
    if c.compare == "combined" and qids and (c.derive is not None or c.quotes[0].low is None):
        raise f.fail("compare 'combined' needs one quote with a value and its error bar (low and high)")
    if status == "published" and (source == OURS or any(not q.published for q in c.quotes)):
        ours = next((q.id for q in c.quotes if not q.published), None)
        raise f.fail("status 'published' on " + (f"quote {ours!r}, which is ours" if ours else "a finding of ours"))
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
    if c.compare in ("abs", "rel", "equal", "above", "below", "combined") and value is None:
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
