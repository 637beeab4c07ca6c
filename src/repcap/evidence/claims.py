"""The scorecard's rows, read from ``data/reference/claims.yaml`` (the fields are described at the
top of that file), and one generated row per model of Guha's Table 1 and of Liu et al.'s 27 LM
heads (:mod:`repcap.evidence.per_model_claims`); :mod:`repcap.evidence.scorecard` judges them.  Every
field is checked when it is read: a bad row is one line naming the file, the claim and the field.
What a row is, :class:`Claim` and the vocabulary of its fields, is :mod:`repcap.evidence.claim_model`."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.base.quotes import (
    STATUSES,
    Quote,
    _display,
    _Fields,
    _short,
    load_yaml,
    quotes,
    reference_dir,
)

from .claim_model import (
    CHECK_PROFILES,
    CLAIM_FIELDS,
    CLAIM_SOURCES,
    COMPARES,
    DERIVES,
    KINDS,
    OURS,
    Claim,
    check_fmt,
)
from .per_model_claims import liu_head_rows, table1_rows

#: The files this module reads (a sweep point that imported it would be keyed on their bytes; none does).
DATA_FILES = ("claims.yaml",)


def _chapters() -> set[str] | None:
    """The notebook names of this checkout (None where there is no notebooks folder)."""
    nb = reference_dir().parents[1] / "notebooks"
    return {p.stem for p in nb.glob("[0-9][0-9]_*.py")} if nb.is_dir() else None


def _quote_ids(f: _Fields) -> tuple[tuple[str, ...], float | None]:
    """The row's quotes (each one known) or its threshold: one of the two."""
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
    return qids, threshold


def _at(f: _Fields, r: dict[str, Any]) -> tuple[float, ...]:
    """The row's ``at``: a list of numbers (the x of each quote, for ``derive: slope``)."""
    at_raw = r.get("at")
    if at_raw is not None and not isinstance(at_raw, list):
        raise f.fail(f"at {_short(at_raw)} is not a list of numbers")
    return tuple(_Fields(f.where, {"at": x}, ("at",)).number("at") or 0.0 for x in at_raw or ())


def _comparison(f: _Fields, r: dict[str, Any]) -> dict[str, Any]:
    """What the row compares, checked: its source, kind and status, its quotes or threshold, how a
    number is derived from them, the comparison and its tolerance (:class:`Claim`'s fields)."""
    source = f.choice("source", tuple(CLAIM_SOURCES), required=True)
    compare = f.choice("compare", COMPARES, required=True)
    derive = f.choice("derive", DERIVES)
    kind = f.choice("kind", KINDS, required=True)
    status = f.choice("status", STATUSES, required=True)
    qids, threshold = _quote_ids(f)
    at = _at(f, r)
    if derive is not None and len(qids) != 2:
        raise f.fail(f"derive {derive!r} needs two quotes, has {len(qids)}")
    if derive == "slope" and (len(at) != 2 or min(at) <= 0 or at[0] == at[1]):
        raise f.fail("derive 'slope' needs at: two different positive numbers, one per quote")
    if compare == "range" and not qids:
        raise f.fail("compare 'range' needs a quote with a low and a high")
    if compare == "rel" and threshold == 0:
        raise f.fail("compare 'rel' needs a non-zero source value")
    tolerance = f.number("tolerance", required=True, low=0.0)
    return {
        "source": source,
        "compare": compare,
        "derive": derive,
        "kind": kind,
        "status_": status,
        "quote_ids": qids,
        "threshold": threshold,
        "at": at,
        "tolerance": float(tolerance or 0.0),
    }


def _checked_by(f: _Fields, r: dict[str, Any]) -> tuple[str, ...] | None:
    """The profiles that check the row (None: ``all``; ``()``: none can)."""
    cb = r.get("checked_by")
    if cb is None:
        raise f.fail("needs checked_by: 'all' or a list of profiles")
    if cb == "all":
        return None
    checked_by = () if cb == [] else f.names("checked_by")
    bad = [p for p in checked_by if p not in CHECK_PROFILES]
    if bad:
        raise f.fail(f"checked_by {bad[0]!r} is not a profile; use 'all' or some of {', '.join(CHECK_PROFILES)}")
    return checked_by


def _chapter(f: _Fields, chapters: set[str] | None) -> str:
    """The row's chapter, a notebook of this checkout (where there is a notebooks folder)."""
    chapter = f.text("chapter", required=True)
    if chapters is not None and chapter not in chapters:
        import difflib

        near = difflib.get_close_matches(chapter, sorted(chapters), n=1)
        raise f.fail(f"chapter {chapter!r} is not a notebook" + (f" (did you mean {near[0]!r}?)" if near else ""))
    return chapter


def _scope(f: _Fields, r: dict[str, Any], chapters: set[str] | None) -> dict[str, Any]:
    """Who checks the row and how it shows, checked: the profiles, its chapter and figure, the
    format of its numbers and the fewest points that may decide it (:class:`Claim`'s fields)."""
    checked_by = _checked_by(f, r)
    chapter = _chapter(f, chapters)
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
    return {"checked_by": checked_by, "chapter": chapter, "figure": figure, "fmt": fmt, "min_n": int(min_n or 1)}


def _texts(f: _Fields, cid: str) -> dict[str, Any]:
    """The row's words (the claim, what ours is, why the tolerance, ...) and its context flag and
    pass window (:class:`Claim`'s fields), each checked in this order."""
    return {
        "claim": f.text("claim", required=True),
        "tolerance_why": f.text("tolerance_why", required=True),
        "ours": f.text("ours", required=True),
        "context": bool(f.flag("context")),
        "source_text": f.text("source_text"),
        "if_differs": f.text("if_differs"),
        "explained": f.text("explained"),
        "decide": f.text("decide"),
        "window": f.number("window", low=0.0),
        "where_text": f.text("where"),
        "short": f.text("short", default=cid),
    }


def _check_quotes(c: Claim, fail: Any) -> None:
    """The row's quotes fit its comparison and its status: a point comparison needs a value, a
    ``combined`` one an error bar, and a ``published`` row no quote (or finding) of ours."""
    qids = c.quote_ids
    if c.compare in ("abs", "rel", "equal", "combined") and c.derive is None and qids and c.quotes[0].value is None:
        raise fail(f"compare {c.compare!r} needs a quote with a value; {qids[0]!r} is a range")
    if c.compare == "combined" and qids and (c.derive is not None or c.quotes[0].low is None):
        raise fail("compare 'combined' needs one quote with a value and its error bar (low and high)")
    if c.status_ == "published" and (c.source == OURS or any(not q.published for q in c.quotes)):
        ours = next((q.id for q in c.quotes if not q.published), None)
        raise fail("status 'published' on " + (f"quote {ours!r}, which is ours" if ours else "a finding of ours"))


def _claim_row(path: Path, i: int, r: Any, seen: dict[str, Claim], chapters: set[str] | None) -> Claim:
    """Row ``i`` of ``path``, every field checked in turn (``seen``: the rows before it)."""
    name = r.get("id") if isinstance(r, dict) else None
    label = f"claim {name!r}" if isinstance(name, str) and name.strip() else f"row {i + 1}"
    f = _Fields(f"{_display(path)}: {label}", r, CLAIM_FIELDS)
    cid = f.text("id", required=True)
    if cid in seen:
        raise f.fail("its id is used by an earlier row")
    comparison = _comparison(f, r)
    scope = _scope(f, r, chapters)
    c = Claim(id=cid, **comparison, **scope, **_texts(f, cid))
    _check_quotes(c, f.fail)
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
    for c in table1_rows() + liu_head_rows():
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


__all__ = [
    "CHECK_PROFILES",
    "CLAIM_FIELDS",
    "CLAIM_SOURCES",
    "COMPARES",
    "DATA_FILES",
    "DERIVES",
    "KINDS",
    "OURS",
    "Claim",
    "check_fmt",
    "check_source_value",
    "claim",
    "claims",
    "load_claims",
    "quote_file",
]
