"""How much of Guha's capacity law is optimiser slack (our finding, ``ours-capacity-refit``): his
adjusted law ``k <= d exp(d eps^2 / C)`` refitted on the same cells to three sets of eps*: his stored
packings (Adam, 5000 steps), ours at his settings, and our minimax method, which reaches Sloane's
best-known packings (chapter 11). A smaller C is a law that allows more vectors at a given eps."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from repcap import RepcapError
from repcap.engines import fits
from repcap.engines.laws import Law

#: The law whose one constant is refitted (one free constant: 6 cells leave 5 degrees of freedom).
FORM = "adjusted"
#: The 95% normal quantile of the interval on the relative move of C.
Z95 = 1.959963984540054


def _common(sets: Mapping[str, pd.DataFrame]) -> set:
    """The (k, d) cells every set holds (empty for no sets)."""
    cells = [set(zip(df.k.astype(int), df.d.astype(int))) for df in sets.values()]
    return set.intersection(*cells) if cells else set()


def shared(sets: Mapping[str, pd.DataFrame]) -> int:
    """How many (k, d) cells every set holds (0 for no sets)."""
    return len(_common(sets))


def same_cells(sets: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Each set's ``k, d, eps`` on the cells that every set holds (the best eps per cell where a set
    holds several seeds), sorted by cell; refused in one line where no cell is shared."""
    if not sets:
        raise RepcapError("no sets of packings to refit")
    cells = _common(sets)
    if not cells:
        raise RepcapError(f"the sets {', '.join(sets)} share no (k, d) cell")
    out = {}
    for name, df in sets.items():
        df = df.assign(k=df.k.astype(int), d=df.d.astype(int))
        df = df[[c in cells for c in zip(df.k, df.d)]]
        out[name] = df.groupby(["k", "d"], as_index=False).eps.min().sort_values(["d", "k"]).reset_index(drop=True)
    return out


def refits(sets: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per set (in the order given): the cells, the mean eps* and C of the adjusted law with its
    standard error (scipy's curve_fit covariance), fitted on the cells all sets share."""
    rows = []
    for name, df in same_cells(sets).items():
        f = fits.fit_law(FORM, df.k, df.d, df.eps)
        rows.append({"packings": name, "cells": len(df), "mean ε*": float(df.eps.mean()),
                     "C": f.constants["C"], "C se": f.stderr["C"], "R²": f.r2})  # fmt: skip
    return pd.DataFrame(rows)


def finding(table: pd.DataFrame, base: str, new: str) -> dict[str, Any]:
    """``ours-capacity-refit``: the relative move of C from set ``base`` to set ``new`` of
    :func:`refits`, with a 95% interval from the two fits' standard errors (independent fits,
    the delta method)."""
    b = table[table.packings == base].iloc[0]
    n = table[table.packings == new].iloc[0]
    move = n.C / b.C - 1
    se = math.hypot(n["C se"] / b.C, n.C * b["C se"] / b.C**2)
    return {
        "ours-capacity-refit": {
            "value": float(move),
            "low": float(move - Z95 * se),
            "high": float(move + Z95 * se),
            "interval": "fit",
            "n": int(n.cells),
            "n_of": "cells shared by the sets",
            "note": f"C of the adjusted law: {b.C:.4f} ± {b['C se']:.4f} on {base}, {n.C:.4f} ± {n['C se']:.4f} "
            f"on {new}; mean ε* {b['mean ε*']:.4f} and {n['mean ε*']:.4f}",
        }
    }


def packings(rows: Sequence[Any]) -> pd.DataFrame:
    """``k, d, eps`` from bundle points (``{config, result}`` objects with ``eps_star`` results)."""
    return pd.DataFrame(
        [{"k": int(p.config["k"]), "d": int(p.config["d"]), "eps": float(p.result["eps_star"])} for p in rows],
        columns=["k", "d", "eps"],
    )


def words(table: pd.DataFrame, found: Mapping[str, Any], base: str, new: str, cell: tuple[int, int, float]) -> str:
    """The refit in two sentences for the page (``found``: :func:`finding`'s row; ``cell``: ``(k, d, eps)``
    of one of ``base``'s packings, where the two laws' capacities are set side by side)."""
    k, d, eps = cell
    b = table[table.packings == base].iloc[0]
    n = table[table.packings == new].iloc[0]
    f = found["ours-capacity-refit"]
    return (
        f"On the {int(n.cells)} cells the sets share, the mean ε* goes from {b['mean ε*']:.4f} ({base}) to "
        f"{n['mean ε*']:.4f} ({new}), and the adjusted law's C from {b.C:.4f} to {n.C:.4f}: a move of "
        f"{f['value']:+.1%} (95% interval {f['low']:+.1%} to {f['high']:+.1%}, from the two fits' standard "
        f"errors). At the ε* of his packing of {k:,} vectors in R^{d}, {eps:.4f}, the law refitted to the "
        f"minimax packings allows {math.exp(d * eps**2 * (1 / n.C - 1 / b.C)):.3g} times the vectors his "
        "refit allows (our finding)"
    )


#: The name and label of the adjusted law refitted to our minimax packings (the calculator's column).
REFIT_NAME = "adjusted-minimax"
REFIT_LABEL = "adjusted, C refitted to our minimax packings (ours)"


def refit_law(minimax: pd.DataFrame) -> Law | None:
    """The adjusted law with C refitted to our minimax packings (``k, d, eps``: :func:`packings`),
    as a :class:`repcap.engines.laws.Law` labelled ours; None where there are fewer cells than the
    fit needs."""
    if len(minimax) < 2:
        return None
    f = fits.fit_law(FORM, minimax.k, minimax.d, minimax.eps, name=REFIT_NAME)
    return Law(REFIT_NAME, FORM, dict(f.constants), REFIT_LABEL)
