"""Fingerprint cases of the random-geometry engine (:mod:`repcap.engines.random_geometry`): every function
that computes numbers -- seeded unit vectors and their pair cosines, the exact law of a random
cosine (density, distribution function, standard deviation), the largest coherence of random
draws (several trials, a batch wider than one tile of :func:`repcap.engines.cosine.batched_max_abs`) and
its asymptote, and the Johnson-Lindenstrauss dimension, guaranteed distortion and a Gaussian
projection's measured distortion.  No point function belongs to this engine, so every case is a
``run`` case."""

from __future__ import annotations

from harness import Case


def _vectors() -> dict:
    """Seeded unit vectors (two seeds, two shapes) and all their pair cosines."""
    from repcap.engines import random_geometry as rg

    u = rg.unit_vectors(12, 5, seed=3, device="cpu")
    v = rg.unit_vectors(40, 16, seed=11, device="cpu")
    cos = rg.pair_cosines(v)
    return {
        "u": u.double(),
        "u_norms": u.double().norm(dim=1),
        "pairs_u": rg.pair_cosines(u),
        "pairs_v_sum": float(cos.sum()),
        "pairs_v_sq": float((cos**2).sum()),
        "pairs_v_head": cos[:25],
        "pairs_v_max": float(abs(cos).max()),
    }


def _law() -> dict:
    """The exact density, distribution function and standard deviation of a random cosine."""
    import numpy as np

    from repcap.engines import random_geometry as rg

    t = np.linspace(-0.95, 0.95, 20)  # not +-1, where the density of d = 2 is infinite
    return {
        f"d{d}": {
            "density": rg.cosine_density(t, d),
            "cdf": rg.cosine_cdf(t, d),
            "std": rg.cosine_std(d),
            "density_at_0": float(rg.cosine_density(0.0, d)),
        }
        for d in (2, 3, 8, 100)
    }


def _coherence() -> dict:
    """The largest |cos| of random draws (three trials; one draw with more rows than a tile) and
    its large-d asymptote."""
    import numpy as np

    from repcap.engines import random_geometry as rg

    return {
        "k30_d8": rg.max_abs_cosine(30, 8, trials=3, seed=5, device="cpu"),
        "k2500_d12": rg.max_abs_cosine(2500, 12, trials=1, seed=1, device="cpu"),  # two tiles of 2048 rows
        "k10_d1": rg.max_abs_cosine(10, 1, trials=2, seed=0, device="cpu"),  # d = 1: every |cos| is 1
        "asymptote": rg.max_abs_cosine_asymptote(np.array([100, 10_000, 1e6]), np.array([64, 256, 4096])),
        "asymptote_scalar": float(rg.max_abs_cosine_asymptote(1000, 100)),
    }


def _jl() -> dict:
    """The Dasgupta-Gupta dimension and guaranteed distortion (scalar, array, and a dimension too
    small for any eps < 1), and a seeded Gaussian projection's measured distortion."""
    import numpy as np

    from repcap.engines import random_geometry as rg

    return {
        "dimension": rg.jl_dimension(1000, np.array([0.05, 0.1, 0.3, 0.5])),
        "dimension_scalar": float(rg.jl_dimension(50, 0.2)),
        "guaranteed": rg.jl_guaranteed_eps(1000, np.array([100.0, 500.0, 5000.0, 10.0])),
        "guaranteed_scalar": rg.jl_guaranteed_eps(200, 300),
        "projection": rg.gaussian_projection_distortion(40, 64, 16, seed=2, device="cpu"),
        "projection_wide": rg.gaussian_projection_distortion(25, 10, 30, seed=9, device="cpu"),
    }


CASES = [
    Case("geometry", "vectors", run=_vectors),
    Case("geometry", "law", run=_law),
    Case("geometry", "coherence", run=_coherence),
    Case("geometry", "jl", run=_jl),
]
