"""Tables of the frontier chapter: explicit codes, the rigorous bound, the capacity law, Guha's stored
optimised packings and our own runs on one (eps, k) plane per dimension, and the tables the chapter
shows (the codes, our optimiser against the best-known packings, the signed runs, Table 1's models).
The comparisons themselves are :mod:`repcap.engines.frontier`'s."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from repcap.engines import frontier
from repcap.engines.bounds import coherence_lower_bound
from repcap.engines.constructions import Code
from repcap.engines.laws import get_law


def _grid(d: int, top_log10: float, n: int) -> np.ndarray:
    """log10 k from 1.5 d (where the bound has left its steep start at k = d + 1, eps = 1/d) to
    ``top_log10``."""
    return np.linspace(math.log10(1.5 * d), max(top_log10, math.log10(d) + 1), n)


_PANEL_COLUMNS = ["panel", "d", "series", "log10_k", "eps", "status", "name"]


def _panel_row(
    panel: str, d: int, series: str, log10_k: float, eps: float, status: str = "", name: str = ""
) -> dict[str, Any]:
    """One row of :func:`frontier_panels`."""
    return {"panel": panel, "d": d, "series": series, "log10_k": log10_k, "eps": eps, "status": status, "name": name}


def frontier_panels(
    codes: Iterable[Code],
    guha: pd.DataFrame,
    ours: pd.DataFrame,
    panels: Sequence[tuple[int, int]] = frontier.PANELS,
    *,
    law: str = "four",
    n_grid: int = 160,
) -> pd.DataFrame:
    """One long table for the frontier figure: per panel ``(n, d)`` (a dual BCH length and the power
    of two next to it), the ``series`` ``bound`` (the rigorous lower bound on eps at d, a curve over
    log10 k), ``law`` (the capacity law's eps at d), ``explicit`` (the line codes of dimension
    n .. d, with ``status`` exact or bound and their ``name``), ``guha`` (his stored eps* at d) and
    ``ours`` (``ours``: rows ``d, k, eps, label`` of our packings; those at d are drawn)."""
    codes = frontier.line_codes(codes)
    rows: list[dict[str, Any]] = []
    for n, d in panels:
        mine = [c for c in codes if n <= c.d <= d]
        top = max([c.log10_count for c in mine] + [5.0]) + 0.5
        g = _grid(d, top, n_grid)
        k = 10.0**g
        panel = f"d = {n} / {d}"
        for series, eps in (
            ("bound", coherence_lower_bound(k, np.full_like(k, float(d)))),
            ("law", get_law(law).eps(k, float(d))),
        ):
            rows += [_panel_row(panel, d, series, x, float(e)) for x, e in zip(g, np.asarray(eps))]
        rows += [_panel_row(panel, c.d, "explicit", c.log10_count, c.mu, c.mu_status, c.name) for c in mine]
        guha_d = guha[(guha.d == d) & (guha.k > d)]
        rows += [_panel_row(panel, d, "guha", math.log10(r.k), r.eps_star) for r in guha_d.itertuples()]
        ours_d = ours[ours.d == d]
        rows += [_panel_row(panel, d, "ours", math.log10(r.k), r.eps, name=r.label) for r in ours_d.itertuples()]
    return pd.DataFrame(rows, columns=_PANEL_COLUMNS)


def our_packings(results: Iterable[Mapping[str, Any]], label: str) -> pd.DataFrame:
    """``d, k, eps, label`` of packing results (:func:`repcap.engines.packing.sweep_packed`), the best of the
    seeds per (k, d)."""
    df = pd.DataFrame([{"d": r["d"], "k": r["k"], "eps": r["eps_star"]} for r in results], columns=["d", "k", "eps"])
    return df.groupby(["d", "k"], as_index=False).eps.min().assign(label=label)


def codes_table(codes: Iterable[Code]) -> pd.DataFrame:
    """The explicit codes as the chapter lists them: dimension, vectors, coherence (exact or a
    theorem's bound, and how it is known), the rigorous lower bound at that size and the ratio."""
    rows = []
    for c in frontier.line_codes(codes):
        b = float(coherence_lower_bound(float(c.count), float(c.d))) if c.count < 1e300 else math.nan
        rows.append(
            {
                "construction": c.name,
                "d": c.d,
                "vectors": c.count,
                "log10 vectors": c.log10_count,
                "max |cos|": c.mu,
                "known as": f"{c.mu_status} ({c.mu_from})",
                "rigorous bound": b,
                "over the bound": c.mu / b if b > 0 else math.nan,
            }
        )
    return pd.DataFrame(rows)


def ratio_points(table: pd.DataFrame) -> pd.DataFrame:
    """The figure of our optimiser against the best known: ``d, N, optimiser, ratio_best,
    ratio_bound`` (:func:`repcap.engines.frontier.optimiser_against_best`)."""
    return table[["d", "N", "optimiser", "eps", "mu", "bound", "ratio_best", "ratio_bound"]].reset_index(drop=True)


def per_d_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per dimension and optimiser: cells run, the median and largest ratio to the best known."""
    out = (
        table.groupby(["d", "optimiser"], as_index=False)
        .agg(cells=("N", "size"), median=("ratio_best", "median"), worst=("ratio_best", "max"))
        .rename(columns={"median": "median ratio to best known", "worst": "largest ratio"})
    )
    return out


def signed_runs(results: Iterable[Mapping[str, Any]], best_points: pd.DataFrame) -> pd.DataFrame:
    """Our signed runs (``min_angle_deg`` per seed) against the signed codes of Cohn's table: per
    (N, d) the best and worst seed's smallest angle, the published angle and the gap."""
    df = pd.DataFrame([{"N": r["k"], "d": r["d"], "angle": r["min_angle_deg"]} for r in results])
    g = df.groupby(["N", "d"], as_index=False).agg(
        runs=("angle", "size"), best=("angle", "max"), worst=("angle", "min")
    )
    g = g.merge(best_points[["N", "d", "angle_deg", "cite"]], on=["N", "d"], how="left")
    g["gap (deg)"] = g.angle_deg - g.best
    return g.rename(columns={"angle_deg": "best known (deg)", "best": "best run (deg)", "worst": "worst run (deg)"})


#: Column names and digits of :func:`furthest_table`.
FURTHEST_COLUMNS = {
    "eps": ("our best ε", ".4f"),
    "mu": ("best known", ".4f"),
    "bound": ("rigorous bound", ".4f"),
    "ratio_best": ("over the best known", ".3f"),
    "ratio_bound": ("over the bound", ".3f"),
}


def furthest_table(far: pd.DataFrame, table: pd.DataFrame, beside: str | None = None) -> tuple[pd.DataFrame, dict]:
    """The cells furthest from the best known (:func:`repcap.engines.frontier.furthest_cells`) for
    the page, with optimiser ``beside``'s ratio on the same cells as a last column (None: none), and
    the digits of each column."""
    out = far[["d", "N", *FURTHEST_COLUMNS]].rename(columns={k: v[0] for k, v in FURTHEST_COLUMNS.items()})
    digits = {v[0]: v[1] for v in FURTHEST_COLUMNS.values()}
    if beside is not None:
        other = table[table.optimiser == beside][["d", "N", "ratio_best"]].rename(columns={"ratio_best": beside})
        out = out.merge(other, on=["d", "N"], how="left")
        digits[beside] = ".4f"
    return out, digits


def minimax_words(table, label: str, n_wide: int, wide_restarts: int) -> tuple[str, str]:
    """Chapter 11's sentence on our minimax method (series ``label`` of a table of
    :func:`repcap.engines.frontier.optimiser_against_best`): its median, the cells within 0.1% and 1%,
    its furthest cells, the cells below the table's entry and, where a wider setting ran on ``n_wide``
    cells, that the counts take the better of the two; and the furthest cells alone (the finding's note)."""
    from repcap.engines import frontier

    mrow = table[table.optimiser == label]
    misses = "; ".join(
        f"d = {int(r.d)}, N = {int(r.N)} at {r.ratio_best:.4f}×"
        for r in frontier.furthest_cells(table, 3, label).itertuples()
    )
    below = mrow[mrow.ratio_best < 1 - 1e-9].sort_values("ratio_best")
    below_words = "; ".join(f"d = {int(r.d)}, N = {int(r.N)} at {r.ratio_best:.7f}×" for r in below.itertuples())
    wide_words = (
        f". These counts take, on each cell, the better of two settings: the one above and, on the {n_wide} "
        f"cells it left more than 1% short, a second with {wide_restarts} starts (the same method, a larger search)"
        if n_wide
        else ""
    )
    text = (
        f"its median cell lands {mrow.ratio_best.median():.4f} times above the best known, "
        f"{(mrow.ratio_best <= 1 + 1e-3).sum()} of the {len(mrow)} cells within 0.1% and "
        f"{(mrow.ratio_best <= frontier.NEAR_BEST).sum()} within 1%; its furthest cells are {misses}. On {len(below)} "
        "cells its coherence, recomputed from its vectors in float64, is below the entry of the table as we hold it"
        + (f" ({below_words}; our finding: later searches may have improved those entries too)" if len(below) else "")
        + wide_words
    )
    return text, misses
