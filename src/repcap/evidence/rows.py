"""The scorecard's judged rows: each claim (:mod:`repcap.evidence.claims`) with the finding that
speaks for it (:mod:`repcap.evidence.findings`) and the verdict on the two
(:mod:`repcap.evidence.verdicts`), and the counts the pages print.

:func:`evaluate` picks the finding to judge: the one of the highest-ranked profile
(:data:`PROFILE_RANK`) that checks the claim; :func:`counts_by_kind` counts the verdicts per claim
kind, with the per-model rows and this book's own findings apart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cells import _plain
from .claims import KINDS as CLAIM_KINDS
from .claims import OURS, Claim, claims
from .findings import UNCERTAINTIES
from .verdicts import VERDICTS, Verdict, _fmt, verdict

#: Which profile's finding speaks for a claim when several do (the fuller run first).
PROFILE_RANK = ("paper", "reference", "quick", "smoke", "interactive")


def _rank(profile: str) -> int:
    return PROFILE_RANK.index(profile) if profile in PROFILE_RANK else len(PROFILE_RANK)


def _num(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def uncertainty_kind(f: dict[str, Any]) -> str | None:
    """The kind of a finding's uncertainty (:data:`repcap.evidence.findings.UNCERTAINTIES`), reading a record
    written before ``interval`` existed by its ``exact`` flag."""
    kind = f.get("interval")
    if kind in UNCERTAINTIES:
        return str(kind)
    return "deterministic" if f.get("exact") else None


def evidence_text(f: dict[str, Any] | None, fmt: str = ".3g") -> str:
    """Our number's uncertainty, named: ``95% interval (t, 3 seeds) [a, b]``, ``range over 9 cells
    [a, b]``, ``one run``, ``exact (closed form)``, ``exact (no sampling, 6 decoders)``; a record that
    does not say prints ``uncertainty not stated``."""
    if f is None or f.get("value") is None:
        return ""
    kind = uncertainty_kind(f)
    n = f.get("n")
    of = f.get("n_of") or "points"
    count = f"{int(n)} {of}" if isinstance(n, (int, float)) and not isinstance(n, bool) else ""
    lo, hi = _num(f.get("low")), _num(f.get("high"))
    span = f" [{_fmt(lo, fmt)}, {_fmt(hi, fmt)}]" if lo is not None and hi is not None else ""
    se = _num(f.get("se"))
    se_text = f", standard error {_fmt(se, fmt.replace('+', ''))}" if se is not None else ""
    if kind in ("t", "fisher", "fit"):
        return f"{UNCERTAINTIES[kind]}{', ' + count if count else ''}){span}{se_text}"
    if kind == "range":
        return f"range over {count or 'the set'}{span}"
    if kind == "one run":
        return "one run" + (f" ({count})" if count else "")
    if kind == "deterministic":
        return f"exact (no sampling{', ' + count if count else ''})"
    if kind == "closed form":
        return "exact (closed form)"
    return ("interval of unstated kind" + span) if span else "uncertainty not stated"


@dataclass(frozen=True)
class Row:
    """A judged claim: the claim, the finding that speaks for it (or None) and the verdict."""

    claim: Claim
    finding: dict[str, Any] | None
    verdict: Verdict

    @property
    def ours_text(self) -> str:
        f = self.finding
        if f is None or f.get("value") is None:
            return "—"
        return _fmt(float(f["value"]), self.claim.fmt)

    @property
    def evidence(self) -> str:
        """Our number's uncertainty by name (:func:`evidence_text`)."""
        return evidence_text(self.finding, self.claim.fmt)


def evaluate(claim: Claim, findings: Sequence[dict[str, Any]]) -> Row:
    """Judge ``claim`` on the findings recorded for it: the finding of the highest-ranked profile
    that checks the claim decides; without one, the best other finding is shown, not judged."""
    mine = [f for f in findings if f.get("claim") == claim.id]
    mine.sort(key=lambda f: (_rank(str(f.get("profile"))), f.get("value") is None))
    checks = [
        f
        for f in mine
        if f.get("value") is not None and (claim.checked_by is None or f.get("profile") in claim.checked_by)
    ]
    if checks:
        f = checks[0]
        value, low, high = claim.source_value()
        n = f.get("n")
        v = verdict(
            f["value"],
            claim.compare,
            value=value,
            low=low,
            high=high,
            tolerance=claim.tolerance,
            fmt=claim.fmt,
            reason=_plain(f.get("note")) or claim.if_differs,
            ours_low=_num(f.get("low")),
            ours_high=_num(f.get("high")),
            n=int(n) if isinstance(n, (int, float)) and not isinstance(n, bool) else None,
            n_of=str(f.get("n_of") or "points"),
            min_n=claim.min_n,
            explained=claim.explained,
            decide=claim.decide,
            undecided=_plain(f.get("undecided")),
            se=_num(f.get("se")),
            source_se=claim.source_se(),
            replicate_sd=_num(f.get("replicate_sd")),
            window_max=claim.window,
        )
        return Row(claim, f, v)
    shown = next((f for f in mine if f.get("value") is not None), mine[0] if mine else None)
    return Row(claim, shown, verdict(None, claim.compare, checked_by=claim.checked_by, decide=claim.decide))


def evaluate_all(findings: Sequence[dict[str, Any]]) -> list[Row]:
    return [evaluate(c, findings) for c in claims().values()]


def _per_model(r: Row) -> bool:
    return r.claim.id.startswith(("guha-table1-eps-", "liu-head-overlap-"))


def counts(rows: Sequence[Row]) -> dict[str, int]:
    """Verdicts of the rows that are claims (context notes left out)."""
    out = dict.fromkeys(VERDICTS, 0)
    for r in rows:
        if not r.claim.context and not _uncheckable(r):
            out[r.verdict.kind] += 1
    return out


def _uncheckable(r: Row) -> bool:
    """A row no profile can check (``checked_by: []``): listed, but in no count's denominator."""
    return r.claim.checked_by == ()


def counts_by_kind(rows: Sequence[Row]) -> dict[str, dict[str, int]]:
    """:func:`counts` per claim kind (arithmetic, re-analysis, measurement), per-model rows apart
    (``per-model``) and this book's own findings apart (``ours``)."""
    out: dict[str, dict[str, int]] = {}
    for k in (*CLAIM_KINDS, "per-model", OURS):
        out[k] = counts([r for r in rows if _bucket(r) == k])
    return out


def _bucket(r: Row) -> str:
    """The count a row joins: its kind, ``per-model``, or ``ours`` (this book's own findings)."""
    if _per_model(r):
        return "per-model"
    return OURS if r.claim.source == OURS else r.claim.kind


__all__ = [
    "PROFILE_RANK",
    "Row",
    "counts",
    "counts_by_kind",
    "evaluate",
    "evaluate_all",
    "evidence_text",
    "uncertainty_kind",
]
