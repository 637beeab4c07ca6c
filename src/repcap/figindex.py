"""The generated figure index: every figure of the book with its caption, profile, files and a
ready BibTeX entry to cite it (``book/generated/figure_index.md``).

BibTeX entries are ASCII-safe LaTeX (:func:`latex_text`: Greek letters and symbols as LaTeX math,
``% & # _ $`` escaped), point at the figure's anchor in the book, and take their year from the
figure's build.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from . import __version__
from . import io as rio
from .paths import generated_dir, project_root

#: Non-ASCII characters of the captions, as LaTeX (math in $...$).
LATEX = {
    "ε": r"$\varepsilon$",
    "μ": r"$\mu$",
    "σ": r"$\sigma$",
    "α": r"$\alpha$",
    "β": r"$\beta$",
    "γ": r"$\gamma$",
    "φ": r"$\varphi$",
    "τ": r"$\tau$",
    "θ": r"$\theta$",
    "π": r"$\pi$",
    "λ": r"$\lambda$",
    "ŵ": r"$\hat w$",
    "√": r"$\surd$",
    "×": r"$\times$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "≈": r"$\approx$",
    "≠": r"$\neq$",
    "∝": r"$\propto$",
    "−": "-",
    "–": "--",
    "—": "---",
    "…": r"\ldots{}",
    "°": r"$^\circ$",
    "±": r"$\pm$",
    "²": r"$^2$",
    "³": r"$^3$",
    "⁴": r"$^4$",
    "½": "1/2",
    "‖": r"$\|$",
    "·": r"$\cdot$",
    "→": r"$\to$",
    "’": "'",
    "‘": "`",
    "“": "``",
    "”": "''",
    "Σ": r"$\Sigma$",
    "∞": r"$\infty$",
    "₁₀": "_{10}",
}
_SPECIAL = {
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "^": r"\^{}",
    "~": r"\~{}",
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
}


def latex_text(text: str) -> str:
    """``text`` as ASCII-safe LaTeX for a BibTeX field."""
    out = []
    for ch in str(text):
        if ch in LATEX:
            out.append(LATEX[ch])
        elif ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append("?")  # a character we have no LaTeX for: visible, never an encoding error
    return re.sub(r"\$\s*\$", " ", "".join(out)).replace("$$", "")


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


def figure_url(side: dict[str, Any], base: str | None = None) -> str:
    """Where the figure stands in the built book: the book's public address (:func:`base_url`) +
    the chapter page + ``#fig-id``, an absolute URL; without an address, the path inside
    ``_build/html``."""
    base = base_url() if base is None else base.rstrip("/")
    stem = Path(str(side.get("notebook") or (side.get("drawn_by") or {}).get("notebook") or "")).stem
    page = f"book/generated/{stem}.html#{side['fig_id']}"
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


def bibtex_entry(side: dict[str, Any], base: str | None = None) -> str:
    fid = side["fig_id"]
    first = first_sentence(side["caption"])
    first = re.sub(r"\{[a-z]+\}`([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", first)  # MyST roles: their text
    first = re.sub(r"[{}$`*]", "", first)  # caption markup (math delimiters, emphasis)
    year = time.gmtime(float(side.get("created_unix") or time.time())).tm_year
    how = (
        f"repcap {side.get('repcap_version', __version__)}, notebook {side.get('notebook', '?')}, "
        f"profile {side.get('profile', '?')}, git {side.get('git_revision', '?')}"
    )
    comp = side.get("computed")
    if isinstance(comp, dict):
        how += (
            f"; computed in the {comp.get('set')} set ({comp.get('experiment')}) on "
            f"{', '.join(comp.get('devices') or ['unknown device'])}, commit "
            f"{', '.join(str(c) for c in comp.get('commits') or ['unknown'])}"
        )
    return (
        f"@misc{{repcap-{fid},\n"
        f"  title        = {{{{repcap}} figure {latex_text(fid)}: {latex_text(first)}}},\n"
        f"  author       = {{{{The repcap authors}}}},\n"
        f"  year         = {{{year}}},\n"
        f"  howpublished = {{{latex_text(how)}}},\n"
        f"  url          = {{{figure_url(side, base)}}},\n"
        f"  note         = {{Data: {latex_text(fid)}.csv; parameters in {latex_text(fid)}.json}}\n}}"
    )


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


def write_figure_index(order: list[str] | None = None) -> Path:
    """Write ``figure_index.md`` from the sidecars in ``book/generated/figures``: one section per
    chapter, in reading order, each figure with its provenance, files and BibTeX entry."""
    from .figures import provenance_line

    gen = generated_dir()
    figdir = gen / "figures"
    sides = {}
    for p in sorted(figdir.glob("fig-*.json")):
        try:
            sides[p.stem] = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
    ids = [f for f in (order or []) if f in sides] + sorted(set(sides) - set(order or []))
    base = base_url()
    titles = chapter_titles()
    lines = [
        "# Figure index",
        "",
        "Every figure in this book, chapter by chapter in reading order: where its numbers were computed "
        "(machine, commit, computing time) and which chapter run drew it, the files behind it "
        "(vector and raster images, the CSV of the plotted data, the JSON sidecar with every parameter) "
        "and a BibTeX entry to cite it. Figure numbers link to the figure in its chapter."
        + (
            ""
            if base
            else " (This build has no public address, `html.baseurl` in `_config.yml`, so the "
            "entries' URLs are paths inside the built book.)"
        ),
        "",
    ]
    if not ids:
        lines.append("No figures have been generated yet: run `repcap book`.")
    chapter = None
    for fid in ids:
        s = sides[fid]
        nb = str(s.get("notebook") or (s.get("drawn_by") or {}).get("notebook") or "?")
        if nb != chapter:
            chapter = nb
            num, title = titles.get(nb, (None, Path(nb).stem))
            lines += [f"## {'Chapter ' + str(num) + ': ' if num else ''}{title}", ""]
        files = " · ".join(
            f"{{download}}`{ext.upper()} <figures/{fid}.{ext}>`" for ext in ("svg", "png", "pdf", "csv", "json")
        )
        alt = " ".join(re.sub(r"[`*_{}$]", "", s["caption"]).split())[:300]
        comp = s.get("computed")
        recompute = f" · recompute: `{comp['recompute']}`" if isinstance(comp, dict) and comp.get("recompute") else ""
        lines += [
            f"### {fid}",
            "",
            f"{{numref}}`{fid}` · profile `{s.get('profile', '?')}` · {_plain(provenance_line(s))}{recompute}",
            "",
            f"```{{image}} figures/{fid}.png\n:width: 280px\n:alt: {alt}\n```",
            "",
            f"{s['caption']}",
            "",
            f"Files: {files}",
            "",
            "```bibtex",
            bibtex_entry(s, base),
            "```",
            "",
        ]
    out = gen / "figure_index.md"
    rio.write_text(out, "\n".join(lines) + "\n")
    return out


def _plain(text: str) -> str:
    from .figures import _md_escape

    return _md_escape(text)
