"""The findings scorecard: each headline claim of the sources against our number, with a verdict
computed from the two numbers and the tolerance stated in the claim's row.

Verdicts (a fixed vocabulary):

* ``reproduced`` -- a range, bound or count claim that our number satisfies;
* ``reproduced within X`` -- a point value matched within the row's tolerance; X is our actual
  difference (absolute, or relative for ``rel`` rows);
* ``differs: reason`` -- outside the tolerance; the reason is the claim row's ``if_differs`` (or the
  chapter's note for this run);
* ``not checked in this profile`` -- no number from a profile that checks the claim (the verdict
  names those profiles).

:func:`verdict` is the rule; :func:`evaluate` picks the finding to judge;
:func:`write_pages` writes the scorecard page, the intro's summary and the methods page's
tolerance table into ``book/generated/``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import RepcapError
from . import io as rio
from .reference import SOURCES, Claim, claims, pretty

KINDS = ("reproduced", "reproduced within", "differs", "not checked in this profile")
#: Which profile's finding speaks for a claim when several do (the fuller run first).
PROFILE_RANK = ("paper", "reference", "quick", "smoke", "interactive")


@dataclass(frozen=True)
class Verdict:
    kind: str  # one of KINDS
    text: str  # the verdict as printed

    @property
    def ok(self) -> bool:
        return self.kind in ("reproduced", "reproduced within")


def _fmt(x: float, fmt: str) -> str:
    from .reference import pretty

    if fmt == "d":
        return str(int(round(x)))
    return pretty(x, fmt)


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
) -> Verdict:
    """The verdict on our number ``ours`` against the source's ``value`` (or ``low``..``high``).

    ``compare``: ``abs`` / ``rel`` (point value within ``tolerance``, relative for ``rel``),
    ``range`` (inside ``low - tolerance .. high + tolerance``), ``above`` / ``below``
    (``ours > value - tolerance`` / ``ours < value + tolerance``), ``equal``.  ``ours`` None (or
    not finite): not checked, naming ``checked_by``.
    """
    if ours is None or not math.isfinite(float(ours)):
        who = ", ".join(f"`{p}`" for p in checked_by) if checked_by else ""
        tail = f" (checked by {who})" if who else (" (no profile can check it)" if checked_by is not None else "")
        return Verdict("not checked in this profile", f"not checked in this profile{tail}")
    ours = float(ours)
    tol = abs(float(tolerance))
    why = reason or "outside the stated tolerance"

    def need(x: float | None) -> float:
        if x is None:
            raise RepcapError(f"compare={compare!r} needs value")
        return x

    if compare in ("abs", "rel"):
        v = need(value)
        diff = abs(ours - v)
        if compare == "rel":
            if v == 0:
                raise RepcapError("compare='rel' needs a non-zero source value")
            rel = diff / abs(v)
            ok, shown = rel <= tol, f"{rel:.2%}" if rel >= 1e-4 else f"{rel:.1e}"
        else:
            ok, shown = diff <= tol, (format(diff, ".1%") if fmt.endswith("%") else _fmt(diff, ".2g"))
        return (
            Verdict("reproduced within", f"reproduced within {shown}") if ok else Verdict("differs", f"differs: {why}")
        )
    if compare == "range":
        if low is None or high is None:
            raise RepcapError(f"compare={compare!r} needs low and high")
        ok = low - tol <= ours <= high + tol
    elif compare == "above":
        v = need(value)
        ok = ours > v - tol if tol else ours > v
    elif compare == "below":
        v = need(value)
        ok = ours < v + tol if tol else ours <= v
    elif compare == "equal":
        v = need(value)
        ok = abs(ours - v) <= tol
    else:
        raise RepcapError(f"unknown compare {compare!r}; use one of abs, rel, range, above, below, equal")
    return Verdict("reproduced", "reproduced") if ok else Verdict("differs", f"differs: {why}")


def _rank(profile: str) -> int:
    return PROFILE_RANK.index(profile) if profile in PROFILE_RANK else len(PROFILE_RANK)


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
        v = verdict(
            f["value"],
            claim.compare,
            value=value,
            low=low,
            high=high,
            tolerance=claim.tolerance,
            fmt=claim.fmt,
            reason=f.get("note") or claim.if_differs,
        )
        return Row(claim, f, v)
    shown = next((f for f in mine if f.get("value") is not None), mine[0] if mine else None)
    return Row(claim, shown, verdict(None, claim.compare, checked_by=claim.checked_by))


def evaluate_all(findings: Sequence[dict[str, Any]]) -> list[Row]:
    return [evaluate(c, findings) for c in claims().values()]


def counts(rows: Sequence[Row]) -> dict[str, int]:
    out = dict.fromkeys(KINDS, 0)
    for r in rows:
        out[r.verdict.kind] += 1
    return out


# ---------------------------------------------------------------------------------------------
# pages


def _cell(text: str) -> str:
    """Text for one Markdown cell: no line breaks, pipes escaped, and a leading ">", "#", "-" or "+"
    escaped so that a value such as "> 0.2" is not read as a block quote, heading or list."""
    out = str(text).replace("|", "\\|").replace("\n", " ")
    return "\\" + out if out[:1] in (">", "#", "-", "+", "*") else out


def _figure_link(fig: str | None, figures: set[str]) -> str:
    return f"{{numref}}`{fig}`" if fig and fig in figures else ""


def _profile_cell(f: dict[str, Any] | None) -> str:
    if not f:
        return "no number in this build"
    prov = f" ({f['provenance']})" if f.get("provenance") else ""
    return f"`{f.get('profile')}` · {{doc}}`{f.get('chapter')}`{prov}"


def _item(lines: list[str], first: str, *rest: str) -> None:
    """One list-table cell: its first line opens the cell, further lines are paragraphs of it."""
    lines.append(f"  - {first}")
    for r in rest:
        if r:
            lines += ["", f"    {r}"]


def scorecard_markdown(rows: Sequence[Row], figures: set[str]) -> str:
    n = counts(rows)
    lines = [
        "(scorecard)=",
        "# Findings scorecard",
        "",
        "Each headline claim of the three sources, the source's number and where it stands, our number and "
        "the profile and chapter that produced it, and a verdict **computed** from the two numbers and the "
        "tolerance stated in the row (`repcap.scorecard`; the rows and tolerances are data, "
        "`data/reference/claims.yaml`, and the rules are on the {ref}`Methods <methods-scorecard>` page). "
        "A claim that needs the sources' scale says *not checked in this profile* and names the profile "
        "that checks it; the number this build did compute is still shown.",
        "",
        f"This build: **{n['reproduced'] + n['reproduced within']}** reproduced "
        f"({n['reproduced within']} of them within a stated tolerance), **{n['differs']}** differ, "
        f"**{n['not checked in this profile']}** not checked in this profile, of {len(rows)} claims.",
        "",
    ]
    for src, name in SOURCES.items():
        mine = [r for r in rows if r.claim.source == src]
        if not mine:
            continue
        lines += [
            f"## {name}",
            "",
            ":::{list-table}",
            ":header-rows: 1",
            ":widths: 40 20 18 22",
            ":class: scorecard",
            "",
            "* - claim",
            "  - source's value",
            "  - ours",
            "  - verdict",
        ]
        for r in mine:
            c = r.claim
            status = "" if c.status() == "published" else " (our reading of the source)"
            fig = _figure_link((r.finding or {}).get("figure") or c.figure, figures)
            verdict_text = f"**{r.verdict.text}**" if r.verdict.kind == "differs" else r.verdict.text
            tol = f"tolerance {pretty(c.tolerance, 'g')}" + (" (relative)" if c.compare == "rel" else "")
            lines.append(f"* - {_cell(c.claim)}")
            lines += ["", f"    *{_cell(c.where())}*" + (f" · {fig}" if fig else "")]
            _item(lines, _cell(c.source_display() + status))
            _item(lines, _cell(r.ours_text), _profile_cell(r.finding))
            _item(lines, verdict_text, tol)
        lines += [":::", ""]
    lines += ["What *ours* measures, row by row:", ""]
    for r in rows:
        lines.append(f"- **{_cell(r.claim.id)}**: {r.claim.ours}.")
    return "\n".join(lines) + "\n"


def summary_markdown(rows: Sequence[Row]) -> str:
    """The intro's paragraph: the counts, every claim that does not survive the check, and what is
    left to the profiles that run the sources' scale."""
    n = counts(rows)
    ok = n["reproduced"] + n["reproduced within"]
    out = [
        f"Of the {len(rows)} headline claims on the {{ref}}`scorecard <scorecard>`, this build reproduces "
        f"**{ok}** and finds **{n['differs']}** that differ; **{n['not checked in this profile']}** need the "
        "sources' scale or data and are not checked by this profile."
    ]
    bad = [r for r in rows if r.verdict.kind == "differs"]
    if bad:
        out.append(" What does not survive the check here:\n")
        out += [
            f"\n- {SOURCES[r.claim.source]}, {r.claim.short}: ours {r.ours_text} "
            f"(`{r.finding.get('profile') if r.finding else '?'}`), source {r.claim.source_display()}; "
            f"{r.verdict.text}."
            for r in bad
        ]
        out.append("\n")
    else:
        out.append(" Every claim checked in this profile survives.")
    waiting: dict[str, list[str]] = {}
    for r in rows:
        if r.verdict.kind == "not checked in this profile":
            who = ", ".join(f"`{p}`" for p in (r.claim.checked_by or ())) or "no profile can: its data are not public"
            waiting.setdefault(who, []).append(r.claim.short)
    if waiting:
        out.append(
            "\n\nNot checked here: "
            + "; ".join(
                f"{', '.join(v)} (checked by {k})" if k[0] == "`" else f"{', '.join(v)} ({k})"
                for k, v in waiting.items()
            )
            + "."
        )
    return "".join(out) + "\n"


def tolerances_markdown() -> str:
    """The methods page's table: each claim's comparison, tolerance and why."""
    lines = ["| claim | comparison | tolerance | why this tolerance | checked by |", "|---|---|---|---|---|"]
    for c in claims().values():
        by = "every profile" if c.checked_by is None else (", ".join(c.checked_by) or "none")
        lines.append(
            "| " + " | ".join(_cell(x) for x in (c.id, c.compare, f"{c.tolerance:g}", c.tolerance_why, by)) + " |"
        )
    return "\n".join(lines) + "\n"


def write_pages(generated: Path | None = None) -> list[Path]:
    """Write ``scorecard.md``, ``scorecard_summary.md`` and ``scorecard_tolerances.md`` from the
    findings committed to ``<generated>/findings`` and the figures in ``<generated>/figures``."""
    from .findings import load_all
    from .paths import generated_dir

    gen = generated or generated_dir()
    rows = evaluate_all(load_all(gen / "findings"))
    figures = {p.stem for p in (gen / "figures").glob("fig-*.json")} if (gen / "figures").is_dir() else set()
    out = []
    for name, text in (
        ("scorecard.md", scorecard_markdown(rows, figures)),
        ("scorecard_summary.md", summary_markdown(rows)),
        ("scorecard_tolerances.md", tolerances_markdown()),
    ):
        rio.write_text(gen / name, text)
        out.append(gen / name)
    return out
