"""Rows of a matrix as unit vectors: the input every pair statistic starts from.

A ``(V, d)`` matrix is checked (2-D, non-empty, numeric), streamed in chunks of
:data:`GRAM_CHUNK_ROWS` rows, and each row divided by its norm (:func:`unit_chunk`: norms in
float64; rows of float64 values, and tiny rows whose float32 norm would be subnormal, are divided in
float64 from the stored values, so they are normalised exactly).  Rows of norm zero are dropped and counted; a row holding NaN or infinity is an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from repcap import RepcapError

__all__ = ["GRAM_CHUNK_ROWS", "as_matrix", "normalised", "unit_batch"]

#: Rows per chunk when streaming a matrix (bounded memory for any V).
GRAM_CHUNK_ROWS = 16384

_NUMERIC_INTS = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


def as_matrix(X: Any) -> torch.Tensor:
    """``X`` as a 2-D real numeric tensor (no copy for a tensor or an array); a clear error otherwise."""
    if isinstance(X, torch.Tensor):
        t = X.detach()
    else:
        try:
            t = torch.from_numpy(np.asarray(X))
        except (TypeError, ValueError) as exc:
            raise RepcapError(f"cannot use an object of type {type(X).__name__} as a (V, d) matrix") from exc
    if t.ndim != 2:
        raise RepcapError(f"expected a (V, d) matrix, got shape {tuple(t.shape)}")
    if t.shape[0] == 0 or t.shape[1] == 0:
        raise RepcapError(f"the matrix is empty (shape {tuple(t.shape)}); give at least two non-zero rows")
    if t.is_complex() or t.dtype == torch.bool or not (t.is_floating_point() or t.dtype in _NUMERIC_INTS):
        raise RepcapError(f"matrix dtype {t.dtype} is not a real number type; convert it to float32 first")
    return t


def check_finite(norms: torch.Tensor, offset: int = 0) -> None:
    """A row holds NaN/inf exactly when its float64 norm does."""
    bad = ~torch.isfinite(norms)
    if bool(bad.any()):
        rows = torch.nonzero(bad).flatten() + offset
        head = ", ".join(str(int(r)) for r in rows[:5])
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        raise RepcapError(
            f"{len(rows)} row(s) hold NaN or inf (rows {head}{more}); "
            "the matrix is corrupt or was dequantised wrongly - re-export it"
        )


def _float_chunk(t: torch.Tensor, start: int, device: torch.device) -> torch.Tensor:
    c = t[start : start + GRAM_CHUNK_ROWS].to(device=device)
    return c if c.dtype in (torch.float32, torch.float64) else c.to(torch.float64)


#: Below this norm a float32 row is divided in float64 (its float32 norm would be subnormal).
_TINY_NORM = 1e-30


def unit_chunk(c: torch.Tensor, offset: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Normalise the rows of one chunk: ``(kept unit rows in dtype, keep mask)``.

    Norms are float64.  Rows are divided in the chunk's own precision (float32 rows by their
    float32-rounded norm, as every earlier release did, so results are bit-for-bit unchanged) except
    where that loses accuracy: float64 rows, and chunks holding a row whose norm is below
    ``1e-30``, are divided in float64 from the stored values and then cast to ``dtype``."""
    norms = torch.linalg.vector_norm(c, dim=1, dtype=torch.float64)
    check_finite(norms, offset)
    keep = norms > 0
    if not bool(keep.all()):
        c, norms = c[keep], norms[keep]
    if c.dtype == torch.float64 or dtype == torch.float64 or (norms.numel() and float(norms.min()) < _TINY_NORM):
        return (c.to(torch.float64) / norms[:, None]).to(dtype), keep
    return (c / norms[:, None].to(c.dtype)).to(dtype), keep


def unit_chunks(X: Any, device: torch.device, dtype: torch.dtype = torch.float32):
    """Yield ``(start, kept unit rows, keep mask)`` chunk by chunk: O(chunk * d) working memory."""
    t = as_matrix(X)
    for s in range(0, t.shape[0], GRAM_CHUNK_ROWS):
        u, keep = unit_chunk(_float_chunk(t, s, device), s, dtype)
        yield s, u, keep


def normalised(
    X: Any, device: torch.device, dtype: torch.dtype = torch.float32
) -> tuple[torch.Tensor, np.ndarray, int]:
    """``(U: (n, d) unit rows on device, input index of each kept row (n,), zero rows dropped)``."""
    parts, idx = [], []
    total = 0
    for s, u, keep in unit_chunks(X, device, dtype):
        parts.append(u)
        idx.append(torch.nonzero(keep).flatten().cpu().numpy() + s)
        total += int(keep.numel())
    U = torch.cat(parts)
    return U, np.concatenate(idx), total - int(U.shape[0])


def kept_rows(X: Any, device: torch.device) -> np.ndarray:
    """Indices of the non-zero rows of ``X`` (NaN/inf rows raise), from float64 norms only."""
    t = as_matrix(X)
    out = []
    for s in range(0, t.shape[0], GRAM_CHUNK_ROWS):
        norms = torch.linalg.vector_norm(_float_chunk(t, s, device).to(torch.float64), dim=1)
        check_finite(norms, s)
        out.append(torch.nonzero(norms > 0).flatten().cpu().numpy() + s)
    return np.concatenate(out)


def unit_batch(W: torch.Tensor, min_norm: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of a batch ``W: (B, n, d)`` in float64, each divided by its norm, with the rows of norm
    ``<= min_norm`` (and zero rows) set to 0: ``(U: (B, n, d), kept: (B, n) bool)``."""
    W64 = W.to(torch.float64)
    norms = torch.linalg.vector_norm(W64, dim=-1, keepdim=True)
    keep = (norms > min_norm) & (norms > 0)
    U = torch.where(keep, W64 / norms.clamp_min(1e-300), 0.0)
    return U, keep.squeeze(-1)
