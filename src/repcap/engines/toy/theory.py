"""Closed forms of the toy model's weak regime (Liu, Liu & Gore 2025, arXiv:2505.10465): the loss
carried by the features a width-m model leaves out, and the width exponent ``alpha - 1`` it gives
for power-law frequencies."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from repcap import RepcapError

from .data import V_MEAN, V_SQ_MEAN


def unlearned_loss(
    p: torch.Tensor | np.ndarray, k: int | np.ndarray | Sequence[bool], optimal_bias: bool = True
) -> float:
    """Loss (per sample, summed over features) carried by the features a model leaves out, if the
    ones it keeps are reconstructed perfectly.  ``p: (n,)`` the feature frequencies.

    ``k`` an int: every feature except the ``k`` most frequent is left out (the weak-regime ideal);
    ``k`` a boolean mask ``(n,)``: the features where the mask is False are left out (e.g. the rows
    of a trained model with ``||W_i|| <= 1/2``; ``p`` is then taken in its given order).

    A left-out feature's best output is a constant, its mean ``p_i E[v] = p_i`` (the bias), leaving
    its variance ``p_i E[v^2] - p_i^2 = 4 p_i / 3 - p_i^2``; with ``optimal_bias=False`` the output
    is 0 and the loss ``4 p_i / 3``.  For ``p_i ∝ i^-alpha`` and integer ``k`` this falls as
    ``k^-(alpha - 1)`` (:func:`weak_exponent`).
    """
    p = np.asarray(p, dtype=np.float64).ravel()
    if isinstance(k, (int, np.integer)):
        q = np.sort(p)[::-1][int(k) :]
    else:
        mask = np.asarray(k, dtype=bool).ravel()
        if mask.shape != p.shape:
            raise RepcapError(f"unlearned_loss: the mask has {mask.size} entries for {p.size} features")
        q = p[~mask]
    per = V_SQ_MEAN * q - (V_MEAN * q) ** 2 if optimal_bias else V_SQ_MEAN * q
    return float(per.sum())


def weak_exponent(alpha: float) -> float:
    """The weak-regime width exponent for power-law frequencies: ``alpha_m = alpha - 1``
    (Liu, Liu & Gore 2025); meaningful for ``alpha > 1``."""
    return float(alpha) - 1.0
