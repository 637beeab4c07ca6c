"""The toy's mean square overlap under each definition a reader could mean, side by side.

Liu, Liu & Gore's Fig. 6d plots the strong-regime toy's "mean square overlap" at about 1/m (0.1 at
m = 10); their repository has no analysis code for it, and the text reachable here does not define
it.  :func:`overlap_candidates` computes, for one trained ``W (n, m)`` (float64):

* ``all``: every row normalised, the mean of cos² over the pairs i ≠ j
  (:func:`repcap.engines.toy.mean_sq_overlap`, the measurement every toy point records);
* ``represented``: the same over the rows with ``||W_i|| > 1/2`` only (:data:`REPRESENTED_NORM`);
* ``strong``: over the *strongly* represented rows, ``||W_i|| > 1`` (:data:`STRONG_NORM`), the rows
  whose share is Fig. 6c's "strong rep. fraction" φ₁;
* ``unnormalised``: the mean of ``(W_i · W_j)²`` over i ≠ j, rows as trained;
* ``weighted``: cos² of normalised rows weighted by the features' frequencies ``p_i p_j`` (the
  interference the loss sees).

:func:`overlap_points` is a batched sweep function: it trains its configs exactly as
:func:`repcap.engines.toy.train_points` does (the same model, by the per-model generators) and returns these
candidates with ``phi_half``, ``phi_one`` and the loss.  It lives apart from the measurements that
every toy point records, so that adding it left those points' keys as they were.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from repcap import RepcapError
from repcap.engines.settings.toy import ModelSpec, TrainConfig

from .data import frequencies
from .measurements import REPRESENTED_NORM, measure
from .points import PER_MODEL, SHARED, group_key, sweep_config, toy_point
from .training import train

#: A row is strongly represented above this norm (Fig. 6c's φ₁ counts these rows).
STRONG_NORM = 1.0

#: The candidate definitions, in the order :func:`overlap_candidates` returns them.
DEFINITIONS = ("all", "represented", "strong", "unnormalised", "weighted")


def _mean_sq_offdiag(V: torch.Tensor) -> float:
    """The mean of the squared off-diagonal entries of ``V Vᵀ`` (NaN for fewer than two rows)."""
    k = V.shape[0]
    if k < 2:
        return float("nan")
    G = V @ V.T
    return float(((G**2).sum() - (G.diagonal() ** 2).sum()) / (k * (k - 1)))


def overlap_candidates(W: torch.Tensor, p: torch.Tensor) -> dict[str, float]:
    """The mean square overlap of the rows of ``W (n, m)`` under each of :data:`DEFINITIONS`;
    ``p (n,)`` are the features' frequencies (for ``weighted``)."""
    W = W.detach().double().cpu()
    norms = W.norm(dim=1)
    U = W / norms.clamp_min(1e-300)[:, None]
    C2 = (U @ U.T) ** 2
    pp = p.double().cpu()[:, None] * p.double().cpu()[None, :]
    off = ~torch.eye(W.shape[0], dtype=torch.bool)
    return {
        "all": _mean_sq_offdiag(U),
        "represented": _mean_sq_offdiag(U[norms > REPRESENTED_NORM]),
        "strong": _mean_sq_offdiag(U[norms > STRONG_NORM]),
        "unnormalised": _mean_sq_offdiag(W),
        "weighted": float((pp[off] * C2[off]).sum() / pp[off].sum()),
    }


@toy_point("toy.overlaps", metrics=("loss", "overlap_all"), legacy=("repcap.toy.overlaps:overlap_points",))
def overlap_points(configs: Sequence[dict], device: str = "auto") -> list[dict]:
    """Batched sweep function (configs of one :func:`repcap.engines.toy.group_key`): train each toy config
    as :func:`repcap.engines.toy.train_points` does and return per config ``loss``, ``phi_half``,
    ``phi_one`` (share of rows with norm > :data:`STRONG_NORM`), ``overlap_<definition>`` for each of
    :data:`DEFINITIONS` (NaN as None), ``seconds`` (the batch's wall time divided by its size) and
    ``device``."""
    cs = [sweep_config(**c) for c in configs]
    if len({group_key(c) for c in cs}) != 1:
        raise RepcapError("overlap_points got configs of different groups; batch them with group_by=toy.group_key")
    res = train(
        [ModelSpec(**{k: c[k] for k in PER_MODEL}) for c in cs],
        TrainConfig(**{k: cs[0][k] for k in SHARED}, device=device),
    )
    meas = measure(res.W)
    out = []
    for i, c in enumerate(cs):
        p = frequencies(c["n"], c["distribution"], c["alpha"], c["tau"], c["density"])
        cand = overlap_candidates(res.W[i], p)
        norms = meas["norms"][i]
        row = {
            "loss": float(res.loss[i]),
            "phi_half": float(meas["phi_half"][i]),
            "phi_one": float((norms > STRONG_NORM).double().mean()),
            **{f"overlap_{k}": (v if math.isfinite(v) else None) for k, v in cand.items()},
            "seconds": res.seconds / len(cs),
            "device": res.device,
        }
        out.append(row)
    return out
