"""Chapter 7's tables on Yoder 2025: his constant C (the random projections' and the optimised
packings' against N/k, the values he quotes, the lines the figure marks) and his rule of thumb
against the capacities he quotes for it.  Each function returns a frame, a list or a dict of the
numbers the chapter glues (``{suffix: value}``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from repcap.base.quotes import quote, value
from repcap.engines import laws

# ------------------------------------------------------------------------------ Yoder's constant


def projection_configs(Ns: Iterable[int], ks: Iterable[int], seeds: Iterable[int]) -> list[dict[str, Any]]:
    """The random projections of N basis vectors into k < N dimensions, one per kind and seed."""
    ks, seeds = list(ks), list(seeds)
    return [
        dict(N=N, k=k, kind=kind, seed=s)
        for N in Ns
        for k in ks
        for kind in ("gaussian", "rademacher", "srht")
        for s in seeds
        if k < N
    ]


def projection_means(results: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The projections' eps and C, averaged over seeds per ``(N, k, kind)``."""
    return pd.DataFrame(results).groupby(["N", "k", "kind"], as_index=False)[["eps", "C"]].mean()


def yoder_C_numbers(cdf: pd.DataFrame) -> dict[str, float]:
    """From :func:`.packing.yoder_constants`, the optimised packings' range of C and of k/d and the
    log-log slope of C against k/d (NaN from fewer than two points), as ``laws_<key>``."""
    o = cdf[cdf.source == "optimised packing"]
    slope = float(np.polyfit(np.log(o.ratio), np.log(o.C), 1)[0]) if len(o) > 1 else float("nan")
    return {
        "C_opt_min": float(o.C.min()),
        "C_opt_max": float(o.C.max()),
        "C_slope": slope,
        "ratio_min": float(o.ratio.min()),
        "ratio_max": float(o.ratio.max()),
    }


def yoder_quoted() -> dict[str, float]:
    """Yoder's constants as the chapter glues them (``laws_<key>``): his rule's C, the textbook and
    random-projection ranges, and the peak and high-N/k values on his optimised packings."""
    out = {"yoder_C": laws.yoder_C()}
    for key, (qid, end) in {
        "textbook_lo": ("C_textbook", "low"),
        "textbook_hi": ("C_textbook", "high"),
        "random_lo": ("C_random", "low"),
        "random_hi": ("C_random", "high"),
    }.items():
        out[f"yoder_C_{key}"] = getattr(quote(f"yoder2025.{qid}"), end)
    out["yoder_C_peak"] = value("yoder2025.C_optimised_peak")
    out["yoder_C_high"] = value("yoder2025.C_optimised_high_ratio")
    return out


def yoder_C_lines() -> list[tuple[float, str]]:
    """The constants the figure of C against N/k marks as lines: ``(C, label)``."""
    c8 = laws.PUBLISHED["jl8"].constants["C"]
    return [
        (c8, f"textbook JL, C = {c8:g}"),
        (laws.yoder_C(), f"Yoder's rule, C = {laws.yoder_C():.2f}"),
        (value("yoder2025.C_optimised_peak"), "Yoder's optimised packings: peak C"),
    ]


# ------------------------------------------------------------------------------ Yoder's rule

#: The degrees off orthogonal at which Yoder quotes his rule's capacity (at 85 degrees as "more than").
RULE_DEGREES = (1, 2, 3, 5)


def yoder_rule_points() -> dict[int, float]:
    """``{F: log10 of the number of vectors}`` Yoder quotes for his rule at its width."""
    return {F: value(f"yoder2025.rule_log10_F{F}") for F in RULE_DEGREES}


def yoder_rule_gap() -> float:
    """The largest gap (in log10 of the number of vectors) between the rule at Yoder's width and the
    values he quotes for it: his 89, 88 and 87 degree values are approximate, the 85 degree one a
    lower bound ("more than"), missed only from above."""
    d = value("yoder2025.rule_d")
    gaps = []
    for F, q in yoder_rule_points().items():
        at = float(laws.yoder_log10_capacity(d, F))
        gaps.append(abs(at - q) if F != 5 else max(0.0, q - at))
    return max(gaps)


# ------------------------------------------------------------------------------ the figures' tables

#: The ``source`` of the rows of :func:`yoder_C_figure` that are marked constants, not points.
C_LINE = "marked constant"
#: The ``curve`` of the rows of :func:`yoder_capacity_figure` that are Yoder's quoted values.
RULE_QUOTED = "Yoder's quoted values"


def yoder_C_figure(cdf: pd.DataFrame) -> pd.DataFrame:
    """The table of the figure of C against N/k: ``cdf`` (:func:`repcap.book.figdata.packing.yoder_constants`)
    with one :data:`C_LINE` row per constant of :func:`yoder_C_lines` (its ``C`` and ``label``)."""
    lines = pd.DataFrame([{"source": C_LINE, "C": c, "label": label} for c, label in yoder_C_lines()])
    return pd.concat([cdf.assign(label=""), lines], ignore_index=True)[["source", "ratio", "C", "d", "label"]]


def yoder_capacity_figure(cap: pd.DataFrame, d: int) -> pd.DataFrame:
    """The table of the capacity figure: ``cap`` (:func:`repcap.book.figdata.packing.capacity_by_angle`
    at width ``d``) with a column ``d`` and one :data:`RULE_QUOTED` row per value Yoder quotes
    (:func:`yoder_rule_points`: ``F_deg``, its ``eps`` = sin F and ``log10_k``)."""
    quoted = pd.DataFrame(
        [
            {"F_deg": float(F), "eps": float(laws.eps_from_degrees_off(F)), "curve": RULE_QUOTED, "log10_k": v}
            for F, v in yoder_rule_points().items()
        ]
    )
    return pd.concat([cap, quoted], ignore_index=True).assign(d=int(d))
