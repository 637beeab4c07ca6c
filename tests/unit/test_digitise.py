"""The vector-figure digitiser (repcap.evidence.digitise) on figures drawn here with known values: marker
positions, error bars and colours must come back from the PDF's drawing operators."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pymupdf")
mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from repcap import RepcapError  # noqa: E402
from repcap.evidence import digitise as dg  # noqa: E402

GAMMAS = (-0.778, -0.556, -0.333, 0.333)


@pytest.fixture(autouse=True)
def _default_style():
    """Draw with matplotlib's defaults: the book's style (set by other tests in the same process)
    turns tick marks off, and the digitiser calibrates on them, as on the authors' figure."""
    with mpl.rc_context(rc=mpl.rcParamsDefault):
        mpl.use("Agg")
        yield


XS = np.arange(0, 2.01, 0.25)


def _truth() -> dict[float, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    return {
        g: (0.8 + 0.3 * XS**2 + 0.1 * g + rng.uniform(-0.05, 0.05, XS.size), rng.uniform(0.02, 0.2, XS.size))
        for g in GAMMAS
    }


def _draw(path: Path, *, log: bool = False) -> dict[float, tuple[np.ndarray, np.ndarray]]:
    """An Fig. 6e look-alike: one series per gamma, Spectral colours on a -1..1 colour bar."""
    truth = _truth()
    fig, ax = plt.subplots(figsize=(4, 3))
    cmap, norm = mpl.colormaps["Spectral"], mpl.colors.Normalize(-1, 1)
    for g, (y, e) in truth.items():
        yy = 10 ** (y - 2) if log else y
        err = None if log else e
        ax.errorbar(XS, yy, yerr=err, fmt="o", color=cmap(norm(g)), ms=5)
    ax.plot([0, 2], [1, 1] if not log else [0.1, 0.1], "k--")
    if log:
        ax.set_yscale("log")
        ax.set_ylim(10**-1.5, 10**1.0)
        ax.set_yticks([0.1, 1.0, 10.0])
    else:
        ax.set_ylim(0, 2.6)
        ax.set_yticks([0, 1, 2])
    ax.set_xlim(-0.15, 2.15)
    ax.set_xticks([0, 1, 2])
    sm = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
    cb = fig.colorbar(sm, ax=ax)
    cb.set_ticks([-1, -0.5, 0, 0.5, 1])
    cb.solids.set_rasterized(True)  # the bar as an image, as in the authors' PDF
    fig.savefig(path)
    plt.close(fig)
    return truth


def _whole(path: Path) -> tuple[float, float, float, float]:
    import pymupdf

    r = pymupdf.open(path)[0].rect
    return (0.0, 0.0, float(r.x1), float(r.y1))


def test_markers_error_bars_and_colours_come_back(tmp_path: Path) -> None:
    pdf = tmp_path / "fig.pdf"
    truth = _draw(pdf)
    clip = _whole(pdf)
    panel = dg.digitise(pdf, clip, [0, 1, 2], [0, 1, 2], cbar_ticks=[-1, -0.5, 0, 0.5, 1])
    assert panel.x_axis.residual < 1e-3 and panel.y_axis.residual < 1e-3
    got = dg.series(panel.points)
    assert len(got) == len(GAMMAS)
    for pts in got.values():
        assert len(pts) == XS.size
        g = min(GAMMAS, key=lambda g_: abs(g_ - pts[0].colour_value))
        # the colour bar is sampled at its pixels: 256 colours over -1..1, so within about 0.02
        assert abs(pts[0].colour_value - g) < 0.03, (pts[0].colour_value, g)
        y, e = truth[g]
        np.testing.assert_allclose([p.x for p in pts], XS, atol=2e-3)
        np.testing.assert_allclose([p.y for p in pts], y, atol=2e-3)
        np.testing.assert_allclose([p.err for p in pts], e, atol=3e-3)


def test_colour_map_instead_of_the_bar_gives_the_same_gammas(tmp_path: Path) -> None:
    pdf = tmp_path / "fig.pdf"
    _draw(pdf)
    panel = dg.digitise(pdf, _whole(pdf), [0, 1, 2], [0, 1, 2], cmap=("Spectral", -1, 1))
    vals = sorted({round(p.colour_value, 2) for p in panel.points})
    np.testing.assert_allclose(vals, sorted(GAMMAS), atol=0.01)
    assert max(p.colour_distance for p in panel.points) < 0.01


def test_log_axis(tmp_path: Path) -> None:
    pdf = tmp_path / "fig.pdf"
    truth = _draw(pdf, log=True)
    panel = dg.digitise(pdf, _whole(pdf), [0, 1, 2], [0.1, 1.0, 10.0], y_log=True, cmap=("Spectral", -1, 1))
    for pts in dg.series(panel.points).values():
        g = min(GAMMAS, key=lambda g_: abs(g_ - pts[0].colour_value))
        np.testing.assert_allclose(np.log10([p.y for p in pts]), truth[g][0] - 2, atol=2e-3)
        assert all(p.err is None for p in pts)


def test_wrong_tick_list_is_one_line(tmp_path: Path) -> None:
    pdf = tmp_path / "fig.pdf"
    _draw(pdf)
    with pytest.raises(RepcapError, match="x axis has 3 major tick marks.*2 tick values"):
        dg.digitise(pdf, _whole(pdf), [0, 2], [0, 1, 2])
    with pytest.raises(RepcapError, match="no such PDF"):
        dg.digitise(tmp_path / "none.pdf", (0, 0, 1, 1), [0, 1], [0, 1])


def test_calibrate_against_closed_form() -> None:
    ax = dg.calibrate([100.0, 200.0, 300.0], [0.0, 1.0, 2.0])
    assert ax(250.0) == pytest.approx(1.5) and ax.residual < 1e-12
    lg = dg.calibrate([0.0, 50.0], [0.01, 0.1], log=True)
    assert lg(25.0) == pytest.approx(10**-1.5)
    with pytest.raises(RepcapError, match="log axis"):
        dg.calibrate([0.0, 1.0], [0.0, 1.0], log=True)
