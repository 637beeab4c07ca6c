"""Fits of the capacity laws (Guha 2026 forms), error metrics, inverses and Yoder's rule."""

import math

import numpy as np
import pytest

from repcap import RepcapError
from repcap.engines import fits, laws


def grid():
    d = np.array([32, 64, 128, 256, 512, 1024])
    k = np.array([2000, 4000, 8000, 16000, 32000])
    D, K = np.meshgrid(d, k)
    return K.ravel().astype(float), D.ravel().astype(float)


@pytest.mark.parametrize("name", ["jl", "adjusted", "four"])
def test_fit_recovers_published_constants(name):
    k, d = grid()
    law = laws.PUBLISHED[name]
    eps = law.eps(k, d)
    rng = np.random.default_rng(1)
    noisy = eps * (1 + 1e-4 * rng.standard_normal(eps.shape))
    fit = fits.fit_law(law.form, k, d, noisy, p0={n: v * 1.3 for n, v in law.constants.items()})
    for n, v in law.constants.items():
        assert fit.constants[n] == pytest.approx(v, rel=2e-2 if name == "four" else 1e-3), n
    assert fit.r2 > 0.9999
    assert fit.mape < 0.05


def test_fit_jl_closed_form():
    # JL form: eps^2 = C ln k / d is linear in C, so least squares on eps has an exact answer
    # when the data follow the law; check it against C = 2.5.
    k, d = grid()
    eps = np.sqrt(2.5 * np.log(k) / d)
    fit = fits.fit_law("jl", k, d, eps)
    assert fit.constants["C"] == pytest.approx(2.5, rel=1e-8)


def test_error_metrics_closed_form():
    y = np.array([1.0, 2.0, 3.0, 4.0])
    yhat = np.array([1.1, 1.9, 3.3, 4.0])
    m = fits.error_metrics(y, yhat)
    ss_res = 0.01 + 0.01 + 0.09
    assert m["r2"] == pytest.approx(1 - ss_res / 5.0)
    assert m["mape"] == pytest.approx(100 * (0.1 / 1 + 0.1 / 2 + 0.3 / 3) / 4)
    assert m["nrmse"] == pytest.approx(math.sqrt(ss_res / 4) / 3.0)


@pytest.mark.parametrize("name", ["jl8", "jl", "adjusted", "four"])
def test_inverse_capacity_round_trip(name):
    law = laws.PUBLISHED[name]
    for d, k in [(100, 1e4), (4096, 4e7), (768, 32000)]:
        e = float(law.eps(k, d))
        assert law.capacity(e, d) == pytest.approx(k, rel=1e-9)


def test_fitted_law_has_an_inverse():
    k, d = grid()
    fit = fits.fit_law("adjusted", k, d, np.sqrt(1.1 * np.log(k / d) / d))
    assert fit.law.capacity(float(fit.law.eps(5000, 100)), 100) == pytest.approx(5000, rel=1e-6)


def test_yoder_rule_published_values():
    # Yoder 2025: k = 12288 dims: 89 deg -> 10^8, 88 -> 10^32, 87 -> 10^73, 85 -> 10^200.
    got = laws.yoder_log10_capacity(12288, [1, 2, 3, 5])
    assert np.round(got).tolist() == [8, 33, 74, 205]  # the blog rounds down: 8.2, 32.8, 73.7, 204.8
    assert laws.yoder_C() == pytest.approx(0.198, abs=1e-3)  # "1500 corresponds to C of about 0.2"
    assert laws.eps_from_degrees_off(90 - 76.5) == pytest.approx(math.cos(math.radians(76.5)))


def test_four_constant_law_matches_yoder_consistency_check():
    # reference README: the four-constant law predicts eps = 0.239 (76.2 deg) at k = 1e4, d = 100.
    e = float(laws.PUBLISHED["four"].eps(1e4, 100))
    assert e == pytest.approx(0.239, abs=5e-4)


def test_fit_rejects_bad_input():
    with pytest.raises(RepcapError, match="unknown law"):
        fits.fit_law("cubic", [2, 3, 4], [1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(RepcapError, match="equal length"):
        fits.fit_law("jl", [2, 3], [1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(RepcapError, match="eps > 0"):
        fits.fit_law("jl", [2, 3, 4], [1, 1, 1], [0.1, -0.2, 0.3])
