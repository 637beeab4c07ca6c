"""The tables behind chapter 9's Fig. 6c and 6d view on the reference models (the shipped
``reference`` bundle): the strong fraction phi_1 of our models against Fig. 6c's digitised points,
and the retrained models' mean square overlap under each candidate definition.

Each function takes plain records (a bundle lookup's ``found``: objects with ``config`` and
``result``) or the frames made here, and returns a tidy frame, a number or a sentence; only
:func:`fig6c_digitised` reads a file (the quotes).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from repcap.results.runs.points import LIU_MS

from .reference import records

#: The widths of Fig. 6c's digitised series (quotes ``liu2025.fig6c_<alpha>_m<m>``): the paper's.
FIG6C_WIDTHS = LIU_MS


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
        for c, r in records(found)
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
        for c, r in records(found)
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
