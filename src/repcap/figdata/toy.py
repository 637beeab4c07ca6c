"""Tables of the toy model's sweeps (DataFrames from :func:`repcap.toy.run_sweep`): width exponents
per regime and frequency exponent, and the weak-regime prediction from the unlearned features."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .. import toy
from ..fits import fit_exponent
from ..toy.measurements import REPRESENTED_NORM


def left_out_loss(df: pd.DataFrame, n: int, threshold: float | None = None) -> list[float]:
    """For each trained model (a row with ``norms``), the loss its left-out features carry: those
    with ``||W_i|| <= threshold`` (default the engine's represented norm, 1/2; Liu, Liu & Gore 2025's
    weak-regime account of the loss)."""
    threshold = REPRESENTED_NORM if threshold is None else threshold
    return [
        toy.unlearned_loss(toy.frequencies(n, "power", a), np.asarray(nr) > threshold)
        for a, nr in zip(df["alpha"], df["norms"])
    ]


def exponent_fits(df: pd.DataFrame, by: Sequence[str] = ("regime", "alpha"), m_min: float = 0) -> pd.DataFrame:
    """``loss ~ A m^-alpha_m`` fitted per group of ``by`` over the widths ``m >= m_min``, with the 95%
    interval (:func:`repcap.fits.fit_exponent`)."""
    rows = []
    for key, d in df.groupby(list(by), sort=False):
        d = d[d["m"] >= m_min]
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key)), **fit_exponent(d["m"], d["loss"]).as_dict()})
    return pd.DataFrame(rows)


def unlearned_prediction(n: int, alphas: Sequence[float], ms: Sequence[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The weak-regime ideal (keep exactly the m most frequent features): its loss at each (alpha, m)
    and the width exponent fitted to it over the same widths."""
    pred = pd.DataFrame(
        [
            {"alpha": a, "m": m, "unlearned_loss": toy.unlearned_loss(toy.frequencies(n, "power", a), m)}
            for a in alphas
            for m in ms
        ]
    )
    slopes = pd.DataFrame(
        [
            {"alpha": a, "alpha_m_pred": fit_exponent(d["m"], d["unlearned_loss"]).alpha_m}
            for a, d in pred.groupby("alpha")
        ]
    )
    return pred, slopes
