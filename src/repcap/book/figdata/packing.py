"""Tables of packing runs (results of :func:`repcap.engines.packing.sweep_packed`, one dict per loss) and of
the random start they are compared with (:meth:`repcap.engines.packing.PackingStats.to_dict` of random
vectors' :func:`repcap.engines.packing.pair_stats`, the same fields)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from repcap.engines.packing import ORTHOGONAL_THRESHOLD, PARALLEL_THRESHOLDS


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
    threshold), as counts and shares, with each run's number of pairs ``n_pairs``."""
    rows = []
    for name, r in runs.items():
        rows.append(
            {
                "loss": name,
                "level": f"|cos| < {ORTHOGONAL_THRESHOLD:g}",
                "pairs": r["n_orthogonal"],
                "share": r["n_orthogonal"] / r["n_pairs"],
                "n_pairs": r["n_pairs"],
            }
        )
        for t in thresholds:
            n = r["n_above"][f"{t:g}"]
            rows.append(
                {
                    "loss": name,
                    "level": f"|cos| > {t:g}",
                    "pairs": n,
                    "share": n / r["n_pairs"],
                    "n_pairs": r["n_pairs"],
                }
            )
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


# ------------------------------------------------------------------------------ chapter 06's reference


def longest_exp_run(found: Sequence[Any]) -> Any | None:
    """The exp-loss point of a reference section with the most steps (None if it holds none)."""
    runs = [f for f in found if f.config.get("loss") == "exp"]
    return max(runs, key=lambda f: f.config["steps"]) if runs else None


def rate_schedule(config: Mapping[str, Any]) -> str:
    """How a reference run's rate moved: ``"fixed"``, or ``"cosine to 0"`` (``yoder-annealed``: the
    rate decays along a cosine to ``lr_floor`` times its start)."""
    floor = config.get("lr_floor")
    return "fixed" if floor is None else f"cosine to {float(floor):g}" + ("" if float(floor) == 0 else "×")


def reference_curve(point: Any) -> pd.DataFrame:
    """The worst-pair curve of one reference run (:func:`curves`, named by its loss), with its
    ``k, d, lr``, its rate ``schedule`` (:func:`rate_schedule`) and the power-loss exponent ``p`` it
    used (None for the other losses)."""
    c = point.config
    p = point.result.get("p") if c.get("loss") == "power" else None
    return curves({c.get("loss", "exp"): point.result}).assign(
        k=c["k"], d=c["d"], lr=c["lr"], schedule=rate_schedule(c), p=p
    )


def reference_curves(points: Sequence[Any]) -> pd.DataFrame:
    """:func:`reference_curve` of each run, one table (empty when there is none)."""
    return pd.concat([reference_curve(p) for p in points], ignore_index=True) if points else pd.DataFrame()


def rate_words(r: Any) -> str:
    """How Adam's rate moved in one run (a row of :func:`best_angles`)."""
    return (
        f"at a fixed rate {r.lr:g}" if r.schedule == "fixed" else f"with its rate decaying from {r.lr:g} ({r.schedule})"
    )


def best_angles(points: Sequence[Any]) -> pd.DataFrame:
    """Per reference run: its loss, steps, rate, rate schedule and power-loss exponent, the worst-pair angle it ends
    at and the best one its curve reached (degrees), and the step of that best angle."""
    rows = []
    for p in points:
        cur = reference_curve(p)
        best = cur.loc[cur.angle_deg.idxmax()]
        rows.append(
            {
                "loss": p.config.get("loss"),
                "steps": p.config["steps"],
                "lr": p.config["lr"],
                "schedule": cur.schedule.iloc[0],
                "p": cur.p.iloc[0],
                "final_angle_deg": float(p.result["max_angle_deg"]),
                "best_angle_deg": max(float(best.angle_deg), float(p.result["max_angle_deg"])),
                "best_step": int(best.step),
            }
        )
    cols = ["loss", "steps", "lr", "schedule", "p", "final_angle_deg", "best_angle_deg", "best_step"]
    return pd.DataFrame(rows, columns=cols)


# ------------------------------------------------------------------------------ chapter 07 (Guha's laws)


def shown_widths(widths: Sequence[int]) -> list:
    """About five of the sorted distinct ``widths``, evenly spaced (the ones a figure draws)."""
    ds = sorted(set(widths))
    return ds[:: max(1, len(ds) // 5)]


def fit_points(panels: Sequence[tuple[str, pd.DataFrame, Sequence[str]]], fits: Mapping[str, Any]) -> pd.DataFrame:
    """Guha's stored ``eps_star`` at the :func:`shown_widths` of each panel ``(title, data, fit
    names)``, with each named fit's eps at the same (k, d)."""
    rows = []
    for title, data, names in panels:
        for d_ in shown_widths(data.d):
            g = data[data.d == d_].sort_values("k")
            rows += [
                {
                    "data": title,
                    "k": k_,
                    "d": d_,
                    "eps_star": e_,
                    **{f"fit: {name}": float(fits[name].law.eps(k_, d_)) for name in names},
                }
                for k_, e_ in zip(g.k, g.eps_star)
            ]
    return pd.DataFrame(rows)


def reference_cells(found: Sequence[Any], guha_opt: pd.DataFrame) -> pd.DataFrame:
    """Guha's cells re-run at his settings (reference points) next to the eps* he stores for them:
    ``k, d, steps, p, ε* (ours), ε* (Guha's data), relative gap``, sorted by (d, k)."""
    g_cells = guha_opt.set_index(["k", "d"]).eps_star
    cells = pd.DataFrame(
        [
            {
                "k": f.config["k"],
                "d": f.config["d"],
                "steps": f.config["steps"],
                "p": f.result.get("p"),
                "ε* (ours)": f.result["eps_star"],
            }
            for f in found
        ],
        columns=["k", "d", "steps", "p", "ε* (ours)"],
    )
    cells["ε* (Guha's data)"] = [
        float(g_cells.loc[(k_, d_)]) if (k_, d_) in g_cells.index else np.nan for k_, d_ in zip(cells.k, cells.d)
    ]
    cells["relative gap"] = cells["ε* (ours)"] / cells["ε* (Guha's data)"] - 1
    return cells.sort_values(["d", "k"], ignore_index=True)


def reference_cells_figure(cells: pd.DataFrame, guha_opt: pd.DataFrame) -> pd.DataFrame:
    """The data of the reference-cells figure: :func:`reference_cells`, or, in a build without
    reference points, Guha's stored cells alone."""
    if len(cells):
        return cells
    g_cells = guha_opt.set_index(["k", "d"]).eps_star
    return pd.DataFrame(
        {
            "k": [k_ for k_, _ in g_cells.index],
            "d": [d_ for _, d_ in g_cells.index],
            "ε* (Guha's data)": g_cells.to_numpy(),
        }
    )


#: The exponent rules of :func:`reference_cells_by_rule` (its ``rule`` column).
RULE_HIS_CODE = "his code's M (40 if k ≤ 4000)"
RULE_M60 = "M = 60"


def reference_cells_by_rule(cells: pd.DataFrame, cells_m60: pd.DataFrame) -> pd.DataFrame:
    """:func:`reference_cells` of the two reference experiments in one table, with the exponent rule
    each ran with: his code's (``M = 40`` for k <= 4000, 60 above) and ``M = 60`` throughout."""
    parts = [
        cells.assign(rule=RULE_HIS_CODE),
        cells_m60.assign(rule=RULE_M60),
    ]
    out = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else None
    if out is None:
        return pd.DataFrame(columns=[*cells.columns, "rule"])
    return out.sort_values(["d", "k", "rule"], ignore_index=True)


def worst_gap(cells: pd.DataFrame, k_max: float = float("inf")) -> tuple[float | None, int]:
    """The largest |relative gap| to his stored eps* over the cells with ``k <= k_max`` that he
    stores, and how many such cells there are (``None, 0`` when there are none)."""
    sel = cells[(cells.k <= k_max) & cells["relative gap"].notna()] if len(cells) else cells
    if not len(sel):
        return None, 0
    return float(sel["relative gap"].abs().max()), int(len(sel))


def grid_points(grid: pd.DataFrame, law: Any, n_k: int = 60) -> pd.DataFrame:
    """The simulated grid (optimised and best-random eps* per (k, d)) with ``law`` (a refit) and the
    rigorous lower bound on eps drawn on ``n_k`` values of k per width."""
    from repcap.engines import bounds

    rows = []
    for _, r in grid.iterrows():
        rows += [
            {"k": r.k, "d": r.d, "series": "optimised", "eps": r.eps_star},
            {"k": r.k, "d": r.d, "series": "random (best of trials)", "eps": r.eps_random},
        ]
    kk = np.geomspace(min(grid.k), max(grid.k), n_k)
    for d_ in sorted(grid.d.unique()):
        rows += [{"k": x, "d": d_, "series": "adjusted law (refit)", "eps": float(law.eps(x, d_))} for x in kk]
        rows += [
            {"k": x, "d": d_, "series": "rigorous lower bound", "eps": float(bounds.coherence_lower_bound(x, d_))}
            for x in kk
        ]
    return pd.DataFrame(rows)


def yoder_constants(
    grid: pd.DataFrame, projections: pd.DataFrame, reference_curve: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Yoder's constant C = eps^2 d / ln k of the optimised and random packings of the grid (against
    k/d), of random projections (``N, k, kind, C``; against N/k) and, when given, of the reference
    run's small-d packings (:func:`repcap.book.figdata.reference_runs.c_curve`)."""
    rows = [
        {"source": "optimised packing", "ratio": r.k / r.d, "C": r.eps_star**2 * r.d / math.log(r.k), "d": r.d}
        for r in grid.itertuples()
    ]
    rows += [
        {"source": "random vectors", "ratio": r.k / r.d, "C": r.eps_random**2 * r.d / math.log(r.k), "d": r.d}
        for r in grid.itertuples()
    ]
    rows += [
        {"source": f"{r.kind} projection", "ratio": r.N / r.k, "C": r.C, "d": r.k} for r in projections.itertuples()
    ]
    if reference_curve is not None:
        for r in reference_curve.itertuples():
            at = bool(getattr(r, "at_ceiling", False))
            rows.append(
                {"source": REFERENCE_C_CEILING if at else REFERENCE_C_SERIES, "ratio": r.ratio, "C": r.C, "d": r.d}
            )
            if hasattr(r, "ceiling"):
                rows.append({"source": C_CEILING_SERIES, "ratio": r.ratio, "C": r.ceiling, "d": r.d})
    return pd.DataFrame(rows, columns=["source", "ratio", "C", "d"])


#: The names of the reference run's series in :func:`yoder_constants`: its cells below the ceiling,
#: those at it (eps* >= 0.99, dropped from the verdict) and the ceiling d / ln k itself.
REFERENCE_C_SERIES = "optimised packing, reference run (d = 2 to 16)"
REFERENCE_C_CEILING = "reference run at the ceiling (ε* ≥ 0.99: dropped)"
C_CEILING_SERIES = "ceiling d / ln k (ε* = 1)"


def capacity_by_angle(d: int, degrees_off: Sequence[float], refit_adjusted: Any) -> pd.DataFrame:
    """log10 of how many vectors fit in R^d at F degrees off orthogonal: Yoder's rule, Guha's laws
    (published, and the adjusted law refitted to our grid) and the Welch, Levenshtein and
    Kabatiansky-Levenshtein bounds: ``F_deg, eps, curve, log10_k``."""
    from repcap.engines import bounds, laws

    F = np.asarray(degrees_off, dtype=float)
    eps_F = laws.eps_from_degrees_off(F)
    C_adj = refit_adjusted.constants["C"]
    curves_ = {
        f"Yoder's rule 10^(d F²/{laws.YODER_DIVISOR:g})": laws.yoder_log10_capacity(d, F),
        laws.PUBLISHED["jl"].label: laws.PUBLISHED["jl"].log10_capacity(eps_F, d),
        laws.PUBLISHED["adjusted"].label: laws.PUBLISHED["adjusted"].log10_capacity(eps_F, d),
        f"adjusted, refit C = {C_adj:.3f}": refit_adjusted.log10_capacity(eps_F, d),
        "four-constant (Guha)": laws.PUBLISHED["four"].log10_capacity(eps_F, d),
        "Welch bound (rigorous)": bounds.welch_log_capacity(d, eps_F) / math.log(10),
        "Levenshtein bound (rigorous)": bounds.levenshtein_log_capacity(d, eps_F) / math.log(10),
        "Kabatiansky–Levenshtein (asymptotic)": bounds.kl_log_capacity(d, eps_F) / math.log(10),
    }
    return pd.DataFrame(
        [
            {"F_deg": f, "eps": e, "curve": name, "log10_k": v}
            for name, vals in curves_.items()
            for f, e, v in zip(F, eps_F, np.asarray(vals))
        ]
    )
