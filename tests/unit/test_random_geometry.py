"""Random unit vectors against closed forms: the Beta law of the cosine, Var = 1/d, JL bound."""

import math

import numpy as np
import pytest
from scipy import integrate

from repcap import RepcapError
from repcap.engines import random_geometry as rg


@pytest.mark.parametrize("d", [3, 4, 10, 100])
def test_density_is_normalised_with_variance_one_over_d(d):
    mass = integrate.quad(lambda t: rg.cosine_density(t, d), -1, 1)[0]
    var = integrate.quad(lambda t: t * t * rg.cosine_density(t, d), -1, 1)[0]
    assert mass == pytest.approx(1.0, abs=1e-8)
    assert var == pytest.approx(1.0 / d, rel=1e-7)


def test_density_closed_form_d3_is_uniform():
    # On S^2 the cosine is uniform on [-1, 1] (Archimedes' hat-box theorem).
    assert np.allclose(rg.cosine_density(np.linspace(-0.9, 0.9, 7), 3), 0.5)


def test_sampled_cosines_match_the_exact_law():
    d = 50
    cos = rg.pair_cosines(rg.unit_vectors(600, d, seed=1, device="cpu"))
    assert len(cos) == 600 * 599 // 2
    assert cos.std() == pytest.approx(1 / math.sqrt(d), rel=0.02)
    assert abs(cos.mean()) < 0.01
    # Kolmogorov distance to the exact CDF (pairs are weakly dependent; the bound is loose)
    grid = np.linspace(-0.5, 0.5, 41)
    emp = np.searchsorted(np.sort(cos), grid) / len(cos)
    assert np.max(np.abs(emp - rg.cosine_cdf(grid, d))) < 0.01


def test_max_abs_cosine_matches_dense_reference():
    import torch

    vals = rg.max_abs_cosine(40, 8, trials=2, seed=3, device="cpu")
    gen = torch.Generator().manual_seed(3)
    for v in vals:
        x = torch.randn(40, 8, generator=gen).double()
        x = x / x.norm(dim=1, keepdim=True)
        g = (x @ x.T).abs()
        g.fill_diagonal_(0)
        assert v == pytest.approx(float(g.max()), abs=1e-6)


def test_jl_bound_inverse_and_projection():
    # k(eps) and eps(k) are inverses; Dasgupta-Gupta k for N=1000, eps=0.1: 4 ln N / (0.005 - 0.000333)
    assert rg.jl_dimension(1000, 0.1) == pytest.approx(4 * math.log(1000) / (0.005 - 0.001 / 3))
    k = rg.jl_dimension(500, 0.3)
    assert rg.jl_guaranteed_eps(500, k) == pytest.approx(0.3, rel=1e-6)
    assert math.isnan(rg.jl_guaranteed_eps(500, 5))
    dist = rg.gaussian_projection_distortion(80, 300, 256, seed=0, device="cpu")
    assert 0 < dist["mean"] < dist["q99"] <= dist["max"] < rg.jl_guaranteed_eps(80, 256)


def test_bad_dimensions_are_refused():
    with pytest.raises(RepcapError, match="d must be an integer >= 2"):
        rg.cosine_density(0.1, 1)
    with pytest.raises(RepcapError, match="k must be >= 2"):
        rg.max_abs_cosine(1, 10)


def test_max_abs_cosine_bounds_its_inputs():
    assert rg.max_abs_cosine(5, 1, trials=2, seed=0, device="cpu").tolist() == [1.0, 1.0]  # R^1: all parallel
    for kwargs, match in [
        (dict(seed=2**64), "seed="),
        (dict(seed=-1), "seed="),
        (dict(trials=0), "trials"),
        (dict(d=0), "d must be"),
    ]:
        with pytest.raises(RepcapError, match=match):
            rg.max_abs_cosine(**({"k": 10, "d": 4} | kwargs))
    with pytest.raises(RepcapError, match="seed="):
        rg.unit_vectors(10, 4, seed=2**64)
