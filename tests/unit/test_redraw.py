"""Every figure drawn with ``figures.save(..., draw=)`` can be drawn again from its CSV alone: for each
drawing of :mod:`repcap.book.drawings` that the chapters pass to ``save``, a small synthetic table is
saved, :func:`repcap.book.figures.redraw` draws it again from the CSV (and the drawing the sidecar
names), and the two rasters must be identical, pixel for pixel.  A changed CSV must change the
picture, so the comparison can fail; and the chapters' own smoke outputs, where a run has left them
in ``book/generated/figures``, are redrawn the same way."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from _redraw_scaling import CASES as SCALING_CASES
from PIL import Image

from repcap import RepcapError
from repcap.book import figures
from repcap.book.drawings import capacity, overlap, random, regimes, reproducibility, survey
from repcap.book.figdata import survey as fsurvey

GENERATED = Path(__file__).resolve().parents[2] / "book" / "generated" / "figures"


def _cos_density() -> pd.DataFrame:
    t = np.linspace(-0.99, 0.99, 120)
    rows = [{"d": d, "kind": "measured", "t": x, "density": 1 / (1 + d * x * x)} for d in (4, 16) for x in t]
    rows += [{"d": d, "kind": "exact", "t": x, "density": 1.1 / (1 + d * x * x)} for d in (4, 16) for x in t[::4]]
    return pd.DataFrame(rows)


def _sigma() -> pd.DataFrame:
    d = np.array([4, 16, 64, 256])
    return pd.DataFrame({"d": d, "inv_sqrt_d": d**-0.5, "measured_std": d**-0.5 * 1.01})


def _max_cos() -> pd.DataFrame:
    rows = [
        {"d": d, "k": k, "trial": t, "max_abs_cos": np.sqrt(4 * np.log(k) / d) * (1 + 0.05 * t)}
        for d in (16, 64)
        for k in (10, 100, 1000)
        for t in range(3)
    ]
    return pd.DataFrame(rows)


def _jl() -> pd.DataFrame:
    k = np.array([8, 32, 128])
    cols = {"jl_guarantee": 3.0, "worst_distortion": 1.0, "q99_distortion": 0.6, "mean_distortion": 0.2}
    return pd.DataFrame({"k": k, **{c: v / np.sqrt(k) for c, v in cols.items()}})


def _hist_rows(model: str, eps: float, **extra) -> list[dict]:
    cos = np.linspace(-0.995, 0.995, 200)
    dens = np.exp(-((cos - eps / 3) ** 2) / 0.02) + 1e-3
    return [{"model": model, "cos": c, "density": y, "eps": eps, **extra} for c, y in zip(cos, dens)]


def _eps_histograms() -> pd.DataFrame:
    rows = _hist_rows("toy-a", 0.4, mu=0.1, d_model=32) + _hist_rows("toy-b", 0.2, mu=0.05, d_model=96)
    return pd.DataFrame(rows)[["model", "cos", "density", "mu", "eps", "d_model"]]


def _eps_heads() -> pd.DataFrame:
    rows = _hist_rows("toy-a", 0.4, matrix="embedding (F32)") + _hist_rows("toy-a", 0.41, matrix="head (Q8_0)")
    return pd.DataFrame(rows)[["model", "matrix", "cos", "density", "eps"]]


def _eps_points() -> pd.DataFrame:
    pts = pd.DataFrame(
        [
            {"model": "A", "d_model": 4096, "eps": 0.06, "class": 2, "kind": "reported (Guha 2026)"},
            {"model": "B", "d_model": 1024, "eps": 0.3, "class": 1, "kind": "reported (Guha 2026)"},
            {"model": "toy", "d_model": 32, "eps": 0.6, "class": 1, "kind": "reproduced (ours)"},
        ]
    )
    return fsurvey.with_class_boundaries(pts, 0.1, 0.2)


def _capacity_curves() -> pd.DataFrame:
    grid = np.linspace(0.02, 0.12, 11)
    curves = pd.DataFrame(
        [
            {"law": law, "eps": e, "log10_capacity": s * 100 * e * e, "d": 8192}
            for law, s in (("a", 1), ("b", 2))
            for e in grid
        ]
    )
    return fsurvey.with_capacity_marks(curves, [0.05, 0.09], 8192)


def _thresholds() -> pd.DataFrame:
    names = ["μ+2σ", "μ+3σ", "q0.99 of |cos|"]
    rows = [
        {
            "model": m,
            "d": 64,
            "threshold": n,
            "eps": 0.1 * (i + 1) + j,
            "log10_capacity_four": 3 - i + j,
            "quantile_error": 0.0,
        }
        for j, m in enumerate(("toy-a", "toy-b"))
        for i, n in enumerate(names)
    ]
    return pd.DataFrame(rows)


def _overlaps() -> pd.DataFrame:
    ov = pd.DataFrame(
        {
            "model": ["toy-16", "toy-64"],
            "kind": ["synthetic", "LM head"],
            "m": [16, 64],
            "E[cos²]": [0.07, 0.02],
            "Var(cos)": [0.06, 0.016],
            "1/m": [1 / 16, 1 / 64],
        }
    )
    return fsurvey.overlap_figure(ov, 2.0, 5.0, 20.0, [512, 4096])


def _toyllm() -> pd.DataFrame:
    pts = pd.DataFrame(
        {
            "m": [2, 4, 64],
            "alpha": [1.0, 1.0, None],
            "mean_sq_overlap": [0.5, 0.26, 0.03],
            "source": ["toy", "toy", "LM head"],
            "one_over_m": [0.5, 0.25, 1 / 64],
            "var_cos": [None, None, 0.02],
        }
    )
    return fsurvey.toyllm_figure(pts, 2.0, 20.0, [512, 4096])


def _pairs() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "point": ["k=2, d=3", "k=4, d=3", "k=2, d=3"],
            "metric": ["eps_star", "eps_star", "mean_abs"],
            "ln(a/b)": [0.001, -0.002, 0.0005],
            "panel": [0, 0, 1],
            "seed sd": [0.005, 0.005, None],
            "interval low": [-0.01, -0.01, None],
            "interval high": [0.008, 0.008, None],
            "verdict": ["agree", "agree", "inconclusive"],
        }
    )


def _phi() -> pd.DataFrame:
    rows = [
        {"alpha": a, "gamma": g, "phi_half": 1.0 if g < 0 else 0.3, "loss": 1 + g, "m": 6, "n": 48}
        for a in (1.0, 1.5)
        for g in (-1.0, 0.0, 1.0)
    ]
    return pd.DataFrame(rows)


def _fig3() -> pd.DataFrame:
    cells = [
        {"alpha": a, "gamma": g, "phi_half": 0.9 if g < 0 else 0.2, "m": 6, "view": "map"}
        for a in (1.0, 1.5)
        for g in (-1.0, 1.0)
    ]
    lines = [
        {"alpha": 1.5, "gamma": g, "phi_half": 0.8 if g < 0 else 0.1, "m": m, "view": "φ½ against γ"}
        for m in (4, 8)
        for g in (-1.0, 1.0)
    ]
    return pd.DataFrame(cells + lines)


def _norms() -> pd.DataFrame:
    edges = np.linspace(0, 2, 41)
    rows = [
        {"regime": r, "bin_left": lo, "bin_right": hi, "count": int(k * (i % 3))}
        for r, k in (("weak, γ = 0.3", 2), ("strong, γ = -1", 5))
        for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:]))
    ]
    return pd.DataFrame(rows)


def _features() -> pd.DataFrame:
    rows = [
        {"rank": i, "regime": r, "norm": v / i**0.3, "p": 1 / i, "m": 6}
        for r, v in (("weak", 1.0), ("strong", 0.9))
        for i in range(1, 49)
    ]
    return pd.DataFrame(rows)


#: Each drawing the chapters pass to ``save(draw=)``, with a small table and its options.
CASES = {
    "fig-random-cosine-density": (random.cosine_density, _cos_density, {}),
    "fig-random-sigma": (random.sigma, _sigma, {"vectors": 500}),
    "fig-random-max-cos": (random.max_cos, _max_cos, {}),
    "fig-random-jl": (random.jl_distortion, _jl, {}),
    "fig-eps-histograms": (survey.histograms, _eps_histograms, {}),
    "fig-eps-heads": (survey.heads, _eps_heads, {}),
    "fig-eps-vs-d": (survey.eps_vs_width, _eps_points, {}),
    "fig-capacity-vs-eps": (capacity.capacity_vs_eps, _capacity_curves, {}),
    "fig-capacity-threshold": (capacity.thresholds, _thresholds, {}),
    "fig-overlap-vs-width": (overlap.overlap_vs_width, _overlaps, {}),
    "fig-toyllm-overlap": (overlap.toys_and_heads, _toyllm, {}),
    "fig-repro-shared-points": (reproducibility.shared_points, _pairs, {}),
    "fig-regimes-phi": (regimes.phi_and_loss, _phi, {}),
    "fig-regimes-fig3": (regimes.fig3, _fig3, {}),
    "fig-regimes-norms": (regimes.norms, _norms, {}),
    "fig-regimes-features": (regimes.features, _features, {}),
    **SCALING_CASES,  # chapter 9's drawings (_redraw_scaling.py)
}


def _pixels(fig) -> np.ndarray:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return np.asarray(Image.open(buf))


def _saved(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path))


@pytest.fixture
def fig_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REPCAP_FIGURE_DIR", str(tmp_path))
    return tmp_path


def _save(fig_id: str, fig_dir: Path) -> Path:
    func, table, options = CASES[fig_id]
    side = figures.save(fig_id, table(), {"caption": "A synthetic table."}, draw=func, options=options, show=False)
    assert side["drawing"]["function"] == f"{func.__module__}:{func.__name__}"
    return fig_dir / f"{fig_id}.csv"


@pytest.mark.parametrize("fig_id", sorted(CASES))
def test_a_figure_redrawn_from_its_csv_is_the_figure_saved(fig_id, fig_dir):
    csv = _save(fig_id, fig_dir)
    assert np.array_equal(_pixels(figures.redraw(csv)), _saved(csv.with_suffix(".png")))


def test_a_changed_csv_changes_the_redrawn_figure(fig_dir):
    csv = _save("fig-random-jl", fig_dir)
    table = pd.read_csv(csv)
    table["worst_distortion"] *= 1.5
    table.to_csv(csv, index=False)
    redrawn, saved = _pixels(figures.redraw(csv)), _saved(csv.with_suffix(".png"))
    assert redrawn.shape != saved.shape or not np.array_equal(redrawn, saved)


def test_save_refuses_a_drawing_outside_the_library(fig_dir):
    def local(table):
        return plt.figure()

    with pytest.raises(RepcapError, match="drawings"):
        figures.save("fig-random-jl", _jl(), {"caption": "x"}, draw=local, show=False)


def _generated() -> list[Path]:
    if not GENERATED.is_dir():
        return []
    return [
        p.with_suffix(".csv") for p in sorted(GENERATED.glob("fig-*.json")) if json.loads(p.read_text()).get("drawing")
    ]


@pytest.mark.parametrize("csv", _generated(), ids=lambda p: p.stem)
def test_the_chapters_figures_redraw_from_their_csvs(csv):
    """The smoke (or any) outputs a chapter run left here: redrawn from the CSV, the same picture."""
    assert np.array_equal(_pixels(figures.redraw(csv)), _saved(csv.with_suffix(".png")))


def test_every_chapter_drawing_has_a_case():
    """A drawing a chapter passes to save(draw=) is covered above."""
    chapters = Path(__file__).resolve().parents[2] / "notebooks"
    used = {m for p in chapters.glob("*.py") for m in re.findall(r"draw=\w+\.(\w+)", p.read_text())}
    covered = {func.__name__ for func, _, _ in CASES.values()}
    assert used <= covered, sorted(used - covered)
