"""One figure style, and :func:`save`: every figure of the book goes through here.

``save(fig_id, fig, data, meta)`` writes, into :func:`repcap.base.paths.figure_dir`:

* ``<fig_id>.png`` (raster, 200 dpi), ``<fig_id>.svg`` and ``<fig_id>.pdf`` (vector);
* ``<fig_id>.csv``: the data behind the figure, as a tidy table;
* ``<fig_id>.json``: the sidecar: caption, notebook, profile and the overrides given with it
  (``overrides``; ``run`` says both in one line, "quick + n_vectors=3000"), parameters, git revision,
  package version, device, seed, computing time (``compute_s``).

A figure drawn from a results bundle (the ``reference`` set) passes ``provenance=``
:func:`bundle_provenance`: its sidecar then carries the run's own configuration, machine, commit
and computing time, and the command that recomputes it; ``drawn_by`` says which chapter run drew it.

Under the notebook runner it then emits the MyST ``{figure}`` directive (numbered, named
``fig_id`` so that ``{numref}`` finds it, captioned once, here) as the cell's output; the figure
index page is generated from the sidecars.  Pattern: showyourwork / cebra-figures (compute apart
from plotting, data next to every figure).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd

from repcap import RepcapError, __version__
from repcap.base import io as rio
from repcap.base.context import current, git_revision, run_context, run_label
from repcap.base.paths import figure_dir, project_root

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

FIG_ID = re.compile(r"^fig-[a-z0-9]+(?:-[a-z0-9]+)+$")
_T0 = time.time()
_last_save = _T0

#: The width (inches) every figure is drawn at: the book's text column, where it is shown at 100%.
#: At the column's width (about 700 px on a desktop) 1 pt of the figure is about 1.5 px, so the
#: 9.5-10 pt labels below read at 14-15 px next to 16 px body text.
WIDTH = 6.4
#: The width (inches) of a figure's phone layout (``<fig_id>.narrow.svg``, beside the other files so that the runner moves it with them), shown in a 368 px column:
#: about 100 px an inch, so the same 9.5-10 pt labels read at 13-14 px.
NARROW_WIDTH = 3.6
#: Below this page width (CSS px) the book shows the phone layout (``book/static/repcap.css``).
NARROW_BREAKPOINT = 720
#: The colour cycle: the Okabe-Ito colour-blind palette reordered so that its two close hues,
#: orange and vermilion, are never both among the first five series.
COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000", "#999999")

#: One shared style for every figure (seaborn "whitegrid" with the palette above).
STYLE: dict[RcKeyType, Any] = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "xtick.labelsize": 9.5,
    "ytick.labelsize": 9.5,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "svg.fonttype": "path",  # text as outlines: renders the same everywhere (math such as 1/√d included)
    "pdf.fonttype": 42,  # TrueType fonts embedded
    "axes.spines.top": False,
    "axes.spines.right": False,
}


class Sidecar(dict):
    """The sidecar dict that :func:`save` returns; it displays as nothing, so a ``save`` call at
    the end of a notebook cell adds no output to the book."""

    def _ipython_display_(self) -> None:
        pass


def use_style() -> None:
    """Apply the book's style; called on import."""
    import seaborn as sns
    from cycler import cycler

    sns.set_theme(context="paper", style="whitegrid", palette=list(COLORS))
    matplotlib.rcParams.update(STYLE)
    matplotlib.rcParams["axes.prop_cycle"] = cycler(color=list(COLORS))


def palette(n: int) -> list:
    """``n`` colours of the book's cycle (repeating past its length)."""
    return [COLORS[i % len(COLORS)] for i in range(n)]


def size(height: float = 3.4) -> tuple[float, float]:
    """``figsize`` of a book figure: the column's width and ``height`` inches."""
    return (WIDTH, height)


def legend_below(ax, ncol: int = 2, pad: float = 4.0, **kw: Any):
    """A legend centred under ``ax``, below its tick labels and axis label whatever their size: the
    offset is measured in points, so a later ``tight_layout`` (which makes room for the legend)
    keeps it clear of the label."""
    from matplotlib.transforms import offset_copy

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    below = ax.bbox.y0 - ax.get_tightbbox(renderer).y0  # pixels taken by tick labels and the label
    anchor = offset_copy(ax.transAxes, fig=fig, y=-(below * 72.0 / fig.dpi + pad), units="points")
    leg = ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor, ncol=ncol, **kw)
    leg._repcap_below = (pad, kw)  # so that save_narrow can redo it
    return leg


def log_tick_label(v: float, _pos: Any = None, plain_below: float = 1e5) -> str:
    """The book's log-axis tick label: plain numbers from 0.001 to 99,999 (0.2, 1000), powers of
    ten outside (10⁻⁵, 10⁸).  ``plain_below`` lowers the upper limit of plain numbers, so that one
    axis never mixes 10000 with 10⁵ (:func:`plain_log_ticks` sets it to 10 on such axes)."""
    import math as _m

    if v <= 0 or not _m.isfinite(v):
        return ""
    if 1e-3 <= v < plain_below:
        return f"{v:g}"
    e = _m.floor(_m.log10(v) + 1e-9)
    mant = v / 10**e
    return f"$10^{{{e}}}$" if abs(mant - 1) < 1e-6 else f"${mant:g}\\times10^{{{e}}}$"


def _align_minor_labels(a) -> None:
    """Minor tick labels as far from the axis as the major ones (a minor tick is shorter, so its
    label otherwise sits closer: 2 and 5 a few pixels off the line of 1 and 10)."""
    major, minor = a.get_major_ticks(), a.get_minor_ticks()
    if major and minor:
        gap = major[0].get_tick_padding() + major[0].get_pad() - minor[0].get_tick_padding()
        a.set_tick_params(which="minor", pad=max(gap, 0.0))


def plain_log_ticks(ax, axis: str = "both") -> None:
    """On log axes whose labels were not set by hand, label ticks with :func:`log_tick_label`."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogFormatter, LogLocator, NullFormatter

    fmt = FuncFormatter(log_tick_label)
    for name in ("x", "y") if axis == "both" else (axis,):
        a = getattr(ax, f"{name}axis")
        if a.get_scale() != "log" or not isinstance(a.get_major_formatter(), (LogFormatter, FuncFormatter)):
            continue
        if isinstance(a.get_major_locator(), FixedLocator):  # ticks placed by hand: label them, add none
            if isinstance(a.get_major_formatter(), LogFormatter):  # (hand-set labels are a FuncFormatter)
                a.set_major_formatter(fmt)
            continue
        base = getattr(a.get_transform(), "base", 10)
        if base != 10:  # a log-2 axis (widths 512, 2048): its own ticks only, no decimal minor labels
            a.set_minor_formatter(NullFormatter())
            continue
        lo, hi = ax.get_xlim() if name == "x" else ax.get_ylim()
        fmt = (
            FuncFormatter(lambda v, p: log_tick_label(v, p, 10.0))
            if max(lo, hi) >= 1e5
            else FuncFormatter(log_tick_label)
        )
        a.set_major_formatter(fmt)
        if hi / lo < 150:  # ranges of about two decades or less: label 2 and 5 minor ticks too
            a.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
            a.set_minor_formatter(fmt)
            _align_minor_labels(a)
        else:
            a.set_minor_formatter(NullFormatter())


def place_labels(ax, xs: Any, ys: Any, texts: Any, *, fontsize: float = 8.5, color: Any = None) -> list:
    """Label the points ``(xs, ys)`` of ``ax`` with ``texts``, each beside its own point and clear of
    the other labels, of every marker drawn on ``ax`` and of the axes' edges: a few places around the
    point are tried, nearest first (right, left, above, below, the diagonals, then farther out); a
    label set off from its point gets a thin line to it.  :func:`save` places them again once the
    figure is laid out, and again for the phone layout.  Returns the annotations."""
    ax._repcap_labels = ([float(x) for x in xs], [float(y) for y in ys], [str(t) for t in texts], fontsize, color)
    return _place_labels(ax)


def _place_labels(ax) -> list:
    """(Re)place the labels :func:`place_labels` registered on ``ax`` for its current layout."""
    import numpy as np

    spec = getattr(ax, "_repcap_labels", None)
    if spec is None:
        return []
    xs, ys, texts, fontsize, color = spec
    for old in getattr(ax, "_repcap_label_artists", []):
        old.remove()
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_px = ax.transData
    px_per_pt = fig.dpi / 72.0
    markers = []
    for coll in ax.collections:  # every scatter marker on the axes is an obstacle
        offs = coll.get_offsets()
        if len(offs):
            markers += [tuple(v) for v in coll.get_offset_transform().transform(np.asarray(offs, dtype=float))]
    r = 3.5 * px_per_pt  # a marker's half-width
    obstacles = [(x - r, y - r, x + r, y + r) for x, y in markers]
    box = ax.get_window_extent(renderer)
    placed: list[tuple[float, float, float, float]] = []
    out = []
    unplaced = 0
    dirs = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
    for x, y, text in zip(xs, ys, texts):
        px, py = to_px.transform((x, y))
        others = [o for o in obstacles if abs((o[0] + o[2]) / 2 - px) > 0.5 or abs((o[1] + o[3]) / 2 - py) > 0.5]
        probe = ax.text(0, 0, text, fontsize=fontsize, transform=None)
        ext = probe.get_window_extent(renderer)
        w, h = ext.width, ext.height
        probe.remove()
        choice = None
        for dist in (6.0, 11.0, 18.0, 28.0, 40.0, 54.0):
            for dx, dy in dirs:
                gap = dist * px_per_pt
                x0 = px + dx * gap - (w if dx < 0 else 0 if dx > 0 else w / 2)
                y0 = py + dy * gap - (h if dy < 0 else 0 if dy > 0 else h / 2)
                cand = (x0 - 1, y0 - 1, x0 + w + 1, y0 + h + 1)
                inside = box.x0 <= cand[0] and cand[2] <= box.x1 and box.y0 <= cand[1] and cand[3] <= box.y1
                clear = all(
                    cand[2] <= o[0] or o[2] <= cand[0] or cand[3] <= o[1] or o[3] <= cand[1] for o in [*placed, *others]
                )
                if inside and clear:
                    choice = (x0, y0, dist)
                    break
            if choice:
                break
        if choice is None:  # nowhere clear: right of the point (a phone layout then gives up)
            choice = (px + 6.0 * px_per_pt, py - h / 2, 6.0)
            unplaced += 1
        x0, y0, dist = choice
        placed.append((x0, y0, x0 + w, y0 + h))
        ann = ax.annotate(
            text,
            (x, y),
            xytext=((x0 - px) / px_per_pt, (y0 - py) / px_per_pt),
            textcoords="offset points",
            ha="left",
            va="bottom",
            fontsize=fontsize,
            color=color,
            arrowprops={"arrowstyle": "-", "lw": 0.6, "color": "0.45", "shrinkA": 0, "shrinkB": 3.5}
            if dist > 8
            else None,
        )
        out.append(ann)
    ax._repcap_label_artists = out
    ax._repcap_labels_unplaced = unplaced
    return out


def _replace_labels(fig) -> int:
    """Place every axes' point labels again for the figure's current layout; returns how many found
    no clear place."""
    unplaced = 0
    for ax in fig.axes:
        if getattr(ax, "_repcap_labels", None) is not None:
            _place_labels(ax)
            unplaced += ax._repcap_labels_unplaced
    return unplaced


def with_codepoints(text: str, limit: int = 6) -> str:
    """``text`` followed by the code points of its characters outside Latin-1 and common
    punctuation, e.g. ``'▁дом' [U+2581 U+0434 U+043E U+043C]``: a token in a script the reader's font
    lacks still says what it is.  Text without such characters is returned unchanged."""
    s = str(text)
    odd = list(dict.fromkeys(ch for ch in s if ord(ch) > 0x24F and ch not in "–—‘’“”…•·−×"))
    if not odd:
        return s
    cps = " ".join(f"U+{ord(ch):04X}" for ch in odd[:limit]) + (" …" if len(odd) > limit else "")
    return f"{s} [{cps}]"


def save(
    fig_id: str,
    fig: matplotlib.figure.Figure,
    data: pd.DataFrame | Mapping[str, Any],
    meta: Mapping[str, Any] | None = None,
    *,
    caption: str | None = None,
    show: bool = True,
    provenance: Mapping[str, Any] | None = None,
) -> Sidecar:
    """Save ``fig`` and ``data`` under the stable id ``fig_id``; return the sidecar dict.

    ``meta`` may hold ``caption`` (what to see, one or two sentences), ``seed``, ``device``,
    ``compute_s`` (default: the seconds the chapter spent since its previous figure, computing and
    drawing) and anything else worth recording.  ``provenance`` (:func:`bundle_provenance`) marks
    a figure drawn from bundled results: their configuration becomes the sidecar's ``parameters``,
    their computing time its ``compute_s``, their machine and commit its ``device`` and ``computed``.
    """
    global _last_save
    if not isinstance(fig_id, str) or not FIG_ID.match(fig_id):
        raise RepcapError(f"figure id {fig_id!r} must look like 'fig-<chapter>-<what>' (lower case, digits, dashes)")
    meta = dict(meta or {})
    caption = caption or meta.pop("caption", None)
    if not caption:
        raise RepcapError(f"figure {fig_id}: give a caption that says what to see")
    if not isinstance(data, pd.DataFrame):
        try:
            data = pd.DataFrame(data)
        except ValueError as exc:
            raise RepcapError(f"figure {fig_id}: data must be a DataFrame or a dict of equal-length columns") from exc
    if data.empty:
        raise RepcapError(f"figure {fig_id}: the data behind a figure cannot be empty")

    out = figure_dir()
    out.mkdir(parents=True, exist_ok=True)
    now = time.time()
    ctx = run_context()
    rec = current()
    since = max(_last_save, rec.started_unix) if rec is not None else _last_save
    compute_s = meta.pop("compute_s", meta.pop("wall_time_s", now - since))
    sidecar = Sidecar(
        {
            "fig_id": fig_id,
            "caption": caption,
            **ctx,
            "git_revision": git_revision(),
            "repcap_version": __version__,
            "compute_s": round(float(compute_s), 3),
            "compute_what": "the chapter's time since its previous figure (computing and drawing)",
            "created_unix": round(now, 3),
            "files": {ext: f"{fig_id}.{ext}" for ext in ("png", "svg", "pdf", "csv", "json")},
        }
    )
    if "device" not in meta:  # the device the chapter actually used (its run record)
        if rec is not None:
            meta["device"] = rec.device
        else:
            from repcap.base.devices import device_name, resolve_device

            meta["device"] = device_name(resolve_device("auto"))
    sidecar.update(meta)
    sidecar["run"] = run_label(ctx["profile"], ctx.get("overrides"))
    sidecar["drawn_by"] = {
        "notebook": ctx["notebook"],
        "profile": ctx["profile"],
        "overrides": ctx.get("overrides") or {},
        "git_revision": sidecar["git_revision"],
        "device": sidecar.get("device"),
        "parameters": ctx["parameters"],
    }
    if provenance:
        prov = dict(provenance)
        sidecar["computed"] = prov
        sidecar["parameters"] = prov.get("configuration", {})
        sidecar["device"] = ", ".join(prov.get("devices") or []) or "unknown device"
        sidecar["compute_s"] = round(float(prov.get("compute_s") or 0.0), 3)
        sidecar["compute_what"] = f"the computing time of the {prov.get('points', 0)} bundled point(s) drawn"

    finish_axes(fig)
    _replace_labels(fig)  # point labels placed for the figure as laid out
    for ext in ("png", "svg", "pdf"):
        with rio.atomic_path(out / f"{fig_id}.{ext}") as tmp:
            fig.savefig(tmp, format=ext, metadata=_file_metadata(ext, fig_id, caption, sidecar))
    with rio.atomic_path(out / f"{fig_id}.csv") as tmp:
        data.to_csv(tmp, index=False)
    under_runner = bool(os.environ.get("REPCAP_NOTEBOOK"))
    if show and not under_runner:
        _display(fig_id, fig, caption, sidecar)  # (before the figure is re-laid out for a phone)
    narrow = save_narrow(fig, out / f"{fig_id}.narrow.svg", fig_id, caption, sidecar)
    if narrow:
        sidecar["files"]["narrow_svg"] = f"{fig_id}.narrow.svg"
    rio.write_json(out / f"{fig_id}.json", sidecar)
    _last_save = time.time()

    if show and under_runner:
        _display(fig_id, fig, caption, sidecar)
    plt.close(fig)
    return sidecar


def _grid_cells(fig: matplotlib.figure.Figure) -> tuple[int, int, list] | None:
    """(rows, columns, [(axes, row, column)]) when every axes of ``fig`` fills one cell of one grid
    (``plt.subplots``); None for anything else (colour bars, insets, spans, twin axes)."""
    grid, cells, seen = None, [], set()
    for ax in fig.axes:
        spec = ax.get_subplotspec() if hasattr(ax, "get_subplotspec") else None
        if spec is None:
            return None
        gs = spec.get_gridspec()
        if grid is None:
            grid = gs
        if gs is not grid or spec.num1 != spec.num2:
            return None
        rc = (spec.rowspan.start, spec.colspan.start)
        if rc in seen:
            return None
        seen.add(rc)
        cells.append((ax, *rc))
    if grid is None:
        return None
    nrows, ncols = grid.get_geometry()
    return nrows, ncols, cells


def save_narrow(fig: matplotlib.figure.Figure, path: Path, fig_id: str, caption: str, side: Mapping[str, Any]) -> bool:
    """Draw ``fig`` again for a phone's column (:data:`NARROW_WIDTH` inches): side-by-side panels
    stacked in reading order, each with its own tick labels; a figure legend below them in two
    columns.  Writes ``path`` (SVG) and returns True; returns False, writing nothing, for a figure
    whose layout this cannot rearrange or whose legend or labels would not fit the column (it keeps
    its sideways-scrolling box).  Changes ``fig``: call it after the figure's own files are written."""
    from matplotlib.gridspec import GridSpec

    geo = _grid_cells(fig)
    if geo is None:
        return False
    nrows, ncols, cells = geo
    w, h = fig.get_size_inches()
    n = len(cells)
    try:
        if ncols > 1:
            stacked = GridSpec(nrows * ncols, 1, figure=fig)
            for ax, r, c in sorted(cells, key=lambda t: (t[1], t[2])):
                ax.set_subplotspec(stacked[r * ncols + c, 0])
                ax.yaxis.set_tick_params(labelleft=True)
                ax.xaxis.set_tick_params(labelbottom=True)
        legends = list(fig.legends)
        for leg in legends:
            handles = [h for h in leg.legend_handles if h is not None]
            labels = [t.get_text() for t in leg.get_texts()][: len(handles)]
            leg.remove()
            ncol = min(2 if max((len(t) for t in labels), default=0) <= 24 else 1, len(labels))  # long: one column
            fig.legend(handles, labels, loc="lower center", ncol=ncol, bbox_to_anchor=(0.5, 0.0))
        below = []  # legends placed under their axes by legend_below: redone for the column
        for ax in fig.axes:
            ax_leg = ax.get_legend()
            if ax_leg is not None and hasattr(ax_leg, "_repcap_below"):
                longest = max((len(t.get_text()) for t in ax_leg.get_texts()), default=0)
                below.append((ax, *ax_leg._repcap_below, longest))
                ax_leg.remove()
        panel_h = max(2.3, min(3.2, h / max(nrows, 1)))
        rows_out = n if ncols > 1 else nrows
        legend_h = 0.0
        if fig.legends:
            leg = fig.legends[0]
            legend_h = 0.28 * -(-len(leg.get_texts()) // getattr(leg, "_ncols", 2)) + 0.15
        fig.set_size_inches(NARROW_WIDTH, panel_h * rows_out * (0.92 if rows_out > 1 else 0.85) + legend_h)
        total_h = fig.get_size_inches()[1]
        fig.tight_layout(rect=(0, legend_h / total_h, 1, 1))
        if below:
            for ax, pad, kw, longest in below:
                legend_below(ax, ncol=2 if longest <= 24 else 1, pad=pad, **kw)
            n_entries = sum(len(ax.get_legend().get_texts()) for ax, *_ in below)
            fig.set_size_inches(NARROW_WIDTH, total_h + 0.2 * n_entries)
            fig.tight_layout(rect=(0, legend_h / fig.get_size_inches()[1], 1, 1))
        if _replace_labels(fig):  # point labels placed again for the column; crowded: keep the wide one
            return False
        fig.canvas.draw()
        box = fig.get_tightbbox()
        if box.width > NARROW_WIDTH * 1.12:  # something (a legend, a long label) does not fit the column
            return False
        with rio.atomic_path(path) as tmp:
            fig.savefig(tmp, format="svg", metadata=_file_metadata("svg", fig_id, caption, side))
    except (ValueError, RuntimeError, AttributeError, TypeError):
        path.unlink(missing_ok=True)
        return False
    finally:
        fig.set_size_inches(w, h)
    return True


def _file_metadata(ext: str, fig_id: str, caption: str, side: Mapping[str, Any]) -> dict[str, Any]:
    """Metadata carried inside each image file, so a figure pasted into slides still says what it is
    and where it came from: caption, profile, source notebook, git revision."""
    origin = (
        f"repcap {__version__}, notebook {side.get('notebook')}, profile {side.get('profile')}, "
        f"git {side.get('git_revision')}"
    )
    if ext == "png":
        return {"Title": fig_id, "Description": caption, "Source": origin, "Software": f"repcap {__version__}"}
    if ext == "pdf":
        return {"Title": fig_id, "Subject": caption, "Keywords": origin, "Creator": f"repcap {__version__}"}
    return {"Title": fig_id, "Description": caption, "Source": origin, "Creator": f"repcap {__version__}"}


def finish_axes(fig: matplotlib.figure.Figure) -> None:
    """One tick-label style for every log axis of the book (:func:`plain_log_ticks`)."""
    for ax in fig.axes:
        if getattr(ax, "get_xscale", None) and (ax.get_xscale() == "log" or ax.get_yscale() == "log"):
            plain_log_ticks(ax)


def alt_text(caption: str, limit: int = 300) -> str:
    """A figure's alt text: its caption as plain text (markup and line breaks removed, shortened at a
    sentence or word boundary)."""
    text = " ".join(re.sub(r"[`*_{}$]", "", caption).split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return (cut[: end + 1] if end > limit // 2 else cut.rsplit(" ", 1)[0] + " …").strip()


def bundle_provenance(lookup: Any, set_name: str = "reference") -> dict[str, Any] | None:
    """What :func:`save` records of a figure drawn from a results bundle: ``lookup`` is a
    :class:`repcap.results.bundle.store.Lookup`, or a list of them for a figure that draws several
    experiments (None, or lookups without points, give None).  The runs' own configuration (one
    dict, or the list of the points' configurations), the machines, commits and dates of the points,
    their summed computing time, where they come from, and the command that recomputes them."""
    lookups = [lk for lk in (lookup if isinstance(lookup, (list, tuple)) else [lookup]) if lk is not None]
    found = [f for lk in lookups for f in (getattr(lk, "found", None) or [])]
    if not found:
        return None
    experiments = list(dict.fromkeys(str(getattr(lk, "experiment", "") or "") for lk in lookups if lk.found))
    scale = str(getattr(lookups[0], "scale", "full") or "full")
    provs = [dict(f.provenance or {}) for f in found]
    configs = [dict(f.config) for f in found]
    sources = sorted({str(p.get("source") or "cache") for p in provs})
    bundles = sorted({_bundle_path(p.get("bundle")) for p in provs if p.get("source") == "bundle"})
    flag = "" if scale == "full" else f" --scale {scale}"
    return {
        "set": set_name,
        "experiment": ", ".join(experiments),
        "scale": scale,
        "points": len(found),
        "source": "bundle" if sources == ["bundle"] else "cache" if "bundle" not in sources else "bundle and cache",
        "bundles": bundles,
        "configuration": configs[0] if len(configs) == 1 else configs,
        "devices": sorted(
            {str(p.get("device") or "unknown device").replace("(1 threads)", "(1 thread)") for p in provs}
        ),
        "commits": sorted({str(p["commit"]) for p in provs if p.get("commit")}),
        "computed_dates": sorted({str(p["computed"])[:10] for p in provs if p.get("computed")}),
        "compute_s": round(sum(float(p.get("seconds") or 0.0) for p in provs), 3),
        "recompute": f"repcap bundle compute {set_name}{flag} --only {' '.join(experiments)}",
    }


def _bundle_path(where: Any) -> str:
    path = where.get("path") if isinstance(where, dict) else where
    try:
        return str(Path(str(path)).resolve().relative_to(project_root().resolve()))
    except (ValueError, OSError):
        return str(path)


def duration(seconds: float) -> str:
    """Seconds as the book writes a computing time: 0.3 s, 42 s, 56 min, 2.1 h."""
    s = float(seconds or 0.0)
    if s < 10:
        return f"{s:.1f} s"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def side_run(side: Mapping[str, Any]) -> str:
    """The run that drew a figure, in one line: its profile and overrides ("quick + n_vectors=3000")."""
    drawn_by = side.get("drawn_by")
    drawn: Mapping[str, Any] = drawn_by if isinstance(drawn_by, Mapping) else {}
    profile = drawn.get("profile", side.get("profile"))
    overrides = drawn.get("overrides", side.get("overrides"))
    return run_label(profile, overrides if isinstance(overrides, Mapping) else None)


def created_date(side: Mapping[str, Any]) -> str:
    """The day the figure was drawn (UTC, ISO), or "" when the sidecar does not say."""
    t = side.get("created_unix")
    try:
        return time.strftime("%Y-%m-%d", time.gmtime(float(t))) if t else ""
    except (TypeError, ValueError, OverflowError):
        return ""


def computed_date(side: Mapping[str, Any]) -> str:
    """The day a figure's numbers were computed: the latest of its bundled points' dates for a
    figure drawn from a bundle, else the day its chapter ran; "" when unknown."""
    comp = side.get("computed")
    if isinstance(comp, Mapping):
        dates = [str(d) for d in comp.get("computed_dates") or [] if d]
        return max(dates) if dates else ""
    return created_date(side)


def provenance_line(side: Mapping[str, Any]) -> str:
    """One line of plain text on where a figure's numbers were computed (machine, commit, date, and
    how long the computing took) and which chapter run drew it."""
    comp = side.get("computed")
    drawn = side.get("drawn_by") or {}
    nb = drawn.get("notebook", side.get("notebook", "?"))
    rev = drawn.get("git_revision", side.get("git_revision", "?"))
    if isinstance(comp, Mapping):
        n = int(comp.get("points", 0) or 0)
        dates = sorted(str(d) for d in comp.get("computed_dates") or [])
        when = "on an unknown date" if not dates else dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
        commits = [str(c)[:18] for c in comp.get("commits") or []]
        return (
            f"computed: {n} point{'s' if n != 1 else ''} of the {comp.get('set')} set ({comp.get('experiment')}), "
            f"{when}, on {', '.join(comp.get('devices') or ['an unknown device'])} at "
            f"{'commit' if len(commits) == 1 else 'commits'} {', '.join(commits) or 'unknown'}, "
            f"{duration(comp.get('compute_s', 0))} of computing; "
            f"drawn by {nb} ({side_run(side)}, git {rev}, {created_date(side) or 'unknown date'})"
        )
    return (
        f"computed and drawn by {nb} ({side_run(side)}) on {side.get('device', '?')}, git {rev}, "
        f"{created_date(side) or 'unknown date'}; {duration(side.get('compute_s', side.get('wall_time_s', 0)))} "
        "of the chapter's run since its previous figure"
    )


def reproduce_command(side: Mapping[str, Any]) -> str | None:
    """The command that rebuilds a figure: its chapter under its profile, with ``-p`` for every
    override (or, in a sidecar from before overrides were recorded, every parameter that differs
    from that profile's); None outside the runner.  For a figure drawn from bundled results the
    parameters are the chapter's (``drawn_by``), not the run's."""
    drawn = side.get("drawn_by") if isinstance(side.get("drawn_by"), Mapping) else None
    nb = (drawn or side).get("notebook")
    profile = (drawn or side).get("profile")
    if not nb or nb == "interactive" or profile not in ("smoke", "quick", "paper", "reference"):
        return None
    args = [f"repcap run {nb} --profile {profile}"]
    overrides = (drawn or side).get("overrides")
    if isinstance(overrides, Mapping):
        changed = dict(overrides)
    else:
        try:
            from .params import resolve_parameters

            base = resolve_parameters(project_root() / str(nb), str(profile), {})
        except (RepcapError, OSError):
            base = {}
        params = (
            (drawn or {}).get("parameters") if drawn is not None and "parameters" in drawn else side.get("parameters")
        )
        changed = {k: v for k, v in (params or {}).items() if base.get(k, object()) != v}
    for k, v in changed.items():
        args.append(f"-p {shlex.quote(f'{k}={json.dumps(v)}')}")
    return " ".join(args)


def figure_directive(
    fig_id: str, caption: str, side: Mapping[str, Any] | None = None, rel_dir: str = "figures", width: str = "100%"
) -> str:
    """The MyST markup of a numbered figure named ``fig_id``: the image (opens full size when
    clicked), its caption, and under it the files behind it, the notebook source at the revision
    that built it, and the command that rebuilds it."""
    side = dict(side or {})
    files = " · ".join(
        f"{{download}}`{label} <{rel_dir}/{fig_id}.{ext}>`"
        for ext, label in (
            ("csv", "data (CSV)"),
            ("svg", "SVG"),
            ("pdf", "PDF"),
            ("png", "PNG"),
            ("json", "parameters (JSON)"),
        )
    )
    nb = str(side.get("notebook") or "")
    source = ""
    if nb.startswith("notebooks/"):
        source = f" · {{download}}`source <../../{nb}>` (git `{side.get('git_revision', '?')}`)"
    cmd = reproduce_command(side)
    rebuild = f"\n\nRebuild: `{cmd}`" if cmd else ""
    comp = side.get("computed")
    if isinstance(comp, Mapping) and comp.get("recompute"):
        rebuild = f"\n\n{_md_escape(provenance_line(side))}.\n\nRecompute: `{comp['recompute']}`" + (
            f" · Rebuild: `{cmd}`" if cmd else ""
        )
    narrow = ""
    if (side.get("files") or {}).get("narrow_svg"):
        # the phone layout: shown instead of the wide image below the breakpoint (repcap.css)
        narrow = (
            f"\n\n:::{{image}} {rel_dir}/{side['files']['narrow_svg']}\n:alt: {alt_text(caption)}\n"
            f":class: repcap-narrow\n:target: ../../_images/{fig_id}.svg\n:::"
        )
    return (
        f"````{{figure}} {rel_dir}/{fig_id}.svg\n:name: {fig_id}\n:width: {width}\n:alt: {alt_text(caption)}\n"
        f":target: ../../_images/{fig_id}.svg\n:class: repcap-figure\n:figclass: repcap-figure\n\n"
        f"{caption}\n\n{files}{source}, profile `{side_run(side)}`.{rebuild}{narrow}\n````\n"
    )


def _md_escape(text: str) -> str:
    """Plain text for a MyST paragraph: markup characters and HTML escaped (a bundle's strings are
    data, never markup)."""
    import html as _html

    return re.sub(r"([\\`*_{}\[\]<>#|$~])", r"\\\1", _html.escape(str(text), quote=False))


def _display(fig_id: str, fig, caption: str, side: Mapping[str, Any]) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:
        return
    if get_ipython() is None:
        return
    if os.environ.get("REPCAP_NOTEBOOK"):
        # Under the runner: the book renders this output as a numbered MyST figure.
        display(Markdown(figure_directive(fig_id, caption, side)))
    else:
        display(fig)


use_style()
