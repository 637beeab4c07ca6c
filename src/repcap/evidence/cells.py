"""The text of the scorecard's pages, piece by piece: a finding's strings made safe for MyST
Markdown (no roles, code or raw HTML from a chapter's note), one table cell, the labels rows link
to, and the provenance list (:class:`Provenance`) that states each source of a number once.
:mod:`repcap.evidence.pages` assembles the pages from them."""

from __future__ import annotations

import re
from typing import Any

#: A bundle experiment's provenance sentence (:meth:`repcap.results.bundle.lookups.Lookup.provenance_text`,
#: backticks made quotes), read back so the scorecard states the set and the bundle once, above the list.
_BUNDLE_SENTENCE = re.compile(
    r"^(?P<n>\d+ points?) of the '(?P<set>[\w-]+)' set(?P<scale>[^(]*) \((?P<exp>[^)]*)\), from the bundle "
    r"(?P<bundle>[^:]+): computed on (?P<dev>.+?)(?: at commit (?P<commits>.+?))?, "
    r"(?P<when>\d{4}-\d\d-\d\d(?: to \d{4}-\d\d-\d\d)?|unknown date), in (?P<took>[^;]+?) of computing"
    r"(?:; (?P<nrep>\d+) of them also computed on (?P<rdev>.+?) \(replicas[^)]*\))?\.?$"
)


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


def _item(lines: list[str], first: str, *rest: str) -> None:
    """One list-table cell: its first line opens the cell, further lines are paragraphs of it."""
    lines.append(f"  - {first}")
    for r in rest:
        if r:
            lines += ["", f"    {r}"]


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
        short = {a: _BUNDLE_SENTENCE.match(t) for a, (_, t) in self.entries.items()}
        sets = {(m["set"], m["scale"].strip(), m["bundle"]) for m in short.values() if m}
        if len(sets) != 1:  # one compact list only where every experiment is of one set and bundle
            short = dict.fromkeys(short)
        lines = ["## Where the shipped numbers were computed", ""]
        intro = "Each source of a number not computed in this build, once; the rows link here."
        if sets and any(short.values()):
            ((set_name, scale, bundle),) = sets
            intro += (
                f" Each results-bundle experiment is of the '{_esc(set_name)}' set{_esc(' ' + scale if scale else '')}, "
                f"from the bundle {_esc(bundle)}: its points; the devices, commits and dates they were computed "
                "on, at and in; their computing time; replicas on other devices (the Reproducibility page compares them)."
            )
        lines += [intro, ""]
        for anchor, (title, text) in self.entries.items():
            m = short[anchor]
            if m:
                bits = [
                    m["n"],
                    m["dev"],
                    *([f"commit{'s' * (',' in m['commits'])} {m['commits']}"] if m["commits"] else []),
                    m["when"],
                    m["took"],
                ]
                bits += [f"{m['nrep']} replicas on {m['rdev']}"] if m["nrep"] else []
                text = "; ".join(bits)
            lines += [f"({anchor})=", f"**{_cell(title)}**: {_esc(_sentence(text))}", ""]
        return lines


__all__ = ["Provenance"]
