"""The generated figure index: every figure of the book with its caption, profile, files and a
ready BibTeX entry to cite it (``book/generated/figure_index.md``).

BibTeX entries are ASCII-safe LaTeX (:func:`latex_text`: Greek letters and symbols as LaTeX math,
``% & # _ $`` escaped), point at the figure's anchor in the book, and take their year from the
figure's build.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from . import __version__
from . import io as rio
from .paths import generated_dir

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


def figure_url(side: dict[str, Any]) -> str:
    """Where the figure stands in the built book: ``REPCAP_BOOK_URL`` (the book's public address,
    if it has one) + the chapter page + ``#fig-id``; else the path inside ``_build/html``."""
    base = os.environ.get("REPCAP_BOOK_URL", "").rstrip("/")
    stem = Path(str(side.get("notebook") or "")).stem
    page = f"book/generated/{stem}.html#{side['fig_id']}"
    return f"{base}/{page}" if base else page


def bibtex_entry(side: dict[str, Any]) -> str:
    fid = side["fig_id"]
    first = re.split(r"(?<=[.!?])\s", side["caption"].strip(), maxsplit=1)[0].rstrip(".")
    first = re.sub(r"[{}$`*]", "", first)  # caption markup (MyST roles, math delimiters, emphasis)
    year = time.gmtime(float(side.get("created_unix") or time.time())).tm_year
    how = (
        f"repcap {side.get('repcap_version', __version__)}, notebook {side.get('notebook', '?')}, "
        f"profile {side.get('profile', '?')}, git {side.get('git_revision', '?')}"
    )
    return (
        f"@misc{{repcap-{fid},\n"
        f"  title        = {{{{repcap}} figure {latex_text(fid)}: {latex_text(first)}}},\n"
        f"  author       = {{{{The repcap authors}}}},\n"
        f"  year         = {{{year}}},\n"
        f"  howpublished = {{{latex_text(how)}}},\n"
        f"  url          = {{{figure_url(side)}}},\n"
        f"  note         = {{Data: {latex_text(fid)}.csv; parameters in {latex_text(fid)}.json}}\n}}"
    )


def write_figure_index(order: list[str] | None = None) -> Path:
    """Write ``figure_index.md`` from the sidecars in ``book/generated/figures``."""
    gen = generated_dir()
    figdir = gen / "figures"
    sides = {}
    for p in sorted(figdir.glob("fig-*.json")):
        try:
            sides[p.stem] = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
    ids = [f for f in (order or []) if f in sides] + sorted(set(sides) - set(order or []))
    lines = [
        "# Figure index",
        "",
        "Every figure in this book, in reading order, with the profile that built it, the files behind it "
        "(vector and raster images, the CSV of the plotted data, the JSON sidecar with every parameter) "
        "and a BibTeX entry to cite it. Figure numbers link to the figure in its chapter.",
        "",
    ]
    if not ids:
        lines.append("No figures have been generated yet: run `repcap book`.")
    for fid in ids:
        s = sides[fid]
        files = " · ".join(
            f"{{download}}`{ext.upper()} <figures/{fid}.{ext}>`" for ext in ("svg", "png", "pdf", "csv", "json")
        )
        alt = " ".join(re.sub(r"[`*_{}$]", "", s["caption"]).split())[:300]
        lines += [
            f"## {fid}",
            "",
            f"{{numref}}`{fid}` · profile `{s.get('profile', '?')}` · notebook `{s.get('notebook', '?')}` · "
            f"git `{s.get('git_revision', '?')}` · device `{s.get('device', '?')}` · wall time {s.get('wall_time_s', 0):.1f} s",
            "",
            f"```{{image}} figures/{fid}.png\n:width: 280px\n:alt: {alt}\n```",
            "",
            f"{s['caption']}",
            "",
            f"Files: {files}",
            "",
            "```bibtex",
            bibtex_entry(s),
            "```",
            "",
        ]
    out = gen / "figure_index.md"
    rio.write_text(out, "\n".join(lines) + "\n")
    return out
