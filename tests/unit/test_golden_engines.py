"""Golden trajectories of the two optimisation engines, pinned before the library's refactor so
that restructuring cannot change a result unnoticed (tests/golden/engines.json; regenerate only
for an intended change of the numbers, and say why in the commit)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from repcap import packing, toy

GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "golden" / "engines.json").read_text())


def test_toy_trajectory_is_pinned():
    specs = [
        toy.ModelSpec(alpha=1.0, gamma=-1.0, seed=1),
        toy.ModelSpec(alpha=1.5, gamma=0.3, seed=2),
        toy.ModelSpec(alpha=0.5, gamma=0.0, seed=3, lr=0.02),
    ]
    cfg = toy.TrainConfig(n=64, m=8, steps=60, batch=32, device="cpu")
    r = toy.train(specs, cfg, progress=False, n_curve=6)
    meas = r.measurements()
    g = GOLDEN["toy"]
    np.testing.assert_allclose(r.loss.numpy(), g["loss"], rtol=1e-5)
    np.testing.assert_allclose(r.curve.numpy(), g["curve"], rtol=1e-5)
    np.testing.assert_allclose(r.W.double().sum(dim=(1, 2)).numpy(), g["W_sum"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(r.W.double().square().sum(dim=(1, 2)).numpy(), g["W_sq"], rtol=1e-5)
    np.testing.assert_allclose(r.b.double().sum(1).numpy(), g["b_sum"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose([m["phi_half"] for m in meas], g["phi_half"], rtol=1e-12)
    np.testing.assert_allclose([m["mean_sq_overlap"] for m in meas], g["mean_sq_overlap"], rtol=1e-5)


@pytest.mark.parametrize("loss", ["power", "exp", "abs-relu"])
def test_packing_run_is_pinned(loss):
    res = packing.optimise(
        packing.PackConfig(k=120, d=10, loss=loss, steps=25, lr=0.01, seed=0, device="cpu"),
        seeds=[0, 1],
        progress=False,
    )
    g = GOLDEN["packing"][loss]
    np.testing.assert_allclose(res.eps_star, g["eps_star"], rtol=1e-5)
    np.testing.assert_allclose(res.loss_final, g["loss_final"], rtol=1e-5)
    np.testing.assert_allclose(res.mean_abs, g["mean_abs"], rtol=1e-5)
    np.testing.assert_allclose(res.mean_sq, g["mean_sq"], rtol=1e-5)
    np.testing.assert_allclose(res.n_above, g["n_above"], atol=0.5)
    np.testing.assert_allclose(res.n_orthogonal, g["n_orthogonal"], atol=2)
    np.testing.assert_allclose(res.hist.sum(1), g["hist_sum"], atol=0.5)
    np.testing.assert_allclose(res.eps_curve, g["eps_curve"], rtol=1e-5)
