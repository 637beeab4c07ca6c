"""Liu, Liu & Gore 2025: our numbers for their claims on the overlap of rows, from the tables of
chapters 4, 8 and 9: Fig. 6d's log-log slope of the mean square overlap against the width (the
retrained reference models under each definition, and this profile's own strong models) and the LM
heads of Fig. 8 (their overlap's scaling with the width, and the share of their rows that are
represented).  :mod:`repcap.evidence.liu` is their one name."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from repcap.engines.fits import fit_exponent

from .findings import Finding, signed


def overlap_slope(ovd: pd.DataFrame, definition: str) -> dict[str, Any] | None:
    """The log-log slope of the retrained models' overlap against m under one definition
    (:func:`~repcap.book.figdata.reference_runs.overlap_definitions`), with its 95% interval, standard
    error and widths, or None below 3 widths."""
    d = ovd[ovd.definition == definition].dropna(subset=["overlap"])
    if d.m.nunique() < 3:
        return None
    f = fit_exponent(d.m, d.overlap)
    return {"value": -f.alpha_m, "low": -f.ci_high, "high": -f.ci_low, "se": f.stderr, "n": int(d.m.nunique())}


def overlap(ovd: pd.DataFrame, **where: Any) -> dict[str, Finding]:
    """Fig. 6d, one row decided by the definition its text implies: the mean square overlap of the
    normalised rows, every row (as their LLM code, ``LLMs/overlap-0.py``, takes every row of a
    head); the level at m = 10 over every row and over the strongly represented rows are context."""
    out: dict[str, Finding] = {}
    s_all, s_strong = overlap_slope(ovd, "all"), overlap_slope(ovd, "strong")
    if s_all is not None:
        out["liu-toy-overlap"] = {
            **s_all,
            "interval": "t",
            "n_of": "widths (one retrained model each)",
            "note": "the slope only: every row, normalised (the definition the text implies); Fig. 6d's plotted "
            "levels (about 1/m) are not reproduced under it and the figure's own definition is unknown"
            + (
                f"; over the strongly represented rows (norm > 1) the slope is {signed(s_strong['value'])} "
                f"[{signed(s_strong['low'])}, {signed(s_strong['high'])}]"
                if s_strong is not None
                else ""
            ),
            **where,
        }
    for cid, definition in (("liu-toy-overlap-level", "all"), ("liu-toy-overlap-strong", "strong")):
        at10 = ovd[(ovd.definition == definition) & (ovd.m == 10)].dropna(subset=["overlap"])
        if len(at10):
            r = at10.iloc[0]
            out[cid] = {
                "value": float(r.overlap),
                "interval": "one run",
                "n": 1,
                "n_of": "model at m = 10",
                "note": f"{float(r.times_m):.2f} × 1/m; {float(r.phi_one):.1%} of the rows have norm > 1",
                **where,
            }
    return out


#: The models ``liu-toy-overlap`` names: alpha = 1 at Fig. 6e's strongest plotted gamma.
TOY_OVERLAP_AT = (1.0, -0.7778)


def profile_overlap(strong: pd.DataFrame, *, gamma: float | None = None, **where: Any) -> dict[str, Finding]:
    """This profile's Fig. 6d slope: the log-log slope of its strong models' overlap (every row) at
    the alpha and gamma the row names (:data:`TOY_OVERLAP_AT`) against m, recorded only when the
    profile's strong ``gamma`` is the row's (shown; the reference set's retrained models decide)."""
    a, g = TOY_OVERLAP_AT
    if gamma is None or round(float(gamma), 4) != g:
        return {}
    ov = strong[np.isclose(strong.alpha.astype(float), a)].groupby("m", as_index=False).mean_sq_overlap.mean().dropna()
    if ov.m.nunique() < 3:
        return {}
    f = fit_exponent(ov.m, ov.mean_sq_overlap)
    return {
        "liu-toy-overlap": {
            "value": -f.alpha_m,
            "low": -f.ci_high,
            "high": -f.ci_low,
            "se": f.stderr,
            "interval": "t",
            "n": int(ov.m.nunique()),
            "n_of": "widths (one model each)",
            **where,
        }
    }


def head_scaling(m: Any, overlap: Any) -> dict[str, Finding]:
    """``liu-lmhead-scaling``: the log-log slope of the heads' E[cos²] against their width m, with
    its 95% t interval (none below 3 heads)."""
    ms, ov = [float(x) for x in m], [float(x) for x in overlap]
    if len(set(ms)) < 2 or len(ms) < 3:
        return {}
    f = fit_exponent(ms, ov)
    return {
        "liu-lmhead-scaling": {
            "value": -f.alpha_m,
            "low": -f.ci_high,
            "high": -f.ci_low,
            "se": f.stderr,
            "interval": "t",
            "n": int(len(ms)),
            "n_of": "heads",
        }
    }


def head_norms(shares: pd.DataFrame) -> dict[str, Finding]:
    """``liu-head-norms``: the smallest share, over the LM heads, of rows whose norm exceeds half
    the head's median (``shares``: :func:`repcap.book.figdata.scans.row_norm_shares`); exact over every row."""
    if shares.empty:
        return {}
    worst = shares.loc[shares.share_represented.idxmin()]
    return {
        "liu-head-norms": {
            "value": float(worst.share_represented),
            "interval": "deterministic",
            "n": int(len(shares)),
            "n_of": "heads",
            "note": "; ".join(
                f"{r.head}: the smallest row norm is {r.min_over_median:.2f} × the median" for r in shares.itertuples()
            ),
        }
    }


__all__ = ["TOY_OVERLAP_AT", "head_norms", "head_scaling", "overlap", "overlap_slope", "profile_overlap"]
