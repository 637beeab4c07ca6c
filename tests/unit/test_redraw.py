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
from repcap.book.drawings import (
    capacity,
    frontier,
    laws,
    layers,
    overlap,
    packing,
    random,
    regimes,
    reproducibility,
    survey,
)
from repcap.book.figdata import laws as flaws
from repcap.book.figdata import layers as flayers
from repcap.book.figdata import packing as fpack
from repcap.book.figdata import packing_figures as fpackfig
from repcap.book.figdata import survey as fsurvey
from repcap.engines import laws as elaws

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


def _layer_rec(label: str, kind: str, layer, eps: float, d: int, n: int = 100, b_eps: float = 0.2) -> dict:
    four = {"four": 6.0 * eps}
    base = {"eps": b_eps, "mean_sq": 1.0 / d, "log10_capacity": {"four": 5.0 * b_eps}}
    return {"label": label, "kind": kind, "layer": layer, "eps": eps, "n_directions": n, "d_model": d} | {
        "class": 1 if eps > 0.2 else 2 if eps < 0.1 else None,
        "mean_sq": 1.5 / d,
        "log10_capacity": four,
        "baseline": base,
    }


def _layer_records() -> list[dict]:
    """Two models (the second with its head stored apart), two kinds, the second model one layer short."""
    recs = [_layer_rec("toy-a", "embedding", None, 0.5, 32, n=600)]
    recs += [
        _layer_rec("toy-a", k, i, 0.3 + 0.02 * i + j * 0.05, 32, n=96 + 32 * i)
        for i in range(3)
        for j, k in enumerate(("mlp_out", "attn_out"))
    ]
    recs += [_layer_rec("toy-b", "embedding", None, 0.15, 128, n=900), _layer_rec("toy-b", "head", None, 0.12, 128)]
    recs += [_layer_rec("toy-b", "mlp_out", i, 0.09 - 0.01 * i, 128, b_eps=0.17) for i in range(2)]
    return recs + [_layer_rec("toy-b", "attn_out", 0, 0.07, 128, b_eps=0.18)]


def _layers_eps() -> pd.DataFrame:
    return flayers.eps_figure(_layer_records(), 0.1, 0.2)


def _layers_vs_embedding() -> pd.DataFrame:
    recs = _layer_records()
    return flayers.vs_embedding_figure(recs, flayers.by_layer(recs), 0.1, 0.2)


def _layers_capacity() -> pd.DataFrame:
    recs = _layer_records()
    return flayers.capacity_figure(recs, flayers.by_layer(recs), ["mlp_out", "attn_out"])


# chapter 6: three losses and a random start on k = 10 vectors, and reference runs with the lines
LOSSES = ["abs-relu", "exp", "power"]


def _packing_run(eps: list[float], hist: list[int], n_above: tuple[int, int, int]) -> dict:
    return {
        "eps_star": eps[-1],
        "max_angle_deg": float(np.degrees(np.arccos(eps[-1]))),
        "mean_abs": 0.2,
        "n_orthogonal": hist[0],
        "n_pairs": 45,
        "n_above": dict(zip(("0.5", "0.9", "0.99"), n_above)),
        "hist": hist,
        "curve_steps": [0, 10, 20],
        "eps_curve": eps,
        "loss_curve": [8.0, 4.0, 2.0],
    }


PACKING_RUNS = {
    "abs-relu": _packing_run([0.5, 0.95, 0.99], [30, 5, 0, 10], (6, 5, 0)),
    "exp": _packing_run([0.5, 0.4, 0.3], [20, 25, 0, 0], (0, 0, 0)),
    "power": _packing_run([0.5, 0.45, 0.35], [15, 30, 0, 0], (0, 0, 0)),
}
SHOWN = {**PACKING_RUNS, "random start": _packing_run([0.9], [10, 15, 15, 5], (9, 1, 0))}


def _reference_point(loss: str, eps: list[float], lr: float = 0.001, **config):
    result = {"curve_steps": [0, 10, 20], "eps_curve": eps, "loss_curve": [3.0, 2.0, 1.0]}
    result |= {"max_angle_deg": float(np.degrees(np.arccos(eps[-1]))), "p": 12 if loss == "power" else None}
    cfg = {"loss": loss, "k": 100, "d": 10, "steps": 20, "lr": lr, **config}
    return type("Point", (), {"config": cfg, "result": result})()


def _packing_reference() -> pd.DataFrame:
    exp = fpack.reference_curve(_reference_point("exp", [0.5, 0.3, 0.25]))
    others = [
        fpack.reference_curve(_reference_point("exp", [0.5, 0.28, 0.24], lr=0.005, lr_floor=0.0)),
        fpack.reference_curve(_reference_point("power", [0.5, 0.35, 0.3])),
        fpack.reference_curve(_reference_point("abs-relu", [0.5, 0.99, 1.0])),
    ]
    return fpackfig.reference_figure(exp, others, flat=10.0, yoder_angle=76.5, law_angle=76.19, bound_angle=82.0)


def _packing_curves() -> pd.DataFrame:
    return fpackfig.curves_figure(PACKING_RUNS, law_angle=59.25, k=10_000, d=100, yoder=(76.5, 20))


# chapter 7: Guha's points with fits, his cells re-run, the grid, Yoder's constant, the capacity curves
def _guha_points() -> pd.DataFrame:
    data = pd.DataFrame({"k": [64, 128, 64, 128], "d": [8, 8, 16, 16], "eps_star": [0.5, 0.6, 0.3, 0.4]})
    fits = {"adjusted": type("Fit", (), {"law": elaws.PUBLISHED["adjusted"]})()}
    return fpack.fit_points([("optimised", data, ["adjusted"])], fits)


def _laws_cells() -> pd.DataFrame:
    cols = ["k", "d", "steps", "p", "ε* (ours)", "ε* (Guha's data)", "relative gap"]
    cells = pd.DataFrame([(2000, 32, 50, 18, 0.11, 0.10, 0.1), (4000, 32, 50, 18, 0.15, 0.14, 1 / 14)], columns=cols)
    return fpack.reference_cells_by_rule(cells, cells.iloc[:1].assign(**{"ε* (ours)": 0.101}))


def _laws_grid() -> pd.DataFrame:
    grid = pd.DataFrame({"k": [64, 128, 64, 128], "d": [8, 8, 16, 16], "eps_star": [0.5, 0.6, 0.3, 0.4]})
    return fpack.grid_points(grid.assign(eps_random=grid.eps_star + 0.3), elaws.PUBLISHED["adjusted"], n_k=5)


def _yoder_c() -> pd.DataFrame:
    grid = pd.DataFrame({"k": [64, 128], "d": [8, 16], "eps_star": [0.5, 0.3], "eps_random": [0.8, 0.6]})
    proj = pd.DataFrame({"N": [256], "k": [16], "kind": ["srht"], "C": [1.5]})
    return flaws.yoder_C_figure(fpack.yoder_constants(grid, proj))


def _laws_capacity() -> pd.DataFrame:
    law = type("Law", (), {"constants": {"C": 1.3}, "log10_capacity": elaws.PUBLISHED["adjusted"].log10_capacity})
    return flaws.yoder_capacity_figure(fpack.capacity_by_angle(1000, np.linspace(0.5, 10, 20), law()), 1000)


#: Each drawing the chapters pass to ``save(draw=)``, with a small table and its options.
def _frontier_panels() -> pd.DataFrame:
    """Two panels: the bound and law curves, exact and bounded codes, Guha's points and two of ours."""
    rows = []
    for panel, d in (("d = 8 / 16", 16.0), ("d = 32 / 64", 64.0)):
        for x in np.linspace(1, 6, 12):
            rows.append({"panel": panel, "series": "bound", "log10_k": x, "eps": 0.5 / d**0.5 * (1 + x / 10)})
            rows.append({"panel": panel, "series": "law", "log10_k": x, "eps": 1.0 / d**0.5 * (1 + x / 8)})
        for x, status in ((2.0, "exact"), (3.5, "bound")):
            rows.append({"panel": panel, "series": "explicit", "log10_k": x, "eps": 0.3, "status": status, "name": "c"})
        rows.append({"panel": panel, "series": "guha", "log10_k": 3.3, "eps": 0.4})
        for name in ("ours (this profile)", "ours (reference bundle)"):
            rows.append({"panel": panel, "series": "ours", "log10_k": 3.0, "eps": 0.45, "name": name})
    return pd.DataFrame(rows)


def _frontier_ratios() -> pd.DataFrame:
    rows = [
        {"d": d, "N": n, "optimiser": o, "ratio_best": 1 + 0.01 * d + (0.3 if o == "Adam" else 0.0)}
        for d in (3, 8, 16)
        for n in (d + 1, 3 * d)
        for o in ("Adam", "minimax")
    ]
    return pd.DataFrame(rows)


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
    "fig-layers-eps": (layers.eps_by_layer, _layers_eps, {}),
    "fig-layers-vs-embedding": (layers.vs_embedding, _layers_vs_embedding, {}),
    "fig-layers-capacity": (layers.capacity, _layers_capacity, {}),
    "fig-packing-angles": (packing.angle_histograms, lambda: fpack.angle_histograms(SHOWN), {"losses": LOSSES}),
    "fig-packing-parallel": (packing.parallel_counts, lambda: fpack.parallel_counts(SHOWN), {"losses": LOSSES}),
    "fig-packing-curves": (packing.curves, _packing_curves, {"losses": LOSSES}),
    "fig-packing-reference": (packing.reference, _packing_reference, {"losses": LOSSES}),
    "fig-laws-guha-data": (laws.guha_data, _guha_points, {}),
    "fig-laws-reference": (laws.reference_cells, _laws_cells, {}),
    "fig-laws-grid": (laws.grid, _laws_grid, {}),
    "fig-laws-yoder-c": (laws.yoder_constants, _yoder_c, {}),
    "fig-laws-capacity": (laws.capacity, _laws_capacity, {}),
    "fig-frontier-eps-vs-k": (frontier.eps_vs_k, _frontier_panels, {}),
    "fig-frontier-best-known": (frontier.against_best_known, _frontier_ratios, {"series": ["Adam", "minimax"]}),
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
