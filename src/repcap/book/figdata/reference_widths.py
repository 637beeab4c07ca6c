"""The tables behind chapter 9's Fig. 6e view (Liu et al.'s width exponents, from the shipped
``reference`` bundle): the width sweeps' models, the single-model outliers among their seeds, one
exponent per (gamma, alpha, seed) with its interval, the seed spread, and the digitised Fig. 6e points
set beside them.

Each function takes plain records (a bundle lookup's ``found``: objects with ``config`` and
``result``) or the frames made here, and returns a tidy frame or a sentence; only
:func:`fig6e_digitised` reads a file (the quotes).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from repcap import RepcapError
from repcap.engines.fits import fit_exponent

from .reference import records

#: A model is flagged as a single-model outlier when its final loss is more than this factor above
#: or below the median of its seeds at the same (gamma, alpha, m), among at least
#: :data:`OUTLIER_MIN_SEEDS` seeds.  The reason is the grid, not the data: neighbouring widths of the
#: main sweep differ by a factor 1.5-1.6, so at alpha_m = 1-1.5 the loss moves by a factor up to
#: about 2 from one width to the next; a model further than that from its own seeds at one width
#: sits further from them than a width step does.
OUTLIER_FACTOR = 2.0
#: The median of two seeds cannot say which of them is off.
OUTLIER_MIN_SEEDS = 3


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
        for c, r in records(found)
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


def digitised_series(quotes: Sequence[tuple[float, float, float, float]]) -> pd.DataFrame:
    """Fig. 6e's digitised points ``(alpha, gamma, value, error)`` as a frame."""
    for q in quotes:
        if len(q) != 4 or not all(isinstance(x, (int, float)) for x in q):
            raise RepcapError(f"a digitised Fig. 6e point is (alpha, gamma, value, error), got {q!r}")
    return pd.DataFrame(list(quotes), columns=["alpha", "gamma", "alpha_m", "error"])


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


def fig6e_table(summary: pd.DataFrame, digitised: pd.DataFrame) -> pd.DataFrame:
    """One row per digitised Fig. 6e point that we have a fit for: ``alpha, gamma``, ours as the
    scorecard judges it (:func:`repcap.evidence.liu.judged`: ``ours``, ``se``, ``basis``), the
    figure's point and its bar read as ±1 standard error (``fig6e``, ``fig6e_se``) and how many
    combined standard errors apart they are (``z``), on the scorecard's one currency
    (:func:`repcap.evidence.verdicts.verdict`): a mean over seeds against their single replicate, whose
    variance is its bar's plus our seed sd²."""
    from repcap.evidence.liu import judged

    cols = ["alpha", "gamma", "ours", "se", "basis", "fig6e", "fig6e_se", "z"]
    out = []
    for d in digitised.itertuples():
        s = summary[np.isclose(summary.alpha.astype(float), d.alpha) & np.isclose(summary.gamma.astype(float), d.gamma)]
        if not len(s) or not np.isfinite(float(s.iloc[0].alpha_m)):
            continue
        j = judged(s.iloc[0])
        comb = math.hypot(j["se"], float(d.error), float(j.get("replicate_sd") or 0.0))
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
