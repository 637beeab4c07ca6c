"""Chapter 7's scan of the capacity laws against the spherical-code bounds: Guha's published laws,
our refits and Yoder's rule on a grid of widths and tolerances, where each claims more vectors than
a bound allows, and the finding on Yoder's rule.  Each function returns a frame, a sentence or, for
the finding, ``{claim id: keyword arguments of repcap.evidence.findings.record}``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from repcap.engines import bounds, laws
from repcap.engines.fits import Fit

from .laws_guha import Finding


def scan_grid(d_max: int) -> tuple[list[int], np.ndarray]:
    """The widths (16 to ``d_max``) and the tolerances (0.01 to 0.5) the bound scan covers."""
    return [16, 32, 64, 100, 256, 768, 4096, d_max], np.round(np.linspace(0.01, 0.5, 50), 3)


def scanned_laws(opt: Mapping[str, Fit]) -> dict[str, Any]:
    """The laws held against the bounds: Guha's published three, our refits of the adjusted and
    four-constant laws, and Yoder's rule."""
    return {
        laws.PUBLISHED["jl"].label: laws.PUBLISHED["jl"],
        laws.PUBLISHED["adjusted"].label: laws.PUBLISHED["adjusted"],
        "four-constant (Guha)": laws.PUBLISHED["four"],
        "adjusted, refit": opt["adjusted"].law,
        "four-constant, refit": opt["four"].law,
        "Yoder's rule": laws.YODER,
    }


VIOLATION_COLUMNS = ["law", "bound", "rigorous", "d", "eps from", "eps to", "points", "max excess (log10 k)"]


def violations(law_set: Mapping[str, Any], ds: Sequence[int], eps: Sequence[float]) -> pd.DataFrame:
    """Every (law, bound, d) where the law claims more vectors than the bound allows somewhere on
    the ``ds`` x ``eps`` grid (:func:`repcap.engines.bounds.bound_violations`): the range of eps where it
    does, how many grid points, and the largest excess in orders of magnitude."""
    D, E = np.meshgrid(ds, eps)
    rows = []
    for name, law in law_set.items():
        v = bounds.bound_violations(law, D.ravel(), E.ravel())
        v = v[v.violates]
        for (b, d), g in v.groupby(["bound", "d"]):
            rows.append(
                {
                    "law": name,
                    "bound": b,
                    "rigorous": bool(g.rigorous.iloc[0]),
                    "d": int(d),
                    "eps from": g.eps.min(),
                    "eps to": g.eps.max(),
                    "points": len(g),
                    "max excess (log10 k)": float((g.log10_k_law - g.log10_k_bound).max()),
                }
            )
    return pd.DataFrame(rows, columns=VIOLATION_COLUMNS)


def violators(viol: pd.DataFrame, rigorous: bool) -> str:
    """The laws that exceed a rigorous (or the asymptotic) bound somewhere, ``; ``-joined, or ``none``."""
    v = viol[viol.rigorous.astype(bool) == rigorous]
    return "; ".join(sorted(v.law.unique())) if len(v) else "none"


def rigorous_table(viol: pd.DataFrame) -> pd.DataFrame:
    """The violations of the rigorous bounds, by law, bound and width."""
    return viol[viol.rigorous.astype(bool)].drop(columns="rigorous").sort_values(["law", "bound", "d"])


def asymptotic_table(viol: pd.DataFrame) -> pd.DataFrame:
    """Per law, the widths where it exceeds the Kabatiansky-Levenshtein rate somewhere, and at how many points."""
    return (
        viol[~viol.rigorous.astype(bool)]
        .groupby("law")
        .agg(widths=("d", lambda x: ", ".join(str(v) for v in sorted(x))), points=("points", "sum"))
        .reset_index()
    )


def rule_bound_finding(viol: pd.DataFrame, n_points: int) -> dict[str, Finding]:
    """``yoder-rule-bound``: the largest excess of Yoder's rule over a rigorous bound on the scan
    of ``n_points`` (d, eps) points (0 where it stays below them)."""
    r = viol[viol.rigorous.astype(bool) & (viol.law == "Yoder's rule")]
    return {
        "yoder-rule-bound": {
            "value": float(r["max excess (log10 k)"].max()) if len(r) else 0.0,
            "interval": "closed form",
            "n": int(n_points),
            "n_of": "(d, ε) points",
            "note": f"the rule exceeds a rigorous bound at d = {', '.join(str(v) for v in sorted(r.d.unique()))}"
            if len(r)
            else "the rule stays below the rigorous bounds over the scan",
        }
    }
