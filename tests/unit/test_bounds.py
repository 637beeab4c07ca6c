"""Bounds on the coherence of k unit vectors (Welch 1974, Levenshtein 1983, Kabatiansky &
Levenshtein 1978) checked on configurations whose coherence is known exactly."""

import math

import numpy as np
import pytest

from repcap.engines import bounds
from repcap.engines.packing import coherence


def simplex(d):
    """d + 1 unit vectors in R^d with pairwise inner product -1/d (regular simplex)."""
    E = np.eye(d + 1) - 1.0 / (d + 1)  # centred basis of R^{d+1}, rank d
    U, S, _ = np.linalg.svd(E)
    V = (U[:, :d] * S[:d]).T  # (d, d+1) coordinates in the d-dim span
    return V / np.linalg.norm(V, axis=0)


def icosahedron_diagonals():
    """The 6 diagonals of the icosahedron in R^3: |cos| = 1/sqrt(5) for every pair."""
    g = (1 + math.sqrt(5)) / 2
    V = np.array([[0, 1, g], [0, 1, -g], [1, g, 0], [1, -g, 0], [g, 0, 1], [-g, 0, 1]], float).T
    return V / np.linalg.norm(V, axis=0)


@pytest.mark.parametrize("d", [2, 3, 7, 16])
def test_orthonormal_basis_has_coherence_zero_and_meets_welch(d):
    assert coherence(np.eye(d)) == pytest.approx(0.0, abs=1e-15)
    assert bounds.welch_bound(d, d) == 0.0
    # Read backwards, Welch order 1 allows exactly d vectors at coherence 0.
    assert math.exp(bounds.welch_log_capacity(d, 0.0)) == pytest.approx(d, rel=1e-9)


@pytest.mark.parametrize("d", [2, 3, 5, 10, 33])
def test_simplex_has_coherence_one_over_d_and_meets_welch(d):
    V = simplex(d)
    assert coherence(V) == pytest.approx(1.0 / d, rel=1e-12)
    assert bounds.welch_bound(d + 1, d) == pytest.approx(1.0 / d, rel=1e-12)
    assert math.exp(bounds.welch_log_capacity(d, 1.0 / d)) == pytest.approx(d + 1, rel=1e-9)


def test_random_vectors_never_beat_welch():
    rng = np.random.default_rng(0)
    for k, d in [(10, 3), (50, 8), (200, 20)]:
        V = rng.standard_normal((d, k))
        assert coherence(V) >= bounds.welch_bound(k, d) - 1e-12
        for s in (2, 3):
            assert coherence(V) >= bounds.welch_bound(k, d, order=s) - 1e-12


def test_welch_higher_order_closed_form():
    # order 2, k = 100, d = 5: mu^4 >= (100/15 - 1)/99
    assert bounds.welch_bound(100, 5, order=2) == pytest.approx(((100 / 15 - 1) / 99) ** 0.25, rel=1e-12)


@pytest.mark.parametrize("k,d,mu2", [(6, 3, 1 / 5), (28, 7, 1 / 9), (120, 8, 1 / 4)])
def test_levenshtein_is_tight_on_known_line_systems(k, d, mu2):
    # Tight cases of the Levenshtein bound: icosahedron diagonals, 28 lines in R^7, 120 lines of E8.
    assert bounds.levenshtein_bound(k, d) ** 2 == pytest.approx(mu2, rel=1e-12)
    assert math.exp(bounds.levenshtein_log_capacity(d, math.sqrt(mu2))) == pytest.approx(k, rel=1e-9)


def test_icosahedron_diagonals_meet_levenshtein():
    V = icosahedron_diagonals()
    assert coherence(V) == pytest.approx(1 / math.sqrt(5), rel=1e-12)
    assert coherence(V) == pytest.approx(bounds.levenshtein_bound(6, 3), rel=1e-12)
    # Welch order 1 is weaker here: 6 lines in R^3 need only mu >= sqrt(3/15)... equal? no: 1/sqrt(5)
    assert bounds.welch_bound(6, 3) == pytest.approx(math.sqrt(3 / 15), rel=1e-12)


def test_kabatiansky_levenshtein_rate():
    # KL exponent at 60 degrees: 0.401 bits/dimension (the kissing-number bound 2^{0.401 n}).
    assert bounds.kl_rate(math.pi / 3) == pytest.approx(0.40141, abs=5e-5)
    assert bounds.kl_rate(math.pi / 2) == pytest.approx(0.0, abs=1e-15)
    # rate falls monotonically towards 90 degrees
    th = np.radians(np.linspace(30, 90, 50))
    assert np.all(np.diff(bounds.kl_rate(th)) < 0)


def test_bound_violations_flags_a_known_case():
    # Four-constant law at d = 32, eps = 0.1 claims ~51 vectors; Welch order 1 allows
    # 32 * 0.99 / (1 - 0.32) = 46.6.
    df = bounds.bound_violations("four", 32, 0.1, bounds=("welch",))
    row = df.iloc[0]
    assert 10**row.log10_k_bound == pytest.approx(32 * 0.99 / 0.68, rel=1e-9)
    assert row.violates and 10**row.log10_k_law > 50
    ok = bounds.bound_violations("jl", 1000, 0.1, bounds=("welch",)).iloc[0]
    assert not ok.violates
