"""Point labels that keep clear of each other: :func:`place_labels` registers them on an axes, and
:func:`replace_labels` places them again once the figure is laid out (and for the phone layout)."""

from __future__ import annotations

from typing import Any


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
    for x, y, text in zip(xs, ys, texts):
        px, py = to_px.transform((x, y))
        others = [o for o in obstacles if abs((o[0] + o[2]) / 2 - px) > 0.5 or abs((o[1] + o[3]) / 2 - py) > 0.5]
        probe = ax.text(0, 0, text, fontsize=fontsize, transform=None)
        ext = probe.get_window_extent(renderer)
        w, h = ext.width, ext.height
        probe.remove()
        choice = _clear_spot((px, py), (w, h), box, [*placed, *others], px_per_pt)
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


def replace_labels(fig) -> int:
    """Place every axes' point labels again for the figure's current layout; returns how many found
    no clear place."""
    unplaced = 0
    for ax in fig.axes:
        if getattr(ax, "_repcap_labels", None) is not None:
            _place_labels(ax)
            unplaced += ax._repcap_labels_unplaced
    return unplaced


_DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]


def _clear_spot(
    point: tuple[float, float], extent: tuple[float, float], box: Any, blocked: list, px_per_pt: float
) -> tuple[float, float, float] | None:
    """The lower-left corner (pixels) and distance (points) of the nearest place around ``point``
    where a label of ``extent`` fits inside ``box`` and clear of every ``blocked`` box; None if none."""
    px, py = point
    w, h = extent
    for dist in (6.0, 11.0, 18.0, 28.0, 40.0, 54.0):
        for dx, dy in _DIRECTIONS:
            gap = dist * px_per_pt
            x0 = px + dx * gap - (w if dx < 0 else 0 if dx > 0 else w / 2)
            y0 = py + dy * gap - (h if dy < 0 else 0 if dy > 0 else h / 2)
            cand = (x0 - 1, y0 - 1, x0 + w + 1, y0 + h + 1)
            inside = box.x0 <= cand[0] and cand[2] <= box.x1 and box.y0 <= cand[1] and cand[3] <= box.y1
            clear = all(cand[2] <= o[0] or o[2] <= cand[0] or cand[3] <= o[1] or o[3] <= cand[1] for o in blocked)
            if inside and clear:
                return (x0, y0, dist)
    return None
