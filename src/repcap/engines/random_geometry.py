"""Random unit vectors: the exact law of their cosines, their largest coherence, and random
projections against the Johnson-Lindenstrauss guarantee.  The baseline every chapter builds on.
Largest cosines come from the pair-statistics engine (:func:`repcap.engines.cosine.batched_max_abs`);
:func:`pair_cosines` returns the raw cosines of a small set for histograms against the exact law.

* If u, v are independent and uniform on S^{d-1}, then t = <u, v> has density
  f_d(t) = (1 - t^2)^((d-3)/2) / B(1/2, (d-1)/2) on [-1, 1], i.e. (1 + t)/2 ~ Beta((d-1)/2, (d-1)/2);
  E t = 0 and Var t = 1/d exactly.
* The largest |cos| among k random vectors behaves like sqrt(4 ln k / d) for large d
  (Cai, Fan & Jiang 2013); Guha 2026 fits eps = sqrt(C ln k / d) with C = 3.029 at finite size.
* JL (Dasgupta & Gupta 2003): a Gaussian projection to k >= 4 ln N / (eps^2/2 - eps^3/3) dimensions
  keeps all pairwise squared distances of N points within a factor 1 +- eps with probability >= 1 - 1/N.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy import stats

from repcap import RepcapError
from repcap.base.devices import generator, resolve_device

from .cosine import batched_max_abs

#: The random-geometry engine's numerics version: random unit vectors, the exact law of their
#: cosines, their largest coherence and random projections.  No point function belongs to it (the
#: layer baselines draw through it, under the survey engine's version); its fingerprints
#: (``tests/fingerprints/geometry.json``) pin it, and a change that moves them bumps it
#: (``tools/fingerprints.py --update geometry``).  ``geometry/1``: the engine at commit 12d7158.
NUMERICS = "geometry/1"


def _check_dim(d: int, what: str = "d") -> None:
    if not isinstance(d, (int, np.integer)) or d < 2:
        raise RepcapError(f"{what} must be an integer >= 2, got {d!r}")


def _seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= 2**63 - 1:
        raise RepcapError(f"seed={seed!r} must be an integer in 0 .. 2**63-1")
    return int(seed)


def cosine_density(t, d: int):
    """Exact density of the cosine between two independent uniform unit vectors in R^d."""
    _check_dim(d)
    t = np.asarray(t, dtype=np.float64)
    a = (d - 1) / 2.0
    return stats.beta.pdf((t + 1.0) / 2.0, a, a) / 2.0


def cosine_cdf(t, d: int):
    _check_dim(d)
    a = (d - 1) / 2.0
    return stats.beta.cdf((np.asarray(t, dtype=np.float64) + 1.0) / 2.0, a, a)


def cosine_std(d: int) -> float:
    """Exact standard deviation of the cosine: 1/sqrt(d)."""
    _check_dim(d)
    return 1.0 / math.sqrt(d)


def unit_vectors(n: int, d: int, seed: int = 0, device="auto") -> torch.Tensor:
    """``n`` independent uniform unit vectors in R^d: ``(n, d)`` float32 on ``device``."""
    _check_dim(d)
    if n < 1:
        raise RepcapError(f"n must be >= 1, got {n}")
    dev = resolve_device(device)
    x = torch.randn(n, d, generator=generator(_seed(seed), dev), device=dev)
    return x / x.norm(dim=1, keepdim=True)


def pair_cosines(u: torch.Tensor) -> np.ndarray:
    """All n(n-1)/2 cosines of the rows of ``u`` (unit rows), as a float64 numpy array."""
    g = (u @ u.T).double()
    i, j = torch.triu_indices(len(u), len(u), offset=1, device=g.device)
    return g[i, j].cpu().numpy()


def max_abs_cosine(k: int, d: int, trials: int = 1, seed: int = 0, device="auto") -> np.ndarray:
    """max_{i<j} |cos| among ``k`` random unit vectors in R^d, for ``trials`` independent draws.

    Returns ``(trials,)`` float64, from the engine's :func:`repcap.engines.cosine.batched_max_abs` on each
    draw's unit rows (memory O(k * tile)).
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise RepcapError(f"k must be >= 2, got {k}")
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise RepcapError(f"d must be an integer >= 1, got {d!r}")
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1:
        raise RepcapError(f"trials must be an integer >= 1, got {trials!r}")
    out = np.empty(trials)
    dev = resolve_device(device)
    gen = generator(_seed(seed), dev)
    for t in range(trials):
        x = torch.randn(k, d, generator=gen, device=dev)
        out[t] = float(batched_max_abs((x / x.norm(dim=1, keepdim=True))[None])[0])
    return out


def max_abs_cosine_asymptote(k, d):
    """sqrt(4 ln k / d): the large-d limit of the largest |cos| (Cai, Fan & Jiang 2013)."""
    return np.sqrt(4.0 * np.log(np.asarray(k, dtype=np.float64)) / np.asarray(d, dtype=np.float64))


def jl_dimension(n_points: int, eps):
    """Dasgupta-Gupta: dimensions k that guarantee distortion <= eps for N points."""
    eps = np.asarray(eps, dtype=np.float64)
    return 4.0 * math.log(n_points) / (eps**2 / 2.0 - eps**3 / 3.0)


def jl_guaranteed_eps(n_points: int, k):
    """The smallest eps in (0, 1) that the Dasgupta-Gupta bound guarantees at dimension ``k``
    (``nan`` where no eps < 1 is guaranteed)."""
    from scipy.optimize import brentq

    ks = np.atleast_1d(np.asarray(k, dtype=np.float64))
    out = np.full(ks.shape, np.nan)
    for i, kk in enumerate(ks):
        f = lambda e, kk=kk: jl_dimension(n_points, e) - kk  # noqa: E731
        if f(0.999) < 0:
            out[i] = brentq(f, 1e-6, 0.999)
    return out if np.ndim(k) else float(out[0])


def gaussian_projection_distortion(n_points: int, dim: int, k: int, seed: int = 0, device="auto") -> dict:
    """Project ``n_points`` random points of R^dim with a Gaussian matrix to R^k.

    Returns the worst relative distortion of pairwise squared distances, its 99th percentile and
    the mean, as floats (``|‖Px-Py‖²/‖x-y‖² - 1|``).
    """
    if n_points < 2 or dim < 1 or k < 1:
        raise RepcapError("need n_points >= 2, dim >= 1 and k >= 1")
    dev = resolve_device(device)
    gen = generator(_seed(seed), dev)
    x = torch.randn(n_points, dim, generator=gen, device=dev, dtype=torch.float64)
    p = torch.randn(dim, k, generator=gen, device=dev, dtype=torch.float64) / math.sqrt(k)
    y = x @ p
    i, j = torch.triu_indices(n_points, n_points, offset=1, device=dev)
    dx = torch.cdist(x, x)[i, j] ** 2
    dy = torch.cdist(y, y)[i, j] ** 2
    r = (dy / dx - 1.0).abs().cpu().numpy()
    return {"max": float(r.max()), "q99": float(np.quantile(r, 0.99)), "mean": float(r.mean())}
