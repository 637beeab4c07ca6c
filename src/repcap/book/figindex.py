"""The generated figure index: every figure of the book with its caption, the run that drew it
(profile and overrides), where its numbers were computed, its files and a ready BibTeX entry to
cite it (``book/generated/figure_index.md``).

The index is written from the sidecars alone (:func:`write_figure_index`), by ``repcap book`` and by
every HTML or PDF build (``make html``, ``make pdf``): a chapter re-run with ``-p`` is citable as
soon as the HTML is rebuilt, and ``html.baseurl`` set in ``_config.yml`` makes every URL absolute.

A BibTeX entry (:func:`bibtex_entry`) is made for a bibliography:

* ``title``: the caption's first clause, at most :data:`TITLE_MAX` characters, with its capitals
  and its math in braces (plainnat and biblatex keep "Yoder", "{$\\varphi_{1/2}$}");
* ``howpublished``: the figure's id, notebook, run (profile + overrides) and git revision; ``date``
  and ``year``: the day its numbers were computed; ``note``: that date, the machine, and the files;
  ``abstract``: the whole caption;
* every field ASCII-safe LaTeX (:func:`latex_text`): Greek letters, sub- and superscripts (φ₁, α_m,
  R^100, 10⁻⁵) as math, ``% & # _`` escaped, compiled under natbib and biblatex by the tests where
  TeX is installed.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from repcap import __version__
from repcap.base import io as rio
from repcap.base.paths import generated_dir, project_root

from .latex import latex_text, plain_latex

__all__ = [
    "TITLE_MAX",
    "base_url",
    "bibtex_entry",
    "figure_url",
    "latex_text",
    "plain_latex",
    "short_title",
    "write_figure_index",
]

#: The longest BibTeX title, in characters of text (LaTeX markup aside).
TITLE_MAX = 120


def base_url() -> str:
    """The book's public address: ``html.baseurl`` of ``_config.yml`` (the one setting, which Sphinx
    also writes into every page's canonical link); empty when the book has none."""
    import yaml

    try:
        cfg = yaml.safe_load((project_root() / "_config.yml").read_text()) or {}
    except (OSError, yaml.YAMLError):
        return ""
    html = cfg.get("html") if isinstance(cfg, dict) else None
    base = html.get("baseurl") if isinstance(html, dict) else None
    return str(base or "").strip().rstrip("/")


def _notebook(side: dict[str, Any]) -> str:
    return str(side.get("notebook") or (side.get("drawn_by") or {}).get("notebook") or "")


def figure_url(side: dict[str, Any], base: str | None = None) -> str:
    """Where the figure stands in the built book: the book's public address (:func:`base_url`) +
    the chapter page + ``#fig-id``, an absolute URL; without an address, the path inside
    ``_build/html``."""
    base = base_url() if base is None else base.rstrip("/")
    page = f"book/generated/{Path(_notebook(side)).stem}.html#{side['fig_id']}"
    return f"{base}/{page}" if base else page


#: Abbreviations after which a full stop does not end a sentence.
_ABBREV = re.compile(r"(?:\b(?:Fig|Figs|Eq|Eqs|Sec|Ch|Tab|cf|vs|al|approx|resp|e\.g|i\.e|No)|\b[A-Z])\.$")


def first_sentence(text: str) -> str:
    """The first whole sentence of ``text``: a full stop after an abbreviation ("Fig.", "e.g.",
    "et al.", an initial) or inside a number does not end it."""
    text = " ".join(str(text).split())
    for m in re.finditer(r"[.!?](?=\s)", text):
        head = text[: m.end()]
        if m.group() == "." and _ABBREV.search(head):
            continue
        return head.rstrip(".").strip()
    return text.rstrip(".").strip()


def _visible_len(text: str) -> int:
    """Characters a reader sees of a caption fragment (MyST markup and math delimiters aside)."""
    text = re.sub(r"\{[a-z:]+\}`([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", text)
    return len(re.sub(r"[`*$\\{}]", "", text))


def short_title(caption: str, limit: int = TITLE_MAX) -> str:
    """A figure's title for a bibliography: the caption's first sentence, or, when that is longer
    than ``limit`` characters, its first clause (up to a colon, a semicolon, a dash; else a comma),
    else its words up to the limit and "…".  A cut never falls inside ``$...$``."""
    first = first_sentence(caption)
    # a caption of panels names the first one first ("Left: ...", "(a) ..."): the title leaves that out
    first = re.sub(r"^(?:(?:Left|Right|Top|Bottom|Above|Below)\s*:|\([a-z]\))\s*", "", first) or first
    if _visible_len(first) <= limit:
        return first

    def outside_math(i: int) -> bool:
        return first[:i].count("$") % 2 == 0

    cuts = [m.start() for m in re.finditer(r"(?:: |; | — | – |\s\()", first) if outside_math(m.start())]
    fits = [i for i in cuts if 25 <= _visible_len(first[:i]) <= limit]
    if fits:
        return first[: fits[0]].rstrip(" ,")
    commas = [m.start() for m in re.finditer(r", ", first) if outside_math(m.start())]
    fits = [i for i in commas if 40 <= _visible_len(first[:i]) <= limit]
    if fits:
        return first[: fits[-1]]
    out = ""
    for w in first.split(" "):
        cand = f"{out} {w}".strip()
        if _visible_len(cand) > limit - 1:
            break
        out = cand
    while out.count("$") % 2:  # never end inside math
        out = out.rsplit(" ", 1)[0] if " " in out else ""
    return out.rstrip(" ,;:") + "…"


def _computed_where(side: dict[str, Any]) -> str:
    """Where and when the figure's numbers were computed, in one line of plain text."""
    from .provenance import created_date

    comp = side.get("computed")
    if isinstance(comp, dict):
        n = int(comp.get("points", 0) or 0)
        commits = [str(c)[:12] for c in comp.get("commits") or []]
        dates = sorted(str(d) for d in comp.get("computed_dates") or [])
        when = "on an unknown date" if not dates else dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
        return (
            f"Computed {when} on {', '.join(comp.get('devices') or ['an unknown device'])} at "
            f"{'commit' if len(commits) == 1 else 'commits'} {', '.join(commits) or 'unknown'} "
            f"({n} point{'' if n == 1 else 's'} of the {comp.get('set')} set: {comp.get('experiment')}); "
            f"drawn {created_date(side) or 'on an unknown date'}"
        )
    return f"Computed {created_date(side) or 'on an unknown date'} on {side.get('device', 'an unknown device')}"


def bibtex_entry(side: dict[str, Any], base: str | None = None) -> str:
    """The figure's BibTeX entry (``@misc``), ASCII-safe; see the module docstring."""
    from .provenance import computed_date, settings_text, side_run

    fid = side["fig_id"]
    title = latex_text(short_title(side["caption"]), protect=True)
    day = computed_date(side) or time.strftime("%Y-%m-%d", time.gmtime(float(side.get("created_unix") or time.time())))
    how = (
        f"{{repcap}} figure {plain_latex(fid)}: notebook {plain_latex(_notebook(side) or '?')}, "
        f"profile {plain_latex(side_run(side))}, git {plain_latex(side.get('git_revision', '?'))}, "
        f"{{repcap}} {plain_latex(side.get('repcap_version', __version__))}"
    )
    if settings_text(side):  # the engine configs as they ran (provenance.py)
        how += f"; settings {plain_latex(settings_text(side))}"
    note = (
        f"{plain_latex(_computed_where(side))}. Data: {plain_latex(fid)}.csv; every parameter: {plain_latex(fid)}.json"
    )
    fields = [
        ("title", title),
        ("author", "{The repcap authors}"),
        ("howpublished", how),
        ("year", day[:4]),
        ("date", day),
        ("url", figure_url(side, base)),
        ("note", note),
        ("abstract", latex_text(" ".join(str(side["caption"]).split()))),
    ]
    body = ",\n".join(f"  {k:<12} = {{{v}}}" for k, v in fields)
    return f"@misc{{repcap-{fid},\n{body}\n}}"


def chapter_titles() -> dict[str, tuple[int | None, str]]:
    """``notebooks/NN_x.py`` -> (chapter number, title) from each notebook's first heading."""
    out: dict[str, tuple[int | None, str]] = {}
    for nb in sorted((project_root() / "notebooks").glob("[0-9][0-9]_*.py")):
        try:
            head = next((ln[4:].strip() for ln in nb.read_text().splitlines() if ln.startswith("# # ")), nb.stem)
        except OSError:
            head = nb.stem
        out[f"notebooks/{nb.name}"] = (int(nb.name[:2]), head)
    return out


def reading_order() -> list[str]:
    """The book's figure ids in reading order: chapter by chapter (``notebooks/NN_*``), each
    chapter's figures in the order its last run made them (its run stamp)."""
    out: list[str] = []
    for nb in sorted((project_root() / "notebooks").glob("[0-9][0-9]_*.py")):
        try:
            stamp = json.loads((generated_dir() / ".runs" / f"{nb.stem}.json").read_text())
        except (OSError, ValueError):
            continue
        out += [str(f) for f in (stamp.get("figures") or []) if isinstance(stamp, dict)]
    return out


def read_sidecars() -> dict[str, dict[str, Any]]:
    """Every figure sidecar of the book (``book/generated/figures/fig-*.json``) by figure id; a
    damaged one is left out."""
    sides = {}
    for p in sorted((generated_dir() / "figures").glob("fig-*.json")):
        try:
            side = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(side, dict) and side.get("fig_id") == p.stem and side.get("caption"):
            sides[p.stem] = side
    return sides


def write_figure_index(order: list[str] | None = None) -> Path:
    """Write ``figure_index.md`` and ``figures.bib`` from the sidecars in ``book/generated/figures``
    (no chapter runs): one section per chapter, in reading order (``order``, default
    :func:`reading_order`), each figure with the run that drew it, where its numbers were computed,
    its files and its BibTeX entry."""
    gen = generated_dir()
    sides = read_sidecars()
    order = reading_order() if order is None else order
    ids = [f for f in dict.fromkeys(order) if f in sides] + sorted(set(sides) - set(order))
    base = base_url()
    titles = chapter_titles()
    lines = _index_header(base, bool(ids))
    chapter = None
    entries = []
    for fid in ids:
        s = sides[fid]
        nb = _notebook(s) or "?"
        if nb != chapter:
            chapter = nb
            num, title = titles.get(nb, (None, Path(nb).stem))
            lines += [f"## {'Chapter ' + str(num) + ': ' if num else ''}{title}", ""]
        entry = bibtex_entry(s, base)
        entries.append(entry)
        lines += _figure_section(fid, s, entry)
    out = gen / "figure_index.md"
    rio.write_text(out, "\n".join(lines) + "\n")
    rio.write_text(gen / "figures.bib", "\n\n".join(entries) + "\n")
    return out


def _index_header(base: str, any_figures: bool) -> list[str]:
    """The index page's title and introduction, and the link to ``figures.bib`` (or a line saying
    there are no figures yet)."""
    lines = [
        "# Figure index",
        "",
        "Every figure in this book, chapter by chapter in reading order: where its numbers were computed "
        "(machine, commit, date, computing time), which chapter run drew it (the profile, and any "
        "parameter overridden with `-p`), the files behind it (vector and raster images, the CSV of the "
        "plotted data, the JSON sidecar with every parameter) and a BibTeX entry to cite it. Figure "
        "numbers link to the figure in its chapter. This page is written from the figures' sidecars at "
        "every build (`make html`), so a chapter re-run with other parameters is citable as soon as the "
        "HTML is rebuilt."
        + (
            ""
            if base
            else " (This build has no public address, `html.baseurl` in `_config.yml`, so the "
            "entries' URLs are paths inside the built book.)"
        ),
        "",
    ]
    if any_figures:
        lines += ["All entries in one file: {download}`figures.bib <figures.bib>`.", ""]
    else:
        lines.append("No figures have been generated yet: run `repcap book`.")
    return lines


def _figure_section(fid: str, s: dict[str, Any], entry: str) -> list[str]:
    """One figure's section of the index: its provenance, thumbnail, caption, files and BibTeX entry."""
    from .provenance import provenance_line

    files = " · ".join(
        f"{{download}}`{ext.upper()} <figures/{fid}.{ext}>`" for ext in ("svg", "png", "pdf", "csv", "json")
    )
    alt = " ".join(re.sub(r"[`*_{}$]", "", s["caption"]).split())[:300]
    comp = s.get("computed")
    recompute = f" · recompute: `{comp['recompute']}`" if isinstance(comp, dict) and comp.get("recompute") else ""
    return [
        f"### {fid}",
        "",
        f"{{numref}}`{fid}` · {_plain(provenance_line(s))}{recompute}",
        "",
        f"```{{image}} figures/{fid}.png\n:width: 280px\n:alt: {alt}\n```",
        "",
        f"{s['caption']}",
        "",
        f"Files: {files}",
        "",
        "```bibtex",
        entry,
        "```",
        "",
    ]


def _plain(text: str) -> str:
    from .provenance import md_escape

    return md_escape(text)
