"""The generated figure index: every figure of the book with its caption, profile, files and a
ready BibTeX entry to cite it (``book/generated/figure_index.md``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from . import __version__
from . import io as rio
from .paths import generated_dir


def bibtex_entry(side: dict) -> str:
    fid = side["fig_id"]
    first = re.split(r"(?<=[.!?])\s", side["caption"].strip(), maxsplit=1)[0].rstrip(".")
    first = first.replace("{", "").replace("}", "").replace("$", "")
    year = 2026
    return (f"@misc{{repcap-{fid},\n"
            f"  title        = {{{{repcap}} figure {fid}: {first}}},\n"
            f"  author       = {{{{The repcap authors}}}},\n"
            f"  year         = {{{year}}},\n"
            f"  howpublished = {{repcap {side.get('repcap_version', __version__)}, notebook "
            f"{side.get('notebook', '?')}, profile {side.get('profile', '?')}, git {side.get('git_revision', '?')}}},\n"
            f"  note         = {{Data: {fid}.csv; parameters in {fid}.json}}\n}}")


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
    lines = ["# Figure index", "",
             "Every figure in this book, in reading order, with the profile that built it, the files behind it "
             "(vector and raster images, the CSV of the plotted data, the JSON sidecar with every parameter) "
             "and a BibTeX entry to cite it. Figure numbers link to the figure in its chapter.", ""]
    if not ids:
        lines.append("No figures have been generated yet: run `repcap book`.")
    for fid in ids:
        s = sides[fid]
        files = " · ".join(f"{{download}}`{ext.upper()} <figures/{fid}.{ext}>`" for ext in ("svg", "png", "pdf", "csv", "json"))
        lines += [
            f"## {fid}", "",
            f"{{numref}}`{fid}` · profile `{s.get('profile', '?')}` · notebook `{s.get('notebook', '?')}` · "
            f"git `{s.get('git_revision', '?')}` · device `{s.get('device', '?')}` · wall time {s.get('wall_time_s', 0):.1f} s",
            "", f"```{{image}} figures/{fid}.png\n:width: 280px\n:alt: {fid}\n```", "",
            f"{s['caption']}", "", f"Files: {files}", "",
            "```bibtex", bibtex_entry(s), "```", "",
        ]
    out = gen / "figure_index.md"
    rio.write_text(out, "\n".join(lines) + "\n")
    return out
