"""Pairwise cosine statistics of the rows of an embedding matrix, on CPU or CUDA from one code path.

Reference: Guha 2026 (arXiv:2606.02765), Sec. "Embedding geometry": eps = mu + 2 sigma of the
cosine similarity over all pairs i < j of the (non-zero) token rows, no centring.

Two engines:

* :func:`moments` -- exact mean, variance, E[cos^2] and the cos sum over all V(V-1)/2 pairs from the
  d x d Gram of the normalised rows, in O(V d^2) instead of O(V^2 d).  With U the normalised rows
  (n kept), s = sum_i u_i and G = U^T U (both accumulated in float64)::

      sum_{i != j} cos_ij   = ||s||^2 - n
      sum_{i != j} cos_ij^2 = ||G||_F^2 - n          (since ||U U^T||_F = ||U^T U||_F)

* :func:`tiled_stats` -- one pass over the upper-triangle tiles of U U^T, tile size chosen from a
  memory budget.  It yields a fixed-bin histogram on [-1, 1], quantiles (with their bin-width error),
  max |cos|, the top-k most similar pairs, each row's nearest-neighbour cosine, and exceedance
  fractions.  With ``sample=m`` it visits all pairs of m rows drawn without replacement and reports
  the sampling error from K disjoint row groups (a U-statistic's variance scales as 1/m, so the error
  of the full sample is the spread of the K group estimates divided by sqrt(K)).

Rows with zero norm are dropped and counted; NaN/inf rows are an error.
Shapes: ``X: (V, d)``; ``U: (n, d)`` with n = V - n_zero_rows.

Memory beyond the input matrix (the bound the code is built to; ``benchmarks/memory.py`` measures it
as peak RSS in a fresh process, here for ``repcap stats`` on the 262144 x 640 offline Gemma matrix,
640 MiB, on the CPU):

* :func:`moments`: the d x d float64 Gram plus a few copies of one chunk of
  :data:`GRAM_CHUNK_ROWS` rows -- about ``4 * GRAM_CHUNK_ROWS * d * 4`` bytes, i.e. <= 160 MiB at
  d = 640, independent of V (measured: 141 MiB);
* :func:`tiled_stats` with ``sample=m``: only the m sampled rows are normalised (``m * d * 4`` bytes)
  plus a tile working set of about ``4 * b^2 * 4`` bytes with the tile side b chosen from the memory
  budget (:func:`repcap.devices.memory_budget_bytes`, 1 GiB on the CPU by default; CPU tiles are
  capped at 2048 rows, 64 MiB) plus O(m) per-row arrays (measured for m = 32768: 265 MiB);
* :func:`tiled_stats` over all rows: one normalised float32 copy of the matrix (``n * d * 4``
  bytes) plus the same tile working set.
"""

from __future__ import annotations

import math
from pathlib import Path
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np
import torch

from . import RepcapError, show_progress
from .devices import memory_budget_bytes, resolve_device

#: Rows per chunk when streaming X through the d x d Gram (bounded memory for any V).
GRAM_CHUNK_ROWS = 16384


def _as_tensor(X: Any) -> torch.Tensor:
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
    if not (t.is_floating_point() or t.dtype in (torch.int8, torch.int16, torch.int32, torch.int64)):
        raise RepcapError(f"matrix dtype {t.dtype} is not numeric")
    return t


def _check_finite(norms: torch.Tensor, offset: int = 0) -> None:
    """A row holds NaN/inf exactly when its norm does (float32 squares cannot overflow float64)."""
    bad = ~torch.isfinite(norms)
    if bool(bad.any()):
        rows = torch.nonzero(bad).flatten() + offset
        head = ", ".join(str(int(r)) for r in rows[:5])
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        raise RepcapError(f"{len(rows)} row(s) hold NaN or inf (rows {head}{more}); "
                          "the matrix is corrupt or was dequantised wrongly - re-export it")


def _unit_rows(c: torch.Tensor, offset: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Normalise the rows of one chunk (norms in float64); return (kept unit rows, keep mask)."""
    norms = torch.linalg.vector_norm(c, dim=1, dtype=torch.float64)
    _check_finite(norms, offset)
    keep = norms > 0
    work = torch.float64 if dtype == torch.float64 else c.dtype
    if not bool(keep.all()):
        c, norms = c[keep], norms[keep]
    u = c.to(work) / norms[:, None].to(work)
    return u.to(dtype), keep


def _normalised(X: Any, device: torch.device, dtype=torch.float32) -> tuple[torch.Tensor, np.ndarray, int]:
    """Normalised non-zero rows ``U: (n, d)`` on ``device``, the original indices of the kept rows
    ``(n,)`` and the number of zero rows dropped.  Norms are computed in float64."""
    t = _as_tensor(X)
    kept_parts, idx_parts, n_zero = [], [], 0
    for s in range(0, t.shape[0], GRAM_CHUNK_ROWS):
        c = t[s:s + GRAM_CHUNK_ROWS].to(device=device)
        if c.dtype not in (torch.float32, torch.float64):
            c = c.to(torch.float32)
        u, keep = _unit_rows(c, s, dtype)
        n_zero += int((~keep).sum())
        kept_parts.append(u)
        idx_parts.append(torch.nonzero(keep).flatten().cpu().numpy() + s)
    U = torch.cat(kept_parts)
    return U, np.concatenate(idx_parts), n_zero


def _kept_rows(t: torch.Tensor, device: torch.device) -> np.ndarray:
    """Indices of the non-zero rows of ``t: (V, d)`` (NaN/inf rows raise), from float64 norms taken
    chunk by chunk: O(chunk * d) working memory."""
    idx = []
    for s in range(0, t.shape[0], GRAM_CHUNK_ROWS):
        c = t[s:s + GRAM_CHUNK_ROWS].to(device=device)
        norms = torch.linalg.vector_norm(c if c.is_floating_point() else c.to(torch.float32), dim=1,
                                         dtype=torch.float64)
        _check_finite(norms, s)
        idx.append(torch.nonzero(norms > 0).flatten().cpu().numpy() + s)
    return np.concatenate(idx)


@dataclass
class CosineMoments:
    """Exact moments of cos over all pairs i < j of the non-zero rows (population variance)."""

    n_rows: int          # rows kept (non-zero)
    n_zero_rows: int     # rows dropped because their norm is 0
    d: int               # width
    n_pairs: int         # n (n - 1) / 2
    sum_cos: float       # sum over i < j of cos_ij
    mean: float          # E[cos]
    mean_sq: float       # E[cos^2] over i != j
    var: float           # E[cos^2] - E[cos]^2
    std: float
    eps: float           # mean + 2 std (Guha's eps)
    eps3: float          # mean + 3 std

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def moments(X: Any, *, device: str | torch.device = "auto", compute: str = "float32") -> CosineMoments:
    """Exact cosine moments of the rows of ``X: (V, d)`` from the d x d Gram.

    Row norms are taken in float64; each chunk's Gram ``u^T u`` is computed in ``compute`` precision
    ("float32", the default: agrees with "float64" to ~1e-9 on real models at twice the speed) and
    accumulated in float64.  Cost O(V d^2); memory O(d^2 + chunk * d).  Zero rows are dropped and
    counted; NaN/inf rows and an empty matrix raise :class:`RepcapError`.
    """
    if compute not in ("float32", "float64"):
        raise RepcapError(f"compute={compute!r}: use 'float32' or 'float64'")
    cdt = torch.float32 if compute == "float32" else torch.float64
    dev = resolve_device(device)
    t = _as_tensor(X)
    V, d = t.shape
    G = torch.zeros(d, d, dtype=torch.float64, device=dev)
    s = torch.zeros(d, dtype=torch.float64, device=dev)
    n = 0
    for a in range(0, V, GRAM_CHUNK_ROWS):
        c = t[a:a + GRAM_CHUNK_ROWS].to(device=dev)
        if c.dtype not in (torch.float32, torch.float64):
            c = c.to(torch.float32)
        u, _ = _unit_rows(c, a, cdt)
        n += u.shape[0]
        G += (u.T @ u).to(torch.float64)
        s += u.sum(dim=0).to(torch.float64)  # pairwise float32 sum within a chunk, float64 across chunks
    n_zero = V - n
    if n < 2:
        raise RepcapError(f"need at least two non-zero rows for pairwise cosines; got {n} of {V} "
                          f"({n_zero} zero rows)")
    n_pairs = n * (n - 1) // 2
    sum_offdiag = float(s @ s) - n              # sum over i != j
    sumsq_offdiag = float((G * G).sum()) - n    # sum over i != j
    mean = sum_offdiag / (n * (n - 1))
    mean_sq = sumsq_offdiag / (n * (n - 1))
    var = max(mean_sq - mean * mean, 0.0)
    std = math.sqrt(var)
    return CosineMoments(n_rows=n, n_zero_rows=n_zero, d=d, n_pairs=n_pairs, sum_cos=sum_offdiag / 2,
                         mean=mean, mean_sq=mean_sq, var=var, std=std, eps=mean + 2 * std,
                         eps3=mean + 3 * std)


# ---------------------------------------------------------------------------------------------
# tiled pass


@dataclass
class TiledConfig:
    """Defaults of :func:`tiled_stats`."""

    bins: int = 2000                     # fixed bins on [-1, 1]: width 0.001
    top_k: int = 20                      # most similar pairs kept
    thresholds: tuple = (0.1, 0.2, 0.3, 0.5, 0.9)   # exceedance fractions P(cos > t) and P(|cos| > t)
    quantiles: tuple = (0.5, 0.9, 0.95, 0.99, 0.999, 0.9999)
    groups: int = 8                      # row groups for the sampling error (sample mode only)
    seed: int = 0                        # row sample seed


@dataclass
class TiledStats:
    """Result of :func:`tiled_stats`.  Row indices refer to the rows of the input matrix."""

    n_rows: int                  # non-zero rows in the input
    n_zero_rows: int
    d: int
    rows_used: int               # rows visited (= n_rows unless sampled)
    n_pairs: int                 # pairs visited
    sampled: bool
    edges: np.ndarray            # (bins + 1,)
    counts: np.ndarray           # (bins,) int64
    mean: float                  # over the pairs visited (float64 sums)
    std: float
    mean_sq: float
    max_abs: float
    max_abs_pair: tuple          # (i, j)
    top_pairs: list              # [(i, j, cos)] most similar first
    nn_cos: np.ndarray           # (rows_used,) each row's nearest-neighbour cosine (among rows used)
    row_index: np.ndarray        # (rows_used,) input index of each row used
    exceed: dict                 # {t: P(cos > t)}, at bin resolution when t is a bin edge
    exceed_abs: dict             # {t: P(|cos| > t)}
    quantiles: dict              # {q: value}, interpolated inside the bin
    quantile_error: float        # bound on the bin error of every quantile (one bin width)
    sampling_error: dict = field(default_factory=dict)  # {stat: standard error} in sample mode

    @property
    def bin_width(self) -> float:
        return float(self.edges[1] - self.edges[0])

    @property
    def eps(self) -> float:
        return self.mean + 2 * self.std

    @property
    def eps3(self) -> float:
        return self.mean + 3 * self.std

    def quantile(self, q: float, absolute: bool = False) -> float:
        """Quantile of cos (or of |cos|) from the histogram, linear inside the bin; error <= one bin."""
        return _hist_quantile(self.edges, self.counts, q, absolute)

    def to_dict(self, full: bool = False) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items()
               if k not in ("edges", "counts", "nn_cos", "row_index")}
        out["eps"], out["eps3"], out["bin_width"] = self.eps, self.eps3, self.bin_width
        out["quantiles"] = {str(k): v for k, v in self.quantiles.items()}
        out["exceed"] = {str(k): v for k, v in self.exceed.items()}
        out["exceed_abs"] = {str(k): v for k, v in self.exceed_abs.items()}
        out["top_pairs"] = [[int(i), int(j), float(c)] for i, j, c in self.top_pairs]
        out["max_abs_pair"] = [int(x) for x in self.max_abs_pair]
        out["nn_cos_mean"] = float(np.mean(self.nn_cos))
        if full:
            out["edges"], out["counts"] = self.edges.tolist(), self.counts.tolist()
            out["nn_cos"] = self.nn_cos.tolist()
        return out


def _hist_quantile(edges: np.ndarray, counts: np.ndarray, q: float, absolute: bool = False) -> float:
    if not 0.0 <= q <= 1.0:
        raise RepcapError(f"quantile {q} must be in [0, 1]")
    edges = np.asarray(edges, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    if absolute:  # fold the symmetric bins onto [0, 1]
        nb = len(counts)
        if nb % 2:
            raise RepcapError("absolute quantiles need an even number of bins")
        counts = counts[nb // 2:] + counts[:nb // 2][::-1]
        edges = edges[nb // 2:]
    total = counts.sum()
    if total <= 0:
        return float("nan")
    cdf = np.concatenate([[0.0], np.cumsum(counts)]) / total
    k = int(np.searchsorted(cdf, q, side="left"))
    k = min(max(k, 1), len(counts))
    lo, hi = cdf[k - 1], cdf[k]
    frac = 0.0 if hi <= lo else (q - lo) / (hi - lo)
    return float(edges[k - 1] + frac * (edges[k] - edges[k - 1]))


class _Acc:
    """Accumulators of one set of pairs (all, or one sampling group)."""

    def __init__(self, bins: int, device: torch.device):
        self.counts = torch.zeros(bins, dtype=torch.float64, device=device)
        self.s1 = 0.0
        self.s2 = 0.0
        self.n = 0

    def add(self, vals: torch.Tensor, bins: int, sym_n: int = 0) -> None:
        """Add the pairs in ``vals``.  ``sym_n > 0``: ``vals`` is a whole symmetric diagonal tile of
        ``sym_n`` rows with its diagonal set to 0, so every pair is counted twice plus ``sym_n`` zeros."""
        h = torch.histc(vals, bins=bins, min=-1.0, max=1.0).to(torch.float64)
        s1 = float(vals.sum())      # float32 pairwise sum per tile, float64 across tiles
        s2 = float(torch.dot(vals, vals))
        if sym_n:
            h[bins // 2] -= sym_n   # the zeroed diagonal: 0.0 falls in the bin starting at 0
            h, s1, s2 = h / 2, s1 / 2, s2 / 2
            self.n += sym_n * (sym_n - 1) // 2
        else:
            self.n += vals.numel()
        self.counts += h
        self.s1 += s1
        self.s2 += s2


#: Largest tile side on the CPU: tiles that stay in cache run about twice as fast as 8192-row tiles
#: (measured on (30522, 384): 11.5 s at 2048 rows, 12.6 s at 4096, 24.9 s at 8192).
CPU_MAX_TILE = 2048


def tile_size(d: int, n: int, memory_budget: int, device: torch.device | None = None) -> int:
    """Rows per tile so that a tile's working set (about 4 float32 b x b arrays) fits the budget
    (and, on the CPU, at most :data:`CPU_MAX_TILE`)."""
    b = int(math.sqrt(max(memory_budget, 1) / 16))
    if device is None or device.type == "cpu":
        b = min(b, CPU_MAX_TILE)
    return max(64, min(b, n))


def tiled_stats(X: Any, *, bins: int = TiledConfig.bins, top_k: int = TiledConfig.top_k,
                thresholds: Sequence[float] = TiledConfig.thresholds,
                quantiles: Sequence[float] = TiledConfig.quantiles, sample: int | None = None,
                seed: int = TiledConfig.seed, groups: int = TiledConfig.groups,
                device: str | torch.device = "auto", memory_budget: int | None = None,
                progress: bool = True) -> TiledStats:
    """One pass over the upper-triangle tiles of ``U U^T`` for ``X: (V, d)``.

    ``sample=m`` visits all pairs among m rows drawn without replacement (seeded) and fills
    ``sampling_error`` with the standard errors of mean, std, eps and the quantiles, estimated
    from ``groups`` disjoint row groups.  ``memory_budget`` (bytes) sets the tile size; default
    :func:`repcap.devices.memory_budget_bytes`.
    """
    from tqdm.auto import tqdm

    if bins < 2 or bins % 2:
        raise RepcapError(f"bins={bins}: use an even number >= 2 (bins are symmetric about 0)")
    dev = resolve_device(device)
    t = _as_tensor(X)
    U: torch.Tensor | None = None
    if sample is not None and 2 <= int(sample) < t.shape[0]:
        # sampled pass: find the non-zero rows from their norms only, and normalise just the m
        # sampled rows below (no normalised copy of the whole matrix)
        kept_idx = _kept_rows(t, dev)
        n, d = len(kept_idx), int(t.shape[1])
        n_zero = int(t.shape[0]) - n
    else:
        U, kept_idx, n_zero = _normalised(t, dev)
        n, d = U.shape
    if n < 2:
        raise RepcapError(f"need at least two non-zero rows for pairwise cosines; got {n} ({n_zero} zero rows)")

    sampled = sample is not None and int(sample) < n
    if sample is not None and int(sample) < 2:
        raise RepcapError(f"sample={sample}: sample at least 2 rows")
    if sampled:
        g = torch.Generator().manual_seed(int(seed))
        pick = torch.randperm(n, generator=g)[: int(sample)].sort().values
        # keep rows in group order: group k owns a contiguous range
        K = max(1, min(int(groups), int(sample) // 2))
        perm = torch.randperm(len(pick), generator=g)
        pick = pick[perm]
        row_index = kept_idx[pick.numpy()]
        if U is None:
            U = _normalised(t[torch.from_numpy(row_index)], dev)[0]
        else:
            U = U[pick.to(dev)]
        m = len(pick)
        gb = [round(k * m / K) for k in range(K + 1)]
    else:
        if U is None:  # fewer non-zero rows than the sample: the whole matrix after all
            U, kept_idx, n_zero = _normalised(t, dev)
        row_index = kept_idx
        m = n
        K = 1
        gb = [0, m]

    budget = memory_budget if memory_budget is not None else memory_budget_bytes(dev)
    b = tile_size(d, m, budget, dev)
    # block boundaries: each group split into blocks of at most b rows
    bounds: list[int] = [0]
    block_group: list[int] = []
    for k in range(K):
        lo, hi = gb[k], gb[k + 1]
        nb = max(1, math.ceil((hi - lo) / b))
        for j in range(nb):
            bounds.append(lo + round((j + 1) * (hi - lo) / nb))
            block_group.append(k)
    nblk = len(block_group)

    total = _Acc(bins, dev)
    group_acc = [_Acc(bins, dev) for _ in range(K)] if sampled else []
    edges = np.linspace(-1.0, 1.0, bins + 1)
    thr = [float(t) for t in thresholds]
    # thresholds on a bin edge are read off the histogram; others need their own count
    off_edge = [t for t in thr if abs((t + 1.0) * bins / 2.0 - round((t + 1.0) * bins / 2.0)) > 1e-6]
    exc_extra = {t: 0 for t in off_edge}
    exc_abs_extra = {t: 0 for t in off_edge}
    nn_cos = torch.full((m,), -math.inf, dtype=torch.float32, device=dev)
    top_v = torch.empty(0, dtype=torch.float32, device=dev)
    top_i = torch.empty(0, dtype=torch.int64, device=dev)
    top_j = torch.empty(0, dtype=torch.int64, device=dev)
    max_abs, max_pair = -1.0, (0, 1)

    n_tiles = nblk * (nblk + 1) // 2
    bar = tqdm(total=n_tiles, desc="cosine tiles", unit="tile", disable=not show_progress(progress), leave=False)
    with torch.no_grad():
        for bi in range(nblk):
            r0, r1 = bounds[bi], bounds[bi + 1]
            A = U[r0:r1]
            for bj in range(bi, nblk):
                c0, c1 = bounds[bj], bounds[bj + 1]
                T = A @ U[c0:c1].T  # (r1 - r0, c1 - c0)
                ncol = T.shape[1]
                diag = bi == bj
                nr = r1 - r0
                if diag:
                    if nr < 2:
                        bar.update(1)
                        continue
                    # the whole symmetric tile with a zero diagonal: every pair is counted twice, as
                    # T[i, j] and T[j, i] (equal up to float32 rounding of the BLAS kernel)
                    T.fill_diagonal_(0.0)
                vals = T.reshape(-1)
                sym = nr if diag else 0
                vmin, vmax = (float(x) for x in torch.aminmax(vals))
                if vmax > 1.0 or vmin < -1.0:  # rounding of duplicate / opposite rows
                    T.clamp_(-1.0, 1.0)
                    vmin, vmax = max(vmin, -1.0), min(vmax, 1.0)
                total.add(vals, bins, sym)
                if sampled and block_group[bi] == block_group[bj]:
                    group_acc[block_group[bi]].add(vals, bins, sym)
                for t in off_edge:
                    w = 2 if diag else 1
                    zeros = nr if (diag and t < 0) else 0  # the zeroed diagonal exceeds a negative t
                    exc_extra[t] += (int((vals > t).sum()) - zeros) // w
                    exc_abs_extra[t] += (int((vals.abs() > t).sum()) - zeros) // w
                if max(vmax, -vmin) > max_abs:
                    target = vmax if vmax >= -vmin else vmin
                    am = int(torch.argmax((vals == target).to(torch.uint8)))
                    ri, cj = divmod(am, ncol)
                    max_abs, max_pair = max(vmax, -vmin), (r0 + ri, c0 + cj)
                if diag:
                    T.fill_diagonal_(-math.inf)  # for the nearest neighbours and the top pairs
                # each row's nearest neighbour, both directions
                rmax = T.amax(dim=1)
                nn_cos[r0:r1] = torch.maximum(nn_cos[r0:r1], rmax)
                if not diag:
                    nn_cos[c0:c1] = torch.maximum(nn_cos[c0:c1], T.amax(dim=0))
                # top-k pairs: only rows whose maximum beats the k-th best so far can contribute.
                # A lower bound on the k-th best pair: the k-th largest row maximum (2k-th on a
                # diagonal tile, where a pair can be the maximum of both its rows).
                if top_k > 0:
                    kth = top_k * (2 if diag else 1)
                    thr_k = float(top_v.min()) if top_v.numel() >= top_k else -math.inf
                    if rmax.numel() >= kth:
                        thr_k = max(thr_k, float(torch.topk(rmax, kth).values[-1]))
                    rows = torch.nonzero(rmax >= thr_k).flatten()
                    if rows.numel():
                        sub = T[rows]
                        if diag:
                            sub = sub.masked_fill(torch.arange(ncol, device=dev)[None, :] <= rows[:, None], -math.inf)
                        hit = torch.nonzero(sub >= thr_k)
                        if hit.numel():
                            hv = sub[hit[:, 0], hit[:, 1]]
                            top_v = torch.cat([top_v, hv])
                            top_i = torch.cat([top_i, rows[hit[:, 0]] + r0])
                            top_j = torch.cat([top_j, hit[:, 1] + c0])
                            if top_v.numel() > top_k:
                                keep = torch.topk(top_v, top_k).indices
                                top_v, top_i, top_j = top_v[keep], top_i[keep], top_j[keep]
                del T, vals
                bar.update(1)
    bar.close()

    counts = total.counts.cpu().numpy().round().astype(np.int64)
    npairs = total.n
    mean = total.s1 / npairs
    mean_sq = total.s2 / npairs
    std = math.sqrt(max(mean_sq - mean * mean, 0.0))
    qs = {float(q): _hist_quantile(edges, counts, float(q)) for q in quantiles}

    exceed, exceed_abs = {}, {}
    for t in thr:
        if t in exc_extra:
            exceed[t], exceed_abs[t] = exc_extra[t] / npairs, exc_abs_extra[t] / npairs
        else:
            k = int(round((t + 1.0) * bins / 2.0))
            exceed[t] = float(counts[k:].sum()) / npairs
            ka = int(round((1.0 - abs(t)) * bins / 2.0))  # bins below -|t|
            exceed_abs[t] = float(counts[k:].sum() + counts[:ka].sum()) / npairs if t >= 0 else 1.0
    sampling_error: dict[str, float] = {}
    if sampled and K >= 2:
        est = {"mean": [], "std": [], "eps": []}
        qest = {float(q): [] for q in quantiles}
        for acc in group_acc:
            if acc.n == 0:
                continue
            mu = acc.s1 / acc.n
            sd = math.sqrt(max(acc.s2 / acc.n - mu * mu, 0.0))
            est["mean"].append(mu); est["std"].append(sd); est["eps"].append(mu + 2 * sd)
            gc = acc.counts.cpu().numpy()
            for q in qest:
                qest[q].append(_hist_quantile(edges, gc, q))
        k_eff = len(est["mean"])
        for name, vals_ in est.items():
            sampling_error[name] = float(np.std(vals_, ddof=1) / math.sqrt(k_eff))
        for q, vals_ in qest.items():
            sampling_error[f"q{q}"] = float(np.std(vals_, ddof=1) / math.sqrt(k_eff))
        sampling_error["groups"] = float(k_eff)

    tv = top_v.cpu().numpy()
    order = np.argsort(-tv, kind="stable")
    ti, tj = top_i.cpu().numpy()[order], top_j.cpu().numpy()[order]
    top_pairs = [(int(row_index[a]), int(row_index[b_])) if row_index[a] < row_index[b_]
                 else (int(row_index[b_]), int(row_index[a])) for a, b_ in zip(ti, tj)]
    top_pairs = [(i, j, float(v)) for (i, j), v in zip(top_pairs, tv[order])]
    return TiledStats(
        n_rows=n, n_zero_rows=n_zero, d=d, rows_used=m, n_pairs=npairs, sampled=sampled,
        edges=edges, counts=counts, mean=mean, std=std, mean_sq=mean_sq, max_abs=float(max_abs),
        max_abs_pair=tuple(sorted((int(row_index[max_pair[0]]), int(row_index[max_pair[1]])))),
        top_pairs=top_pairs, nn_cos=nn_cos.cpu().numpy().astype(np.float64),
        row_index=np.asarray(row_index), exceed=exceed, exceed_abs=exceed_abs, quantiles=qs,
        quantile_error=float(edges[1] - edges[0]), sampling_error=sampling_error)


# ---------------------------------------------------------------------------------------------
# one record per model: what `repcap stats --json` prints and the chapters cache


def _finite(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def describe(source: Any, *, head: bool = False, tiled: bool = False, sample: int | None = None,
             rows: int | None = None, device: str | torch.device = "auto", bins: int = TiledConfig.bins,
             top_k: int = TiledConfig.top_k, tensor: str | None = None, seed: int = TiledConfig.seed,
             progress: bool = True, embedding: Any = None) -> dict[str, Any]:
    """Load ``source`` (see :func:`repcap.embeddings.load`) and return one JSON-ready record:
    shape, exact moments, eps, eps3, class, capacity under each published law, and with
    ``tiled=True`` max |cos|, quantiles, exceedances, top pairs (with token strings where the source
    has them), the histogram counts and, for ``sample``, the sampling error.  ``rows`` keeps only the
    first ``rows`` rows (e.g. the real tokens before a padded vocabulary's padding rows).
    """
    from . import laws
    from .embeddings import load

    e = embedding if embedding is not None else load(source, head=head, device="cpu", tensor=tensor)
    X = e.matrix if rows is None else e.matrix[: int(rows)]
    m = moments(X, device=device)
    d = int(X.shape[1])
    rec: dict[str, Any] = {
        "source": str(source), "source_kind": e.source_kind, "tensor": e.tensor_name, "quant": e.quant,
        "tied": e.tied, "head": bool(head), "vocab_size": int(X.shape[0]), "d_model": d, "rows_limit": rows,
        **m.to_dict(), "inv_d": 1.0 / d, "class": laws.classify(m.eps),
        "capacity": {k: _finite(laws.capacity(m.eps, d, k)) for k in laws.PUBLISHED},
        "log10_capacity": {k: float(laws.log10_capacity(m.eps, d, k)) for k in laws.PUBLISHED},
        "capacity_eps3": {k: _finite(laws.capacity(m.eps3, d, k)) for k in laws.PUBLISHED},
    }
    from . import catalog

    entry = catalog.find(str(source)) if isinstance(source, str) else None
    if entry is not None:  # the catalog's expected shape, checked against the weights actually read
        rec["catalog"] = {"key": entry.key, "expected_vocab": entry.vocab, "expected_d": entry.d_model,
                          "shape_matches": (entry.vocab in (None, int(e.matrix.shape[0]))
                                            and entry.d_model in (None, d))}
    if tiled:
        t = tiled_stats(X, bins=bins, top_k=top_k, sample=sample, seed=seed, device=device, progress=progress)
        tok = e.tokens

        def name(i: int) -> str | None:
            return tok[i] if tok is not None and 0 <= i < len(tok) else None

        rec.update({
            "tiled": True, "sampled": t.sampled, "rows_used": t.rows_used, "pairs_visited": t.n_pairs,
            "max_abs": t.max_abs, "max_abs_pair": list(t.max_abs_pair),
            "quantiles": {str(q): v for q, v in t.quantiles.items()},
            "quantiles_abs": {str(q): t.quantile(q, absolute=True) for q in t.quantiles},
            "quantile_error": t.quantile_error, "exceed": {str(k): v for k, v in t.exceed.items()},
            "exceed_abs": {str(k): v for k, v in t.exceed_abs.items()},
            "tiled_mean": t.mean, "tiled_std": t.std, "tiled_eps": t.eps, "sampling_error": t.sampling_error,
            "top_pairs": [{"i": i, "j": j, "cos": c, "token_i": name(i), "token_j": name(j)} for i, j, c in t.top_pairs],
            "nn_cos_quantiles": {str(q): float(np.quantile(t.nn_cos, q)) for q in (0.01, 0.1, 0.5, 0.9, 0.99)},
            "nn_cos_mean": float(np.mean(t.nn_cos)),
            "hist_counts": t.counts.tolist(), "hist_range": [-1.0, 1.0],
        })
    return rec


def describe_point(config: dict) -> dict:
    """:func:`describe` for one sweep config (``source`` plus :func:`describe`'s keyword options)."""
    cfg = dict(config)
    source = cfg.pop("source")
    cfg.pop("label", None)
    cfg.pop("file_signature", None)  # part of the cache key only
    return describe(source, progress=False, **cfg)


describe_point.SWEEP_VERSION = 2  # 2: readable byte-level tokens, F32 for ONNX float


def scan(configs: Sequence[dict], *, cache: str = "embedding-stats", progress: bool = True
         ) -> tuple[list[dict], list[dict]]:
    """Run :func:`describe_point` over ``configs`` through the content-addressed cache; a model that
    fails (hub error, missing tensor, ...) is recorded as ``{"source", "error"}`` and the scan goes on.
    Failures are not cached, so a re-run tries them again.  Returns ``(records, failures)``; each
    record carries its config's ``label`` (default: the source)."""
    from . import sweep

    configs = [dict(c) for c in configs]
    for cfg in configs:  # a local file's size and mtime join the cache key: an edited file is re-read
        p = Path(str(cfg["source"])).expanduser()
        if p.is_file():
            st = p.stat()
            cfg["file_signature"] = f"{st.st_size}:{st.st_mtime_ns}"
    # One sweep over all models, so that on a cluster (sweep.set_default_executor) they run in parallel.
    rep = sweep.run(describe_point, configs, cache=cache, progress=progress, desc="models", on_error="collect")
    failed = {e["index"]: e["error"] for e in rep.errors}
    records, failures = [], []
    for i, (cfg, rec) in enumerate(zip(configs, rep.results)):
        label = cfg.get("label", cfg["source"])
        if i in failed or rec is None:
            failures.append({"source": cfg["source"], "label": label, "error": failed.get(i, "no result")})
        else:
            records.append({**rec, "label": label})
    return records, failures


def fraction_below(counts: Sequence[int], x: float, lo: float = -1.0, hi: float = 1.0) -> float:
    """P(cos <= x) from a fixed-bin histogram on [lo, hi] (linear inside the bin; error <= one bin's mass)."""
    c = np.asarray(counts, dtype=np.float64)
    total = c.sum()
    if total <= 0:
        return float("nan")
    pos = (float(x) - lo) / (hi - lo) * len(c)
    k = int(min(max(math.floor(pos), 0), len(c)))
    below = c[:k].sum() + (c[k] * (pos - k) if k < len(c) else 0.0)
    return float(min(max(below / total, 0.0), 1.0))
