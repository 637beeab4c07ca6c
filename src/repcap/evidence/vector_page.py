"""A vector PDF page as the digitiser reads it (:mod:`repcap.evidence.digitise`): its paths
(:class:`Shape`: bounding box, colour, curved or not) inside a clip rectangle, the axes frame that
holds the markers, the major tick marks on the frame's edges, and an axis calibrated on them
(:class:`Axis`, linear or log, with its largest tick residual).  PyMuPDF opens the file
(``pip install pymupdf``, a development dependency)."""

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


__all__ = ["RGB", "Axis", "Rect", "Shape", "calibrate", "shapes", "tick_marks"]
