"""The scorecard's pages in MyST Markdown, from the judged rows (:mod:`repcap.evidence.rows`): the
scorecard itself (:func:`scorecard_markdown`), the intro's five-line summary
(:func:`summary_markdown`) and the methods page's list of rows (:func:`rows_markdown`).
:func:`repcap.evidence.scorecard.write_pages` writes them into ``book/generated/``."""

from __future__ import annotations

from collections.abc import Sequence

from repcap.base.quotes import pretty

from .cells import (
    Provenance,
    _anchor,
    _cell,
    _esc,
    _figure_link,
    _item,
    _plain,
    _profile_cell,
    _sentence,
)
from .claims import CLAIM_SOURCES, OURS
from .rows import Row, _per_model, _uncheckable, counts_by_kind

#: The scorecard's sections of claims, by the claims' kind.
_SECTIONS = (
    ("measurement", "Measurements"),
    ("re-analysis", "Re-analyses of the sources' own data"),
    ("arithmetic", "Arithmetic checks"),
)


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


def _table(lines: list[str], rows: Sequence[Row], figures: set[str], prov: Provenance, named: bool = True) -> None:
    """One table of rows; ``named=False`` under a heading that names their source (not repeated per row)."""
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
        lines += ["", f"    *{_cell(c.where(named))}*" + (f" · {fig}" if fig else "")]
        _item(lines, _cell(c.source_display() + status))
        _item(
            lines,
            _cell(r.ours_text),
            _cell(r.evidence),
            _profile_cell(r.finding) + (" · from " + ", ".join(links) if links else ""),
        )
        _item(lines, _cell(verdict_text), tol)
    lines += [":::", ""]


def _scorecard_head(by: dict[str, dict[str, int]]) -> list[str]:
    """The page's title, what it shows, and this build's counts by kind."""
    lines = [
        "(scorecard)=",
        "# Findings scorecard",
        "",
        "Each headline claim of the three sources against a number this book computes, with a verdict **computed** "
        "from the two numbers, their uncertainties and the row's tolerance (`repcap.evidence.scorecard`; rows: "
        "`data/reference/claims.yaml`; the rules and each tolerance's reason: {ref}`Methods <methods-scorecard>`). A "
        "**measurement** tests a claim on our data; a **re-analysis** (the source's method on its data) and an "
        "**arithmetic** check (its formula on its inputs) are consistency checks, which cannot test the claim. Every "
        "number names its uncertainty: a 95% interval and its statistic, a range over models or cells (a spread), one "
        "run, or exact.",
        "",
        f"This build, **measurements**: {_line(by['measurement'])}, of {sum(by['measurement'].values())}.",
        "",
        f"Consistency checks: **re-analysis** {_line(by['re-analysis'])}, of {sum(by['re-analysis'].values())}; "
        f"**arithmetic** {_line(by['arithmetic'])}, of {sum(by['arithmetic'].values())}.",
        "",
        f"Per-model rows (Guha's Table 1, Liu et al.'s LM heads): {_line(by['per-model'])}, "
        f"of {sum(by['per-model'].values())}.",
        "",
    ]
    if sum(by[OURS].values()):
        lines += [
            f"This book's own findings (measurements no source claims, counted apart): {_line(by[OURS])}, "
            f"of {sum(by[OURS].values())}.",
            "",
        ]
    return lines


def _claim_sections(lines: list[str], rows: Sequence[Row], figures: set[str], prov: Provenance) -> None:
    """One section per kind of claim (:data:`_SECTIONS`), one table per source in it."""
    for kind, title in _SECTIONS:
        mine = [r for r in rows if r.claim.kind == kind]
        if not mine:
            continue
        lines += [f"## {title}", ""]
        for src, name in CLAIM_SOURCES.items():
            sub = [r for r in mine if r.claim.source == src]
            if sub:
                lines += [f"### {name}", ""]
                if src == OURS:
                    lines += [
                        "Ours, claimed by no source (the achievable frontier: explicit codes against the capacity law "
                        "and the bounds), and counted apart from the sources' claims.",
                        "",
                    ]
                _table(lines, sub, figures, prov, named=False)


def _context_section(lines: list[str], ctx: Sequence[Row], figures: set[str], prov: Provenance) -> None:
    """The context notes: shown next to a claim, not counted."""
    if not ctx:
        return
    lines += [
        "## Context notes",
        "",
        "Numbers beside a source's claim that are not the claim (another quantity or population, our hypothesis "
        "about a source's data, an implementation check): shown, not counted.",
        "",
    ]
    _table(lines, ctx, figures, prov)


def _per_model_section(lines: list[str], per: Sequence[Row]) -> None:
    """The per-model rows: one short table of those with a number in this build."""
    if not per:
        return
    shown = [r for r in per if r.finding is not None and r.finding.get("value") is not None]
    lines += [
        "## One row per model",
        "",
        f"The {len(per)} rows of Guha's Table 1 ε (45 models) and Liu et al.'s Fig. 8a overlaps (27 LM heads) need "
        "the hub's models: the `paper` profile checks them. "
        + (f"{len(shown)} have a number in this build:" if shown else "None has a number in this build."),
        "",
    ]
    if not shown:
        return
    lines += ["| row | source's value | ours | verdict |", "|---|---|---|---|"]
    for r in shown:
        lines.append(
            "| "
            + " | ".join(_cell(x) for x in (r.claim.short, r.claim.source_display(), r.ours_text, r.verdict.text))
            + f" {{ref}}`def <{_anchor(r.claim.id)}>` |"
        )
    lines.append("")


def scorecard_markdown(rows: Sequence[Row], figures: set[str]) -> str:
    """The scorecard page: the counts, the claims by kind and source, the context notes, the
    per-model rows and where the shipped numbers were computed (``figures``: the figure labels this
    build has, which the rows link to)."""
    prov = Provenance()
    lines = _scorecard_head(counts_by_kind(rows))
    _claim_sections(lines, [r for r in rows if not r.claim.context and not _per_model(r)], figures, prov)
    _context_section(lines, [r for r in rows if r.claim.context], figures, prov)
    _per_model_section(lines, [r for r in rows if _per_model(r)])
    lines += [
        "## What each row measures",
        "",
        "Each row's claim as the source states it, our number, the comparison, the tolerance and why, and this build's "
        "note: the {ref}`Methods <methods-rows>` page, where each claim above links.",
        "",
    ]
    lines += prov.markdown()
    return "\n".join(lines) + "\n"


def _names(rows: Sequence[Row], limit: int = 8) -> str:
    names = [r.claim.short for r in rows]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _of_kind(rows: Sequence[Row], kind: str) -> list[Row]:
    return [r for r in rows if r.verdict.kind == kind]


def _differing(rows: Sequence[Row]) -> list[Row]:
    return [r for r in rows if r.verdict.kind.startswith("differs")]


def _what_holds(meas: Sequence[Row]) -> str:
    holds = [r for r in meas if r.verdict.ok]
    weak = _of_kind(meas, "consistent, not decisive")
    return (
        f"2. **What holds.** {len(holds)} of the {len(meas)} measurements reproduce"
        + (f": {_names(holds)}" if holds else "")
        + (
            f"; {len(weak)} agree only within our wider uncertainty, which cannot decide them ({_names(weak)})."
            if weak
            else "."
        )
    )


def _what_does_not(meas: Sequence[Row], cons: Sequence[Row]) -> str:
    bad = _differing(meas)
    cons_ok = [r for r in cons if r.verdict.ok]
    cons_bad = _differing(cons)
    cons_und = _of_kind(cons, "inconclusive")
    named = "; ".join(
        r.claim.short + (" (for a known reason)" if r.verdict.kind == "differs (explained)" else "") for r in bad[:8]
    )
    return (
        f"3. **What does not.** {len(bad)} of them differ"
        + (": " + named + ("; and more on the scorecard." if len(bad) > 8 else ".") if bad else ".")
        + f" Of the {len(cons)} consistency checks, {len(cons_ok)} agree with the source"
        + (f"; {len(cons_bad)} do not ({_names(cons_bad)})" if cons_bad else "")
        + (f"; {len(cons_und)} are inconclusive ({_names(cons_und)})" if cons_und else "")
        + "."
    )


def _what_is_undecided(meas: Sequence[Row]) -> str:
    undecided = _of_kind(meas, "inconclusive")
    waiting = _of_kind(meas, "not checked in this profile")
    return (
        f"4. **What is undecided.** {_count(len(undecided), 'measurement is', 'measurements are')} inconclusive here, "
        "the evidence too thin to decide"
        + (f" ({_names(undecided)})" if undecided else "")
        + f"; {_count(len(waiting), 'needs', 'need')} the sources' scale or data, which a larger profile runs"
        + (f" ({_names(waiting)})." if waiting else ".")
    )


def _what_the_book_adds(ours: Sequence[Row]) -> str:
    held, off = [r for r in ours if r.verdict.ok], _differing(ours)
    own = (
        f" Its own findings, which no source claims, are {len(ours)} further rows: {len(held)} hold"
        + (f" ({_names(held)})" if held else "")
        + f", {len(off)} do not"
        + (f" ({_names(off)})" if off else "")
        + "."
    )
    return (
        "5. **What this book adds.** The sources' stored data refitted with one code, rigorous spherical-code bounds "
        "and explicit codes next to every fitted law, the kind of uncertainty named behind every measured verdict "
        "(a 95% interval and its statistic, a range over models or cells, one run, or exact), and the data of every "
        "figure; see the {ref}`scorecard <scorecard>`." + (own if ours else "")
    )


def summary_markdown(rows: Sequence[Row]) -> str:
    """The intro's five plain lines: what is checked, what holds, what does not, what is undecided,
    what the book adds."""
    ours = [r for r in rows if not r.claim.context and r.claim.source == OURS]
    main = [
        r for r in rows if not r.claim.context and not _per_model(r) and r.claim.source != OURS and not _uncheckable(r)
    ]
    meas = [r for r in main if r.claim.kind == "measurement"]
    cons = [r for r in main if r.claim.kind != "measurement"]
    n_ar = sum(r.claim.kind == "arithmetic" for r in main)
    n_re = sum(r.claim.kind == "re-analysis" for r in main)
    lines = [
        f"1. **What is checked.** {len(main)} headline claims of the three sources, each against a number this book "
        f"computes: {len(meas)} are measurements on data we produced; {n_re} redo a source's fit on its own data and "
        f"{n_ar} redo its arithmetic (consistency checks, which cannot test the claim itself).",
        _what_holds(meas),
        _what_does_not(meas, cons),
        _what_is_undecided(meas),
        _what_the_book_adds(ours),
    ]
    return "\n".join(lines) + "\n"


def _row_entry(r: Row) -> list[str]:
    """One row's entry on the methods page, under the label the scorecard links to."""
    c = r.claim
    by = "every profile" if c.checked_by is None else (", ".join(f"`{p}`" for p in c.checked_by) or "none")
    note = _plain((r.finding or {}).get("note"))
    tol = f"{c.compare}, tolerance {c.tolerance:g}" + (" (relative)" if c.compare == "rel" else "")
    return [
        f"({_anchor(c.id)})=",
        f"**{_cell(c.id)}** ({c.kind}{', context' if c.context else ''}; {tol}; checked by {by}). "
        f"{_esc(c.claim)} *Ours:* {_esc(_sentence(c.ours))} *Tolerance:* {_esc(_sentence(c.tolerance_why))}"
        + (f" *This build:* {_esc(_sentence(note))}" if note else ""),
        "",
    ]


def rows_markdown(rows: Sequence[Row]) -> str:
    """The methods page's list of rows: each claim as the source states it, its kind, comparison,
    tolerance and why, the profiles that check it, what our number is, and this build's note on it
    (each under the label the scorecard's rows link to)."""
    lines: list[str] = []
    for r in rows:
        if _per_model(r) and (r.finding is None or r.finding.get("value") is None):
            continue
        lines += _row_entry(r)
    lines += [
        "The per-model rows (one per model of Guha's Table 1 and of Liu et al.'s 27 heads, checked by `paper`) take "
        "their tolerance from Guha's bf16 rounding (1e-3 for Class 1, 3e-4 for Class 2) and from the spread of each "
        "family's points in Fig. 8a.",
    ]
    return "\n".join(lines) + "\n"


__all__ = ["rows_markdown", "scorecard_markdown", "summary_markdown"]
