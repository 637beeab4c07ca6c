"""Exact moments of the cosines over all pairs, from the d x d Gram of the unit rows.

With U the n unit rows, ``s = sum_i u_i`` and ``G = U^T U`` (both accumulated in float64)::

    sum_{i != j} cos_ij   = ||s||^2 - n
    sum_{i != j} cos_ij^2 = ||G||_F^2 - n          (since ||U U^T||_F = ||U^T U||_F)

so the mean, the variance, E[cos^2] and Guha's eps = mu + 2 sigma over all n(n-1)/2 pairs cost
O(n d^2) and O(d^2 + chunk * d) memory, with no n x n matrix (Guha 2026, Sec. 2.4 defines eps;
the identity is ours, checked against a dense float64 computation in the tests).

For a few rows the identity is not exact enough: its variance ``E[cos^2] - E[cos]^2`` is a
difference of nearly equal numbers, and float32 unit rows leave a spurious sigma of ~1e-4 (one
pair, whose exact sigma is 0).  Up to :data:`EXACT_MAX_ROWS` rows the moments come from the dense
float64 cosine matrix instead, with a two-pass variance (:func:`dense_moments`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import torch

from repcap import RepcapError
from repcap.base.devices import resolve_device

from .rows import as_matrix, check_finite, unit_batch, unit_chunks

__all__ = ["CosineMoments", "mean_sq_offdiag", "moments"]


@dataclass
class CosineMoments:
    """Exact moments of cos over all pairs i < j of the non-zero rows (population variance)."""

    n_rows: int  # rows kept (non-zero)
    n_zero_rows: int  # rows dropped because their norm is 0
    d: int  # width
    n_pairs: int  # n (n - 1) / 2
    sum_cos: float  # sum over i < j of cos_ij
    mean: float  # E[cos]
    mean_sq: float  # E[cos^2] over i != j
    var: float  # E[cos^2] - E[cos]^2: the variance of the signed cosine
    std: float
    eps: float  # mean + 2 std (Guha's eps)
    eps3: float  # mean + 3 std

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: At most this many non-zero rows (and ``rows * d`` values) get their moments from the dense
#: float64 cosine matrix (:func:`dense_moments`), more take the Gram identity.
EXACT_MAX_ROWS, EXACT_MAX_VALUES = 2048, 1 << 24


def _few(n: int, d: int) -> bool:
    """Whether ``n`` rows of width ``d`` take the dense path."""
    return n <= EXACT_MAX_ROWS and n * d <= EXACT_MAX_VALUES


def _two_rows(n: int, n_zero: int) -> None:
    if n < 2:
        raise RepcapError(
            f"need at least two non-zero rows for pairwise cosines; got {n} of {n + n_zero} ({n_zero} zero rows)"
        )


def from_sums(n: int, n_zero: int, d: int, sum_offdiag: float, sumsq_offdiag: float) -> CosineMoments:
    """The moments from the off-diagonal sums ``sum_{i != j} cos`` and ``sum_{i != j} cos^2``."""
    _two_rows(n, n_zero)
    mean = sum_offdiag / (n * (n - 1))
    mean_sq = sumsq_offdiag / (n * (n - 1))
    var = max(mean_sq - mean * mean, 0.0)
    std = math.sqrt(var)
    return CosineMoments(
        n_rows=n,
        n_zero_rows=n_zero,
        d=d,
        n_pairs=n * (n - 1) // 2,
        sum_cos=sum_offdiag / 2,
        mean=mean,
        mean_sq=mean_sq,
        var=var,
        std=std,
        eps=mean + 2 * std,
        eps3=mean + 3 * std,
    )


def moments(X: Any, *, device: str | torch.device = "auto", compute: str = "float32") -> CosineMoments:
    """Exact cosine moments over all pairs of the non-zero rows of ``X: (V, d)``.

    Up to :data:`EXACT_MAX_ROWS` non-zero rows (and :data:`EXACT_MAX_VALUES` values) they come
    from the dense float64 cosine matrix on the CPU (:func:`dense_moments`; ``device`` and
    ``compute`` do not apply).  More rows take the Gram identity (see the module docstring) on
    ``device``: each chunk's Gram ``u^T u`` in ``compute`` precision ("float32", the default:
    agrees with "float64" to ~1e-9 on real models at twice the speed), accumulated in float64.
    Zero rows are dropped and counted; NaN/inf rows and an empty matrix raise :class:`RepcapError`,
    and so does a ``device`` this machine does not have, on either path (no silent CPU fallback).
    """
    if compute not in ("float32", "float64"):
        raise RepcapError(f"compute={compute!r}: use 'float32' or 'float64'")
    dev = resolve_device(device)
    t = as_matrix(X)
    if _few(int(t.shape[0]), int(t.shape[1])):
        return dense_moments(t)
    m = _gram_moments(t, dev, torch.float32 if compute == "float32" else torch.float64)
    return dense_moments(t) if _few(m.n_rows, m.d) else m  # mostly zero rows: few are left


def _gram_moments(t: torch.Tensor, dev: torch.device, cdt: torch.dtype) -> CosineMoments:
    """The moments of the rows of ``t: (V, d)`` from the d x d Gram of their unit rows, chunk by chunk."""
    G: torch.Tensor | None = None
    s: torch.Tensor | None = None
    n = total = 0
    for _, u, keep in unit_chunks(t, dev, cdt):
        if G is None:
            d = int(u.shape[1])
            G = torch.zeros(d, d, dtype=torch.float64, device=dev)
            s = torch.zeros(d, dtype=torch.float64, device=dev)
        n += int(u.shape[0])
        total += int(keep.numel())
        G += (u.T @ u).to(torch.float64)
        s += u.sum(dim=0).to(torch.float64)  # pairwise float32 sum within a chunk, float64 across chunks
    assert G is not None and s is not None  # as_matrix refuses an empty matrix
    return from_sums(n, total - n, int(G.shape[0]), float(s @ s) - n, float((G * G).sum()) - n)


def dense_moments(X: Any) -> CosineMoments:
    """The moments of the rows of ``X: (V, d)`` from their dense float64 cosine matrix ``(n, n)``
    on the CPU, with the two-pass variance ``E[(cos - E cos)^2]`` over the pairs i != j: exact to
    float64 rounding for any number of rows, at O(n^2 d) time and O(n^2 + V d) memory (what
    :func:`moments` uses up to :data:`EXACT_MAX_ROWS` rows)."""
    x = as_matrix(X).to(device="cpu", dtype=torch.float64)
    norms = x.norm(dim=1)
    check_finite(norms)
    u = x[norms > 0] / norms[norms > 0, None]
    n = int(u.shape[0])
    _two_rows(n, int(x.shape[0]) - n)
    off = (u @ u.T)[~torch.eye(n, dtype=torch.bool)]
    mean, mean_sq = float(off.mean()), float(off.square().mean())
    std = math.sqrt(max(float((off - off.mean()).square().mean()), 0.0))
    return CosineMoments(
        n_rows=n,
        n_zero_rows=int(x.shape[0]) - n,
        d=int(x.shape[1]),
        n_pairs=n * (n - 1) // 2,
        sum_cos=float(off.sum()) / 2,
        mean=mean,
        mean_sq=mean_sq,
        var=std * std,
        std=std,
        eps=mean + 2 * std,
        eps3=mean + 3 * std,
    )


def mean_sq_offdiag(W: torch.Tensor, min_norm: float = 0.0) -> torch.Tensor:
    """Mean over pairs ``i != j`` of ``cos^2`` between the rows of each matrix of a batch
    ``W: (B, n, d)``, over the rows with norm ``> min_norm`` -> ``(B,)`` float64 (NaN where fewer
    than two rows qualify).  The same Gram identity, batched."""
    U, keep = unit_batch(W, min_norm)
    k = keep.sum(dim=-1).to(torch.float64)
    G = U.transpose(-1, -2) @ U
    total = G.square().sum(dim=(-1, -2)) - k
    return torch.where(k >= 2, total / (k * (k - 1)).clamp_min(1), torch.nan)
