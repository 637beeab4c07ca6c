"""A packing whose coherence is known (:class:`Code`), the coherence, smallest angle and lines of a
set of vectors, and the polytopes and root systems as explicit vectors: the simplex (d + 1 vectors
at 1/d), the cross-polytope (d lines at 0), the icosahedron's 6 diagonals (1/sqrt 5), the 24-cell
(12 lines at 1/2), the 600-cell (60 lines at cos 36 deg = (1 + sqrt 5)/4; as a signed code 120
points at 36 deg), the E8 roots (120 lines at 1/2), the snub cube (a signed code: 24 points at
43.69 deg)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from repcap import RepcapError

__all__ = [
    "MAX_ENTRIES",
    "PHI",
    "Code",
    "cell24",
    "cell600",
    "coherence",
    "cross_polytope",
    "e8_roots",
    "icosahedron",
    "lines",
    "min_angle_deg",
    "simplex",
    "snub_cube",
    "tribonacci_constant",
]

#: The largest matrix (vectors x dimension) that :func:`kerdock` and :func:`dual_bch` materialise.
MAX_ENTRIES = 50_000_000

PHI = (1 + math.sqrt(5)) / 2


@dataclass(frozen=True)
class Code:
    """A packing whose coherence is known: ``count`` lines in R^d at coherence at most ``mu``.

    ``mu_status`` is ``exact`` (a closed form, or computed exactly from the code's structure) or
    ``bound`` (a theorem's upper bound: the true coherence is at most ``mu``); ``mu_from`` says
    which.  ``angle_deg`` is the smallest angle between two of the *points* for a signed spherical
    code (None for a line packing)."""

    family: str
    name: str
    d: int
    count: int
    mu: float
    mu_status: str
    mu_from: str
    angle_deg: float | None = None

    @property
    def log10_count(self) -> float:
        return math.log10(self.count) if self.count < 2**1000 else self.count.bit_length() * math.log10(2)

    def as_dict(self) -> dict:
        return {
            "family": self.family,
            "name": self.name,
            "d": self.d,
            "count": self.count,
            "log10_count": self.log10_count,
            "mu": self.mu,
            "mu_status": self.mu_status,
            "mu_from": self.mu_from,
            "angle_deg": self.angle_deg,
        }


def _unit(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def coherence(X, *, block: int = 2048) -> float:
    """``max_{i != j} |<x_i, x_j>|`` of the rows of ``X: (N, d)``, normalised, in float64 (blocks of
    rows, so an N x N matrix is never held)."""
    U = _unit(X)
    N = len(U)
    if N < 2:
        raise RepcapError("coherence needs at least two vectors")
    best = 0.0
    for i0 in range(0, N, block):
        G = np.abs(U[i0 : i0 + block] @ U.T)
        r = np.arange(i0, min(N, i0 + block))
        G[r - i0, r] = 0.0
        best = max(best, float(G.max()))
    return best


def min_angle_deg(X) -> float:
    """The smallest angle between two of the points (rows of ``X``), signed: ``arccos max cos``."""
    U = _unit(X)
    G = U @ U.T
    np.fill_diagonal(G, -1.0)
    return math.degrees(math.acos(min(1.0, float(G.max()))))


def lines(X, *, tol: float = 1e-9) -> np.ndarray:
    """One point of each antipodal pair of the rows of ``X`` (the lines they span), normalised."""
    U = _unit(X)
    keep: list[int] = []
    for i in range(len(U)):
        if not keep or np.max(np.abs(U[keep] @ U[i])) < 1 - tol:
            keep.append(i)
    return U[keep]


def simplex(d: int) -> np.ndarray:
    """The regular simplex: ``(d + 1, d)`` unit vectors with every cosine -1/d."""
    if not isinstance(d, (int, np.integer)) or d < 1:
        raise RepcapError(f"simplex needs an integer dimension >= 1, got {d!r}")
    E = np.eye(d + 1) - 1.0 / (d + 1)
    # an orthonormal basis of the sum-zero hyperplane of R^(d+1): coordinates of the vertices in R^d
    Q, _ = np.linalg.qr(E[:, :d])
    return _unit(E @ Q)


def cross_polytope(d: int) -> np.ndarray:
    """``+-e_i``: ``(2d, d)``, d lines at coherence 0 (an orthonormal basis)."""
    if not isinstance(d, (int, np.integer)) or d < 1:
        raise RepcapError(f"cross_polytope needs an integer dimension >= 1, got {d!r}")
    return np.concatenate([np.eye(d), -np.eye(d)])


def _signs(n: int) -> np.ndarray:
    return np.array(list(itertools.product((1.0, -1.0), repeat=n)))


def _even_permutations(n: int) -> list[tuple[int, ...]]:
    out = []
    for p in itertools.permutations(range(n)):
        inv = sum(1 for i in range(n) for j in range(i + 1, n) if p[i] > p[j])
        if inv % 2 == 0:
            out.append(p)
    return out


def _two_hot(n: int) -> list[np.ndarray]:
    """The vectors ``+-e_i +- e_j``, i < j, of R^n (the D_n roots), in a fixed order."""
    rows = []
    for i, j in itertools.combinations(range(n), 2):
        for s1, s2 in _signs(2):
            v = np.zeros(n)
            v[i], v[j] = s1, s2
            rows.append(v)
    return rows


def icosahedron() -> np.ndarray:
    """The 12 vertices ``(0, +-1, +-phi)`` and their cyclic shifts: 6 lines at 1/sqrt 5."""
    base = np.array([[0.0, s1, s2 * PHI] for s1, s2 in _signs(2)])
    return _unit(np.concatenate([np.roll(base, k, axis=1) for k in range(3)]))


def cell24() -> np.ndarray:
    """The 24-cell (the D4 roots ``+-e_i +- e_j``): 24 points, 12 lines at 1/2."""
    return _unit(_two_hot(4))


def cell600() -> np.ndarray:
    """The 600-cell's 120 vertices: ``+-e_i``, ``(+-1/2)^4`` and the even permutations of
    ``(+-phi, +-1, +-1/phi, 0) / 2``; as a signed code 36 degrees apart, 60 lines at cos 36 deg."""
    rows = list(cross_polytope(4))
    rows += [0.5 * s for s in _signs(4)]
    for s in _signs(3):
        base = 0.5 * np.array([s[0] * PHI, s[1], s[2] / PHI, 0.0])
        rows += [base[list(p)] for p in _even_permutations(4)]
    return _unit(rows)


def e8_roots() -> np.ndarray:
    """The 240 roots of E8: ``+-e_i +- e_j`` and ``(+-1/2)^8`` with an even number of minus signs;
    120 lines at 1/2 (60 degrees apart as a signed code)."""
    rows = _two_hot(8)
    rows += [0.5 * s for s in _signs(8) if (s < 0).sum() % 2 == 0]
    return _unit(rows)


def tribonacci_constant() -> float:
    """The real root of t^3 = t^2 + t + 1 (about 1.8393)."""
    roots = np.roots([1.0, -1.0, -1.0, -1.0])
    return float(roots[np.argmin(np.abs(roots.imag))].real)


def snub_cube() -> np.ndarray:
    """The snub cube's 24 vertices: the even permutations of ``(+-1, +-1/t, +-t)`` with an even
    number of plus signs and the odd permutations with an odd number (t the tribonacci constant);
    a signed spherical code at 43.69 degrees (the best known, and proven optimal, for 24 points in R^3)."""
    t = tribonacci_constant()
    base = np.array([1.0, 1.0 / t, t])
    even = _even_permutations(3)
    rows = []
    for p in itertools.permutations(range(3)):
        odd = p not in even
        for s in _signs(3):
            if int((s > 0).sum()) % 2 == int(odd):
                rows.append((s * base)[list(p)])
    return _unit(rows)
