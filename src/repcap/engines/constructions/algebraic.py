"""The algebraic codes, over the finite fields GF(2^m) (integer arithmetic on numpy arrays: exponent
and logarithm tables, the trace as a bit mask):

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
Carlitz-Uchiyama value is used and labelled as a theorem's bound (:attr:`Code.mu_status`)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from repcap import RepcapError

from .codes import MAX_ENTRIES, Code

__all__ = [
    "DEFAULT_MAX_WORK",
    "PRIMITIVE_POLYNOMIALS",
    "Field",
    "carlitz_uchiyama",
    "carlitz_uchiyama_applies",
    "dual_bch",
    "dual_bch_code",
    "dual_bch_max_sum",
    "dual_bch_work",
    "field",
    "fwht",
    "gf2_rank",
    "kerdock",
    "kerdock_code",
    "kerdock_forms",
    "kerdock_min_rank",
    "parity",
]

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

#: The largest number of element operations (coefficient classes x m 2^m) spent on the exact
#: maximum of one dual BCH code; above it the Carlitz-Uchiyama bound is used.  At this default
#: every t = 2 code of m <= 14 and the t = 3 codes up to m = 13 are exact (seconds each on a CPU;
#: for odd m they sit well below the bound, e.g. 257/8191 against 0.0443 at m = 13).
DEFAULT_MAX_WORK = 1e9


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
