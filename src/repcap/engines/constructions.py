"""Explicit line packings with a known coherence: what is *achievable*, next to the bounds of
:mod:`repcap.engines.bounds` (what no packing can beat) and the fitted laws of :mod:`repcap.engines.laws` (what
gradient descent finds).

Guha 2026 and Yoder 2025 both measure |cos|, so the classical problem behind them is packing *lines*
(antipodal spherical codes): the coherence of N unit vectors is ``mu = max_{i != j} |<v_i, v_j>|``.
Constructions whose coherence is known exactly (the facts in ``../shared/reference/README.md``,
"What is achievable"):

* polytopes and root systems -- the simplex (d + 1 vectors at 1/d), the cross-polytope (d lines at 0),
  the icosahedron's 6 diagonals (1/sqrt 5), the 24-cell (12 lines at 1/2), the 600-cell (60 lines at
  cos 36 deg = (1 + sqrt 5)/4; as a signed code 120 points at 36 deg), the E8 roots (120 lines at
  1/2), the snub cube (a signed code: 24 points at 43.69 deg);
* real mutually unbiased bases from a Kerdock set (Cameron & Seidel 1973; Kantor 1982), d = 4^m:
  the standard basis and 2^(2m-1) bases ``(-1)^(Q_s(v) + b.v) / sqrt d``, where the binary quadratic
  forms ``Q_s(x, e) = sum_{i=1}^{(k-1)/2} Tr((s x)^(2^i + 1)) + e Tr(s x)`` on GF(2^k) x GF(2),
  k = 2m - 1 odd, differ pairwise by forms of full rank: d(d + 2)/2 vectors at exactly 1/sqrt d,
  Levenshtein's bound with equality;
* dual binary BCH codes of length n = 2^m - 1 and designed distance 2t + 1 (MacWilliams & Sloane,
  *The Theory of Error-Correcting Codes*, ch. 9): the 2^(mt) codewords
  ``c(x) = Tr(a x + c_1 x^3 + ... + c_{t-1} x^(2t-1))``, x over GF(2^m)*, as ``(-1)^c / sqrt n``.
  The code is linear, so the coherence is ``max |S| / n`` over the nonzero codewords, with
  ``S = sum_x (-1)^c(x) = n - 2 wt(c)``; the Carlitz-Uchiyama bound ``|S| <= 2 (t - 1) 2^(m/2) + 1``
  holds for 2t - 1 < 2^ceil(m/2) + 1.

The dual BCH maximum is computed from the code's structure, never from the 2^(mt) x n matrix: for
fixed higher coefficients, the sums over every ``a`` at once are the Walsh spectrum of
``x -> Tr(c_1 x^3 + ...)`` (each linear form ``Tr(a x)`` is one character ``u.x``), and scaling
``x -> lambda x`` (a linear bijection, so it permutes the spectrum) makes the first nonzero
coefficient one of gcd(2j + 1, n) representatives.  Where even that is too costly, the
Carlitz-Uchiyama value is used and labelled as a theorem's bound (:attr:`Code.mu_status`).

The best-known packings of Sloane's table (numerical, not proven optimal) are data:
:func:`best_known` reads ``data/reference/best_known_packings.csv``.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from repcap import RepcapError

#: The files of ``data/reference`` this module reads (see :func:`repcap.sweep.codehash.data_digest`).
DATA_FILES = ("best_known_packings.csv",)

#: Primitive binary polynomials (bit i = coefficient of x^i) for GF(2^m), m = 1..16; each is
#: checked when its field is built (the powers of x run through all 2^m - 1 nonzero elements).
PRIMITIVE_POLYNOMIALS = {
    1: 0b11,
    2: 0b111,
    3: 0b1011,
    4: 0b10011,
    5: 0b100101,
    6: 0b1000011,
    7: 0b10000011,
    8: 0b100011101,
    9: 0b1000010001,
    10: 0b10000001001,
    11: 0b100000000101,
    12: 0b1000001010011,
    13: 0b10000000011011,
    14: 0b100010001000011,
    15: 0b1000000000000011,
    16: 0b10001000000001011,
}
#: The dual BCH parameters of the book: m = 5..14 (lengths 31..16383), t = 2 and 3 (the codes whose
#: coherence the tests check), and the t of the catalogue, up to 8 where the Carlitz-Uchiyama bound
#: applies (larger t: more vectors at a larger coherence).
BCH_M = tuple(range(5, 15))
BCH_T = (2, 3)
CATALOGUE_BCH_T = tuple(range(2, 9))
#: The dimensions of the catalogue's Kerdock sets (4^m; their polar-form ranks are checked here).
KERDOCK_D = (4, 16, 64, 256, 1024)
#: The largest number of element operations (coefficient classes x m 2^m) spent on the exact
#: maximum of one dual BCH code; above it the Carlitz-Uchiyama bound is used.  At this default
#: every t = 2 code of m <= 14 and the t = 3 codes up to m = 13 are exact (seconds each on a CPU;
#: for odd m they sit well below the bound, e.g. 257/8191 against 0.0443 at m = 13).
DEFAULT_MAX_WORK = 1e9
#: The largest matrix (vectors x dimension) that :func:`kerdock` and :func:`dual_bch` materialise.
MAX_ENTRIES = 50_000_000

PHI = (1 + math.sqrt(5)) / 2


# --------------------------------------------------------------------------------------------- fields


@dataclass(frozen=True)
class Field:
    """GF(2^m) with elements as integers (bit i = coefficient of alpha^i, alpha a root of the
    primitive polynomial): ``exp[i] = alpha^i`` (doubled, so sums of two logs need no modulo before
    indexing), ``log[y]`` (-1 at 0) and the trace as a bit mask, ``Tr(y) = parity(y & trace_mask)``."""

    m: int
    exp: np.ndarray
    log: np.ndarray
    trace_mask: int

    @property
    def n(self) -> int:
        return (1 << self.m) - 1

    def mul(self, a, b) -> np.ndarray:
        """Elementwise product (broadcasts)."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        out = self.exp[(self.log[a] + self.log[b]) % self.n]
        return np.where((a == 0) | (b == 0), 0, out)

    def power(self, a, e: int) -> np.ndarray:
        """``a ** e`` for e >= 1 (0 ** e = 0)."""
        a = np.asarray(a, dtype=np.int64)
        return np.where(a == 0, 0, self.exp[(self.log[a] * e) % self.n])

    def trace(self, y) -> np.ndarray:
        """The absolute trace GF(2^m) -> GF(2), as 0/1 int64."""
        return parity(np.asarray(y, dtype=np.int64) & self.trace_mask)


def parity(v) -> np.ndarray:
    """Parity of the set bits of non-negative integers (0/1 int64)."""
    return (np.bitwise_count(np.asarray(v, dtype=np.int64)) & 1).astype(np.int64)


@functools.lru_cache(maxsize=32)
def field(m: int) -> Field:
    """GF(2^m) from :data:`PRIMITIVE_POLYNOMIALS` (refused when the polynomial is not primitive)."""
    if m not in PRIMITIVE_POLYNOMIALS:
        raise RepcapError(f"GF(2^{m}): m must be one of {min(PRIMITIVE_POLYNOMIALS)}..{max(PRIMITIVE_POLYNOMIALS)}")
    poly, n = PRIMITIVE_POLYNOMIALS[m], (1 << m) - 1
    exp = np.zeros(2 * n, dtype=np.int64)
    x = 1
    for i in range(n):
        exp[i] = x
        x <<= 1
        if x >> m:
            x ^= poly
    log = np.full(1 << m, -1, dtype=np.int64)
    log[exp[:n]] = np.arange(n)
    if x != 1 or (log[1:] < 0).any():
        raise RepcapError(f"the polynomial {poly:#b} does not generate GF(2^{m})")  # pragma: no cover - data check
    exp[n:] = exp[:n]
    # Tr(alpha^i) = alpha^i + alpha^(2i) + ... + alpha^(2^(m-1) i), which is 0 or 1
    mask = 0
    for i in range(m):
        t, z = 0, i
        for _ in range(m):
            t ^= int(exp[z % n])
            z *= 2
        if t not in (0, 1):  # pragma: no cover - a property of the trace
            raise RepcapError(f"trace of alpha^{i} in GF(2^{m}) is not in GF(2)")
        mask |= t << i
    return Field(m, exp, log, mask)


def fwht(a: np.ndarray) -> np.ndarray:
    """Walsh-Hadamard transform along the last axis (length a power of 2), unnormalised:
    ``W[..., u] = sum_x a[..., x] (-1)^(u.x)``."""
    a = np.array(a, copy=True)
    N = a.shape[-1]
    if N & (N - 1):
        raise RepcapError(f"fwht needs a power-of-two length, got {N}")
    lead, h = a.shape[:-1], 1
    while h < N:
        a = a.reshape(*lead, N // (2 * h), 2, h)
        x = a[..., 0, :].copy()
        a[..., 0, :] += a[..., 1, :]
        a[..., 1, :] = x - a[..., 1, :]
        h *= 2
    return a.reshape(*lead, N)


# --------------------------------------------------------------------------------------------- codes


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


def icosahedron() -> np.ndarray:
    """The 12 vertices ``(0, +-1, +-phi)`` and their cyclic shifts: 6 lines at 1/sqrt 5."""
    base = np.array([[0.0, s1, s2 * PHI] for s1, s2 in _signs(2)])
    return _unit(np.concatenate([np.roll(base, k, axis=1) for k in range(3)]))


def cell24() -> np.ndarray:
    """The 24-cell (the D4 roots ``+-e_i +- e_j``): 24 points, 12 lines at 1/2."""
    rows = []
    for i, j in itertools.combinations(range(4), 2):
        for s1, s2 in _signs(2):
            v = np.zeros(4)
            v[i], v[j] = s1, s2
            rows.append(v)
    return _unit(rows)


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
    rows = []
    for i, j in itertools.combinations(range(8), 2):
        for s1, s2 in _signs(2):
            v = np.zeros(8)
            v[i], v[j] = s1, s2
            rows.append(v)
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


# --------------------------------------------------------------------------------------------- Kerdock sets


def _check_kerdock_d(d: int) -> int:
    if not isinstance(d, (int, np.integer)) or d < 4 or d & (d - 1) or (d.bit_length() - 1) % 2:
        raise RepcapError(f"real mutually unbiased bases (Kerdock sets) exist for d = 4^m; got d = {d!r}")
    n_bits = d.bit_length() - 1
    if n_bits - 1 not in PRIMITIVE_POLYNOMIALS:
        raise RepcapError(f"Kerdock set: d = {d} is beyond the fields this module builds (d <= 4^8)")
    return n_bits


def kerdock_forms(d: int) -> np.ndarray:
    """The Kerdock set's quadratic forms on F_2^n, d = 2^n = 4^m: ``(2^(n-1), d)`` 0/1 values
    ``Q_s(x, e)`` at index ``x + e 2^(n-1)``, one row per s in GF(2^(n-1))."""
    n_bits = _check_kerdock_d(d)
    k = n_bits - 1
    F = field(k)
    x = np.arange(1 << k, dtype=np.int64)
    s = np.arange(1 << k, dtype=np.int64)[:, None]
    sx = F.mul(s, x[None, :])
    q = np.zeros(sx.shape, dtype=np.int64)
    for i in range(1, (k - 1) // 2 + 1):
        q ^= F.trace(F.power(sx, 2**i + 1))
    lin = F.trace(sx)
    return np.concatenate([q, q ^ lin], axis=1).astype(np.uint8)


def _polar_rows(forms: np.ndarray) -> np.ndarray:
    """The polar (alternating) form of each quadratic form, ``B(u, v) = Q(u + v) + Q(u) + Q(v)``,
    as n integers per form (bit j of row i = B(e_i, e_j))."""
    n_bits = forms.shape[1].bit_length() - 1
    e = 1 << np.arange(n_bits)
    Qe = forms[:, e].astype(np.int64)  # (S, n)
    Qee = forms[:, e[:, None] ^ e[None, :]].astype(np.int64)  # (S, n, n); Q(0) = 0 on the diagonal
    B = Qee ^ Qe[:, :, None] ^ Qe[:, None, :]
    B[:, np.arange(n_bits), np.arange(n_bits)] = 0
    return (B << np.arange(n_bits)).sum(axis=2)


def gf2_rank(rows: np.ndarray, n_bits: int) -> np.ndarray:
    """Ranks over GF(2) of a batch of matrices given as ``(P, n)`` row integers."""
    R = np.array(rows, dtype=np.int64, copy=True)
    P, n = R.shape
    rank = np.zeros(P, dtype=np.int64)
    used = np.zeros((P, n), dtype=bool)
    ar = np.arange(P)
    for col in range(n_bits):
        has = ((R >> col) & 1).astype(bool) & ~used
        any_ = np.asarray(has.any(axis=1))
        piv = np.argmax(has, axis=1)
        prow = R[ar, piv]
        hit = np.asarray(((R >> col) & 1).astype(bool) & any_[:, None])
        hit[ar, piv] = False
        R = np.where(hit, R ^ prow[:, None], R)
        used[ar[any_], piv[any_]] = True
        rank += any_
    return rank


@functools.lru_cache(maxsize=8)
def kerdock_min_rank(d: int) -> int:
    """The smallest GF(2) rank of ``B_s + B_t`` over the pairs s != t of the Kerdock set's polar
    forms (n for a Kerdock set: every pairwise difference is a bent function)."""
    P = _polar_rows(kerdock_forms(d))
    n_bits = d.bit_length() - 1
    i, j = np.triu_indices(len(P), 1)
    return int(gf2_rank(P[i] ^ P[j], n_bits).min()) if len(i) else n_bits


def kerdock_code(d: int) -> Code:
    """The real MUBs of the Kerdock set in R^d, d = 4^m: ``d (d + 2) / 2`` vectors.  The coherence is
    computed exactly: ``2^(-r/2)`` for the smallest pairwise rank r of the forms' differences
    (a quadratic form of polar rank r has Walsh values 0 or 2^(n - r/2)), and 1/sqrt d between the
    standard basis and the rest."""
    n_bits = _check_kerdock_d(d)
    r = kerdock_min_rank(d)
    mu = max(2.0 ** (-n_bits / 2), 2.0 ** (-r / 2))
    return Code("Kerdock", f"real MUBs (Kerdock set), d = {d}", d, d * (d + 2) // 2, mu, "exact", "polar-form ranks")


def kerdock(d: int) -> np.ndarray:
    """The Kerdock set's mutually unbiased bases in R^d as vectors: ``(d (d + 2) / 2, d)`` (the
    standard basis, then ``(-1)^(Q_s(v) + b.v) / sqrt d`` for each form s and each b)."""
    _check_kerdock_d(d)
    N = d * (d + 2) // 2
    if N * d > MAX_ENTRIES:
        raise RepcapError(
            f"the Kerdock set in R^{d} has {N:,} vectors ({N * d:,} entries, over {MAX_ENTRIES:,}): "
            "use kerdock_code(d) for its exact coherence"
        )
    v = np.arange(d)
    H = 1.0 - 2.0 * parity(v[:, None] & v[None, :])  # (-1)^(b.v)
    Q = 1.0 - 2.0 * kerdock_forms(d).astype(np.float64)
    blocks = [np.eye(d)] + [H * q[None, :] / math.sqrt(d) for q in Q]
    return np.concatenate(blocks)


# --------------------------------------------------------------------------------------------- dual BCH


def _check_bch(m: int, t: int) -> None:
    if not isinstance(m, (int, np.integer)) or m not in PRIMITIVE_POLYNOMIALS or m < 3:
        raise RepcapError(f"dual BCH: m must be an integer in 3..{max(PRIMITIVE_POLYNOMIALS)}, got {m!r}")
    if not isinstance(t, (int, np.integer)) or t < 1 or not carlitz_uchiyama_applies(m, t):
        raise RepcapError(
            f"dual BCH: t = {t!r} at m = {m}: the code has 2^(mt) words and the Carlitz-Uchiyama bound only "
            f"for 1 <= t with 2t - 1 < 2^ceil(m/2) + 1"
        )


def carlitz_uchiyama_applies(m: int, t: int) -> bool:
    """Whether the Carlitz-Uchiyama bound (and dimension mt) holds: 2t - 1 < 2^ceil(m/2) + 1."""
    return 2 * t - 1 < 2 ** math.ceil(m / 2) + 1


def carlitz_uchiyama(m: int, t: int) -> float:
    """The Carlitz-Uchiyama bound on the coherence of the dual BCH code's vectors:
    ``(2 (t - 1) 2^(m/2) + 1) / (2^m - 1)`` (MacWilliams & Sloane, ch. 9)."""
    if not carlitz_uchiyama_applies(m, t):
        raise RepcapError(f"the Carlitz-Uchiyama bound needs 2t - 1 < 2^ceil(m/2) + 1 (m = {m}, t = {t})")
    return (2 * (t - 1) * 2 ** (m / 2) + 1) / ((1 << m) - 1)


def _coefficient_classes(F: Field, t: int):
    """Representatives of the higher coefficients ``(c_1, .., c_{t-1})`` (of x^3, x^5, ..) under
    ``c_j -> c_j lambda^(2j+1)``: the first nonzero one is a coset representative alpha^r,
    r < gcd(2j + 1, n), the later ones take every value.  Yields ``(tuple, count)`` blocks as
    arrays ``(B, t - 1)``."""
    n, q = F.n, 1 << F.m
    for i in range(t - 1):
        g = math.gcd(2 * i + 3, n)
        reps = F.exp[:g]
        free = t - 2 - i
        # (g * q^free, t - 1): zeros before position i, a representative at i, everything after it
        grid = np.stack(np.meshgrid(reps, *([np.arange(q)] * free), indexing="ij"), axis=-1).reshape(-1, 1 + free)
        yield np.concatenate([np.zeros((len(grid), i), dtype=np.int64), grid], axis=1)


def dual_bch_work(m: int, t: int) -> float:
    """Element operations of :func:`dual_bch_max_sum`: classes x m 2^m."""
    n, q = (1 << m) - 1, 1 << m
    classes = sum(math.gcd(2 * i + 3, n) * q ** (t - 2 - i) for i in range(t - 1))
    return float(classes) * m * q


@functools.lru_cache(maxsize=64)
def dual_bch_max_sum(m: int, t: int, *, chunk: int = 256) -> int:
    """The exact ``max |S| = max |n - 2 wt(c)|`` over the nonzero codewords of the dual BCH code
    (length 2^m - 1, designed distance 2t + 1), from Walsh spectra (module docstring)."""
    _check_bch(m, t)
    F = field(m)
    x = np.arange(1 << F.m, dtype=np.int64)
    best = 1 if F.n > 1 else 0  # the higher coefficients all zero: S = -1 for every a != 0
    powers = [F.power(x, 2 * j + 3) for j in range(t - 1)]
    for block in _coefficient_classes(F, t):
        for c0 in range(0, len(block), chunk):
            cs = block[c0 : c0 + chunk]
            f = np.zeros((len(cs), len(x)), dtype=np.int64)
            for j in range(t - 1):
                f ^= F.trace(F.mul(cs[:, j : j + 1], powers[j][None, :]))
            W = fwht((1 - 2 * f).astype(np.int64))
            best = max(best, int(np.abs(W - 1).max()))  # the x = 0 term (+1) is not a coordinate
    return best


def dual_bch_code(m: int, t: int, *, max_work: float = DEFAULT_MAX_WORK) -> Code:
    """The dual BCH code's line packing: 2^(mt) vectors in R^(2^m - 1), its coherence exact where
    :func:`dual_bch_work` is within ``max_work``, else the Carlitz-Uchiyama bound."""
    _check_bch(m, t)
    n = (1 << m) - 1
    name = f"dual BCH, m = {m}, t = {t}"
    if dual_bch_work(m, t) <= max_work:
        mu = dual_bch_max_sum(m, t) / n
        return Code("dual BCH", name, n, 2 ** (m * t), mu, "exact", "Walsh spectrum")
    return Code("dual BCH", name, n, 2 ** (m * t), carlitz_uchiyama(m, t), "bound", "Carlitz-Uchiyama bound")


def dual_bch(m: int, t: int) -> np.ndarray:
    """The dual BCH code's ``2^(mt)`` vectors ``(-1)^c / sqrt n`` as a matrix ``(2^(mt), n)``, rows in
    the order of the coefficients ``(a, c_1, ..)`` (a fastest), columns x = alpha^0 .. alpha^(n-1);
    refused when it holds more than :data:`MAX_ENTRIES` entries."""
    _check_bch(m, t)
    F = field(m)
    n, q = F.n, 1 << m
    if q**t * n > MAX_ENTRIES:
        raise RepcapError(
            f"dual BCH m = {m}, t = {t}: 2^{m * t} vectors in R^{n} are {q**t * n:,} entries (over {MAX_ENTRIES:,}); "
            "use dual_bch_code(m, t) for the coherence"
        )
    xs = F.exp[:n]
    coeffs = np.stack(np.meshgrid(*([np.arange(q)] * t), indexing="ij"), axis=-1).reshape(-1, t)[:, ::-1]
    c = np.zeros((len(coeffs), n), dtype=np.int64)
    for j in range(t):
        c ^= F.trace(F.mul(coeffs[:, j : j + 1], F.power(xs, 2 * j + 1)[None, :]))
    return (1.0 - 2.0 * c) / math.sqrt(n)


# --------------------------------------------------------------------------------------------- catalogue


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


# --------------------------------------------------------------------------------------------- best known

#: The sources of :func:`best_known`'s rows (keys of ``book/references.bib``), as cited in tables.
BEST_KNOWN_SOURCES = {
    "sloane1997": "Sloane's table of Grassmannian packings (1997), now kept by Cohn",
    "cohn_codes": "Cohn's table of spherical codes (data set, hdl.handle.net/1721.1/142661)",
}
_QUANTITIES = {"lines": "squared chordal distance", "points": "smallest angle (degrees)"}


@functools.lru_cache(maxsize=1)
def _best_known_rows() -> tuple[dict, ...]:
    import csv

    from repcap.base.quotes import reference_dir

    path = reference_dir() / "best_known_packings.csv"
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            raw = list(csv.DictReader(fh))
    except OSError as exc:
        raise RepcapError(f"cannot read {path}: {exc.strerror or exc}") from None
    out = []
    for i, r in enumerate(raw, start=2):
        where = f"{path.name} line {i}"
        try:
            d, N, value = int(r["d"]), int(r["N"]), float(r["value"])
        except (KeyError, TypeError, ValueError):
            raise RepcapError(f"{where}: d, N and value must be numbers") from None
        kind = r.get("kind", "")
        if _QUANTITIES.get(kind) != r.get("quantity"):
            raise RepcapError(f"{where}: kind {kind!r} with quantity {r.get('quantity')!r}; use {_QUANTITIES}")
        if r.get("source") not in BEST_KNOWN_SOURCES or r.get("status") not in ("published", "ours"):
            raise RepcapError(
                f"{where}: source must be one of {sorted(BEST_KNOWN_SOURCES)} and status published or ours"
            )
        if kind == "lines":
            if not (N > d >= 2 and 0 < value <= 1):
                raise RepcapError(f"{where}: a line packing needs N > d >= 2 and a squared chordal distance in (0, 1]")
            mu, angle = math.sqrt(1.0 - value), None
        else:
            if not (N > d >= 2 and 0 < value < 180):
                raise RepcapError(f"{where}: a signed code needs N > d >= 2 and an angle in (0, 180) degrees")
            mu, angle = math.cos(math.radians(value)), value
        out.append(
            {
                "d": d,
                "N": N,
                "kind": kind,
                "value": value,
                "mu": mu,
                "angle_deg": angle,
                "source": r["source"],
                "cite": BEST_KNOWN_SOURCES[r["source"]],
                "status": r["status"],
            }
        )
    return tuple(out)


def best_known(kind: str | None = "lines"):
    """The best-known packings of ``data/reference/best_known_packings.csv`` as a DataFrame: ``d``,
    ``N``, ``kind`` (``lines``: Sloane's Grassmannian packings, published as squared chordal
    distances sin^2 = 1 - mu^2; ``points``: signed spherical codes from Cohn's table, published as
    their smallest angle), ``mu`` (the coherence of the lines, or the largest cosine of the points),
    ``angle_deg``, ``source``, ``cite`` and ``status``.  ``kind=None``: every row."""
    import pandas as pd

    if kind not in (None, *_QUANTITIES):
        raise RepcapError(f"best_known: kind must be one of {', '.join(_QUANTITIES)} or None, got {kind!r}")
    rows = [r for r in _best_known_rows() if kind is None or r["kind"] == kind]
    return pd.DataFrame(rows)
