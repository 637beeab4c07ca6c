"""The minimax packing method (repcap.engines.packing.minimax) against packings whose coherence is
known in closed form: the simplex (N = d + 1 lines meet Welch's bound 1/d), the 6 diagonals of the
icosahedron (1/sqrt 5), and the refinement's linear programs against a dense float64 check."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from repcap import RepcapError
from repcap.engines.bounds import coherence_lower_bound
from repcap.engines.packing import minimax, sweep_minimax
from repcap.engines.settings.packing import MinimaxConfig

FAST = dict(restarts=4, refine=2, steps=60, device="cpu")


@pytest.mark.parametrize(("k", "d", "mu"), [(4, 3, 1 / 3), (6, 3, 1 / math.sqrt(5)), (5, 4, 1 / 4)])
def test_reaches_known_optima(k, d, mu):
    r = minimax.solve(MinimaxConfig(k=k, d=d, **FAST), progress=False)
    assert r.eps_star == pytest.approx(mu, rel=1e-6)
    # the result is the coherence of the vectors it returns, in float64
    V = r.V / np.linalg.norm(r.V, axis=0)
    G = np.abs(V.T @ V)
    np.fill_diagonal(G, 0)
    assert G.max() == pytest.approx(r.eps_star, rel=1e-12)
    assert r.eps_star >= coherence_lower_bound(k, d) * (1 - 1e-9)


def test_refinement_lowers_the_worst_pair_of_a_smooth_optimum():
    # 16 lines in R^4 after only the first stage are short of their optimum; the programs close the gap
    cfg = MinimaxConfig(k=16, d=4, restarts=2, refine=0, schedule=(8.0,), steps=40, device="cpu")
    smooth = minimax.solve(cfg, progress=False)
    V, eps, n = minimax.refine(smooth.V, 200)
    assert 0 < n <= 200
    assert eps < smooth.eps_star * 0.999
    X = V.T @ V
    np.fill_diagonal(X, 0)
    assert np.abs(X).max() == pytest.approx(eps, rel=1e-12)
    assert np.allclose(np.linalg.norm(V, axis=0), 1.0)


def test_refinement_stops_at_a_minimax_point_where_every_pair_is_worst():
    # the 28 lines in R^7 meet the relative bound 1/3 with all 378 pairs at it (Conway, Hardin & Sloane
    # 1996): no program can lower the worst pair, so the refinement must stop long before its cap of 200
    # programs (an earlier prototype spent all of them, half an hour, on this cell)
    r = minimax.solve(MinimaxConfig(k=28, d=7, restarts=32, refine=1, device="cpu"), progress=False)
    assert r.eps_star == pytest.approx(1 / 3, rel=1e-9)
    assert 0 < r.programs < 100


def test_tiled_gradient_matches_the_dense_one():
    # above MAX_DENSE_K the stages use the engine's tiled loss: same direction as the dense gradient
    g = torch.Generator().manual_seed(0)
    V = torch.randn(2, 5, 40, generator=g, dtype=torch.float64)
    V = V / V.norm(dim=1, keepdim=True)
    dense, m = minimax._dense_grad(V, 12.0)
    tiled, m2 = minimax._tiled_grad(V, 12.0, m, tile=16)
    assert torch.allclose(m2, m, rtol=1e-12)
    # the tiled loss is the sum over i != j of (|G|/m)^p; the dense one's gradient is the same sum's
    assert torch.allclose(tiled, dense, rtol=1e-9, atol=1e-12)


def test_point_function_records_each_step():
    out = sweep_minimax({"k": 6, "d": 3, **FAST})
    assert out["method"] == "minimax"
    assert out["eps_star"] == pytest.approx(1 / math.sqrt(5), rel=1e-6)
    assert out["eps_sharpened"] >= out["eps_star"] - 1e-12
    assert len(out["eps_refined"]) == 2
    assert out["restarts"] == 4 and out["programs"] > 0


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"schedule": (32.0, 8.0)}, "must rise"),
        ({"refine": 5, "restarts": 4}, "at most restarts"),
        ({"restarts": 0}, "restarts"),
        ({"schedule": ()}, "non-empty"),
        ({"lr": -1.0}, "learning rate"),
    ],
)
def test_bad_settings_are_refused_in_one_line(kw, words):
    with pytest.raises(RepcapError, match=words):
        MinimaxConfig(k=6, d=3, **kw)


def test_unknown_sweep_key_is_named():
    with pytest.raises(RepcapError, match="unknown minimax sweep config keys"):
        sweep_minimax({"k": 6, "d": 3, "loss": "exp"})
