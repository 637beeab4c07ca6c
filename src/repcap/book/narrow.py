"""A figure's phone layout (``<fig_id>.narrow.svg``): its panels stacked for a phone's column, and
the metadata every image file carries."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

from repcap import __version__
from repcap.base import io as rio

from .labels import replace_labels
from .style import NARROW_WIDTH, legend_below


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
    geo = _grid_cells(fig)
    if geo is None:
        return False
    nrows, ncols, cells = geo
    w, h = fig.get_size_inches()
    n = len(cells)
    try:
        below = _rearrange(fig, nrows, ncols, cells)
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
        if replace_labels(fig):  # point labels placed again for the column; crowded: keep the wide one
            return False
        fig.canvas.draw()
        box = fig.get_tightbbox()
        if box.width > NARROW_WIDTH * 1.12:  # something (a legend, a long label) does not fit the column
            return False
        with rio.atomic_path(path) as tmp:
            fig.savefig(tmp, format="svg", metadata=file_metadata("svg", fig_id, caption, side))
    except (ValueError, RuntimeError, AttributeError, TypeError):
        path.unlink(missing_ok=True)
        return False
    finally:
        fig.set_size_inches(w, h)
    return True


def _rearrange(fig: matplotlib.figure.Figure, nrows: int, ncols: int, cells: list) -> list:
    """Stack ``fig``'s side-by-side panels in reading order and redo its figure legends for the
    column; returns the legends :func:`legend_below` placed under their axes (removed, to redo)."""
    from matplotlib.gridspec import GridSpec

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
    return below


def file_metadata(ext: str, fig_id: str, caption: str, side: Mapping[str, Any]) -> dict[str, Any]:
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
