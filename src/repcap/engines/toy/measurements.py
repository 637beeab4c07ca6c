"""What is measured on a trained toy model (Liu, Liu & Gore 2025, arXiv:2505.10465, Sec. 3 and
Fig. 6): the represented fraction ``phi_1/2`` (rows with ``||W_i|| > 1/2``), the row norms and
their histogram, and the mean square overlap ``E[cos^2]`` of the normalised rows (computed by the
pair-statistics engine, :func:`repcap.engines.cosine.mean_sq_offdiag`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from repcap import RepcapError

from ..cosine import Histogram, mean_sq_offdiag

#: Rows with a norm above this count as represented (the paper's phi_1/2).
REPRESENTED_NORM = 0.5


def row_norms(W: torch.Tensor) -> torch.Tensor:
    """``||W_i||`` for every row: ``W: (M, n, m)`` -> ``(M, n)`` float64."""
    return torch.linalg.vector_norm(W.to(torch.float64), dim=-1)


def phi_half(W: torch.Tensor, threshold: float = REPRESENTED_NORM) -> torch.Tensor:
    """Represented fraction: the share of rows with ``||W_i|| > threshold`` -> ``(M,)``."""
    return (row_norms(W) > threshold).to(torch.float64).mean(dim=-1)


def mean_sq_overlap(W: torch.Tensor, min_norm: float = 0.0) -> torch.Tensor:
    """Mean over pairs ``i != j`` of ``(ŵ_i · ŵ_j)^2`` for the normalised rows of ``W: (M, n, m)``
    with norm ``> min_norm`` -> ``(M,)`` float64 (NaN where fewer than two rows qualify)."""
    return mean_sq_offdiag(W, min_norm)


def measure(W: torch.Tensor) -> dict[str, torch.Tensor]:
    """All per-model geometry measurements of ``W: (M, n, m)``: ``phi_half``, ``n_represented``,
    ``mean_sq_overlap`` (all rows), ``mean_sq_overlap_represented`` (rows with norm > 1/2),
    ``norms: (M, n)``."""
    norms = row_norms(W)
    represented = norms > REPRESENTED_NORM
    return {
        "phi_half": represented.to(torch.float64).mean(-1),
        "n_represented": represented.sum(-1),
        "mean_sq_overlap": mean_sq_overlap(W),
        "mean_sq_overlap_represented": mean_sq_overlap(W, REPRESENTED_NORM),
        "norms": norms,
    }


def norm_histogram(
    norms: Sequence[float] | np.ndarray | torch.Tensor,
    bins: int | Sequence[float] = 40,
    range_: tuple[float, float] = (0.0, 2.0),
) -> tuple[np.ndarray, np.ndarray]:
    """Histogram of row norms: ``(counts, edges)`` (integer counts) on equal bins over ``range_``;
    values outside are clipped into the end bins so nothing is lost.  ``bins``: their number, or
    their equally spaced edges (which then set the range)."""
    lo, hi = float(range_[0]), float(range_[1])
    if not isinstance(bins, (int, np.integer)):
        edges = np.asarray(bins, dtype=np.float64)
        if edges.ndim != 1 or len(edges) < 2 or not np.allclose(np.diff(edges), edges[1] - edges[0], rtol=1e-9, atol=0):
            raise RepcapError("norm_histogram: bins must be a count or equally spaced edges")
        bins, lo, hi = len(edges) - 1, float(edges[0]), float(edges[-1])
    vals = norms.detach().cpu().numpy() if isinstance(norms, torch.Tensor) else norms
    h = Histogram.of(vals, bins=int(bins), lo=lo, hi=hi, clip=True)
    return h.counts.astype(np.int64), h.edges
