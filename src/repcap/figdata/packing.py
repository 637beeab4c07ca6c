"""Tables of packing runs (results of :func:`repcap.packing.sweep_packed`, one dict per loss) and of
the random start they are compared with (:func:`repcap.packing.pair_stats` of random vectors)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..packing import ORTHOGONAL_THRESHOLD, PARALLEL_THRESHOLDS


def as_run(stats: Mapping[str, Any], b: int = 0) -> dict[str, Any]:
    """Problem ``b`` of a :func:`repcap.packing.pair_stats` result, in the shape of a sweep result."""
    eps = float(stats["eps_star"][b])
    return {
        "eps_star": eps,
        "max_angle_deg": math.degrees(math.acos(min(eps, 1.0))),
        "mean_abs": float(stats["mean_abs"][b]),
        "hist": np.asarray(stats["hist"][b]).tolist(),
        "n_pairs": float(stats["n_pairs"]),
        "n_orthogonal": float(stats["n_orthogonal"][b]),
        "n_above": {f"{t:g}": float(c) for t, c in zip(stats["thresholds"], stats["n_above"][b])},
    }


def summary(runs: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row per run: worst pair, its angle, mean |cos|, nearly parallel and orthogonal pairs."""
    return pd.DataFrame(
        [
            {
                "loss": name,
                "ε* (max |cos|)": r["eps_star"],
                "worst-pair angle (°)": r["max_angle_deg"],
                "mean |cos|": r["mean_abs"],
                "pairs |cos| > 0.9": int(r["n_above"]["0.9"]),  # a count (JSON may bring it back as a float)
                f"pairs |cos| < {ORTHOGONAL_THRESHOLD:g} (%)": 100 * r["n_orthogonal"] / r["n_pairs"],
                "seconds": r.get("seconds"),
            }
            for name, r in runs.items()
        ]
    )


def angle_histograms(runs: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """The |cos| histogram of each run as the share of pairs per bin on [0, 1]."""
    rows = []
    for name, r in runs.items():
        h = np.asarray(r["hist"], dtype=float)
        edges = np.linspace(0.0, 1.0, len(h) + 1)
        share = h / r["n_pairs"]
        rows += [
            {"loss": name, "abs_cos": c, "share_of_pairs": v, "eps_star": r["eps_star"]}
            for c, v in zip((edges[:-1] + edges[1:]) / 2, share)
        ]
    return pd.DataFrame(rows)


def parallel_counts(
    runs: Mapping[str, Mapping[str, Any]], thresholds: Sequence[float] = PARALLEL_THRESHOLDS
) -> pd.DataFrame:
    """Pairs nearly orthogonal (|cos| below the orthogonal threshold) and nearly parallel (above each
    threshold), as counts and shares."""
    rows = []
    for name, r in runs.items():
        rows.append(
            {
                "loss": name,
                "level": f"|cos| < {ORTHOGONAL_THRESHOLD:g}",
                "pairs": r["n_orthogonal"],
                "share": r["n_orthogonal"] / r["n_pairs"],
            }
        )
        for t in thresholds:
            n = r["n_above"][f"{t:g}"]
            rows.append({"loss": name, "level": f"|cos| > {t:g}", "pairs": n, "share": n / r["n_pairs"]})
    return pd.DataFrame(rows)


def curves(runs: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """The worst pair (as |cos| and as an angle) and the loss relative to its start, step by step."""
    rows = []
    for name, r in runs.items():
        l0 = r["loss_curve"][0] or 1.0
        for s, e, loss in zip(r["curve_steps"], r["eps_curve"], r["loss_curve"]):
            rows.append(
                {
                    "loss": name,
                    "step": s,
                    "eps_star": e,
                    "angle_deg": math.degrees(math.acos(min(e, 1.0))),
                    "loss_value": loss,
                    "loss_relative": loss / l0,
                }
            )
    return pd.DataFrame(rows)


def flattening_step(
    steps: Sequence[float], angles: Sequence[float], window: float = 0.1, tol: float = 0.05
) -> float | None:
    """The first step after which the worst-pair angle improves by less than ``tol`` degrees over the
    rest of the run, looking ``window`` of the run ahead at a time; None if it never does."""
    s, a = np.asarray(steps, dtype=float), np.asarray(angles, dtype=float)
    if len(s) < 3:
        return None
    span = window * (s[-1] - s[0])
    for i in range(len(s)):
        ahead = a[(s > s[i]) & (s <= s[i] + span)]
        if len(ahead) and float(np.max(a[s >= s[i]]) - a[i]) < tol:
            return float(s[i])
    return None
