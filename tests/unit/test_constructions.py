"""Explicit codes against independent references: closed forms, brute-force enumeration of the dual
BCH codewords with a field arithmetic written here (shift-and-add, no log tables), dense Gram
matrices, Walsh spectra and the rigorous bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from repcap import RepcapError
from repcap.engines import bounds
from repcap.engines import constructions as C
from repcap.engines.constructions import table

PHI = (1 + math.sqrt(5)) / 2


# --------------------------------------------------------------------------------------------- an independent GF(2^m)


def clmul(a: int, b: int, m: int, poly: int) -> int:
    """Carry-less product of two field elements, reduced by ``poly`` (shift and add)."""
    out = 0
    while b:
        if b & 1:
            out ^= a
        b >>= 1
        a <<= 1
        if a >> m:
            a ^= poly
    return out


def trace_ref(y: int, m: int, poly: int) -> int:
    """Tr(y) = y + y^2 + y^4 + ... + y^(2^(m-1)), computed by repeated squaring."""
    t, z = 0, y
    for _ in range(m):
        t ^= z
        z = clmul(z, z, m, poly)
    assert t in (0, 1)
    return t


def power_ref(y: int, e: int, m: int, poly: int) -> int:
    out = 1
    for _ in range(e):
        out = clmul(out, y, m, poly)
    return out


@pytest.mark.parametrize("m", range(2, 15))
def test_the_field_and_its_trace(m):
    F = C.field(m)
    poly = C.PRIMITIVE_POLYNOMIALS[m]
    rng = np.random.default_rng(m)
    ys = rng.integers(0, 1 << m, size=40)
    # the log tables multiply as shift-and-add does
    for a, b in zip(ys[:20], ys[20:]):
        assert int(F.mul(a, b)) == clmul(int(a), int(b), m, poly)
    # the trace mask is the trace
    for y in ys:
        assert int(F.trace(y)) == trace_ref(int(y), m, poly)
    # a balanced linear form: 2^(m-1) elements have trace 1
    assert int(F.trace(np.arange(1 << m)).sum()) == 1 << (m - 1)


def test_a_field_out_of_range_is_one_line():
    with pytest.raises(RepcapError, match="GF"):
        C.field(40)


def test_fwht_is_the_walsh_transform():
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, size=(3, 16))
    u = np.arange(16)
    H = 1 - 2 * (np.bitwise_count(u[:, None] & u[None, :]) & 1).astype(np.int64)
    np.testing.assert_array_equal(C.fwht(a), a @ H.T)
    with pytest.raises(RepcapError, match="power-of-two"):
        C.fwht(np.ones(6))


# --------------------------------------------------------------------------------------------- polytopes


def _gram_values(X):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    G = U @ U.T
    return G[~np.eye(len(U), dtype=bool)]


@pytest.mark.parametrize(
    "make, n_points, n_lines, mu",
    [
        (C.icosahedron, 12, 6, 1 / math.sqrt(5)),
        (C.cell24, 24, 12, 0.5),
        (C.cell600, 120, 60, PHI / 2),
        (C.e8_roots, 240, 120, 0.5),
    ],
)
def test_polytope_line_packings(make, n_points, n_lines, mu):
    X = make()
    assert X.shape[0] == n_points
    L = C.lines(X)
    assert len(L) == n_lines
    assert C.coherence(L) == pytest.approx(mu, abs=1e-12)


@pytest.mark.parametrize("make, k, d", [(C.icosahedron, 6, 3), (C.cell24, 12, 4), (C.e8_roots, 120, 8)])
def test_these_meet_levenshteins_bound_with_equality(make, k, d):
    assert C.coherence(C.lines(make())) == pytest.approx(bounds.levenshtein_bound(k, d), abs=1e-12)


def test_signed_codes_and_their_edges():
    # 600-cell: 36 degrees, 12 neighbours each (720 edges); E8: 60 degrees, 56 neighbours each
    for X, angle, edges in ((C.cell600(), 36.0, 720), (C.e8_roots(), 60.0, 6720)):
        assert C.min_angle_deg(X) == pytest.approx(angle, abs=1e-9)
        g = _gram_values(X)
        assert int(np.isclose(g, math.cos(math.radians(angle)), atol=1e-9).sum()) // 2 == edges
    # the snub cube: 24 vertices, 60 edges at its smallest angle, which Cohn's table gives as 43.69
    S = C.snub_cube()
    assert S.shape == (24, 3)
    g = _gram_values(S)
    assert int(np.isclose(g, g.max(), atol=1e-9).sum()) // 2 == 60
    published = C.best_known("points").set_index("N").loc[24, "angle_deg"]
    assert C.min_angle_deg(S) == pytest.approx(published, abs=0.005)  # printed to 2 decimals
    t = C.tribonacci_constant()
    assert t**3 == pytest.approx(t**2 + t + 1, abs=1e-12)


@pytest.mark.parametrize("d", [1, 2, 3, 7, 20])
def test_simplex_and_cross_polytope(d):
    S = C.simplex(d)
    assert S.shape == (d + 1, d)
    np.testing.assert_allclose(_gram_values(S), -1.0 / d, atol=1e-12)
    X = C.cross_polytope(d)
    assert len(C.lines(X)) == d
    if d > 1:
        assert C.coherence(C.lines(X)) == 0.0
        assert C.coherence(S) == pytest.approx(bounds.welch_bound(d + 1, d), abs=1e-12)  # Welch equality


# --------------------------------------------------------------------------------------------- Kerdock sets


@pytest.mark.parametrize("d", [4, 16, 64])
def test_kerdock_bases_are_mutually_unbiased(d):
    X = C.kerdock(d)
    assert X.shape == (d * (d + 2) // 2, d)
    G = X @ X.T
    off = np.abs(G[~np.eye(len(X), dtype=bool)])
    # every pair is orthogonal (same basis) or at exactly 1/sqrt d
    assert np.all(np.isclose(off, 0, atol=1e-12) | np.isclose(off, 1 / math.sqrt(d), atol=1e-12))
    assert C.coherence(X) == pytest.approx(1 / math.sqrt(d), abs=1e-12)
    assert C.coherence(X) == pytest.approx(bounds.levenshtein_bound(len(X), d), abs=1e-12)


@pytest.mark.parametrize("d", [4, 16, 64, 256])
def test_kerdock_forms_differ_by_bent_functions(d):
    """Independently of the rank computation: the Walsh spectrum of every pairwise difference of the
    forms is flat (|W| = sqrt d), which is the inner product sqrt(d) * <v, w> of two bases' vectors."""
    Q = C.kerdock_forms(d).astype(np.int64)
    i, j = np.triu_indices(len(Q), 1)
    W = C.fwht(1 - 2 * (Q[i] ^ Q[j]))
    assert np.all(np.abs(W) == math.isqrt(d))


@pytest.mark.parametrize("d", [4, 16, 64, 256, 1024])
def test_kerdock_code_is_exact(d):
    code = C.kerdock_code(d)
    assert C.kerdock_min_rank(d) == d.bit_length() - 1
    assert code.count == d * (d + 2) // 2 and code.mu == 1 / math.sqrt(d) and code.mu_status == "exact"


def test_gf2_rank_against_a_dense_elimination():
    rng = np.random.default_rng(3)
    M = rng.integers(0, 2, size=(200, 6, 6))
    rows = (M << np.arange(6)).sum(axis=2)

    def rank(A):
        A = A.copy() % 2
        r = 0
        for c in range(A.shape[1]):
            piv = [i for i in range(r, len(A)) if A[i, c]]
            if not piv:
                continue
            A[[r, piv[0]]] = A[[piv[0], r]]
            for i in range(len(A)):
                if i != r and A[i, c]:
                    A[i] ^= A[r]
            r += 1
        return r

    np.testing.assert_array_equal(C.gf2_rank(rows, 6), [rank(a) for a in M])


def test_kerdock_refuses_other_dimensions_and_large_matrices():
    for bad in (8, 12, 2, 3.0):
        with pytest.raises(RepcapError, match="4\\^m"):
            C.kerdock(bad)
    with pytest.raises(RepcapError, match="kerdock_code"):
        C.kerdock(1024)


# --------------------------------------------------------------------------------------------- dual BCH


def enumerate_max_sum(m: int, t: int) -> tuple[int, int, int]:
    """Brute force: every codeword of the dual BCH code from its generator rows Tr(beta_i x^e),
    x = alpha^0..alpha^(n-1), e = 1, 3, .., 2t-1, with the shift-and-add field.  Returns the largest
    |n - 2 wt| over the nonzero words, the smallest weight of a nonzero combination of the rows (0
    would mean fewer than 2^(mt) distinct words) and the largest weight."""
    poly, n = C.PRIMITIVE_POLYNOMIALS[m], (1 << m) - 1
    xs, x = [], 1
    for _ in range(n):
        xs.append(x)
        x = clmul(x, 2, m, poly)
    rows = []
    for e in range(1, 2 * t, 2):
        xe = [power_ref(v, e, m, poly) for v in xs]
        for i in range(m):
            rows.append([trace_ref(clmul(1 << i, v, m, poly), m, poly) for v in xe])
    gens = np.packbits(np.array(rows, dtype=np.uint8), axis=1)
    words = np.zeros((1, gens.shape[1]), dtype=np.uint8)
    for g in gens:  # all XOR combinations, doubling
        words = np.concatenate([words, words ^ g])
    wt = np.bitwise_count(words).sum(axis=1).astype(np.int64)
    return int(np.abs(n - 2 * wt[1:]).max()), int(wt[1:].min()), int(wt.max())


@pytest.mark.parametrize("m, t", [(5, 2), (6, 2), (7, 2), (8, 2), (5, 3), (6, 3), (7, 3)])
def test_dual_bch_maximum_by_enumeration(m, t):
    brute, wmin, wmax = enumerate_max_sum(m, t)
    n = (1 << m) - 1
    assert wmin > 0  # no nonzero combination of the mt rows vanishes: 2^(mt) distinct vectors
    assert wmax < n  # no all-ones word, so no antipodal pair
    assert C.dual_bch_max_sum(m, t) == brute
    code = C.dual_bch_code(m, t)
    assert code.count == 2 ** (m * t) and code.d == n and code.mu == brute / n and code.mu_status == "exact"


def test_dual_bch_vectors_have_that_coherence():
    X = C.dual_bch(6, 2)
    assert X.shape == (4096, 63)
    assert C.coherence(X) == pytest.approx(C.dual_bch_code(6, 2).mu, abs=1e-12)
    with pytest.raises(RepcapError, match="dual_bch_code"):
        C.dual_bch(12, 2)


@pytest.mark.parametrize("m", range(5, 15))
def test_dual_bch_t2_against_carlitz_uchiyama(m):
    """t = 2 is exact at every m here: it meets the Carlitz-Uchiyama bound for even m and sits at
    2^((m+1)/2) + 1 for odd m (the weights of the double-error-correcting BCH dual)."""
    n = (1 << m) - 1
    s = C.dual_bch_max_sum(m, 2)
    cu = C.carlitz_uchiyama(m, 2)
    assert s / n <= cu + 1e-15
    assert s == (2 ** (m // 2 + 1) + 1 if m % 2 == 0 else 2 ** ((m + 1) // 2) + 1)
    if m % 2 == 0:
        assert s / n == pytest.approx(cu, abs=1e-15)


@pytest.mark.parametrize("m", range(5, 14))
def test_dual_bch_t3_within_carlitz_uchiyama(m):
    """t = 3: exact up to m = 13 at the default work; within the Carlitz-Uchiyama bound, on it for even
    m, and at 2^((m+3)/2) + 1 for odd m (the triple-error-correcting BCH dual's weights)."""
    code = C.dual_bch_code(m, 3)
    n = (1 << m) - 1
    assert code.mu_status == "exact"
    assert code.mu <= C.carlitz_uchiyama(m, 3) + 1e-15
    s = round(code.mu * n)
    assert s == (2 ** (m // 2 + 2) + 1 if m % 2 == 0 else 2 ** ((m + 3) // 2) + 1)


def test_above_the_work_limit_the_bound_is_labelled():
    code = C.dual_bch_code(14, 3)
    assert code.mu_status == "bound" and code.mu_from == "Carlitz-Uchiyama bound"
    assert code.mu == pytest.approx((4 * 2**7 + 1) / 16383)
    # the examples of the issue: 65,536 vectors in R^255 at 0.1294; 16.8 million in R^4095 at 0.0315
    assert C.dual_bch_code(8, 2).mu == pytest.approx(33 / 255) and C.dual_bch_code(8, 2).count == 65536
    assert C.dual_bch_code(12, 2).mu == pytest.approx(129 / 4095) and C.dual_bch_code(12, 2).count == 2**24


def test_dual_bch_refuses_bad_parameters():
    for m, t in ((2, 2), (5, 6), (5, 0), (20, 2)):
        with pytest.raises(RepcapError, match="dual BCH"):
            C.dual_bch_code(m, t)
    with pytest.raises(RepcapError, match="Carlitz"):
        C.carlitz_uchiyama(5, 6)


# --------------------------------------------------------------------------------------------- catalogue


def test_catalogue_codes_are_honest():
    codes = C.catalogue(bch_m=(5, 6, 8), bch_t=(2, 3, 4), kerdock_d=(4, 16))
    for c in codes:
        assert c.mu_status in ("exact", "bound") and 0 <= c.mu < 1 and c.count > c.d
        # no code beats the rigorous bound (a code at a bound's coherence would contradict a theorem)
        if c.count < 1e15:
            assert c.mu >= bounds.coherence_lower_bound(c.count, c.d) - 1e-12


def test_largest_code_picks_the_most_vectors_that_fit():
    codes = C.catalogue(bch_m=(6, 8), bch_t=(2,), kerdock_d=(64,))
    c = C.largest_code(255, 0.13, codes)
    assert c.name == "dual BCH, m = 8, t = 2"
    c = C.largest_code(100, 0.13, codes)
    assert c.family == "Kerdock" and c.d == 64
    c = C.largest_code(10, 0.05, codes)
    assert c.family == "orthonormal" and c.count == 10
    c = C.largest_code(10, 0.1, codes)
    assert c.family == "simplex" and c.count == 11
    with pytest.raises(RepcapError, match="dimension"):
        C.largest_code(0, 0.1, codes)


# --------------------------------------------------------------------------------------------- best known


def test_best_known_table():
    b = C.best_known()
    assert set(b.d) == set(range(3, 17)) and (b.d < b.N).all() and (b.N <= 100).all()
    assert (b.source == "sloane1997").all() and (b.status == "published").all()
    assert b.cite.str.contains("Sloane").all()
    # the simplex cells are exact: N = d + 1 at 1/d; and the icosahedron, the 24-cell
    for d in range(3, 17):
        assert b[(b.d == d) & b.N.eq(d + 1)].mu.iloc[0] == pytest.approx(1 / d, abs=1e-12)
    assert b[(b.d == 3) & (b.N == 6)].mu.iloc[0] == pytest.approx(1 / math.sqrt(5), abs=1e-12)
    assert b[(b.d == 4) & (b.N == 12)].mu.iloc[0] == pytest.approx(0.5, abs=1e-12)
    # no published packing beats a theorem; more lines never fit better (to the table's precision)
    assert (b.mu >= bounds.coherence_lower_bound(b.N.to_numpy(float), b.d.to_numpy(float)) - 1e-9).all()
    for _, g in b.sort_values("N").groupby("d"):
        assert (np.diff(g.mu.to_numpy()) > -1e-6).all()
    p = C.best_known("points")
    assert set(zip(p.d, p.N)) == {(3, 24), (4, 120)} and (p.source == "cohn_codes").all()
    assert len(C.best_known(None)) == len(b) + len(p)


def test_a_bad_best_known_file_is_one_line(tmp_path, monkeypatch):
    from repcap.base import paths

    ref_dir = tmp_path / "data" / "reference"
    ref_dir.mkdir(parents=True)
    monkeypatch.setattr(paths, "reference_dir", lambda: ref_dir)
    head = "d,N,kind,quantity,value,source,status\n"
    for body, expected in (
        ("3,x,lines,squared chordal distance,0.5,sloane1997,published\n", "must be numbers"),
        ("3,4,lines,smallest angle (degrees),0.5,sloane1997,published\n", "quantity"),
        ("3,4,lines,squared chordal distance,0.5,nobody,published\n", "source"),
        ("3,3,lines,squared chordal distance,0.5,sloane1997,published\n", "N > d"),
    ):
        (ref_dir / "best_known_packings.csv").write_text(head + body)
        table._best_known_rows.cache_clear()
        with pytest.raises(RepcapError) as exc:
            C.best_known()
        assert expected in str(exc.value) and "\n" not in str(exc.value)
    table._best_known_rows.cache_clear()
    with pytest.raises(RepcapError, match="kind"):
        C.best_known("planes")
