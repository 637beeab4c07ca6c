"""The catalogue of explicit codes (polytopes, Kerdock sets, dual BCH codes) at the book's
parameters, the codes of every dimension, and the largest code that fits in R^d at a coherence."""

from __future__ import annotations

import functools
import math

import numpy as np

from repcap import RepcapError

from .algebraic import DEFAULT_MAX_WORK, carlitz_uchiyama, carlitz_uchiyama_applies, dual_bch_code, kerdock_code
from .codes import PHI, Code, cell600, e8_roots, min_angle_deg, snub_cube

__all__ = [
    "BCH_M",
    "BCH_T",
    "CATALOGUE_BCH_T",
    "KERDOCK_D",
    "catalogue",
    "family_codes",
    "largest_code",
    "signed_codes",
    "small_codes",
]

#: The dual BCH parameters of the book: m = 5..14 (lengths 31..16383), t = 2 and 3 (the codes whose
#: coherence the tests check), and the t of the catalogue, up to 8 where the Carlitz-Uchiyama bound
#: applies (larger t: more vectors at a larger coherence).
BCH_M = tuple(range(5, 15))
BCH_T = (2, 3)
CATALOGUE_BCH_T = tuple(range(2, 9))
#: The dimensions of the catalogue's Kerdock sets (4^m; their polar-form ranks are checked here).
KERDOCK_D = (4, 16, 64, 256, 1024)


def small_codes() -> list[Code]:
    """The polytopes and root systems as codes, their coherence in closed form (the tests compute it
    from the vectors)."""
    return [
        Code("icosahedron", "icosahedron (6 diagonals)", 3, 6, 1 / math.sqrt(5), "exact", "closed form"),
        Code("24-cell", "24-cell (D4 roots)", 4, 12, 0.5, "exact", "closed form"),
        Code("600-cell", "600-cell (60 diagonals)", 4, 60, PHI / 2, "exact", "closed form"),
        Code("E8", "E8 roots (120 lines)", 8, 120, 0.5, "exact", "closed form"),
    ]


def signed_codes() -> list[Code]:
    """Signed spherical codes (points, not lines): ``mu`` is their largest cosine, ``angle_deg`` the
    smallest angle between two points, computed from the vectors."""
    out = []
    for family, name, X in (
        ("snub cube", "snub cube (24 points)", snub_cube()),
        ("600-cell", "600-cell (120 points)", cell600()),
        ("E8", "E8 roots (240 points)", e8_roots()),
    ):
        a = min_angle_deg(X)
        out.append(Code(family, name, X.shape[1], len(X), math.cos(math.radians(a)), "exact", "coordinates", a))
    return out


def family_codes(d: int) -> list[Code]:
    """The codes of every dimension: the orthonormal basis (d lines at 0) and the simplex (d + 1
    vectors at 1/d)."""
    out = [Code("orthonormal", f"orthonormal basis, d = {d}", d, d, 0.0, "exact", "closed form")]
    if d >= 2:
        out.append(Code("simplex", f"simplex, d = {d}", d, d + 1, 1.0 / d, "exact", "closed form"))
    return out


@functools.lru_cache(maxsize=8)
def _catalogue(bch_m: tuple, bch_t: tuple, kerdock_d: tuple, max_work: float) -> tuple[Code, ...]:
    out = list(small_codes())
    out += [kerdock_code(d) for d in kerdock_d]
    for m in bch_m:
        for t in bch_t:
            if carlitz_uchiyama_applies(m, t) and carlitz_uchiyama(m, t) < 1:
                out.append(dual_bch_code(m, t, max_work=max_work))
    return tuple(out)


def catalogue(
    *,
    bch_m: tuple[int, ...] = BCH_M,
    bch_t: tuple[int, ...] = CATALOGUE_BCH_T,
    kerdock_d: tuple[int, ...] = KERDOCK_D,
    max_work: float = DEFAULT_MAX_WORK,
) -> list[Code]:
    """The explicit codes of this module (polytopes, Kerdock sets, dual BCH codes), each with its
    coherence (exact, or a theorem's bound where ``max_work`` does not reach the exact one)."""
    return list(_catalogue(tuple(bch_m), tuple(bch_t), tuple(kerdock_d), float(max_work)))


def largest_code(d: int, eps: float, codes: list[Code]) -> Code:
    """The code with the most vectors among ``codes`` that fits in R^d (its own dimension at most d)
    at coherence at most ``eps``, the simplex and orthonormal basis of R^d included."""
    if not isinstance(d, (int, np.integer)) or d < 1:
        raise RepcapError(f"largest_code needs an integer dimension >= 1, got {d!r}")
    if not math.isfinite(eps) or eps < 0:
        raise RepcapError(f"largest_code needs a finite eps >= 0, got {eps!r}")
    fits = [c for c in [*family_codes(int(d)), *codes] if c.d <= d and c.mu <= eps and c.angle_deg is None]
    return max(fits, key=lambda c: (c.count, -c.mu))
