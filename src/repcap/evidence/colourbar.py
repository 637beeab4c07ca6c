"""A figure's colour bar, from which a marker's colour is read back as a value: the bar's image on
the PDF page calibrated on its own tick marks, or a matplotlib colour map over a range
(:class:`ColourBar`: nearest colour gives the value, with its distance)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from repcap import RepcapError

from .vector_page import RGB, Rect, Shape, _inside, calibrate, tick_marks


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


__all__ = ["ColourBar", "colourbar_from_cmap", "colourbar_from_image"]
