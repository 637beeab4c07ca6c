"""Golden trajectories of the two optimisation engines, pinned before the library's refactor so
that restructuring cannot change a result unnoticed (tests/golden/engines.json; regenerate only
for an intended change of the numbers, with ``tools/golden_spread.py --only engines``, and say why
in the commit).

Each array's tolerance, element by element, was derived by that tool from the spread of the
element across arithmetic paths (the file's ``_about`` header says which paths, the factor and the
floor). These run in the test process, on whatever kernels this machine's torch chooses (no pins),
so the machine's own path is one of the paths measured.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from repcap.engines import packing, toy

GOLDEN_PATH = Path(__file__).resolve().parents[1] / "golden" / "engines.json"
GOLDEN = json.loads(GOLDEN_PATH.read_text())
LOSSES = ["power", "exp", "abs-relu"]


def toy_values() -> dict[str, np.ndarray]:
    """Three toy models trained together for 60 steps: losses, curves, weights' sums, measurements."""
    specs = [
        toy.ModelSpec(alpha=1.0, gamma=-1.0, seed=1),
        toy.ModelSpec(alpha=1.5, gamma=0.3, seed=2),
        toy.ModelSpec(alpha=0.5, gamma=0.0, seed=3, lr=0.02),
    ]
    cfg = toy.TrainConfig(n=64, m=8, steps=60, batch=32, device="cpu")
    r = toy.train(specs, cfg, progress=False, n_curve=6)
    meas = r.measurements()
    return {
        "loss": r.loss.numpy(),
        "curve": r.curve.numpy(),
        "W_sum": r.W.double().sum(dim=(1, 2)).numpy(),
        "W_sq": r.W.double().square().sum(dim=(1, 2)).numpy(),
        "b_sum": r.b.double().sum(1).numpy(),
        "phi_half": np.array([m["phi_half"] for m in meas]),
        "mean_sq_overlap": np.array([m["mean_sq_overlap"] for m in meas]),
    }


def packing_values(loss: str) -> dict[str, np.ndarray]:
    """120 vectors in R^10 packed for 25 steps under ``loss`` from two seeds: ε*, loss, statistics."""
    res = packing.optimise(
        packing.PackConfig(k=120, d=10, loss=loss, steps=25, lr=0.01, seed=0, device="cpu"),
        seeds=[0, 1],
        progress=False,
    )
    return {
        "eps_star": np.asarray(res.eps_star),
        "loss_final": np.asarray(res.loss_final),
        "mean_abs": np.asarray(res.mean_abs),
        "mean_sq": np.asarray(res.mean_sq),
        "n_above": np.asarray(res.n_above),
        "n_orthogonal": np.asarray(res.n_orthogonal),
        "hist_sum": np.asarray(res.hist.sum(1)),
        "eps_curve": np.asarray(res.eps_curve),
    }


def all_values() -> dict[str, dict[str, np.ndarray]]:
    """Every engine quantity the golden file pins, in its layout (``tools/golden_spread.py`` calls this)."""
    return {"toy": toy_values(), **{f"packing/{loss}": packing_values(loss) for loss in LOSSES}}


def mismatches(golden: dict[str, dict], actual: dict[str, np.ndarray]) -> list[str]:
    """Each pinned array whose elements leave their tolerance (``|actual - value| <= tol``)."""
    out = []
    for name, entry in golden.items():
        want, tol = np.asarray(entry["value"], dtype=float), np.asarray(entry["tol"], dtype=float)
        got = np.asarray(actual[name], dtype=float)
        if got.shape != want.shape:
            out.append(f"{name}: shape {got.shape} != golden {want.shape}")
            continue
        off = np.abs(got - want)
        bad = ~((off <= tol) | (np.isnan(got) & np.isnan(want)))
        if bad.any():
            i = np.unravel_index(np.argmax(np.where(bad, off / np.maximum(tol, 1e-300), -1)), want.shape)
            out.append(
                f"{name}: {int(bad.sum())} of {want.size} elements off; worst at {tuple(int(j) for j in i)}: "
                f"{float(got[i])!r} != golden {float(want[i])!r} ± {tol[i]:.3g}"
            )
    return out


def test_toy_trajectory_is_pinned():
    assert not (bad := mismatches(GOLDEN["toy"], toy_values())), "\n".join(bad)


@pytest.mark.parametrize("loss", LOSSES)
def test_packing_run_is_pinned(loss):
    assert not (bad := mismatches(GOLDEN["packing"][loss], packing_values(loss))), "\n".join(bad)


def test_tolerances_can_fail():
    """No pinned element's tolerance reaches its own size (such a golden could not fail); a zero
    is pinned by the absolute floor alone."""
    wide = []
    for group, entries in [("toy", GOLDEN["toy"]), *((f"packing/{k}", v) for k, v in GOLDEN["packing"].items())]:
        for name, entry in entries.items():
            want, tol = np.abs(np.asarray(entry["value"], dtype=float)), np.asarray(entry["tol"], dtype=float)
            if ((tol >= want) & (want > 0)).any() or (tol > GOLDEN["_about"]["floor_abs"] * (1 + 1e-9))[
                want == 0
            ].any():
                wide.append(f"{group}/{name}")
    assert not wide, f"tolerances as wide as the values: {wide}"
