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

Steps 1-3 read the page (:mod:`repcap.evidence.vector_page`), step 6 the colour bar
(:mod:`repcap.evidence.colourbar`); this module finds the markers and their error bars and is the
one name of all of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from repcap import RepcapError

from .colourbar import ColourBar, colourbar_from_cmap, colourbar_from_image
from .vector_page import RGB, Axis, Rect, Shape, _frame, _is_grey, _open, calibrate, shapes, tick_marks


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
