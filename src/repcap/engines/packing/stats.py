"""Statistics of a packing, read off the one pair-statistics engine :mod:`repcap.engines.cosine`.

A packing ``V: (B, d, k)`` holds its vectors as columns; the engine works on rows, so problem b is
passed as ``V[b].T: (k, d)``.  Guha 2026 (Sec. 3.2-3.3) reports eps* = max_{i<j} |cos|; Yoder 2025
the worst-pair angle and the share of nearly-parallel and orthogonal pairs (the "99% solution").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from repcap import RepcapError
from repcap.engines import cosine
from repcap.engines.settings.packing import ORTHOGONAL_THRESHOLD, PARALLEL_THRESHOLDS, check_bins

from .losses import default_tile


def finite_or_none(x: Any) -> float | None:
    """``float(x)``, or ``None`` where it is NaN or infinite (strict JSON has no NaN)."""
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass
class PackingStats:
    """The statistics of B packings over their pairs i < j (:func:`pair_stats`): arrays with a
    leading batch axis, and what all problems share."""

    eps_star: np.ndarray  # (B,) max |cos| (Guha's eps*)
    mean_abs: np.ndarray  # (B,) mean |cos|
    mean_sq: np.ndarray  # (B,) mean cos^2
    hist: np.ndarray  # (B, n_bins) counts of |cos| on [0, 1] (float64)
    n_above: np.ndarray  # (B, len(thresholds)) pairs with |cos| > threshold: nearly parallel
    n_orthogonal: np.ndarray  # (B,) pairs with |cos| < ORTHOGONAL_THRESHOLD
    n_pairs: float  # k (k - 1) / 2
    thresholds: np.ndarray  # (len(thresholds),) the |cos| thresholds of n_above
    bin_edges: np.ndarray  # (n_bins + 1,) of hist, on [0, 1]

    @property
    def max_angle_deg(self) -> np.ndarray:
        """``(B,)`` arccos(eps_star) in degrees: the angle of the worst pair."""
        return np.degrees(np.arccos(np.clip(self.eps_star, 0.0, 1.0)))

    def to_dict(self, b: int = 0) -> dict[str, Any]:
        """Problem ``b``'s statistics as a sweep result holds them (JSON-ready; a non-finite number
        is None): ``eps_star, max_angle_deg, mean_abs, mean_sq, n_pairs, n_orthogonal``, ``n_above``
        as ``{f"{t:g}": count}`` and ``hist`` as a list of ``n_bins`` counts."""
        return {
            "eps_star": finite_or_none(self.eps_star[b]),
            "max_angle_deg": finite_or_none(self.max_angle_deg[b]),
            "mean_abs": finite_or_none(self.mean_abs[b]),
            "mean_sq": finite_or_none(self.mean_sq[b]),
            "n_pairs": finite_or_none(self.n_pairs),
            "n_orthogonal": finite_or_none(self.n_orthogonal[b]),
            "n_above": {f"{t:g}": finite_or_none(c) for t, c in zip(self.thresholds, self.n_above[b])},
            "hist": self.hist[b].tolist(),
        }


def pair_stats(
    V: torch.Tensor, *, tile: int | None = None, n_bins: int = 200, thresholds=PARALLEL_THRESHOLDS
) -> PackingStats:
    """:class:`PackingStats` over the pairs i < j of unit columns ``V: (B, d, k)``, one engine pass
    per problem: the histogram of |cos| on [0, 1] in ``n_bins`` bins (the folded half of the
    engine's histogram on [-1, 1]) and the pairs with |cos| above each of ``thresholds``.  A
    threshold on a bin edge is read off the histogram, any other is counted exactly in the pass.
    ``tile`` (rows per engine tile) only bounds the working memory (about 16 tile^2 bytes).
    """
    if V.dim() != 3 or V.shape[-1] < 2:
        raise RepcapError(f"V must have shape (B, d, k) with k >= 2, got {tuple(V.shape)}")
    check_bins("n_bins", n_bins)
    B, _, k = V.shape
    th = [float(t) for t in thresholds]
    folded_edges = np.linspace(0.0, 1.0, n_bins + 1)
    ortho_on_edge = bool(np.isclose(folded_edges, ORTHOGONAL_THRESHOLD, rtol=0, atol=1e-12).any())
    asked = th + ([] if ortho_on_edge else [ORTHOGONAL_THRESHOLD])
    settings = cosine.TiledConfig(bins=2 * n_bins, thresholds=tuple(asked), top_k=0, quantiles=())
    eps, mean_abs, mean_sq, hist, above, below = [], [], [], [], [], []  # one entry per problem
    for b in range(B):
        st = cosine.tiled_stats(
            V[b].T,
            settings,
            progress=False,
            unit=True,
            device=V.device,
            memory_budget=16 * int(tile) ** 2 if tile else None,
        )
        h = st.histogram.folded()
        eps.append(st.max_abs)
        mean_abs.append(st.mean_abs)
        mean_sq.append(st.mean_sq)
        hist.append(h.counts)
        above.append([round(st.exceed_abs[t] * st.n_pairs) for t in th])
        if ortho_on_edge:
            below.append(float(h.counts[: int(round(ORTHOGONAL_THRESHOLD * n_bins))].sum()))
        else:
            below.append(st.n_pairs - round(st.exceed_abs[ORTHOGONAL_THRESHOLD] * st.n_pairs))
    return PackingStats(
        eps_star=_f64(eps),
        mean_abs=_f64(mean_abs),
        mean_sq=_f64(mean_sq),
        hist=_f64(hist),
        n_above=_f64(above).reshape(B, len(th)),
        n_orthogonal=_f64(below),
        n_pairs=k * (k - 1) / 2,
        thresholds=np.asarray(th, dtype=float),
        bin_edges=folded_edges,
    )


def _f64(values: list) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


def max_abs_cos(V: torch.Tensor, tile: int | None = None) -> torch.Tensor:
    """Largest off-diagonal |cos| of unit columns ``V: (B, d, k)`` -> ``(B,)`` (the engine's
    :func:`repcap.engines.cosine.batched_max_abs` on the rows ``V^T``, ``tile`` columns at a time)."""
    B, _, k = V.shape
    return cosine.batched_max_abs(V.transpose(1, 2), tile=int(tile or default_tile(k, B, V.device)))


def coherence(V) -> float:
    """Coherence max_{i != j} |<v_i, v_j>| / (|v_i| |v_j|) of the columns of ``V: (d, k)``, in
    float64 (for small reference configurations)."""
    X = torch.as_tensor(np.asarray(V, dtype=np.float64)).T[None]  # (1, k, d) rows
    U, _ = cosine.unit_batch(X)
    return float(cosine.batched_max_abs(U)[0])
