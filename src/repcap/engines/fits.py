"""Fits: the capacity laws to simulated packings (Guha 2026 fits with SciPy's ``curve_fit``, least
squares in eps), and the loss-against-width exponent of the toy model (Liu, Liu & Gore 2025), with
their error metrics and confidence intervals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from repcap import RepcapError

from .laws import Law, get_law

#: The law forms a fit takes; each starts from Guha's published constants (:func:`_p0`).
_FORMS = ("jl", "adjusted", "four")


def _p0(form: str) -> dict[str, float]:
    """Starting point of a fit: the published constants of the law of that form, as
    ``data/reference/guha2026_laws.csv`` gives them (read, never retyped)."""
    from .laws import PUBLISHED

    return dict(PUBLISHED[form].constants)


_BOUNDS = {"jl": ([1e-6], [1e3]), "adjusted": ([1e-6], [1e3]), "four": ([1e-6, 0.5, 0.3, 0.3], [1e3, 3.0, 4.0, 2.0])}


def error_metrics(y, yhat) -> dict[str, float]:
    """``r2`` (1 - SS_res / SS_tot), ``mape`` (mean |yhat - y| / y, in per cent) and ``nrmse``
    (RMSE divided by the range of y)."""
    y = np.asarray(y, dtype=np.float64)
    yhat = np.asarray(yhat, dtype=np.float64)
    res = y - yhat
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    rng = float(y.max() - y.min())
    rmse = float(np.sqrt(np.mean(res**2)))
    return {
        "r2": 1.0 - float(np.sum(res**2)) / ss_tot if ss_tot > 0 else float("nan"),
        "mape": 100.0 * float(np.mean(np.abs(res) / np.abs(y))),
        "nrmse": rmse / rng if rng > 0 else float("nan"),
        "rmse": rmse,
    }


@dataclass(frozen=True)
class Fit:
    """A law fitted to data: the law (with fitted constants), its standard errors and the metrics
    on the data it was fitted to (``r2``, ``mape`` in per cent, ``nrmse``)."""

    law: Law
    stderr: Mapping[str, float]
    r2: float
    mape: float
    nrmse: float
    n: int

    @property
    def constants(self) -> Mapping[str, float]:
        return self.law.constants

    def as_row(self) -> dict:
        return {
            "law": self.law.form,
            **dict(self.law.constants),
            "R2": self.r2,
            "MAPE_%": self.mape,
            "NRMSE": self.nrmse,
            "n": self.n,
        }


def fit_law(form: str, k, d, eps, *, p0: Mapping[str, float] | None = None, name: str | None = None) -> Fit:
    """Least-squares fit of ``eps(k, d)`` under ``form`` ("jl", "adjusted" or "four") to data.

    ``k, d, eps``: 1-D arrays of equal length (one row per simulated packing).  Residuals are in
    eps, as in Guha 2026.  Points where the form is undefined (k <= d for the adjusted law) still
    count: the law predicts eps = 0 there.
    """
    from scipy.optimize import curve_fit

    if form not in _FORMS:
        raise RepcapError(f"unknown law form {form!r}; use 'jl', 'adjusted' or 'four'")
    k = np.asarray(k, dtype=np.float64).ravel()
    d = np.asarray(d, dtype=np.float64).ravel()
    eps = np.asarray(eps, dtype=np.float64).ravel()
    if not (len(k) == len(d) == len(eps)):
        raise RepcapError(f"fit_law needs k, d, eps of equal length (got {len(k)}, {len(d)}, {len(eps)})")
    names = list(_p0(form))
    if len(eps) < len(names) + 1:
        raise RepcapError(f"fitting the {form} law needs at least {len(names) + 1} points, got {len(eps)}")
    if not (np.all(np.isfinite(eps)) and np.all(eps > 0) and np.all(k >= 2) and np.all(d >= 1)):
        raise RepcapError("fit_law needs finite eps > 0, k >= 2 and d >= 1 in every row")
    start = dict(_p0(form), **(p0 or {}))

    def model(X, *theta):
        kk, dd = X
        return Law("fit", form, dict(zip(names, theta))).eps(kk, dd)

    with np.errstate(all="ignore"):
        theta, cov = curve_fit(model, (k, d), eps, p0=[start[n] for n in names], bounds=_BOUNDS[form], maxfev=20000)
    law = Law(name or f"fit-{form}", form, {n: float(v) for n, v in zip(names, theta)}, f"{form}, fitted")
    se = np.sqrt(np.clip(np.diag(cov), 0, None)) if np.all(np.isfinite(cov)) else np.full(len(names), np.nan)
    m = error_metrics(eps, law.eps(k, d))
    return Fit(law, {n: float(s) for n, s in zip(names, se)}, m["r2"], m["mape"], m["nrmse"], len(eps))


def fit_all(k, d, eps, forms=("jl", "adjusted", "four")) -> dict[str, Fit]:
    """:func:`fit_law` for each form."""
    return {f: fit_law(f, k, d, eps) for f in forms}


def evaluate(law: str | Law, k, d, eps) -> dict[str, float]:
    """Error metrics of a law with fixed (e.g. published) constants on data."""
    return error_metrics(eps, get_law(law).eps(k, d))


# ---------------------------------------------------------------------------------------------
# Width exponents of the toy model


@dataclass
class ExponentFit:
    """``loss ≈ A m^(-alpha_m)``, fitted by least squares on ``log loss`` against ``log m``.

    ``ci_low, ci_high``: the ``level`` confidence interval of ``alpha_m`` (Student t on the slope's
    standard error, ``n_points - 2`` degrees of freedom).
    """

    alpha_m: float
    stderr: float
    ci_low: float
    ci_high: float
    log_A: float
    r2: float
    n_points: int
    level: float = 0.95

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    def predict(self, m) -> np.ndarray:
        return np.exp(self.log_A) * np.asarray(m, dtype=np.float64) ** (-self.alpha_m)


def _positive_points(
    what: str, m: Sequence[float], loss: Sequence[float], min_points: int, min_widths: int
) -> tuple[np.ndarray, np.ndarray]:
    """The finite positive ``(m, loss)`` pairs of a width fit, refused (one line naming ``what``)
    below ``min_points`` points or ``min_widths`` distinct widths."""
    ms = np.asarray(m, dtype=np.float64).ravel()
    losses = np.asarray(loss, dtype=np.float64).ravel()
    if ms.shape != losses.shape:
        raise RepcapError(f"{what}: m has {ms.size} values but loss has {losses.size}")
    ok = np.isfinite(ms) & np.isfinite(losses) & (ms > 0) & (losses > 0)
    ms, losses = ms[ok], losses[ok]
    if ms.size < min_points or np.unique(ms).size < min_widths:
        raise RepcapError(
            f"{what} needs at least {min_points} positive points over at least {min_widths} distinct widths"
        )
    return ms, losses


def fit_exponent(m: Sequence[float], loss: Sequence[float], level: float = 0.95) -> ExponentFit:
    """Fit ``loss = A m^-alpha_m`` (points with several seeds per ``m`` are pooled)."""
    from scipy import stats

    ms, losses = _positive_points("fit_exponent", m, loss, 3, 2)
    res = stats.linregress(np.log(ms), np.log(losses))
    t = stats.t.ppf(0.5 + level / 2, ms.size - 2)
    a = -res.slope
    return ExponentFit(
        alpha_m=float(a),
        stderr=float(res.stderr),
        ci_low=float(a - t * res.stderr),
        ci_high=float(a + t * res.stderr),
        log_A=float(res.intercept),
        r2=float(res.rvalue**2),
        n_points=int(ms.size),
        level=level,
    )


@dataclass
class CurvatureFit:
    """``log loss ≈ c0 + c1 x + c2 x²`` with ``x = log m - mean(log m)``, by least squares: ``c2`` is
    how far loss against width bends away from a power law on log-log axes (0 for a power law,
    negative where the loss falls ever faster), with its ``level`` interval (Student t, ``n_points
    - 3`` degrees of freedom)."""

    curvature: float
    stderr: float
    ci_low: float
    ci_high: float
    coef: tuple[float, float, float]  # (c0, c1, c2) in centred log m
    centre: float  # mean log m, the centre of x
    n_points: int
    level: float = 0.95

    def predict(self, m) -> np.ndarray:
        x = np.log(np.asarray(m, dtype=np.float64)) - self.centre
        c0, c1, c2 = self.coef
        return np.exp(c0 + c1 * x + c2 * x**2)


def fit_curvature(m: Sequence[float], loss: Sequence[float], level: float = 0.95) -> CurvatureFit:
    """Fit a parabola to ``log loss`` against ``log m`` (:class:`CurvatureFit`); needs 4 positive
    points over 3 distinct widths (one degree of freedom for the interval)."""
    from scipy import stats

    ms, losses = _positive_points("fit_curvature", m, loss, 4, 3)
    centre = float(np.log(ms).mean())
    x = np.log(ms) - centre
    X = np.stack([np.ones_like(x), x, x**2], axis=1)
    y = np.log(losses)
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    dof = ms.size - 3
    resid = y - X @ coef
    s2 = float(resid @ resid) / dof
    se = float(np.sqrt(s2 * np.linalg.inv(X.T @ X)[2, 2]))
    t = float(stats.t.ppf(0.5 + level / 2, dof))
    c2 = float(coef[2])
    return CurvatureFit(
        curvature=c2,
        stderr=se,
        ci_low=c2 - t * se,
        ci_high=c2 + t * se,
        coef=(float(coef[0]), float(coef[1]), c2),
        centre=centre,
        n_points=int(ms.size),
        level=level,
    )
