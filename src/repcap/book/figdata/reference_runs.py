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

from repcap import RepcapError
from repcap.engines.fits import fit_exponent
from repcap.results.runs.points import LIU_MS


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


#: A packing whose worst pair has |cos| at or above this is at the ceiling of Yoder's C: with eps* near
#: 1 the constant C = eps*^2 d / ln k is d / ln k whatever the packing, so such a cell says nothing
#: about how well it was packed (issue 36: every d = 2 cell from N/k = 16 on has eps* = 1.000).
C_CEILING_EPS = 0.99


def c_curve(found: Iterable[Any]) -> pd.DataFrame:
    """Yoder's constant ``C = eps*^2 d / ln k`` of each optimised packing of ``k = ratio x d``
    vectors in R^d, one row per cell (``ratio`` is his N/k: vectors per dimension), with its ceiling
    ``d / ln k`` (the C of eps* = 1) and whether the cell is at it (``at_ceiling``: eps* >=
    :data:`C_CEILING_EPS`)."""
    out = []
    for cfg, res in _rows(found):
        k, d = int(cfg["k"]), int(cfg["d"])
        eps = float(res["eps_star"])
        out.append(
            {
                "d": d,
                "k": k,
                "ratio": k / d,
                "eps_star": eps,
                "C": eps**2 * d / math.log(k),
                "ceiling": d / math.log(k),
                "at_ceiling": eps >= C_CEILING_EPS,
            }
        )
    cols = ["d", "k", "ratio", "eps_star", "C", "ceiling", "at_ceiling"]
    df = pd.DataFrame(out, columns=cols).drop_duplicates(subset=["d", "k"])
    return df.sort_values(["d", "ratio"]).reset_index(drop=True)


def c_curve_peaks(curve: pd.DataFrame) -> pd.DataFrame:
    """Yoder's C curve judged one dimension at a time (issue 36): per ``d``, over the cells below the
    ceiling (:data:`C_CEILING_EPS`), the peak C and its N/k, whether the curve brackets it (a kept
    cell on each side: ``bracketed``), C at the largest kept N/k (``last``), and how many cells
    were kept and dropped at the ceiling."""
    cols = ["d", "n_cells", "n_dropped", "peak", "peak_ratio", "bracketed", "last", "last_ratio", "max_ratio"]
    out = []
    for d, grp in curve.groupby("d"):
        kept = grp[~grp.at_ceiling.astype(bool)].sort_values("ratio")
        rec: dict[str, Any] = {
            "d": int(d),
            "n_cells": int(len(kept)),
            "n_dropped": int(len(grp) - len(kept)),
            "max_ratio": float(grp.ratio.max()),
        }
        if len(kept):
            i = int(np.argmax(kept.C.to_numpy()))
            rec |= {
                "peak": float(kept.C.iloc[i]),
                "peak_ratio": float(kept.ratio.iloc[i]),
                "bracketed": 0 < i < len(kept) - 1,
                "last": float(kept.C.iloc[-1]),
                "last_ratio": float(kept.ratio.iloc[-1]),
            }
        else:
            rec |= {"peak": np.nan, "peak_ratio": np.nan, "bracketed": False, "last": np.nan, "last_ratio": np.nan}
        out.append(rec)
    return pd.DataFrame(out, columns=cols)


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


#: A model is flagged as a single-model outlier when its final loss is more than this factor above
#: or below the median of its seeds at the same (gamma, alpha, m), among at least
#: :data:`OUTLIER_MIN_SEEDS` seeds.  The reason is the grid, not the data: neighbouring widths of the
#: main sweep differ by a factor 1.5-1.6, so at alpha_m = 1-1.5 the loss moves by a factor up to
#: about 2 from one width to the next; a model further than that from its own seeds at one width
#: sits further from them than a width step does.
OUTLIER_FACTOR = 2.0
#: The median of two seeds cannot say which of them is off.
OUTLIER_MIN_SEEDS = 3


def c_curve_summary(peaks: pd.DataFrame) -> str:
    """One sentence on :func:`c_curve_peaks`: per dimension, its peak C and whether the curve
    brackets it once the ceiling cells are dropped."""
    if peaks.empty:
        return "The reference run's small-d C curve is not in this build."
    parts = [
        f"d = {int(r.d)}: {r.peak:.3f} at N/k = {r.peak_ratio:g}"
        + (" (bracketed)" if r.bracketed else f" (still rising at N/k = {r.max_ratio:g})")
        + (f", {int(r.n_dropped)} cells at the ceiling dropped" if r.n_dropped else "")
        for r in peaks.itertuples()
        if np.isfinite(r.peak)
    ]
    return "Judged one dimension at a time, the reference packings' C peaks at " + "; ".join(parts) + "."


def width_points(found: Iterable[Any], *, m_min: float = 0, m_max: float = math.inf) -> pd.DataFrame:
    """The toy models of the width sweeps as a frame ``gamma, alpha, seed, m, loss`` (one row per
    model, the first of duplicates kept), over the widths in ``[m_min, m_max]``."""
    rows = [
        {
            "gamma": float(c["gamma"]),
            "alpha": float(c["alpha"]),
            "seed": int(c.get("seed", 0)),
            "m": int(c["m"]),
            "loss": float(r["loss"]),
        }
        for c, r in _rows(found)
        if m_min <= float(c["m"]) <= m_max and c.get("distribution", "power") == "power"
    ]
    cols = ["gamma", "alpha", "seed", "m", "loss"]
    df = pd.DataFrame(rows, columns=cols).drop_duplicates(subset=["gamma", "alpha", "seed", "m"])
    return df.sort_values(["gamma", "alpha", "seed", "m"]).reset_index(drop=True)


def seed_outliers(points: pd.DataFrame) -> pd.DataFrame:
    """``points`` (:func:`width_points`) with, per model, the median loss of its seeds at the same
    (gamma, alpha, m), ``ratio`` = loss / that median, ``n_seeds`` and ``outlier``: at least
    :data:`OUTLIER_MIN_SEEDS` seeds and a ratio beyond :data:`OUTLIER_FACTOR` either way."""
    df = points.copy()
    if df.empty:
        return df.assign(median_loss=[], ratio=[], n_seeds=[], outlier=[])
    g = df.groupby(["gamma", "alpha", "m"]).loss
    df["n_seeds"] = g.transform("size").astype(int)
    df["median_loss"] = g.transform(lambda x: float(np.exp(np.median(np.log(x.to_numpy(dtype=float))))))
    df["ratio"] = df.loss / df.median_loss
    far = (df.ratio > OUTLIER_FACTOR) | (df.ratio < 1 / OUTLIER_FACTOR)
    df["outlier"] = (df.n_seeds >= OUTLIER_MIN_SEEDS) & far
    return df


def width_exponents(
    found: Iterable[Any], *, m_min: float = 0, m_max: float = math.inf, drop_outliers: bool = False
) -> pd.DataFrame:
    """Liu et al.'s ``alpha_m``: the slope of log loss against log width, one fit per (gamma,
    alpha, seed) over the widths in ``[m_min, m_max]``, with its 95% t interval, its standard error
    (``se``) and the widths it used.  A (gamma, alpha, seed) with fewer than 3 widths gets no fit
    (``alpha_m`` NaN, its widths listed).  ``drop_outliers``: a width at which any seed of the
    series is a single-model outlier (:func:`seed_outliers`) is left out of every seed's fit of
    that series, so that the seeds still compare like with like (``dropped``: those widths)."""
    df = width_points(found, m_min=m_min, m_max=m_max)
    cols = ["gamma", "alpha", "seed", "alpha_m", "low", "high", "se", "n_widths", "widths", "dropped"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    bad: dict[tuple[float, float], list[int]] = {}
    if drop_outliers:
        flagged = seed_outliers(df)
        for r in flagged[flagged.outlier].itertuples():
            bad.setdefault((float(r.gamma), float(r.alpha)), []).append(int(r.m))
    out = []
    for (g, a, s), grp in df.groupby(["gamma", "alpha", "seed"]):
        drop = sorted(set(bad.get((float(g), float(a)), [])))
        grp = grp[~grp.m.isin(drop)]
        widths = sorted(int(m) for m in grp.m.unique())
        rec = {"gamma": g, "alpha": a, "seed": s, "n_widths": len(widths), "widths": widths, "dropped": drop}
        if len(widths) >= 3:
            fit = fit_exponent(grp.m, grp.loss)
            rec |= {"alpha_m": fit.alpha_m, "low": fit.ci_low, "high": fit.ci_high, "se": fit.stderr}
        else:
            rec |= {"alpha_m": float("nan"), "low": float("nan"), "high": float("nan"), "se": float("nan")}
        out.append(rec)
    return pd.DataFrame(out, columns=cols).sort_values(["gamma", "alpha", "seed"]).reset_index(drop=True)


def exponent_summary(fits: pd.DataFrame) -> pd.DataFrame:
    """Per (gamma, alpha): seed 0's fit, interval and standard error (``se``), and over the seeds
    that have a fit over the same widths as seed 0 (a seed still missing widths waits) their mean,
    standard deviation and count (``n_seeds``), with the standard error of that mean (``seed_se`` =
    sd / √n) and its 95% t interval (``seed_low``, ``seed_high``: mean ± t(0.975, n − 1) · sd / √n;
    NaN below two seeds).

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
        "se",
        "n_widths",
        "seed_mean",
        "seed_sd",
        "seed_se",
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
                "se": float(first.se) if "se" in first.index else float("nan"),
                "n_widths": int(first.n_widths),
                "seed_mean": mean,
                "seed_sd": sd,
                "seed_se": sd / math.sqrt(len(ok)) if len(ok) > 1 else float("nan"),
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


def experiments_by_series(lookups: Iterable[Any], set_name: str) -> dict[tuple[float, float], dict[str, str]]:
    """``{(alpha, gamma): {experiment: its provenance sentence}}``: which bundle experiments hold the
    points of each series (what a series' scorecard row names as its provenance, each once)."""
    out: dict[tuple[float, float], dict[str, str]] = {}
    for lk in lookups:
        if lk is None or not lk.found:
            continue
        text = lk.provenance_text(set_name)
        for f in lk.found:
            key = (round(float(f.config["alpha"]), 4), round(float(f.config["gamma"]), 4))
            out.setdefault(key, {})[lk.experiment] = text
    return out


def width_sweep_names(set_name: str, scale: str) -> list[str]:
    """The experiments of ``set_name`` that :func:`width_exponents` fits (:data:`WIDTH_SWEEPS`), in
    the set's order; none without a set."""
    if not set_name:
        return []
    from repcap.results.runs import point_set

    return [e.name for e in point_set(set_name, scale).experiments if e.name.startswith(WIDTH_SWEEPS)]


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


def fig6e_digitised() -> pd.DataFrame:
    """Fig. 6e's digitised points (:func:`digitised_series`) from ``data/reference/quotes.yaml``: the
    three strong series and the weak one at every alpha the quotes give, each bar as half its length."""
    from repcap.base import quotes

    strong = ((-0.7778, "g0778"), (-0.5556, "g0556"), (-0.3333, "g0333"))
    pts = []
    for qid, q in quotes.quotes().items():
        name = qid.removeprefix("liu2025.fig6e_")
        if name == qid or q.value is None or q.low is None or q.high is None:
            continue
        if name.startswith("weak_"):
            alpha, gamma = int(name[len("weak_a") :]) / 10, 0.3333
        else:
            key, gkey = name.split("_")
            alpha, gamma = int(key[1:]) / 10, {k: g for g, k in strong}[gkey]
        pts.append((alpha, gamma, q.value, (q.high - q.low) / 2))
    return digitised_series(sorted(pts))


def outlier_summary(flagged: pd.DataFrame) -> str:
    """One sentence on :func:`seed_outliers`: how many models have enough seeds, and each flagged one."""
    many = int((flagged.n_seeds >= OUTLIER_MIN_SEEDS).sum()) if len(flagged) else 0
    out = flagged[flagged.outlier.astype(bool)] if len(flagged) else flagged
    head = f"Of the {many} models with at least {OUTLIER_MIN_SEEDS} seeds, {len(out)} {'is' if len(out) == 1 else 'are'} flagged"
    if not len(out):
        return head + "."
    each = "; ".join(
        f"γ = {r.gamma:+.3f}, α = {r.alpha:g}, seed {int(r.seed)} at m = {int(r.m)}, {r.ratio:.2f} × its seeds' median"
        for r in out.itertuples()
    )
    return (head + ": " + each + ".").replace("-", "−")


def fig6e_table(summary: pd.DataFrame, digitised: pd.DataFrame) -> pd.DataFrame:
    """One row per digitised Fig. 6e point that we have a fit for: ``alpha, gamma``, ours as the
    scorecard judges it (:func:`repcap.evidence.liu.judged`: ``ours``, ``se``, ``basis``), the
    figure's point and its bar read as ±1 standard error (``fig6e``, ``fig6e_se``) and how many
    combined standard errors apart they are (``z``)."""
    from repcap.evidence.liu import judged

    cols = ["alpha", "gamma", "ours", "se", "basis", "fig6e", "fig6e_se", "z"]
    out = []
    for d in digitised.itertuples():
        s = summary[np.isclose(summary.alpha.astype(float), d.alpha) & np.isclose(summary.gamma.astype(float), d.gamma)]
        if not len(s) or not np.isfinite(float(s.iloc[0].alpha_m)):
            continue
        j = judged(s.iloc[0])
        comb = math.hypot(j["se"], float(d.error))
        out.append(
            {
                "alpha": float(d.alpha),
                "gamma": float(d.gamma),
                "ours": j["value"],
                "se": j["se"],
                "basis": f"{j['n']} {j['n_of']}",
                "fig6e": float(d.alpha_m),
                "fig6e_se": float(d.error),
                "z": (j["value"] - float(d.alpha_m)) / comb if comb > 0 else float("nan"),
            }
        )
    return pd.DataFrame(out, columns=cols).sort_values(["alpha", "gamma"]).reset_index(drop=True)


# ------------------------------------------------------------------------- Fig. 6c and 6d (Liu et al.)


def phi_one_comparison(found: Iterable[Any], digitised: Sequence[tuple[float, float, float]]) -> pd.DataFrame:
    """Fig. 6c's strong fraction φ₁ (the share of rows with norm > :data:`repcap.engines.toy.overlaps.STRONG_NORM`)
    of our models, from the norms each point stores, one row per (gamma, alpha, seed, m), with the
    digitised points ``(alpha, m, value)`` as ``series = "Fig. 6c (digitised)"`` (gamma and seed NaN)."""
    from repcap.engines.toy.overlaps import STRONG_NORM

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


def fig6c_digitised(alphas: Iterable[float]) -> list[tuple[float, int, float]]:
    """Fig. 6c's digitised points ``(alpha, m, phi_1)`` at ``alphas`` and :data:`FIG6C_WIDTHS`, from
    ``data/reference/quotes.yaml`` (quotes ``liu2025.fig6c_a<10 alpha>_m<m>``)."""
    from repcap.base import quotes

    return [
        (float(a), int(m), quotes.value(f"liu2025.fig6c_a{int(round(float(a) * 10)):02d}_m{m}"))
        for a in alphas
        for m in FIG6C_WIDTHS
        if f"liu2025.fig6c_a{int(round(float(a) * 10)):02d}_m{m}" in quotes.quotes()
    ]


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
    (:data:`repcap.engines.toy.overlaps.DEFINITIONS`), one row per (alpha, gamma, m, definition), with the
    overlap in units of 1/m (``times_m``) and the model's ``phi_one``."""
    from repcap.engines.toy.overlaps import DEFINITIONS

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


def overlap_summary(ovd: pd.DataFrame) -> str:
    """One sentence: each definition's overlap in units of 1/m at the smallest and largest width."""
    if not len(ovd):
        return "This build has no retrained models."
    parts = [
        f"{name} {d.sort_values('m').times_m.iloc[0]:.2f} and {d.sort_values('m').times_m.iloc[-1]:.2f}"
        for name, d in ovd.dropna(subset=["times_m"]).groupby("definition", sort=False)
    ]
    return "In units of 1/m, at the smallest and largest width: " + "; ".join(parts) + "."


# ----------------------------------------------------------- Fig. 1b's contrast (Liu et al.)


def contrast_points(found: Iterable[Any]) -> pd.DataFrame:
    """The models trained on a frequency law that is not a power law (``liu-contrast``), one row per
    (distribution, gamma, seed, m), with ``n``, ``tau``, the loss and, per model, the weak-regime ideal: the loss of
    leaving out all but the ``m`` most frequent features of the same frequencies
    (:func:`repcap.engines.toy.unlearned_loss`)."""
    from repcap.engines import toy

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


def weak_models(found: Iterable[Any]) -> pd.DataFrame:
    """The weak-regime (gamma > 0) power-law toy models of the reference bundle, one row each:
    ``n, m, alpha, gamma, seed, loss``, the represented fraction ``phi_half`` (rows with norm >
    1/2), ``phi_half_over_m_n`` (phi_half in units of m/n) and the loss of the features each left
    out (``left_out_loss``, :func:`repcap.book.figdata.toy.left_out_loss`'s sum on its stored norms)."""
    from repcap.engines import toy
    from repcap.engines.toy import REPRESENTED_NORM

    rows = []
    for c, r in _rows(found):
        if float(c["gamma"]) <= 0 or c.get("distribution", "power") != "power" or not r.get("norms"):
            continue
        n, m, a = int(c["n"]), int(c["m"]), float(c["alpha"])
        kept = np.asarray(r["norms"], dtype=float) > REPRESENTED_NORM
        rows.append(
            {
                "n": n,
                "m": m,
                "alpha": a,
                "gamma": float(c["gamma"]),
                "seed": int(c.get("seed", 0)),
                "loss": float(r["loss"]),
                "phi_half": float(kept.mean()),
                "phi_half_over_m_n": float(kept.mean()) * n / m,
                "left_out_loss": float(toy.unlearned_loss(toy.frequencies(n, "power", a), kept)),
            }
        )
    cols = ["n", "m", "alpha", "gamma", "seed", "loss", "phi_half", "phi_half_over_m_n", "left_out_loss"]
    df = pd.DataFrame(rows, columns=cols).drop_duplicates(subset=["n", "m", "alpha", "gamma", "seed"])
    return df.sort_values(["gamma", "alpha", "seed", "m"]).reset_index(drop=True)


def matched_control(target: pd.DataFrame, candidates: pd.DataFrame) -> pd.DataFrame:
    """The power-law series (rows of ``candidates``, :func:`width_points` of seed 0 at the target's
    gamma) whose loss spans the range nearest the ``target`` series' (in log max/min over the
    widths): the control for a curvature measured on a frequency law that is not a power law, which
    a finite n bends too (issue 36: a criterion c2 < 0 alone also holds for power-law inputs)."""
    if target.empty or candidates.empty:
        return candidates.iloc[:0]
    span = float(np.log(target.loss.max() / target.loss.min()))
    best, gap = None, math.inf
    for a, grp in candidates.groupby("alpha"):
        if grp.m.nunique() < 4:
            continue
        g = abs(float(np.log(grp.loss.max() / grp.loss.min())) - span)
        if g < gap:
            best, gap = a, g
    return candidates[candidates.alpha == best] if best is not None else candidates.iloc[:0]


def contrast_controls(points: pd.DataFrame, width: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """For each regime of :func:`contrast_points` (seed 0), its :func:`matched_control` among the
    width sweeps' power-law series (:func:`width_points`, seed 0) at the contrast's gamma."""
    out = {}
    for (g, reg), grp in points[points.seed == 0].groupby(["gamma", "regime"]):
        cands = width[np.isclose(width.gamma.astype(float), float(g)) & (width.seed == 0)] if len(width) else width
        out[str(reg)] = matched_control(grp, cands)
    return out


def contrast_fits(points: pd.DataFrame) -> pd.DataFrame:
    """Per (gamma, seed) of :func:`contrast_points`, and for the weak-regime ideal (``series =
    "ideal"``): the power-law slope ``alpha_m`` and the curvature of log loss against log m
    (:func:`repcap.engines.fits.fit_curvature`) with its 95% t interval; NaN below 4 widths."""
    from repcap.engines.fits import fit_curvature

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
