"""Read a plotted figure back from its vector PDF: marker positions, error bars and colours.

The sources ship some figures as vector PDFs (Liu et al.'s ``figures/Fig-6-3.pdf``).  Their marker
positions are exact in the PDF's drawing operators; reading them there is better than reading a
raster by eye.  :func:`digitise` does it for one panel:

1. every filled or stroked path of the page inside the panel's ``clip`` rectangle is read with
   PyMuPDF (``page.get_drawings()``);
2. the axes frame is the smallest white rectangle that holds the markers;
3. the axes are calibrated on their **major tick marks**: the short black marks on the frame's
   bottom (x) and left (y) edge, whose values the caller gives (tick labels are often glyph paths,
   not text); a linear or log axis is a least-squares line through (position, value), and its
   largest residual is returned, so that a wrong tick list shows;
4. markers are the coloured closed curves of about square shape; one marker per colour and
   position (a disc and its edge ring are one marker);
5. an error bar is a thin vertical path of the marker's colour through the marker's centre;
6. a colour is mapped to a value on the **colour bar**: the raster image of the bar, calibrated on
   its own tick marks (``cbar_ticks``), or, without an image, a matplotlib colour map and range.

The result is a list of :class:`Point` (data coordinates, error bar, colour, colour value), which
the book stores as quotes labelled ``ours (digitised from the vector figure)``.  PyMuPDF is a
development dependency (``pip install pymupdf``); the book reads the stored quotes, not the PDF.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repcap import RepcapError

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points, y down
RGB = tuple[float, float, float]


@dataclass(frozen=True)
class Shape:
    """One path of the page: its bounding box, fill (or stroke) colour and whether it has curves."""

    rect: Rect
    colour: RGB | None
    curved: bool
    filled: bool

    @property
    def width(self) -> float:
        return self.rect[2] - self.rect[0]

    @property
    def height(self) -> float:
        return self.rect[3] - self.rect[1]

    @property
    def centre(self) -> tuple[float, float]:
        return (self.rect[0] + self.rect[2]) / 2, (self.rect[1] + self.rect[3]) / 2


@dataclass(frozen=True)
class Axis:
    """``value = f(a + b * position)``, f the identity or 10**x (log axis); ``residual`` is the
    largest misfit of a tick, in the axis's units (decades for a log axis)."""

    a: float
    b: float
    log: bool
    residual: float
    ticks: tuple[float, ...]  # tick positions used, in PDF points

    def __call__(self, pos: float) -> float:
        v = self.a + self.b * pos
        return 10.0**v if self.log else v


@dataclass(frozen=True)
class Point:
    """One marker in data coordinates, with its error bar (None without one) and colour."""

    x: float
    y: float
    y_low: float | None
    y_high: float | None
    colour: RGB
    colour_value: float | None  # the colour read on the colour bar (None without a bar)
    colour_distance: float | None  # RGB distance to the nearest colour of the bar

    @property
    def err(self) -> float | None:
        """Half the error bar's length (for a symmetric bar, the ± of the point)."""
        if self.y_low is None or self.y_high is None:
            return None
        return (self.y_high - self.y_low) / 2


def _is_grey(c: RGB | None, tol: float = 0.02) -> bool:
    return c is None or (max(c) - min(c) <= tol)


def _is_black(c: RGB | None) -> bool:
    return c is not None and max(c) <= 0.05


def _is_white(c: RGB | None) -> bool:
    return c is not None and min(c) >= 0.98


def _open(pdf: str | Path, page: int) -> Any:
    try:
        import pymupdf
    except ImportError as exc:  # pragma: no cover - the dev extra has it
        raise RepcapError("digitising a PDF needs PyMuPDF: pip install pymupdf (the dev extra)") from exc
    path = Path(pdf)
    if not path.is_file():
        raise RepcapError(f"{path}: no such PDF file")
    try:
        doc = pymupdf.open(path)
    except Exception as exc:
        raise RepcapError(f"{path}: not a readable PDF ({exc})") from exc
    if not 0 <= page < doc.page_count:
        raise RepcapError(f"{path}: has {doc.page_count} page(s), no page {page}")
    return doc, doc[page]


def _inside(r: Rect, clip: Rect | None, slack: float = 0.5) -> bool:
    if clip is None:
        return True
    return r[0] >= clip[0] - slack and r[1] >= clip[1] - slack and r[2] <= clip[2] + slack and r[3] <= clip[3] + slack


def shapes(page: Any, clip: Rect | None = None) -> list[Shape]:
    """Every path of ``page`` inside ``clip``, as :class:`Shape`."""
    out = []
    for d in page.get_drawings():
        r = d["rect"]
        rect = (float(r.x0), float(r.y0), float(r.x1), float(r.y1))
        if not _inside(rect, clip):
            continue
        filled = d.get("fill") is not None
        col = d.get("fill") if filled else d.get("color")
        colour = tuple(float(v) for v in col[:3]) if col is not None and len(col) >= 3 else None
        if colour is None and col is not None and len(col) == 1:  # grey colour space
            colour = (float(col[0]),) * 3
        # a stroke's box is its path's: a butt-capped error bar ends where its path ends
        curved = any(it[0] == "c" for it in d["items"])
        out.append(Shape(rect, colour, curved, filled))  # type: ignore[arg-type]
    return out


def _frame(shs: Sequence[Shape], markers: Sequence[Shape]) -> Rect:
    """The axes frame: the smallest white filled rectangle holding most marker centres."""
    best: tuple[float, Rect] | None = None
    for s in shs:
        if not (s.filled and _is_white(s.colour)) or s.width < 10 or s.height < 10:
            continue
        x0, y0, x1, y1 = s.rect
        held = sum(x0 <= m.centre[0] <= x1 and y0 <= m.centre[1] <= y1 for m in markers)
        if markers and held < 0.8 * len(markers):
            continue
        area = s.width * s.height
        if best is None or area < best[0]:
            best = (area, s.rect)
    if best is None:
        raise RepcapError("digitise: no axes frame (a white rectangle holding the markers) inside the clip")
    return best[1]


def _dedupe(xs: Sequence[float], tol: float = 0.3) -> list[float]:
    out: list[float] = []
    for x in sorted(xs):
        if out and abs(x - out[-1]) <= tol:
            continue
        out.append(x)
    return out


def tick_marks(shs: Sequence[Shape], edge: str, at: float, span: tuple[float, float]) -> list[float]:
    """Positions of the major tick marks on one edge of a frame.

    ``edge`` ``"bottom"`` / ``"top"``: vertical marks whose end touches the line y = ``at``, x in
    ``span``; ``"left"`` / ``"right"``: horizontal marks touching x = ``at``.  Minor ticks (shorter
    than 80% of the longest) are left out.
    """
    found: list[tuple[float, float]] = []  # (position, length)
    for s in shs:
        if not _is_black(s.colour) or s.curved:
            continue
        x0, y0, x1, y1 = s.rect
        if edge in ("bottom", "top"):
            if s.width > 1.2 or not 1.0 <= s.height <= 8.0:
                continue
            if min(abs(y0 - at), abs(y1 - at)) > 0.6:
                continue
            pos, length = (x0 + x1) / 2, s.height
        else:
            if s.height > 1.2 or not 1.0 <= s.width <= 8.0:
                continue
            if min(abs(x0 - at), abs(x1 - at)) > 0.6:
                continue
            pos, length = (y0 + y1) / 2, s.width
        if span[0] - 0.6 <= pos <= span[1] + 0.6:
            found.append((pos, length))
    if not found:
        return []
    longest = max(length for _, length in found)
    return _dedupe([p for p, length in found if length >= 0.8 * longest])


def calibrate(positions: Sequence[float], values: Sequence[float], *, log: bool = False, name: str = "axis") -> Axis:
    """The axis through (position, value) of its ticks (``values`` in the order of ``positions``)."""
    if len(positions) != len(values):
        raise RepcapError(
            f"digitise: {name} has {len(positions)} major tick marks in the clip, but {len(values)} tick values were "
            f"given ({', '.join(f'{v:g}' for v in values)})"
        )
    if len(positions) < 2:
        raise RepcapError(f"digitise: {name} needs at least two tick marks to calibrate, found {len(positions)}")
    if log and any(v <= 0 for v in values):
        raise RepcapError(f"digitise: {name} is a log axis, but a tick value is not positive")
    ys = [math.log10(v) if log else float(v) for v in values]
    n = len(positions)
    mx, my = sum(positions) / n, sum(ys) / n
    sxx = sum((p - mx) ** 2 for p in positions)
    if sxx == 0:
        raise RepcapError(f"digitise: {name}'s tick marks all sit at one position")
    b = sum((p - mx) * (y - my) for p, y in zip(positions, ys, strict=True)) / sxx
    a = my - b * mx
    res = max(abs(a + b * p - y) for p, y in zip(positions, ys, strict=True))
    return Axis(a, b, log, res, tuple(positions))


def _markers(shs: Sequence[Shape]) -> list[Shape]:
    """Coloured, roughly round closed curves of marker size, one per (colour, position)."""
    cands = [
        s
        for s in shs
        if s.curved
        and not _is_grey(s.colour)
        and 1.5 <= s.width <= 20
        and 1.5 <= s.height <= 20
        and 0.7 <= s.width / s.height <= 1.4
    ]
    cands.sort(key=lambda s: -s.width)  # the edge ring (the larger) speaks for its disc
    out: list[Shape] = []
    for s in cands:
        cx, cy = s.centre
        if any(
            o.colour is not None
            and s.colour is not None
            and max(abs(a - b) for a, b in zip(o.colour, s.colour, strict=True)) < 0.01
            and abs(o.centre[0] - cx) < 0.5
            and abs(o.centre[1] - cy) < 0.5
            for o in out
        ):
            continue
        out.append(s)
    return out


def _bar_for(marker: Shape, shs: Sequence[Shape]) -> tuple[float, float] | None:
    """The (top, bottom) PDF y of the error bar through ``marker``, of its colour."""
    cx, cy = marker.centre
    best = None
    for s in shs:
        if s.curved or s.colour is None or marker.colour is None:
            continue
        if max(abs(a - b) for a, b in zip(s.colour, marker.colour, strict=True)) >= 0.01:
            continue
        if s.width > 2.5 or s.height < 0.5 or abs(s.centre[0] - cx) > 0.6:
            continue
        if not s.rect[1] - 0.6 <= cy <= s.rect[3] + 0.6:
            continue
        if best is None or s.height > best[1] - best[0]:
            best = (s.rect[1], s.rect[3])
    return best


@dataclass(frozen=True)
class ColourBar:
    """Colours along a colour bar and the value at each: nearest colour gives the value."""

    colours: tuple[RGB, ...]
    values: tuple[float, ...]

    def value(self, c: RGB) -> tuple[float, float]:
        """``(value, distance)`` of the nearest colour of the bar (distance: Euclidean, RGB in 0..1)."""
        best = min(
            range(len(self.colours)),
            key=lambda i: sum((a - b) ** 2 for a, b in zip(self.colours[i], c, strict=True)),
        )
        d = math.sqrt(sum((a - b) ** 2 for a, b in zip(self.colours[best], c, strict=True)))
        return self.values[best], d


def colourbar_from_cmap(name: str, vmin: float, vmax: float, n: int = 2001) -> ColourBar:
    """A colour bar from a matplotlib colour map over ``vmin..vmax``."""
    import matplotlib

    cmap = matplotlib.colormaps[name]
    vals = [vmin + (vmax - vmin) * i / (n - 1) for i in range(n)]
    cols = tuple(tuple(float(x) for x in cmap(i / (n - 1))[:3]) for i in range(n))
    return ColourBar(cols, tuple(vals))  # type: ignore[arg-type]


def colourbar_from_image(page: Any, shs: Sequence[Shape], clip: Rect | None, ticks: Sequence[float]) -> ColourBar:
    """The colour bar drawn as an image inside ``clip``: its pixels, calibrated on the bar's own
    tick marks (on its right edge for a vertical bar, its bottom edge for a horizontal one)."""
    import pymupdf

    infos = [i for i in page.get_image_info() if _inside(tuple(i["bbox"]), clip, slack=1.0)]
    if not infos:
        raise RepcapError("digitise: no colour-bar image inside the clip; give a colour map instead")
    info = max(infos, key=lambda i: max(i["bbox"][2] - i["bbox"][0], i["bbox"][3] - i["bbox"][1]))
    x0, y0, x1, y1 = (float(v) for v in info["bbox"])
    # the bar rendered as the page shows it (an inline image has no xref to read the pixels from)
    inset = 0.25  # keep off the bar's edge, where the frame line is drawn over it
    zoom = 8.0
    pix = page.get_pixmap(
        matrix=pymupdf.Matrix(zoom, zoom), clip=pymupdf.Rect(x0 + inset, y0, x1 - inset, y1), alpha=False
    )
    w, h, n = pix.width, pix.height, pix.n
    data = pix.samples
    vertical = (y1 - y0) >= (x1 - x0)
    if vertical:
        pos = tick_marks(shs, "right", x1, (y0, y1)) or tick_marks(shs, "left", x0, (y0, y1))
        pos = sorted(pos, reverse=True)  # bottom (smallest value) first
    else:
        pos = sorted(tick_marks(shs, "bottom", y1, (x0, x1)) or tick_marks(shs, "top", y0, (x0, x1)))
    axis = calibrate(pos, ticks, name="the colour bar")
    cols: list[RGB] = []
    vals: list[float] = []
    steps = h if vertical else w
    for i in range(2, steps - 2):  # the first and last rows meet the frame
        px, py = (w // 2, i) if vertical else (i, h // 2)
        k = (py * w + px) * n
        cols.append((data[k] / 255.0, data[k + 1] / 255.0, data[k + 2] / 255.0))
        where = y0 + (i + 0.5) * (y1 - y0) / h if vertical else x0 + inset + (i + 0.5) * (x1 - x0 - 2 * inset) / w
        vals.append(axis(where))
    return ColourBar(tuple(cols), tuple(vals))


@dataclass(frozen=True)
class Panel:
    """What :func:`digitise` read: the points and the calibration it used."""

    points: tuple[Point, ...]
    x_axis: Axis
    y_axis: Axis
    frame: Rect


def digitise(
    pdf: str | Path,
    clip: Rect,
    x_ticks: Sequence[float],
    y_ticks: Sequence[float],
    *,
    x_log: bool = False,
    y_log: bool = False,
    cbar_ticks: Sequence[float] | None = None,
    cbar_clip: Rect | None = None,
    cmap: tuple[str, float, float] | None = None,
    page: int = 0,
) -> Panel:
    """Every marker of the panel inside ``clip`` (PDF points, y down), in data coordinates.

    ``x_ticks`` / ``y_ticks``: the values of the major tick marks, left to right and bottom to top.
    Colour values: from the colour-bar image inside ``cbar_clip`` calibrated on ``cbar_ticks``, or
    from ``cmap = (name, vmin, vmax)``; neither: no colour values.
    """
    _doc, pg = _open(pdf, page)
    shs = shapes(pg, clip)
    marks = _markers(shs)
    if not marks:
        raise RepcapError(f"{pdf}: no coloured markers inside the clip {clip}")
    fr = _frame(shs, marks)
    marks = [m for m in marks if fr[0] <= m.centre[0] <= fr[2] and fr[1] <= m.centre[1] <= fr[3]]
    xpos = tick_marks(shs, "bottom", fr[3], (fr[0], fr[2]))
    ypos = sorted(tick_marks(shs, "left", fr[0], (fr[1], fr[3])), reverse=True)
    xa = calibrate(xpos, x_ticks, log=x_log, name="the x axis")
    ya = calibrate(ypos, y_ticks, log=y_log, name="the y axis")
    bar: ColourBar | None = None
    if cbar_ticks is not None:
        bar = colourbar_from_image(pg, shapes(pg, cbar_clip or clip), cbar_clip or clip, cbar_ticks)
    elif cmap is not None:
        bar = colourbar_from_cmap(*cmap)
    pts = []
    for m in marks:
        cx, cy = m.centre
        eb = _bar_for(m, shs)
        cv, cd = bar.value(m.colour) if bar is not None and m.colour is not None else (None, None)
        pts.append(
            Point(
                x=xa(cx),
                y=ya(cy),
                y_low=ya(eb[1]) if eb else None,
                y_high=ya(eb[0]) if eb else None,
                colour=m.colour,  # type: ignore[arg-type]
                colour_value=cv,
                colour_distance=cd,
            )
        )
    pts.sort(key=lambda p: (p.colour_value if p.colour_value is not None else 0.0, p.colour, p.x))
    return Panel(tuple(pts), xa, ya, fr)


def series(points: Sequence[Point]) -> dict[RGB, list[Point]]:
    """The points grouped by colour (one series per colour), each ordered by x."""
    out: dict[RGB, list[Point]] = {}
    for p in points:
        out.setdefault(p.colour, []).append(p)
    return {k: sorted(v, key=lambda p: p.x) for k, v in out.items()}


__all__ = [
    "Axis",
    "ColourBar",
    "Panel",
    "Point",
    "Shape",
    "calibrate",
    "colourbar_from_cmap",
    "colourbar_from_image",
    "digitise",
    "liu_fig6c",
    "liu_fig6e",
    "series",
    "shapes",
    "tick_marks",
]


#: Where panel e of Liu et al.'s Fig. 6 (``figures/Fig-6-3.pdf`` of liuyz0/SuperpositionScaling)
#: stands on its page (PDF points), and the values of its tick marks (read from the figure's labels).
LIU_FIG6E_CLIP: Rect = (202.0, 139.0, 385.0, 280.0)
LIU_FIG6E_CBAR_CLIP: Rect = (336.0, 150.0, 385.0, 260.0)
LIU_FIG6E_TICKS = {"x": (0.0, 1.0, 2.0), "y": (0.0, 1.0, 2.0), "cbar": (-1.0, -0.5, 0.0, 0.5, 1.0)}


def liu_fig6e(pdf: str | Path) -> Panel:
    """Panel e of Liu et al.'s Fig. 6 (α_m against α, colour = weight decay γ on a Spectral bar
    from -1 to 1), read from the authors' vector PDF."""
    t = LIU_FIG6E_TICKS
    return digitise(pdf, LIU_FIG6E_CLIP, t["x"], t["y"], cbar_ticks=t["cbar"], cbar_clip=LIU_FIG6E_CBAR_CLIP)


#: Panel c of the same figure (the strong rep. fraction φ₁ against m on a log axis, colour = α on a
#: plasma bar from 0 to 2), where it stands on the page and its tick values.
LIU_FIG6C_CLIP: Rect = (202.0, 0.0, 385.0, 139.0)
LIU_FIG6C_CBAR_CLIP: Rect = (336.0, 5.0, 385.0, 125.0)
LIU_FIG6C_TICKS = {"x": (10.0, 100.0), "y": (0.0, 0.5, 1.0), "cbar": (0.0, 0.5, 1.0, 1.5, 2.0)}


def liu_fig6c(pdf: str | Path) -> Panel:
    """Panel c of Liu et al.'s Fig. 6 (φ₁ against m, log x axis; colour = α on the figure's colour
    bar from 0 to 2), read from the authors' vector PDF."""
    t = LIU_FIG6C_TICKS
    return digitise(
        pdf, LIU_FIG6C_CLIP, t["x"], t["y"], x_log=True, cbar_ticks=t["cbar"], cbar_clip=LIU_FIG6C_CBAR_CLIP
    )
