"""What a scorecard row is: the vocabulary of its fields (sources, comparisons, kinds, profiles) and
:class:`Claim`, one row, with the source's number its verdict compares with.  :mod:`repcap.evidence.claims`
reads the rows from ``data/reference/claims.yaml`` and checks each field;
:mod:`repcap.evidence.per_model_claims` makes the generated per-model rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

from repcap import RepcapError
from repcap.base.quotes import SOURCES, Quote, pretty, quote, value

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

    def where(self, named: bool = True) -> str:
        """Where in the source the claim stands, after the source's name (``named=False``: without it,
        under a heading that names the source; the name alone where nothing more is known)."""
        name = CLAIM_SOURCES.get(self.source, self.source)
        if self.where_text:
            place = self.where_text
        elif not self.quote_ids:
            return name
        else:
            place = "; ".join(dict.fromkeys(q.where for q in self.quotes))
        return f"{name}, {place}" if named else place

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


__all__ = [
    "CHECK_PROFILES",
    "CLAIM_FIELDS",
    "CLAIM_SOURCES",
    "COMPARES",
    "DERIVES",
    "KINDS",
    "OURS",
    "Claim",
    "check_fmt",
]
