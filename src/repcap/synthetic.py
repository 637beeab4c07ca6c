"""Synthetic stand-in embedding matrices for tests and the smoke profile (no download): Gaussian
rows plus a common direction, whose weight sets the mean pairwise cosine.

Reference: for rows ``x = g + a c`` with ``g ~ N(0, I/d)`` and a unit ``c``, ``E cos ~ a^2 / (1 + a^2)``
(the common component's share of the squared norm), so ``a = sqrt(m / (1 - m))`` gives mean ``m``.
"""

from __future__ import annotations

import math

import numpy as np

from . import RepcapError


def stand_in(
    V: int, d: int, *, mean_cos: float = 0.2, seed: int = 0, noise_of: np.ndarray | None = None, noise: float = 0.02
) -> np.ndarray:
    """A synthetic stand-in ``(V, d)`` float32 matrix: Gaussian rows plus a common direction whose
    weight gives pairwise cosines of mean about ``mean_cos``.  With ``noise_of`` it returns that
    matrix plus relative Gaussian noise (a re-quantised copy)."""
    rng = np.random.default_rng(seed)
    if noise_of is not None:
        base = np.asarray(noise_of, dtype=np.float32)
        return (base + noise * base.std() * rng.standard_normal(base.shape)).astype(np.float32)
    if not 0 <= mean_cos < 1:
        raise RepcapError(f"mean_cos={mean_cos} must be in [0, 1)")
    common = rng.standard_normal(d)
    common /= np.linalg.norm(common)
    a = math.sqrt(mean_cos / (1 - mean_cos))
    X = rng.standard_normal((V, d)) / math.sqrt(d) + a * common * rng.uniform(0.5, 1.5, size=(V, 1))
    return X.astype(np.float32)
