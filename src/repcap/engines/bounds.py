"""Rigorous bounds on the coherence of k unit vectors in R^d (the spherical-code view), and where a
capacity law claims more vectors than they allow.

mu = max_{i != j} |<v_i, v_j>|.  A bound says mu >= something(k, d); read backwards it says at most
k_max(d, mu) vectors fit at coherence mu.  All log-capacities are natural logs.  Welch (1974) and
Levenshtein (1983) are finite-d theorems; Kabatiansky-Levenshtein (1978) is an asymptotic rate.
"""

from __future__ import annotations

import math

import numpy as np

from repcap import RepcapError

from .laws import Law, get_law


def _log_binom(n, r):
    from scipy.special import gammaln

    return (
        gammaln(np.asarray(n, dtype=np.float64) + 1)
        - gammaln(np.asarray(r, dtype=np.float64) + 1)
        - gammaln(np.asarray(n, dtype=np.float64) - np.asarray(r, dtype=np.float64) + 1)
    )


def welch_bound(k, d, order: int = 1):
    """Welch (1974) lower bound on the coherence of k unit vectors in R^d (or C^d), order s:
    ``mu^(2s) >= (k / binom(d + s - 1, s) - 1) / (k - 1)``; 0 where the right side is negative.
    Order 1: ``mu >= sqrt((k - d) / (d (k - 1)))``, met with equality by equiangular tight frames
    (e.g. the simplex, k = d + 1, mu = 1/d)."""
    if order < 1:
        raise RepcapError(f"Welch bound order must be >= 1, got {order}")
    k = np.asarray(k, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    if np.any(k < 2) or np.any(d < 1):
        raise RepcapError("welch_bound needs k >= 2 and d >= 1")
    from scipy.special import binom

    N = binom(d + order - 1, order)  # exact for small integers (order 1: N = d)
    rhs = (k / N - 1.0) / (k - 1.0)
    out = np.maximum(rhs, 0.0) ** (1.0 / (2 * order))
    return out if np.ndim(out) else float(out)


def welch_log_capacity(d, mu, max_order: int | None = None):
    """``ln k_max``: the fewest vectors any Welch order allows at coherence ``mu`` in R^d
    (min over orders s = 1..max_order of ``(1 - mu^2s) / (1/binom(d+s-1, s) - mu^2s)``, where that
    order bounds k at all); ``inf`` where no order up to ``max_order`` gives a bound.  Order s
    starts to bound k once roughly ``(mu^2 d)^s / s! < 1``, so the default ``max_order`` is
    ``3 max(mu^2 d) + 60``."""
    d = np.asarray(d, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    d, mu = np.broadcast_arrays(d, mu)
    if max_order is None:
        max_order = int(min(200_000, 3 * float(np.max(mu**2 * d, initial=0.0)) + 60))
    s = np.arange(1, max_order + 1, dtype=np.float64).reshape((-1,) + (1,) * d.ndim)
    with np.errstate(divide="ignore", invalid="ignore"):
        logN = _log_binom(d + s - 1, s)
        log_mu2s = 2 * s * np.log(mu)  # -inf at mu = 0
        z = log_mu2s + logN  # log(mu^2s * N): the order bounds k only where z < 0
        logk = np.log1p(-np.exp(log_mu2s)) + logN - np.log(-np.expm1(np.minimum(z, -1e-300)))
        logk = np.where(z < 0, logk, np.inf)
    out = logk.min(axis=0)
    return out if np.ndim(out) else float(out)


def levenshtein_bound(k, d):
    """Levenshtein (1983) bound for real unit vectors with bounded |<v_i, v_j>| (the degree-4
    linear-programming bound for lines): ``mu^2 >= (3k - d^2 - 2d) / ((d + 2)(k - d))``, informative
    for k > d(d+1)/2; 0 where the right side is negative.  Met with equality, e.g., by the 6
    diagonals of the icosahedron in R^3 (mu = 1/sqrt 5) and the 120 lines of E8 (mu = 1/2)."""
    k = np.asarray(k, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    if np.any(d < 1):
        raise RepcapError("levenshtein_bound needs d >= 1")
    with np.errstate(divide="ignore", invalid="ignore"):
        rhs = (3 * k - d**2 - 2 * d) / ((d + 2) * (k - d))
    out = np.where(k > d, np.sqrt(np.maximum(np.nan_to_num(rhs, nan=0.0), 0.0)), 0.0)
    return out if np.ndim(out) else float(out)


def levenshtein_log_capacity(d, mu):
    """``ln k_max`` from :func:`levenshtein_bound`: ``k <= d (d + 2)(1 - mu^2) / (3 - (d + 2) mu^2)``
    for ``mu^2 < 3 / (d + 2)``, else ``inf`` (no bound)."""
    d = np.asarray(d, dtype=np.float64)
    mu2 = np.asarray(mu, dtype=np.float64) ** 2
    den = 3.0 - (d + 2) * mu2
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, np.log(d * (d + 2) * (1 - mu2)) - np.log(np.where(den > 0, den, 1.0)), np.inf)
    return out if np.ndim(out) else float(out)


def kl_rate(theta):
    """Kabatiansky & Levenshtein (1978) exponent R(theta) in bits per dimension:
    ``(1/n) log2 A(n, theta) <= R(theta) + o(1)`` for spherical codes of minimum angle theta in
    (0, pi/2]: ``R = (1+s)/(2s) log2((1+s)/(2s)) - (1-s)/(2s) log2((1-s)/(2s))``, s = sin theta.
    R(60 deg) = 0.401 (the kissing-number exponent); R(90 deg) = 0."""
    s = np.sin(np.asarray(theta, dtype=np.float64))
    a = (1 + s) / (2 * s)
    b = (1 - s) / (2 * s)
    with np.errstate(divide="ignore", invalid="ignore"):
        tb = np.where(b > 0, b * np.log2(np.where(b > 0, b, 1.0)), 0.0)
    out = a * np.log2(a) - tb
    return out if np.ndim(out) else float(out)


def kl_log_capacity(d, mu):
    """``ln k`` of the Kabatiansky-Levenshtein asymptotic bound at coherence ``mu``: the code
    {+-v_i} has minimum angle arccos(mu), so ``k <= A(d, arccos mu) / 2 ~ 2^(d R)``.  Asymptotic
    (d -> infinity at fixed angle): the o(1) term is not small at the d of real models, so this is
    a guide to the growth rate, not a rigorous finite-d bound."""
    mu = np.asarray(mu, dtype=np.float64)
    out = np.asarray(d, dtype=np.float64) * kl_rate(np.arccos(np.clip(mu, 0.0, 1.0))) * math.log(2.0)
    return out if np.ndim(out) else float(out)


BOUNDS = {
    "welch": welch_log_capacity,
    "levenshtein": levenshtein_log_capacity,
    "kabatiansky-levenshtein": kl_log_capacity,
}
RIGOROUS_BOUNDS = ("welch", "levenshtein")


def bound_violations(law: str | Law, d, eps, bounds=tuple(BOUNDS)):
    """Where ``law`` claims more vectors than a bound allows.

    Returns a pandas DataFrame with one row per (d, eps) and bound: ``log10_k_law``,
    ``log10_k_bound``, ``violates`` (law > bound) and ``rigorous`` (False for the asymptotic
    Kabatiansky-Levenshtein bound).  ``d`` and ``eps`` broadcast.
    """
    import pandas as pd

    law = get_law(law)
    d, eps = np.broadcast_arrays(np.asarray(d, dtype=np.float64), np.asarray(eps, dtype=np.float64))
    d, eps = d.ravel(), eps.ravel()
    lk = law.log_capacity(eps, d) / math.log(10)
    rows = []
    for b in bounds:
        lb = np.asarray(BOUNDS[b](d, eps), dtype=np.float64) / math.log(10)
        for i in range(len(d)):
            rows.append(
                {
                    "law": law.name,
                    "d": d[i],
                    "eps": eps[i],
                    "bound": b,
                    "log10_k_law": float(lk[i]),
                    "log10_k_bound": float(lb[i]),
                    "violates": bool(lk[i] > lb[i]),
                    "rigorous": b in RIGOROUS_BOUNDS,
                }
            )
    return pd.DataFrame(rows)


def coherence_lower_bound(k, d, max_order: int = 64):
    """The largest of the rigorous lower bounds on the coherence of k unit vectors in R^d: Welch of
    orders 1..max_order and Levenshtein.  No packing of k vectors in R^d has max |cos| below it."""
    k = np.asarray(k, dtype=np.float64)
    d = np.asarray(d, dtype=np.float64)
    out = levenshtein_bound(k, d)
    for s in range(1, max_order + 1):
        out = np.maximum(out, welch_bound(k, d, order=s))
    return out if np.ndim(out) else float(out)
