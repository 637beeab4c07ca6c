"""The tables behind chapter 7's reference runs (the shipped ``reference`` bundle): Guha's cells at
two exponent rules against his stored values, and Yoder's C against N/k at small d, judged one
dimension at a time.

Each function takes plain records (a bundle lookup's ``found``: objects with ``config`` and
``result``) or the frames made here, and returns a tidy frame, a dict or a sentence; nothing here
reads a file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from .reference import records


def guha_cells(m40: Iterable[Any], m60: Iterable[Any], stored: pd.DataFrame) -> pd.DataFrame:
    """One row per (k, d, rule): our eps* under his code's exponent rule (``M = 40`` for k <= 4000)
    and under ``M = 60``, his stored eps*, and the relative gap ``ours / his - 1``."""
    his = {(int(r.k), int(r.d)): float(r.eps_star) for r in stored.itertuples()}
    out = []
    for rule, found in (("M = 40 (his code)", m40), ("M = 60", m60)):
        for cfg, res in records(found):
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
    for cfg, res in records(found):
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


#: The fewest seeds of a cell whose scatter of C may decide a peak (two cannot estimate a scatter).
C_SEEDS_TO_DECIDE = 3


def c_curve_seed_sd(found: Iterable[Any], peaks: pd.DataFrame) -> dict[int, float]:
    """``{d: relative sd of C over seeds at d's peak cell}`` (issue 46.2) from packings that include
    extra seeds of the peak cells (``found``: the c-curve points and ``c-curve-seeds``), for each d of
    ``peaks`` (:func:`c_curve_peaks`) whose peak cell has at least :data:`C_SEEDS_TO_DECIDE` seeds; a
    d without them is left out (its peak cannot be set against the seed scatter).  C ∝ eps*², so its
    relative sd is about twice eps*'s."""
    by_cell: dict[tuple[int, int], dict[int, float]] = {}
    for cfg, res in records(found):
        k, d = int(cfg["k"]), int(cfg["d"])
        by_cell.setdefault((k, d), {})[int(cfg.get("seed") or 0)] = float(res["eps_star"]) ** 2 * d / math.log(k)
    out: dict[int, float] = {}
    for r in peaks.itertuples():
        if not np.isfinite(r.peak_ratio):
            continue
        cs = list(by_cell.get((int(round(r.peak_ratio * r.d)), int(r.d)), {}).values())
        if len(cs) >= C_SEEDS_TO_DECIDE:
            out[int(r.d)] = float(np.std(cs, ddof=1) / np.mean(cs))
    return out


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
