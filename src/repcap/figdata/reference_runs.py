"""The tables behind the reference runs' figures (the shipped ``reference`` bundle): Guha's cells at
two exponent rules against his stored values, Yoder's C against N/k at small d, and Liu et al.'s
width exponents per (gamma, alpha) with their intervals and the seed spread.

Each function takes plain records (a bundle lookup's ``found``: objects with ``config`` and
``result``) and returns a tidy frame; nothing here reads a file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import RepcapError
from ..fits import fit_exponent
from ..runs.points import LIU_MS


def _rows(found: Iterable[Any]) -> list[tuple[dict, dict]]:
    return [(dict(f.config), dict(f.result)) for f in found]


def guha_cells(m40: Iterable[Any], m60: Iterable[Any], stored: pd.DataFrame) -> pd.DataFrame:
    """One row per (k, d, rule): our eps* under his code's exponent rule (``M = 40`` for k <= 4000)
    and under ``M = 60``, his stored eps*, and the relative gap ``ours / his - 1``."""
    his = {(int(r.k), int(r.d)): float(r.eps_star) for r in stored.itertuples()}
    out = []
    for rule, found in (("M = 40 (his code)", m40), ("M = 60", m60)):
        for cfg, res in _rows(found):
            k, d = int(cfg["k"]), int(cfg["d"])
            if k > 4000 and rule.startswith("M = 40"):
                rule_here = "his code (k > 4000: M = 60)"
            else:
                rule_here = rule
            ref = his.get((k, d))
            eps = float(res["eps_star"])
            out.append(
                {
                    "k": k,
                    "d": d,
                    "rule": rule_here,
                    "p": float(res["p"]) if res.get("p") is not None else float("nan"),
                    "eps_ours": eps,
                    "eps_his": ref if ref is not None else float("nan"),
                    "gap": eps / ref - 1.0 if ref else float("nan"),
                    "seconds": float(res.get("seconds") or float("nan")),
                }
            )
    cols = ["k", "d", "rule", "p", "eps_ours", "eps_his", "gap", "seconds"]
    return pd.DataFrame(out, columns=cols).sort_values(["d", "k", "rule"]).reset_index(drop=True)


def c_curve(found: Iterable[Any]) -> pd.DataFrame:
    """Yoder's constant ``C = eps*^2 d / ln k`` of each optimised packing of ``k = ratio x d``
    vectors in R^d, one row per cell (``ratio`` is his N/k: vectors per dimension)."""
    out = []
    for cfg, res in _rows(found):
        k, d = int(cfg["k"]), int(cfg["d"])
        eps = float(res["eps_star"])
        out.append({"d": d, "k": k, "ratio": k / d, "eps_star": eps, "C": eps**2 * d / math.log(k)})
    cols = ["d", "k", "ratio", "eps_star", "C"]
    return pd.DataFrame(out, columns=cols).sort_values(["d", "ratio"]).reset_index(drop=True)


def c_curve_shape(curve: pd.DataFrame) -> dict[str, Any]:
    """The peak of the C curve and whether it falls after it, over all dimensions pooled by ratio
    (the median C at each N/k): ``peak`` and ``peak_ratio``; ``interior`` (the peak has points on
    both sides, so the grid brackets it); ``last`` (C at the largest ratio) and ``fall`` (last /
    peak); ``n_ratios``."""
    if curve.empty:
        return {"peak": None, "peak_ratio": None, "interior": False, "last": None, "fall": None, "n_ratios": 0}
    by = curve.groupby("ratio").C.median().sort_index()
    i = int(np.argmax(by.to_numpy()))
    peak, last = float(by.iloc[i]), float(by.iloc[-1])
    return {
        "peak": peak,
        "peak_ratio": float(by.index[i]),
        "interior": 0 < i < len(by) - 1,
        "last": last,
        "fall": last / peak,
        "n_ratios": int(len(by)),
    }


def width_exponents(found: Iterable[Any], *, m_min: float = 0, m_max: float = math.inf) -> pd.DataFrame:
    """Liu et al.'s ``alpha_m``: the slope of log loss against log width, one fit per (gamma,
    alpha, seed) over the widths in ``[m_min, m_max]``, with its 95% t interval and the widths it
    used.  A (gamma, alpha, seed) with fewer than 3 widths gets no fit (``alpha_m`` NaN, its
    widths listed)."""
    rows = [
        {
            "gamma": float(c["gamma"]),
            "alpha": float(c["alpha"]),
            "seed": int(c.get("seed", 0)),
            "m": int(c["m"]),
            "loss": float(r["loss"]),
        }
        for c, r in _rows(found)
        if m_min <= float(c["m"]) <= m_max
    ]
    cols = ["gamma", "alpha", "seed", "alpha_m", "low", "high", "n_widths", "widths"]
    if not rows:
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(rows)
    out = []
    for (g, a, s), grp in df.groupby(["gamma", "alpha", "seed"]):
        widths = sorted(grp.m.unique())
        rec = {"gamma": g, "alpha": a, "seed": s, "n_widths": len(widths), "widths": widths}
        if len(widths) >= 3:
            fit = fit_exponent(grp.m, grp.loss)
            rec |= {"alpha_m": fit.alpha_m, "low": fit.ci_low, "high": fit.ci_high}
        else:
            rec |= {"alpha_m": float("nan"), "low": float("nan"), "high": float("nan")}
        out.append(rec)
    return pd.DataFrame(out, columns=cols).sort_values(["gamma", "alpha", "seed"]).reset_index(drop=True)


def exponent_summary(fits: pd.DataFrame) -> pd.DataFrame:
    """Per (gamma, alpha): seed 0's fit and interval, and over the seeds that have a fit over the
    same widths as seed 0 (a seed still missing widths waits) their mean, standard deviation and
    count (``n_seeds``), with the 95% t interval of that mean (``seed_low``, ``seed_high``: mean ±
    t(0.975, n − 1) · sd / √n; NaN below two seeds).

    The two intervals answer different questions: seed 0's is the regression's, which counts the
    curvature of log loss against log m as noise; the seeds' is how far the slope over these widths
    moves from one training run to the next."""
    from scipy import stats

    cols = [
        "gamma",
        "alpha",
        "alpha_m",
        "low",
        "high",
        "n_widths",
        "seed_mean",
        "seed_sd",
        "n_seeds",
        "seed_low",
        "seed_high",
    ]
    if fits.empty:
        return pd.DataFrame(columns=cols)
    out = []
    for (g, a), grp in fits.groupby(["gamma", "alpha"]):
        first = grp[grp.seed == grp.seed.min()].iloc[0]
        # the spread compares like with like: only seeds fitted over the first seed's widths count
        first_widths = list(first.widths)
        same = np.array([list(w) == first_widths for w in grp.widths], dtype=bool)
        ok = grp[np.isfinite(grp.alpha_m.astype(float)) & same]
        mean = float(ok.alpha_m.mean()) if len(ok) else float("nan")
        sd = float(ok.alpha_m.std(ddof=1)) if len(ok) > 1 else float("nan")
        half = float(stats.t.ppf(0.975, len(ok) - 1)) * sd / math.sqrt(len(ok)) if len(ok) > 1 else float("nan")
        out.append(
            {
                "gamma": g,
                "alpha": a,
                "alpha_m": float(first.alpha_m),
                "low": float(first.low),
                "high": float(first.high),
                "n_widths": int(first.n_widths),
                "seed_mean": mean,
                "seed_sd": sd,
                "n_seeds": int(len(ok)),
                "seed_low": mean - half,
                "seed_high": mean + half,
            }
        )
    return pd.DataFrame(out, columns=cols)


def digitised_series(quotes: Sequence[tuple[float, float, float, float]]) -> pd.DataFrame:
    """Fig. 6e's digitised points ``(alpha, gamma, value, error)`` as a frame."""
    for q in quotes:
        if len(q) != 4 or not all(isinstance(x, (int, float)) for x in q):
            raise RepcapError(f"a digitised Fig. 6e point is (alpha, gamma, value, error), got {q!r}")
    return pd.DataFrame(list(quotes), columns=["alpha", "gamma", "alpha_m", "error"])


#: The reference set's width sweeps (their names start so), which :func:`width_exponents` fits.
WIDTH_SWEEPS = ("liu-strong-a", "liu-weak", "liu-gamma-1", "liu-seeds")
#: The widths of Fig. 6c's digitised series (quotes ``liu2025.fig6c_<alpha>_m<m>``): the paper's.
FIG6C_WIDTHS = LIU_MS


def fig6e_comparison(summary: pd.DataFrame, digitised: pd.DataFrame) -> pd.DataFrame:
    """Our exponents (:func:`exponent_summary`) and the digitised Fig. 6e points in one tidy frame:
    ``series`` (``ours`` or ``Fig. 6e (digitised)``), ``gamma, alpha, alpha_m, low, high`` (our t
    interval, or the figure's error bar), ``n_widths``, ``seed_sd``, ``n_seeds`` and the seeds' mean
    with its interval (``seed_mean``, ``seed_low``, ``seed_high``; NaN for the figure's points)."""
    cols = [
        "series",
        "gamma",
        "alpha",
        "alpha_m",
        "low",
        "high",
        "n_widths",
        "seed_sd",
        "n_seeds",
        "seed_mean",
        "seed_low",
        "seed_high",
    ]
    ours = summary.assign(series="ours").reindex(columns=cols)
    theirs = digitised.assign(
        series="Fig. 6e (digitised)",
        low=digitised.alpha_m - digitised.error,
        high=digitised.alpha_m + digitised.error,
    ).reindex(columns=cols)
    parts = [p for p in (ours, theirs) if len(p)]
    if not parts:
        return pd.DataFrame(columns=list(ours.columns))
    return pd.concat(parts, ignore_index=True)


# ------------------------------------------------------------------------- Fig. 6c and 6d (Liu et al.)


def phi_one_comparison(found: Iterable[Any], digitised: Sequence[tuple[float, float, float]]) -> pd.DataFrame:
    """Fig. 6c's strong fraction φ₁ (the share of rows with norm > :data:`repcap.toy.overlaps.STRONG_NORM`)
    of our models, from the norms each point stores, one row per (gamma, alpha, seed, m), with the
    digitised points ``(alpha, m, value)`` as ``series = "Fig. 6c (digitised)"`` (gamma and seed NaN)."""
    from ..toy.overlaps import STRONG_NORM

    rows = [
        {
            "series": "ours",
            "gamma": float(c["gamma"]),
            "alpha": float(c["alpha"]),
            "seed": int(c.get("seed", 0)),
            "m": int(c["m"]),
            "phi_one": float(np.mean(np.asarray(r["norms"], dtype=float) > STRONG_NORM)),
        }
        for c, r in _rows(found)
        if r.get("norms")
    ]
    rows += [
        {"series": "Fig. 6c (digitised)", "gamma": np.nan, "alpha": float(a), "seed": np.nan, "m": int(m), "phi_one": v}
        for a, m, v in digitised
    ]
    cols = ["series", "gamma", "alpha", "seed", "m", "phi_one"]
    return pd.DataFrame(rows, columns=cols).sort_values(["series", "alpha", "gamma", "m"]).reset_index(drop=True)


def phi_one_gap(comparison: pd.DataFrame, alpha: float, gamma: float) -> tuple[float, int]:
    """The largest |ours − Fig. 6c's| over the widths both have, at ``alpha`` (seed 0 of ``gamma``),
    and how many widths that is (NaN and 0 where none is shared)."""
    c = comparison[np.isclose(comparison.alpha.astype(float), alpha)]
    ours = c[(c.series == "ours") & np.isclose(c.gamma.astype(float), gamma) & (c.seed == 0)].set_index("m").phi_one
    theirs = c[c.series != "ours"].set_index("m").phi_one
    both = ours.index.intersection(theirs.index)
    if not len(both):
        return float("nan"), 0
    return float((ours[both] - theirs[both]).abs().max()), int(len(both))


def overlap_definitions(found: Iterable[Any]) -> pd.DataFrame:
    """The retrained models' mean square overlap under each candidate definition
    (:data:`repcap.toy.overlaps.DEFINITIONS`), one row per (alpha, gamma, m, definition), with the
    overlap in units of 1/m (``times_m``) and the model's ``phi_one``."""
    from ..toy.overlaps import DEFINITIONS

    rows = [
        {
            "alpha": float(c["alpha"]),
            "gamma": float(c["gamma"]),
            "m": int(c["m"]),
            "definition": name,
            "overlap": r.get(f"overlap_{name}"),
            "times_m": (r[f"overlap_{name}"] * int(c["m"])) if r.get(f"overlap_{name}") is not None else np.nan,
            "phi_one": r.get("phi_one"),
        }
        for c, r in _rows(found)
        for name in DEFINITIONS
    ]
    cols = ["alpha", "gamma", "m", "definition", "overlap", "times_m", "phi_one"]
    return pd.DataFrame(rows, columns=cols).sort_values(["alpha", "gamma", "definition", "m"]).reset_index(drop=True)


# ----------------------------------------------------------- Fig. 1b's contrast (Liu et al.)


def contrast_points(found: Iterable[Any]) -> pd.DataFrame:
    """The models trained on a frequency law that is not a power law (``liu-contrast``), one row per
    (distribution, gamma, seed, m), with ``n``, ``tau``, the loss and, per model, the weak-regime ideal: the loss of
    leaving out all but the ``m`` most frequent features of the same frequencies
    (:func:`repcap.toy.unlearned_loss`)."""
    from .. import toy

    rows = []
    for c, r in _rows(found):
        p = toy.frequencies(int(c["n"]), c["distribution"], float(c["alpha"]), float(c["tau"]))
        rows.append(
            {
                "distribution": c["distribution"],
                "n": int(c["n"]),
                "tau": float(c["tau"]),
                "gamma": float(c["gamma"]),
                "regime": "strong" if float(c["gamma"]) < 0 else "weak",
                "seed": int(c.get("seed", 0)),
                "m": int(c["m"]),
                "loss": float(r["loss"]),
                "ideal_loss": toy.unlearned_loss(p, int(c["m"])),
            }
        )
    cols = ["distribution", "n", "tau", "gamma", "regime", "seed", "m", "loss", "ideal_loss"]
    return pd.DataFrame(rows, columns=cols).sort_values(["gamma", "seed", "m"]).reset_index(drop=True)


def contrast_fits(points: pd.DataFrame) -> pd.DataFrame:
    """Per (gamma, seed) of :func:`contrast_points`, and for the weak-regime ideal (``series =
    "ideal"``): the power-law slope ``alpha_m`` and the curvature of log loss against log m
    (:func:`repcap.fits.fit_curvature`) with its 95% t interval; NaN below 4 widths."""
    from ..fits import fit_curvature

    cols = ["series", "gamma", "seed", "n_widths", "alpha_m", "curvature", "low", "high"]
    out = []
    for (g, s), grp in points.groupby(["gamma", "seed"]):
        for series, col in (("model", "loss"), ("ideal", "ideal_loss")):
            rec = {"series": series, "gamma": g, "seed": s, "n_widths": int(grp.m.nunique())}
            if grp.m.nunique() >= 4:
                cf = fit_curvature(grp.m, grp[col])
                rec |= {
                    "alpha_m": fit_exponent(grp.m, grp[col]).alpha_m,
                    "curvature": cf.curvature,
                    "low": cf.ci_low,
                    "high": cf.ci_high,
                }
            else:
                rec |= {"alpha_m": np.nan, "curvature": np.nan, "low": np.nan, "high": np.nan}
            out.append(rec)
    return pd.DataFrame(out, columns=cols)
