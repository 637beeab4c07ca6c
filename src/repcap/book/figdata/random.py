"""Tables of chapter 1 (random vectors): pairwise cosines of random unit vectors against their exact
law, the spread against 1/sqrt(d), the worst pair among k vectors, and the JL distortion."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from repcap.engines import random_geometry as rg


def cosine_densities(
    dims: Sequence[int], n_vectors: int, *, seed: int = 0, device: str = "auto", bins: int = 120, points: int = 801
) -> pd.DataFrame:
    """Per ``d``: the histogram density of all pairwise cosines of ``n_vectors`` random unit vectors
    (``kind="measured"``, at the bin mids of ``bins`` bins on [-1, 1]) and the exact density
    :func:`repcap.engines.random_geometry.cosine_density` (``kind="exact"``, on ``points`` points)."""
    t = np.linspace(-0.999, 0.999, points)
    rows = []
    for d in dims:
        cos = rg.pair_cosines(rg.unit_vectors(n_vectors, d, seed=seed + d, device=device))
        hist, edges = np.histogram(cos, bins=bins, range=(-1, 1), density=True)
        mids = (edges[:-1] + edges[1:]) / 2
        rows += [{"d": d, "kind": "measured", "t": m, "density": h} for m, h in zip(mids, hist)]
        rows += [{"d": d, "kind": "exact", "t": x, "density": y} for x, y in zip(t, rg.cosine_density(t, d))]
    return pd.DataFrame(rows)


def sigma_table(dims: Sequence[int], n_vectors: int, *, seed: int = 0, device: str = "auto") -> pd.DataFrame:
    """Per ``d``: mean and standard deviation of all pairwise cosines of ``n_vectors`` random unit
    vectors, next to ``1/sqrt(d)``, and their eps = mu + 2 sigma."""
    rows = []
    for d in dims:
        cos = rg.pair_cosines(rg.unit_vectors(n_vectors, d, seed=seed + 7 * d, device=device))
        rows.append(
            {
                "d": d,
                "inv_sqrt_d": 1 / np.sqrt(d),
                "measured_std": cos.std(),
                "measured_mean": cos.mean(),
                "eps_mu_2sigma": cos.mean() + 2 * cos.std(),
            }
        )
    return pd.DataFrame(rows)


def max_cos_trials(
    dims: Sequence[int], ks: Sequence[int], trials: int, *, seed: int = 0, device: str = "auto"
) -> pd.DataFrame:
    """The largest |cos| among ``k`` random unit vectors in R^d, one row per independent draw."""
    rows = []
    for d in dims:
        for k in ks:
            vals = rg.max_abs_cosine(k, d, trials=trials, seed=seed + 31 * k + d, device=device)
            rows += [{"d": d, "k": k, "trial": t, "max_abs_cos": v} for t, v in enumerate(vals)]
    return pd.DataFrame(rows)


def max_cos_summary(trials: pd.DataFrame) -> pd.DataFrame:
    """Mean, min and max over the draws of :func:`max_cos_trials`, per ``(d, k)``."""
    return trials.groupby(["d", "k"]).max_abs_cos.agg(["mean", "min", "max"]).reset_index()


def jl_distortions(
    n_points: int, ambient: int, dims: Sequence[int], *, seed: int = 0, device: str = "auto"
) -> pd.DataFrame:
    """Worst, 99th-percentile and mean distortion of squared distances among ``n_points`` random
    points under a Gaussian projection from ``ambient`` to each ``k``, with the JL guarantee."""
    rows = []
    for k in dims:
        dist = rg.gaussian_projection_distortion(n_points, ambient, k, seed=seed + k, device=device)
        rows.append(
            {
                "k": k,
                "worst_distortion": dist["max"],
                "q99_distortion": dist["q99"],
                "mean_distortion": dist["mean"],
                "jl_guarantee": rg.jl_guaranteed_eps(n_points, k),
            }
        )
    return pd.DataFrame(rows)
