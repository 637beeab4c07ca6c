"""Capacity laws: how many vectors k fit in d dimensions at pairwise tolerance eps.

Published forms and constants (Guha 2026, arXiv:2606.02765, Sec. "Fitting"; see
``data/reference`` and ``../shared/reference/README.md``):

* JL form        eps = sqrt(C ln k / d)              -> k = exp(d eps^2 / C)
  (C = 8: the textbook JL constant; C = 3.029: Guha's fit to random Gaussian vectors)
* adjusted       eps = sqrt(C ln(k/d) / d)           -> k = d exp(d eps^2 / C),  C = 1.293
* four-constant  eps = sqrt(C ln(k^a/d)^b / d^c)     -> k = (d exp((eps^2 d^c / C)^(1/b)))^(1/a)
  C = 0.45809143, a = 1.0668005, b = 1.44738666, c = 0.97197234

Capacities overflow float64 quickly (Yoder's 10^200), so every law is computed as ``ln k`` first;
:func:`capacity` returns ``inf`` where ``k`` exceeds float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from . import RepcapError


@dataclass(frozen=True)
class Law:
    """A capacity law ``eps(k, d)`` with named constants."""

    name: str
    form: str  # "jl" | "adjusted" | "four"
    constants: Mapping[str, float] = field(default_factory=dict)
    label: str = ""

    def eps(self, k, d):
        """Tolerance eps at which ``k`` vectors fit in ``d`` dimensions (broadcasts)."""
        k = np.asarray(k, dtype=np.float64)
        d = np.asarray(d, dtype=np.float64)
        C = self.constants["C"]
        if self.form == "jl":
            inner = C * np.log(k) / d
        elif self.form == "adjusted":
            inner = C * np.log(k / d) / d
        elif self.form == "four":
            a, b, c = (self.constants[x] for x in "abc")
            # As Guha's own fit (code/vector_packing_graphs.py): eps = 0 where k <= d, and the
            # ratio k^a/d clipped just above 1 (so the power of the log stays real).
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.maximum(k**a / d, 1.00001)
                inner = np.where(k > d, C * np.log(ratio) ** b / d**c, 0.0)
        else:  # pragma: no cover - guarded in __post_init__
            raise AssertionError(self.form)
        return np.sqrt(np.maximum(inner, 0.0))

    def log_capacity(self, eps, d):
        """``ln k(d, eps)``: the natural log of the number of vectors the law allows."""
        eps = np.asarray(eps, dtype=np.float64)
        d = np.asarray(d, dtype=np.float64)
        if np.any(~np.isfinite(eps)) or np.any(eps < 0) or np.any(d < 1):
            raise RepcapError("capacity needs finite eps >= 0 and d >= 1")
        C = self.constants["C"]
        if self.form == "jl":
            return d * eps**2 / C
        if self.form == "adjusted":
            return np.log(d) + d * eps**2 / C
        a, b, c = (self.constants[x] for x in "abc")
        return (np.log(d) + (eps**2 * d**c / C) ** (1.0 / b)) / a

    def capacity(self, eps, d):
        """``k(d, eps)``; ``inf`` where it exceeds float64."""
        with np.errstate(over="ignore"):
            out = np.exp(self.log_capacity(eps, d))
        return out if np.ndim(out) else float(out)

    def log10_capacity(self, eps, d):
        return self.log_capacity(eps, d) / math.log(10.0)

    def __post_init__(self):
        if self.form not in ("jl", "adjusted", "four"):
            raise RepcapError(f"unknown law form {self.form!r}; use 'jl', 'adjusted' or 'four'")
        need = {"jl": "C", "adjusted": "C", "four": "Cabc"}[self.form]
        missing = [x for x in need if x not in self.constants]
        if missing:
            raise RepcapError(f"law {self.name!r} needs constants {missing}")


def _published() -> dict[str, Law]:
    """The laws with their published constants, from ``data/reference/guha2026_laws.csv``."""
    from .reference import laws_table

    out = {}
    for row in laws_table():
        consts = {k: float(row[k]) for k in ("C", "a", "b", "c") if row.get(k, "").strip()}
        out[row["law"]] = Law(row["law"], row["form"], consts, row["label"])
    return out


#: The laws with the constants as published (Guha 2026, Sec. 3.2-3.3; JL with C = 8 is the best
#: proven constant he quotes): ``jl8``, ``jl`` (C = 3.029, random vectors), ``adjusted``, ``four``.
PUBLISHED: dict[str, Law] = _published()


def get_law(name: str | Law) -> Law:
    if isinstance(name, Law):
        return name
    try:
        return PUBLISHED[name]
    except KeyError:
        raise RepcapError(f"unknown capacity law {name!r}; known: {', '.join(PUBLISHED)}") from None


def capacity(eps, d, law: str | Law = "four"):
    """``k(d, eps)`` under a published law (default: Guha's four-constant form, as in Table 1)."""
    return get_law(law).capacity(eps, d)


def log10_capacity(eps, d, law: str | Law = "four"):
    return get_law(law).log10_capacity(eps, d)


def capacity_table_value(eps: float, d: int) -> float:
    """Guha's Table 1 capacity: ``ceil`` of the four-constant law (finite only for class 2)."""
    return float(math.ceil(capacity(eps, d, "four")))


def classify(eps: float) -> int | None:
    """Guha's classes (Sec. 2.5): 1 if eps > 0.2, 2 if eps < 0.1, ``None`` in between (no model of
    his falls there).  The boundaries are read from ``data/reference/quotes.yaml``."""
    from .reference import value

    if eps > value("guha2026.class1_eps_above"):
        return 1
    if eps < value("guha2026.class2_eps_below"):
        return 2
    return None


# ---------------------------------------------------------------------------------------------
# Fits of the laws to simulated (k, d, eps*) data (Guha 2026 fits with scipy's curve_fit)


#: Starting points of the fits: Guha's published constants.
_P0 = {"jl": {"C": 3.029}, "adjusted": {"C": 1.293},
       "four": {"C": 0.45809143, "a": 1.0668005, "b": 1.44738666, "c": 0.97197234}}
_BOUNDS = {"jl": ([1e-6], [1e3]), "adjusted": ([1e-6], [1e3]),
           "four": ([1e-6, 0.5, 0.3, 0.3], [1e3, 3.0, 4.0, 2.0])}


def error_metrics(y, yhat) -> dict[str, float]:
    """``r2`` (1 - SS_res / SS_tot), ``mape`` (mean |yhat - y| / y, in per cent) and ``nrmse``
    (RMSE divided by the range of y)."""
    y = np.asarray(y, dtype=np.float64)
    yhat = np.asarray(yhat, dtype=np.float64)
    res = y - yhat
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    rng = float(y.max() - y.min())
    rmse = float(np.sqrt(np.mean(res**2)))
    return {"r2": 1.0 - float(np.sum(res**2)) / ss_tot if ss_tot > 0 else float("nan"),
            "mape": 100.0 * float(np.mean(np.abs(res) / np.abs(y))),
            "nrmse": rmse / rng if rng > 0 else float("nan"),
            "rmse": rmse}


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
        return {"law": self.law.form, **dict(self.law.constants), "R2": self.r2, "MAPE_%": self.mape,
                "NRMSE": self.nrmse, "n": self.n}


def fit_law(form: str, k, d, eps, *, p0: Mapping[str, float] | None = None, name: str | None = None) -> Fit:
    """Least-squares fit of ``eps(k, d)`` under ``form`` ("jl", "adjusted" or "four") to data.

    ``k, d, eps``: 1-D arrays of equal length (one row per simulated packing).  Residuals are in
    eps, as in Guha 2026.  Points where the form is undefined (k <= d for the adjusted law) still
    count: the law predicts eps = 0 there.
    """
    from scipy.optimize import curve_fit

    if form not in _P0:
        raise RepcapError(f"unknown law form {form!r}; use 'jl', 'adjusted' or 'four'")
    k = np.asarray(k, dtype=np.float64).ravel()
    d = np.asarray(d, dtype=np.float64).ravel()
    eps = np.asarray(eps, dtype=np.float64).ravel()
    if not (len(k) == len(d) == len(eps)):
        raise RepcapError(f"fit_law needs k, d, eps of equal length (got {len(k)}, {len(d)}, {len(eps)})")
    names = list(_P0[form])
    if len(eps) < len(names) + 1:
        raise RepcapError(f"fitting the {form} law needs at least {len(names) + 1} points, got {len(eps)}")
    if not (np.all(np.isfinite(eps)) and np.all(eps > 0) and np.all(k >= 2) and np.all(d >= 1)):
        raise RepcapError("fit_law needs finite eps > 0, k >= 2 and d >= 1 in every row")
    start = dict(_P0[form], **(p0 or {}))

    def model(X, *theta):
        kk, dd = X
        return Law("fit", form, dict(zip(names, theta))).eps(kk, dd)

    with np.errstate(all="ignore"):
        theta, cov = curve_fit(model, (k, d), eps, p0=[start[n] for n in names], bounds=_BOUNDS[form],
                               maxfev=20000)
    law = Law(name or f"fit-{form}", form, {n: float(v) for n, v in zip(names, theta)},
              f"{form}, fitted")
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
# Yoder's rule of thumb


def _yoder_divisor() -> float:
    from .reference import value

    return value("yoder2025.rule_divisor")


#: Yoder 2025: Vectors ~ 10^(k F^2 / divisor), F in degrees off 90 (data/reference/quotes.yaml).
YODER_DIVISOR = _yoder_divisor()


def yoder_log10_capacity(d, F_deg):
    """Yoder's rule of thumb ``log10 N = d F^2 / 1500`` (F = degrees off orthogonal; Yoder writes
    k for the dimension).  d = 12288: F = 1 -> 10^8, 2 -> 10^32, 3 -> 10^73, 5 -> 10^200."""
    return np.asarray(d, dtype=np.float64) * np.asarray(F_deg, dtype=np.float64) ** 2 / YODER_DIVISOR


def eps_from_degrees_off(F_deg):
    """|cos| of a pair at ``90 - F`` degrees: ``sin(F)``."""
    return np.sin(np.radians(np.asarray(F_deg, dtype=np.float64)))


def degrees_off_from_eps(eps):
    return np.degrees(np.arcsin(np.clip(np.asarray(eps, dtype=np.float64), 0.0, 1.0)))


def yoder_C() -> float:
    """The JL constant equivalent to Yoder's rule for small angles: ``ln N = d eps^2 / C`` with
    eps = F pi / 180 gives C = (pi/180)^2 * 1500 / ln 10 = 0.198."""
    return (math.pi / 180.0) ** 2 * YODER_DIVISOR / math.log(10.0)


#: Yoder's rule as a law (JL form with C = 0.198; exact for small F where sin F = F in radians).
YODER = Law("yoder", "jl", {"C": (math.pi / 180.0) ** 2 * YODER_DIVISOR / math.log(10.0)},
            "Yoder's rule 10^(d F^2/1500)")


# ---------------------------------------------------------------------------------------------
# Bounds on the coherence of k unit vectors in R^d (the spherical-code view)
#
# mu = max_{i != j} |<v_i, v_j>|.  A bound says mu >= something(k, d); read backwards it says at most
# k_max(d, mu) vectors fit at coherence mu.  All log-capacities are natural logs.


def _log_binom(n, r):
    from scipy.special import gammaln

    return gammaln(np.asarray(n, dtype=np.float64) + 1) - gammaln(np.asarray(r, dtype=np.float64) + 1) \
        - gammaln(np.asarray(n, dtype=np.float64) - np.asarray(r, dtype=np.float64) + 1)


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


def bound_log_capacity(d, mu, bounds=RIGOROUS_BOUNDS):
    """The smallest ``ln k_max`` among ``bounds`` (default: the rigorous finite-d ones)."""
    out = None
    for b in bounds:
        v = BOUNDS[b](d, mu)
        out = v if out is None else np.minimum(out, v)
    return out


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
            rows.append({"law": law.name, "d": d[i], "eps": eps[i], "bound": b,
                         "log10_k_law": float(lk[i]), "log10_k_bound": float(lb[i]),
                         "violates": bool(lk[i] > lb[i]), "rigorous": b in RIGOROUS_BOUNDS})
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
