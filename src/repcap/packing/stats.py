"""Statistics of a packing, read off the one pair-statistics engine :mod:`repcap.cosine`.

A packing ``V: (B, d, k)`` holds its vectors as columns; the engine works on rows, so problem b is
passed as ``V[b].T: (k, d)``.  Guha 2026 (Sec. 3.2-3.3) reports eps* = max_{i<j} |cos|; Yoder 2025
the worst-pair angle and the share of nearly-parallel and orthogonal pairs (the "99% solution").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from .. import RepcapError, cosine
from .config import ORTHOGONAL_THRESHOLD, PARALLEL_THRESHOLDS, check_bins
from .losses import default_tile


def pair_stats(
    V: torch.Tensor, *, tile: int | None = None, n_bins: int = 200, thresholds=PARALLEL_THRESHOLDS
) -> dict[str, Any]:
    """Statistics over the pairs i < j of unit columns ``V: (B, d, k)``, one engine pass per problem.

    Returns arrays with a leading batch axis: ``eps_star`` (max |cos|), ``mean_abs``,
    ``mean_sq`` (E cos^2), ``hist`` ((B, n_bins) counts of |cos| on [0, 1], the folded half of the
    engine's histogram on [-1, 1]), ``n_above`` ((B, len(thresholds)) pairs with |cos| >
    threshold), ``n_orthogonal`` (|cos| < 0.01), and ``n_pairs``, ``thresholds``, ``bin_edges``.
    A threshold on a bin edge is read off the histogram, any other is counted exactly in the pass.
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
    n = k * (k - 1) / 2
    settings = cosine.TiledConfig(bins=2 * n_bins, thresholds=tuple(asked), top_k=0, quantiles=())
    out: dict[str, list] = {name: [] for name in ("eps_star", "mean_abs", "mean_sq", "hist", "n_above", "n_orthogonal")}
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
        out["eps_star"].append(st.max_abs)
        out["mean_abs"].append(st.mean_abs)
        out["mean_sq"].append(st.mean_sq)
        out["hist"].append(h.counts)
        out["n_above"].append([round(st.exceed_abs[t] * st.n_pairs) for t in th])
        if ortho_on_edge:
            below = float(h.counts[: int(round(ORTHOGONAL_THRESHOLD * n_bins))].sum())
        else:
            below = st.n_pairs - round(st.exceed_abs[ORTHOGONAL_THRESHOLD] * st.n_pairs)
        out["n_orthogonal"].append(below)
    res = {name: np.asarray(v, dtype=np.float64) for name, v in out.items()}
    res["n_above"] = res["n_above"].reshape(B, len(th))
    return res | {"n_pairs": n, "thresholds": np.asarray(th, dtype=float), "bin_edges": folded_edges}


def max_abs_cos(V: torch.Tensor, tile: int | None = None) -> torch.Tensor:
    """Largest off-diagonal |cos| of unit columns ``V: (B, d, k)`` -> ``(B,)`` (the engine's
    :func:`repcap.cosine.batched_max_abs` on the rows ``V^T``, ``tile`` columns at a time)."""
    B, _, k = V.shape
    return cosine.batched_max_abs(V.transpose(1, 2), tile=int(tile or default_tile(k, B, V.device)))


def coherence(V) -> float:
    """Coherence max_{i != j} |<v_i, v_j>| / (|v_i| |v_j|) of the columns of ``V: (d, k)``, in
    float64 (for small reference configurations)."""
    X = torch.as_tensor(np.asarray(V, dtype=np.float64)).T[None]  # (1, k, d) rows
    U, _ = cosine.unit_batch(X)
    return float(cosine.batched_max_abs(U)[0])
