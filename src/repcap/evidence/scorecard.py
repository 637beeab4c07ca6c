"""The findings scorecard: each headline claim of the sources against our number, with a verdict
computed from the two numbers, their uncertainties and the tolerance stated in the claim's row.

Each row has a **kind** (``repcap.evidence.claims.KINDS``): ``arithmetic`` (the source's formula on the
source's inputs), ``re-analysis`` (the source's method on the source's own data) or ``measurement``
(data we computed).  Only measurements can fail for a reason outside the source's own text: the
headline count is theirs, and the other two are listed as consistency checks.  Rows marked
``context`` are shown with their number but are not a claim of the source and leave the counts.

Verdicts (a fixed vocabulary, :data:`VERDICTS`):

* ``reproduced`` -- a range, bound or count claim that our number (and its whole interval) satisfies;
* ``reproduced within X`` -- a point value matched within the row's tolerance (X: our actual
  difference); for ``combined`` rows, within :data:`Z` combined standard errors, ours no less
  precise than the source's;
* ``consistent, not decisive`` -- a ``combined`` row whose numbers agree within :data:`Z` combined
  standard errors while our standard error is larger than the source's: it cannot tell the claim
  from a neighbour of it;
* ``differs: reason`` -- ours (and its whole interval) is outside the tolerance, or more than
  :data:`Z` combined standard errors from the source's;
* ``differs (explained: ...)`` -- outside, for a systematic reason the row states (the claim's
  ``explained``), rather than a tolerance widened to cover it;
* ``inconclusive`` -- the interval of our value (or of the source's, where it has one) reaches both
  sides of the tolerance boundary, or the statistic rests on fewer points than the row needs
  (``min_n``), or this run's data cannot reach what the claim is about; the verdict says what
  would decide it;
* ``not checked in this profile`` -- no number from a profile that checks the claim.

:func:`verdict` is the rule; :func:`evaluate` picks the finding to judge; :func:`write_pages`
writes the scorecard page, the intro's summary and the methods page's list of rows (each claim, what
ours is, its tolerance and why) into ``book/generated/``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.base import io as rio
from repcap.base.quotes import pretty

from .claims import CLAIM_SOURCES, OURS, Claim, claims
from .claims import KINDS as CLAIM_KINDS
from .findings import INTERVAL_KINDS, UNCERTAINTIES

VERDICTS = (
    "reproduced",
    "reproduced within",
    "consistent, not decisive",
    "differs",
    "differs (explained)",
    "inconclusive",
    "not checked in this profile",
)
#: Kept for callers of the earlier name.
KINDS = VERDICTS
#: Which profile's finding speaks for a claim when several do (the fuller run first).
PROFILE_RANK = ("paper", "reference", "quick", "smoke", "interactive")
#: ``combined`` rows: ours and the source's agree when they are at most Z combined standard errors
#: apart, |ours - theirs| <= Z sqrt(se_ours^2 + se_theirs^2): a two-sided test at about the 5% level
#: for normal errors (the conventional choice; it was set after the first numbers had been printed,
#: as Methods says).
Z = 2.0


@dataclass(frozen=True)
class Verdict:
    kind: str  # one of VERDICTS
    text: str  # the verdict as printed

    @property
    def ok(self) -> bool:
        return self.kind in ("reproduced", "reproduced within")


def _fmt(x: float, fmt: str) -> str:
    if fmt == "d":
        return str(int(round(x)))
    return pretty(x, fmt)


def _regions(
    compare: str, value: float | None, low: float | None, high: float | None, tol: float
) -> tuple[tuple[float, float], tuple[float, float], bool]:
    """``(sure, possible, strict)``: the values of ours that pass whatever the source's number is
    within its interval, those that pass for some source value, and whether an open lower end
    (``above`` with no tolerance) is strict."""
    inf = math.inf

    def need(x: float | None) -> float:
        if x is None:
            raise RepcapError(f"compare={compare!r} needs value")
        return x

    if compare in ("abs", "rel", "equal"):
        v = need(value)
        if compare == "rel":
            if v == 0:
                raise RepcapError("compare='rel' needs a non-zero source value")
            tol = tol * abs(v)
        s_lo, s_hi = (low, high) if (low is not None and high is not None and compare != "equal") else (v, v)
        return (s_hi - tol, s_lo + tol), (s_lo - tol, s_hi + tol), False
    if compare == "range":
        if low is None or high is None:
            raise RepcapError(f"compare={compare!r} needs low and high")
        return (low - tol, high + tol), (low - tol, high + tol), False
    if compare == "above":
        v = need(value)
        return (v - tol, inf), (v - tol, inf), tol == 0
    if compare == "below":
        v = need(value)
        return (-inf, v + tol), (-inf, v + tol), False
    raise RepcapError(f"unknown compare {compare!r}; use one of abs, rel, range, above, below, equal, combined")


def _inside(x: float, region: tuple[float, float], strict_low: bool) -> bool:
    lo, hi = region
    return (x > lo if strict_low else x >= lo) and x <= hi


def _combined(
    ours: float,
    value: float | None,
    se: float | None,
    source_se: float | None,
    tol: float,
    fmt: str,
    why: str,
    replicate_sd: float | None = None,
    window_max: float | None = None,
) -> tuple[str, str]:
    """The ``combined`` rule: ``(kind, text)``, on one currency of uncertainty.  ``replicate_sd``
    (ours a mean over seeds): the source's single replicate carries the seed scatter too, so its
    variance is its bar's plus ``replicate_sd``²; without it (ours one fit) both are regression
    standard errors.  A pass window (Z combined standard errors plus the tolerance) wider than the
    row's stated ``window_max`` is never decisive."""
    if value is None or source_se is None:
        raise RepcapError("compare='combined' needs value and source_se (the source's error bar)")
    if se is None or not math.isfinite(se):
        return "inconclusive", "inconclusive: our value has no standard error recorded"
    if replicate_sd is not None and math.isfinite(replicate_sd):
        source_se = math.hypot(source_se, replicate_sd)
    s = math.sqrt(se**2 + source_se**2)
    d = abs(ours - value)
    z = d / s if s > 0 else (0.0 if d == 0 else math.inf)
    zt = f"{z:.1f}" if math.isfinite(z) else "∞"
    if d > Z * s + tol + 1e-12 * max(1.0, abs(value)):  # the boundary is inclusive, up to rounding
        return "differs", f"differs: {zt} combined SEs apart; {why}"
    bare = fmt.replace("+", "")
    if se > max(source_se, tol / Z):
        return (
            "consistent, not decisive",
            f"consistent, not decisive: {zt} combined SEs apart; our SE ({_fmt(se, bare)}) exceeds the "
            f"source's ({_fmt(source_se, bare)})",
        )
    window = Z * s + tol
    if window_max is not None and window > window_max:
        return (
            "consistent, not decisive",
            f"consistent, not decisive: {zt} combined SEs apart, a pass window of ±{_fmt(window, '.2g')} "
            f"(wider than the row's ±{window_max:g})",
        )
    return "reproduced within", f"reproduced within {_fmt(d, '.2g')} ({zt} combined SEs)"


def verdict(
    ours: float | None,
    compare: str,
    *,
    value: float | None = None,
    low: float | None = None,
    high: float | None = None,
    tolerance: float = 0.0,
    fmt: str = ".3g",
    reason: str = "",
    checked_by: Sequence[str] | None = None,
    ours_low: float | None = None,
    ours_high: float | None = None,
    n: int | None = None,
    n_of: str = "points",
    min_n: int = 1,
    explained: str = "",
    decide: str = "",
    undecided: str = "",
    se: float | None = None,
    source_se: float | None = None,
    replicate_sd: float | None = None,
    window_max: float | None = None,
) -> Verdict:
    """The verdict on our number ``ours`` (interval ``ours_low..ours_high``, standard error ``se``,
    from ``n`` points) against the source's ``value`` (or ``low``..``high``; ``source_se``: its
    standard error).

    ``compare``: ``abs`` / ``rel`` (point value within ``tolerance``, relative for ``rel``; a
    source that gives an interval as well as a value is taken at every value of its interval),
    ``range`` (inside ``low - tolerance .. high + tolerance``), ``above`` / ``below``
    (``ours > value - tolerance`` / ``ours < value + tolerance``), ``equal``, ``combined``
    (``|ours - value| <= Z sqrt(se^2 + source_se^2) + tolerance``).  ``ours`` None (or not
    finite): not checked, naming ``checked_by``.
    """
    if ours is None or not math.isfinite(float(ours)):
        who = ", ".join(f"`{p}`" for p in checked_by) if checked_by else ""
        tail = f" (checked by {who})" if who else (" (no profile can check it)" if checked_by is not None else "")
        return Verdict(
            "not checked in this profile", f"not checked in this profile{tail}" + (f": {decide}" if decide else "")
        )
    ours = float(ours)
    tol = abs(float(tolerance))
    why = reason or "outside the stated tolerance"
    then = f"; decided by {decide}" if decide else ""
    if undecided:
        return Verdict("inconclusive", f"inconclusive: {undecided}{then}")
    if n is not None and n < min_n:
        return Verdict("inconclusive", f"inconclusive: rests on {n} {n_of}, and the row needs at least {min_n}{then}")
    if compare == "combined":
        kind, text = _combined(ours, value, se, source_se, tol, fmt, why, replicate_sd, window_max)
        if kind == "differs" and explained:
            return Verdict("differs (explained)", f"differs (explained: {explained})")
        return Verdict(kind, text + (then if kind == "inconclusive" else ""))
    sure, possible, strict = _regions(compare, value, low, high, tol)
    lo = ours if ours_low is None or not math.isfinite(ours_low) else min(ours, float(ours_low))
    hi = ours if ours_high is None or not math.isfinite(ours_high) else max(ours, float(ours_high))
    all_pass = _inside(lo, sure, strict) and _inside(hi, sure, strict) and sure[0] <= sure[1]
    none_pass = hi < possible[0] or lo > possible[1] or (strict and hi <= possible[0])
    if not all_pass and not none_pass:
        span = f"[{_fmt(lo, fmt)}, {_fmt(hi, fmt)}]" if lo != hi else _fmt(ours, fmt)
        src = "the source's interval" if (low is not None and compare in ("abs", "rel")) else "the tolerance"
        return Verdict("inconclusive", f"inconclusive: ours {span} reaches both sides of {src}{then}")
    if none_pass:
        if explained:
            return Verdict("differs (explained)", f"differs (explained: {explained})")
        return Verdict("differs", f"differs: {why}")
    if compare in ("abs", "rel"):
        v = float(value if value is not None else 0.0)
        diff = abs(ours - v)
        if compare == "rel":
            rel = diff / abs(v)
            shown = f"{rel:.2%}" if rel >= 1e-4 else f"{rel:.1e}"
        else:
            shown = format(diff, ".1%") if fmt.endswith("%") else _fmt(diff, ".2g")
        return Verdict("reproduced within", f"reproduced within {shown}")
    return Verdict("reproduced", "reproduced")


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


def _line(c: dict[str, int]) -> str:
    ok = c["reproduced"] + c["reproduced within"]
    parts = [f"{ok} reproduced"]
    if c["consistent, not decisive"]:
        parts.append(f"{c['consistent, not decisive']} consistent but not decisive")
    parts.append(f"{c['differs']} differ")
    if c["differs (explained)"]:
        parts.append(f"{c['differs (explained)']} differ for a stated reason")
    parts += [f"{c['inconclusive']} inconclusive", f"{c['not checked in this profile']} not checked in this profile"]
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------------
# pages


def _sentence(text: str) -> str:
    """``text`` ending in one full stop (a provenance or a note may end in its own)."""
    return text.rstrip().rstrip(".") + "."


def _plain(text: Any) -> str:
    """A string from a finding (a chapter's note, a bundle's provenance) with no roles or code:
    backticks become quotes (HTML is escaped where it is written, :func:`_esc`)."""
    return str(text or "").replace("`", "'")


def _esc(text: str) -> str:
    """No raw HTML: ``&`` and ``<`` as entities."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;")


def _name(x: Any) -> str:
    """A profile, chapter or experiment name from a finding, inside a role or a label: letters,
    digits, ``_`` and ``-`` only."""
    return "".join(ch for ch in str(x) if ch.isalnum() or ch in "_-")[:80] or "?"


def _cell(text: str) -> str:
    """Text for one Markdown cell: no line breaks, pipes escaped, no raw HTML, and a leading ">",
    "#", "-" or "+" escaped so that a value such as "> 0.2" is not read as a block quote, heading or
    list."""
    out = _esc(text).replace("|", "\\|").replace("\n", " ")
    return "\\" + out if out[:1] in (">", "#", "-", "+", "*") else out


def _figure_link(fig: str | None, figures: set[str]) -> str:
    return f"{{numref}}`{fig}`" if fig and fig in figures else ""


def _anchor(cid: str) -> str:
    return "sc-" + "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in cid.lower())


def _profile_cell(f: dict[str, Any] | None) -> str:
    if not f:
        return "no number in this build"
    return f"`{_name(f.get('profile'))}` · {{doc}}`{_name(f.get('chapter'))}`"


class Provenance:
    """Where the numbers of the rows were computed, each source stated once: a bundle experiment's
    sentence under its name, any other provenance text under a number; rows link to them."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[str, str]] = {}  # anchor -> (title, text)

    def add(self, f: dict[str, Any] | None) -> list[str]:
        """The links of one finding's provenance (its experiments, or its provenance text)."""
        if not f:
            return []
        links = []
        exps = f.get("experiments") or {}
        for name, text in exps.items() if isinstance(exps, dict) else []:
            anchor = "prov-" + _name(name).lower()
            self.entries.setdefault(anchor, (_name(name), _plain(text)))
            links.append(f"{{ref}}`{_name(name)} <{anchor}>`")
        prov = _plain(f.get("provenance"))
        if prov and not exps:
            known = {t: a for a, (_, t) in self.entries.items()}
            anchor = known.get(prov) or f"prov-{len(self.entries) + 1}"
            self.entries.setdefault(anchor, (f"P{len(self.entries) + 1}", prov))
            links.append(f"{{ref}}`{self.entries[anchor][0]} <{anchor}>`")
        return links

    def markdown(self) -> list[str]:
        if not self.entries:
            return []
        lines = [
            "## Where the shipped numbers were computed",
            "",
            "Each results-bundle experiment (or other source of a number not computed in this build) once; the rows "
            "link here.",
            "",
        ]
        for anchor, (title, text) in self.entries.items():
            lines += [f"({anchor})=", f"**{_cell(title)}**: {_esc(_sentence(text))}", ""]
        return lines


def _item(lines: list[str], first: str, *rest: str) -> None:
    """One list-table cell: its first line opens the cell, further lines are paragraphs of it."""
    lines.append(f"  - {first}")
    for r in rest:
        if r:
            lines += ["", f"    {r}"]


def _table(lines: list[str], rows: Sequence[Row], figures: set[str], prov: Provenance) -> None:
    lines += [
        ":::{list-table}",
        ":header-rows: 1",
        ":widths: 30 22 24 24",
        ":class: scorecard",
        "",
        "* - claim",
        "  - source's value",
        "  - ours",
        "  - verdict",
    ]
    for r in rows:
        c = r.claim
        status = "" if c.status() == "published" else " (our reading)"
        fig = _figure_link((r.finding or {}).get("figure") or c.figure, figures)
        verdict_text = f"**{r.verdict.text}**" if r.verdict.kind.startswith("differs") else r.verdict.text
        tol = f"tolerance {pretty(c.tolerance, 'g')}" + (" (relative)" if c.compare == "rel" else "")
        links = prov.add(r.finding)
        lines.append(f"* - {{ref}}`{_cell(c.short)} <{_anchor(c.id)}>`")
        lines += ["", f"    *{_cell(c.where())}*" + (f" · {fig}" if fig else "")]
        _item(lines, _cell(c.source_display() + status))
        _item(
            lines,
            _cell(r.ours_text),
            _cell(r.evidence),
            _profile_cell(r.finding) + (" · from " + ", ".join(links) if links else ""),
        )
        _item(lines, _cell(verdict_text), tol)
    lines += [":::", ""]


def scorecard_markdown(rows: Sequence[Row], figures: set[str]) -> str:
    by = counts_by_kind(rows)
    claims_rows = [r for r in rows if not r.claim.context and not _per_model(r)]
    prov = Provenance()
    lines = [
        "(scorecard)=",
        "# Findings scorecard",
        "",
        "Each headline claim of the three sources against a number this book computes, with a verdict **computed** "
        "from the two numbers, their uncertainties and the tolerance stated in the row (`repcap.evidence.scorecard`; rows and "
        "tolerances are data, `data/reference/claims.yaml`; the rules and every tolerance's reason are on the "
        "{ref}`Methods <methods-scorecard>` page). A **measurement** tests a claim on data this book produced; a "
        "**re-analysis** redoes the source's method on its own data and an **arithmetic** check its formula on its "
        "inputs: consistency checks, which cannot test the claim itself. Every number names its uncertainty: a 95% "
        "interval and its statistic, a range over models or cells (a spread, not an uncertainty), one run, or exact.",
        "",
        f"This build, **measurements**: {_line(by['measurement'])}, of {sum(by['measurement'].values())}.",
        "",
        f"Consistency checks: **re-analysis** {_line(by['re-analysis'])}, of {sum(by['re-analysis'].values())}; "
        f"**arithmetic** {_line(by['arithmetic'])}, of {sum(by['arithmetic'].values())}.",
        "",
        f"Per-model rows (Guha's Table 1 and Liu et al.'s LM heads, one per model): {_line(by['per-model'])}, "
        f"of {sum(by['per-model'].values())}.",
        "",
    ]
    if sum(by[OURS].values()):
        lines += [
            f"This book's own findings (no source claims them; measurements, counted apart): {_line(by[OURS])}, "
            f"of {sum(by[OURS].values())}.",
            "",
        ]
    for kind, title in (
        ("measurement", "Measurements"),
        ("re-analysis", "Re-analyses of the sources' own data"),
        ("arithmetic", "Arithmetic checks"),
    ):
        mine = [r for r in claims_rows if r.claim.kind == kind]
        if not mine:
            continue
        lines += [f"## {title}", ""]
        for src, name in CLAIM_SOURCES.items():
            sub = [r for r in mine if r.claim.source == src]
            if sub:
                lines += [f"### {name}", ""]
                if src == OURS:
                    lines += [
                        "Findings of this book that no source claims (the achievable frontier: explicit codes against "
                        "the capacity law and the bounds). They are ours, and the summary counts them apart from the "
                        "sources' claims.",
                        "",
                    ]
                _table(lines, sub, figures, prov)
    ctx = [r for r in rows if r.claim.context]
    if ctx:
        lines += [
            "## Context notes",
            "",
            "Numbers shown next to a source's claim that are not the claim: another quantity or population, our own "
            "hypothesis about a source's data, or an implementation check. Shown, not counted.",
            "",
        ]
        _table(lines, ctx, figures, prov)
    per = [r for r in rows if _per_model(r)]
    if per:
        shown = [r for r in per if r.finding is not None and r.finding.get("value") is not None]
        lines += [
            "## One row per model",
            "",
            f"Guha's Table 1 ε of each of his 45 models and Liu et al.'s Fig. 8a overlap of each of their 27 LM heads "
            f"({len(per)} rows) need the models from the hub: the `paper` profile checks them. "
            + (f"{len(shown)} have a number in this build:" if shown else "This build has a number for none of them."),
            "",
        ]
        if shown:
            lines += ["| row | source's value | ours | verdict |", "|---|---|---|---|"]
            for r in shown:
                lines.append(
                    "| "
                    + " | ".join(
                        _cell(x) for x in (r.claim.short, r.claim.source_display(), r.ours_text, r.verdict.text)
                    )
                    + f" {{ref}}`def <{_anchor(r.claim.id)}>` |"
                )
            lines.append("")
    lines += [
        "## What each row measures",
        "",
        "Each row's claim as the source states it, what our number is, its comparison, tolerance and why, and this "
        "build's note on it are listed on the {ref}`Methods <methods-rows>` page; every claim above links to its entry.",
        "",
    ]
    lines += prov.markdown()
    return "\n".join(lines) + "\n"


def _names(rows: Sequence[Row], limit: int = 8) -> str:
    names = [r.claim.short for r in rows]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def summary_markdown(rows: Sequence[Row]) -> str:
    """The intro's five plain lines: what is checked, what holds, what does not, what is undecided,
    what the book adds."""
    ours = [r for r in rows if not r.claim.context and r.claim.source == OURS]
    main = [
        r for r in rows if not r.claim.context and not _per_model(r) and r.claim.source != OURS and not _uncheckable(r)
    ]
    meas = [r for r in main if r.claim.kind == "measurement"]
    cons = [r for r in main if r.claim.kind != "measurement"]
    holds = [r for r in meas if r.verdict.ok]
    weak = [r for r in meas if r.verdict.kind == "consistent, not decisive"]
    bad = [r for r in meas if r.verdict.kind.startswith("differs")]
    undecided = [r for r in meas if r.verdict.kind == "inconclusive"]
    waiting = [r for r in meas if r.verdict.kind == "not checked in this profile"]
    cons_ok = [r for r in cons if r.verdict.ok]
    cons_bad = [r for r in cons if r.verdict.kind.startswith("differs")]
    cons_und = [r for r in cons if r.verdict.kind == "inconclusive"]
    n_ar = sum(r.claim.kind == "arithmetic" for r in main)
    n_re = sum(r.claim.kind == "re-analysis" for r in main)
    lines = [
        f"1. **What is checked.** {len(main)} headline claims of the three sources, each against a number this book "
        f"computes: {len(meas)} are measurements on data we produced; {n_re} redo a source's fit on its own data and "
        f"{n_ar} redo its arithmetic (consistency checks, which cannot test the claim itself).",
        f"2. **What holds.** {len(holds)} of the {len(meas)} measurements reproduce"
        + (f": {_names(holds)}" if holds else "")
        + (
            f"; {len(weak)} agree only within our wider uncertainty, which cannot decide them ({_names(weak)})."
            if weak
            else "."
        ),
        f"3. **What does not.** {len(bad)} of them differ"
        + (
            ": "
            + "; ".join(
                r.claim.short + (" (for a known reason)" if r.verdict.kind == "differs (explained)" else "")
                for r in bad[:8]
            )
            + ("; and more on the scorecard." if len(bad) > 8 else ".")
            if bad
            else "."
        )
        + f" Of the {len(cons)} consistency checks, {len(cons_ok)} agree with the source"
        + (f"; {len(cons_bad)} do not ({_names(cons_bad)})" if cons_bad else "")
        + (f"; {len(cons_und)} are inconclusive ({_names(cons_und)})" if cons_und else "")
        + ".",
        f"4. **What is undecided.** {_count(len(undecided), 'measurement is', 'measurements are')} inconclusive here, "
        "the evidence too thin to decide"
        + (f" ({_names(undecided)})" if undecided else "")
        + f"; {_count(len(waiting), 'needs', 'need')} the sources' scale or data, which a larger profile runs"
        + (f" ({_names(waiting)})." if waiting else "."),
        "5. **What this book adds.** The sources' stored data refitted with one code, rigorous spherical-code bounds "
        "and explicit codes next to every fitted law, the kind of uncertainty named behind every measured verdict "
        "(a 95% interval and its statistic, a range over models or cells, one run, or exact), and the data of every "
        "figure; see the {ref}`scorecard <scorecard>`."
        + (
            f" Its own findings, which no source claims, are {len(ours)} further rows: "
            f"{sum(r.verdict.ok for r in ours)} hold"
            + (f" ({_names([r for r in ours if r.verdict.ok])})" if any(r.verdict.ok for r in ours) else "")
            + f", {sum(r.verdict.kind.startswith('differs') for r in ours)} do not"
            + (
                f" ({_names([r for r in ours if r.verdict.kind.startswith('differs')])})"
                if any(r.verdict.kind.startswith("differs") for r in ours)
                else ""
            )
            + "."
            if ours
            else ""
        ),
    ]
    return "\n".join(lines) + "\n"


def rows_markdown(rows: Sequence[Row]) -> str:
    """The methods page's list of rows: each claim as the source states it, its kind, comparison,
    tolerance and why, the profiles that check it, what our number is, and this build's note on it
    (each under the label the scorecard's rows link to)."""
    lines: list[str] = []
    for r in rows:
        c = r.claim
        if _per_model(r) and (r.finding is None or r.finding.get("value") is None):
            continue
        by = "every profile" if c.checked_by is None else (", ".join(f"`{p}`" for p in c.checked_by) or "none")
        note = _plain((r.finding or {}).get("note"))
        tol = f"{c.compare}, tolerance {c.tolerance:g}" + (" (relative)" if c.compare == "rel" else "")
        lines += [
            f"({_anchor(c.id)})=",
            f"**{_cell(c.id)}** ({c.kind}{', context' if c.context else ''}; {tol}; checked by {by}). "
            f"{_esc(c.claim)} *Ours:* {_esc(_sentence(c.ours))} *Tolerance:* {_esc(_sentence(c.tolerance_why))}"
            + (f" *This build:* {_esc(_sentence(note))}" if note else ""),
            "",
        ]
    lines += [
        "The per-model rows (one per model of Guha's Table 1 and of Liu et al.'s 27 heads, checked by `paper`) take "
        "their tolerance from Guha's bf16 rounding (1e-3 for Class 1, 3e-4 for Class 2) and from the spread of each "
        "family's points in Fig. 8a.",
    ]
    return "\n".join(lines) + "\n"


def write_pages(generated: Path | None = None) -> list[Path]:
    """Write ``scorecard.md``, ``scorecard_summary.md`` and ``scorecard_rows.md`` (the methods page's
    list of rows) from the findings committed to ``<generated>/findings`` and the figures in
    ``<generated>/figures``."""
    from repcap.base.paths import generated_dir

    from .findings import load_all

    gen = generated or generated_dir()
    rows = evaluate_all(load_all(gen / "findings"))
    figures = {p.stem for p in (gen / "figures").glob("fig-*.json")} if (gen / "figures").is_dir() else set()
    out = []
    for name, text in (
        ("scorecard.md", scorecard_markdown(rows, figures)),
        ("scorecard_summary.md", summary_markdown(rows)),
        ("scorecard_rows.md", rows_markdown(rows)),
    ):
        rio.write_text(gen / name, text)
        out.append(gen / name)
    return out


__all__ = [
    "INTERVAL_KINDS",
    "KINDS",
    "PROFILE_RANK",
    "VERDICTS",
    "Provenance",
    "Row",
    "Verdict",
    "Z",
    "counts",
    "counts_by_kind",
    "evaluate",
    "evaluate_all",
    "evidence_text",
    "rows_markdown",
    "scorecard_markdown",
    "summary_markdown",
    "uncertainty_kind",
    "verdict",
    "write_pages",
]
