"""One pass over the pairs of unit rows, tile by tile over the upper triangle of ``U U^T``.

It fills a fixed-bin histogram on [-1, 1] (:mod:`.histogram`), the first moments of cos and |cos|,
the extreme pairs (:mod:`.extremes`) and exceedance counts, with the settings of a
:class:`TiledConfig`.  With ``sample=m`` it visits all pairs of m rows drawn without replacement and estimates the sampling error from K disjoint row groups
(a U-statistic's variance scales as 1/m, so the error of the full sample is the spread of the K
group estimates divided by sqrt(K)).

Memory beyond the input (the bound the code is built to; ``benchmarks/memory.py`` measures it):
the normalised rows used (``m * d * 4`` bytes; only the sampled rows in sample mode), a tile
working set of about ``4 * b^2 * 4`` bytes with b from the memory budget
(:func:`repcap.base.devices.memory_budget_bytes`; CPU tiles are capped at :data:`CPU_MAX_TILE` rows),
and O(m) per-row arrays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch

from repcap import RepcapError, show_progress
from repcap.base.devices import memory_budget_bytes, resolve_device
from repcap.engines.settings.cosine import TiledConfig

from .extremes import MaxAbs, NearestNeighbours, TopPairs
from .fused import FusedPass
from .fused import usable as fused_usable
from .histogram import Histogram
from .kernels import tile_summary
from .precision import rounded
from .rows import as_matrix, kept_rows, normalised

__all__ = ["CPU_MAX_TILE", "DEFAULTS", "TiledConfig", "TiledStats", "batched_max_abs", "tile_size", "tiled_stats"]

#: Largest tile side on the CPU: tiles that stay in cache run about twice as fast as 8192-row tiles
#: (measured on (30522, 384): 11.5 s at 2048 rows, 12.6 s at 4096, 24.9 s at 8192).
CPU_MAX_TILE = 2048


DEFAULTS = TiledConfig()


@dataclass
class TiledStats:
    """Result of :func:`tiled_stats`.  Row indices refer to the rows of the input matrix."""

    n_rows: int  # non-zero rows in the input
    n_zero_rows: int
    d: int
    rows_used: int  # rows visited (= n_rows unless sampled)
    n_pairs: int  # pairs visited
    sampled: bool
    edges: np.ndarray  # (bins + 1,)
    counts: np.ndarray  # (bins,) int64
    mean: float  # over the pairs visited (float64 sums)
    std: float
    mean_sq: float
    mean_abs: float
    max_abs: float
    max_abs_pair: tuple  # (i, j)
    top_pairs: list  # [(i, j, cos)] most similar first
    nn_cos: np.ndarray  # (rows_used,) each row's nearest-neighbour cosine (among rows used)
    row_index: np.ndarray  # (rows_used,) input index of each row used
    exceed: dict  # {t: P(cos > t)}, at bin resolution when t is a bin edge
    exceed_abs: dict  # {t: P(|cos| > t)}
    quantiles: dict  # {q: value}, interpolated inside the bin
    quantile_error: float  # bound on the bin error of every quantile (one bin width)
    sampling_error: dict = field(default_factory=dict)  # {stat: standard error} in sample mode

    @property
    def histogram(self) -> Histogram:
        return Histogram(self.counts, -1.0, 1.0)

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
        h = self.histogram
        return (h.folded() if absolute else h).quantile(q)

    def to_dict(self, full: bool = False) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k not in ("edges", "counts", "nn_cos", "row_index")}
        out["eps"], out["eps3"], out["bin_width"] = self.eps, self.eps3, self.bin_width
        for key in ("quantiles", "exceed", "exceed_abs"):
            out[key] = {str(k): v for k, v in getattr(self, key).items()}
        out["top_pairs"] = [[int(i), int(j), float(c)] for i, j, c in self.top_pairs]
        out["max_abs_pair"] = [int(x) for x in self.max_abs_pair]
        out["nn_cos_mean"] = float(np.mean(self.nn_cos)) if len(self.nn_cos) else float("nan")
        if full:
            out["edges"], out["counts"] = self.edges.tolist(), self.counts.tolist()
            out["nn_cos"] = self.nn_cos.tolist()
        return out


def tile_size(d: int, n: int, memory_budget: int, device: torch.device | None = None) -> int:
    """Rows per tile so that a tile's working set (about 4 float32 b x b arrays) fits the budget
    (and, on the CPU, at most :data:`CPU_MAX_TILE`)."""
    b = int(math.sqrt(max(memory_budget, 1) / 16))
    if device is None or device.type == "cpu":
        b = min(b, CPU_MAX_TILE)
    return max(64, min(b, n))


class _Sums:
    """Histogram counts and first moments of one set of pairs (all, or one sampling group)."""

    def __init__(self, bins: int, device: torch.device):
        self.bins = bins
        self.counts = torch.zeros(bins, dtype=torch.float64, device=device)
        self.s1 = self.s2 = self.sa = 0.0
        self.n = 0

    def add(self, counts: np.ndarray, s1: float, s2: float, sa: float, n_pairs: int) -> None:
        self.counts += torch.from_numpy(counts).to(self.counts.device)
        self.s1 += s1
        self.s2 += s2
        self.sa += sa
        self.n += n_pairs

    def mean_std(self) -> tuple[float, float]:
        mu = self.s1 / self.n
        return mu, math.sqrt(max(self.s2 / self.n - mu * mu, 0.0))


@dataclass
class _Rows:
    """The unit rows a pass visits, in group order, with the input index of each."""

    U: torch.Tensor
    row_index: np.ndarray
    n: int  # non-zero rows of the input
    n_zero: int
    sampled: bool
    group_bounds: list  # row ranges [g_k, g_k+1) of the sampling groups


def _select_rows(X: Any, sample: int | None, seed: int, groups: int, dev: torch.device, unit: bool = False) -> _Rows:
    t = as_matrix(X)
    if unit and sample is None:  # rows already of unit norm (a packing): used as they are
        U = t.to(device=dev, dtype=torch.float32)
        return _Rows(U, np.arange(U.shape[0]), int(U.shape[0]), 0, False, [0, int(U.shape[0])])
    if sample is not None and int(sample) < t.shape[0]:
        # sampled pass: find the non-zero rows from their norms only, and normalise just the sampled rows
        kept = kept_rows(t, dev)
        n = len(kept)
        if int(sample) < n:
            g = torch.Generator().manual_seed(int(seed))
            pick = torch.randperm(n, generator=g)[: int(sample)].sort().values
            pick = pick[torch.randperm(len(pick), generator=g)]  # group k owns a contiguous range
            row_index = kept[pick.numpy()]
            U = normalised(t[torch.from_numpy(row_index)], dev)[0]
            K = max(1, min(int(groups), int(sample) // 2))
            m = len(pick)
            return _Rows(U, row_index, n, int(t.shape[0]) - n, True, [round(k * m / K) for k in range(K + 1)])
    U, row_index, n_zero = normalised(t, dev)
    if U.shape[0] < 2:
        raise RepcapError(
            f"need at least two non-zero rows for pairwise cosines; got {U.shape[0]} ({n_zero} zero rows)"
        )
    return _Rows(U, row_index, int(U.shape[0]), n_zero, False, [0, int(U.shape[0])])


def _blocks(group_bounds: list, b: int) -> tuple[list[int], list[int]]:
    """Block boundaries (each group split into blocks of at most ``b`` rows) and each block's group."""
    bounds, block_group = [0], []
    for k in range(len(group_bounds) - 1):
        lo, hi = group_bounds[k], group_bounds[k + 1]
        nb = max(1, math.ceil((hi - lo) / b))
        for j in range(nb):
            bounds.append(lo + round((j + 1) * (hi - lo) / nb))
            block_group.append(k)
    return bounds, block_group


class _Pass:
    """Everything one pass accumulates, tile by tile."""

    def __init__(self, rows: _Rows, bins: int, thresholds: Sequence[float], top_k: int, dev: torch.device):
        m = int(rows.U.shape[0])
        self.bins = bins
        self.total = _Sums(bins, dev)
        self.groups = [_Sums(bins, dev) for _ in range(len(rows.group_bounds) - 1)] if rows.sampled else []
        self.thr = [float(t) for t in thresholds]
        probe = Histogram(np.zeros(bins))
        self.off_edge = {t: [0, 0] for t in self.thr if not probe.is_edge(t)}  # thresholds counted per tile
        self.max = MaxAbs()
        self.nn = NearestNeighbours(m, dev)
        self.top = TopPairs(top_k, dev)

    def add(self, T: torch.Tensor, r0: int, c0: int, diag: bool, same_group: int | None) -> None:
        """One tile ``T = U_r U_c^T``; on a diagonal tile (``diag``) every pair appears twice, as
        ``T[i, j]`` and ``T[j, i]`` (equal up to float32 rounding of the BLAS kernel), and is halved."""
        nr = T.shape[0]
        if diag and nr < 2:
            return
        s = tile_summary(T, diag, self.bins, list(self.off_edge))  # one fused read of the tile
        if s.raw_beyond:  # rounding of duplicate / opposite rows
            T.clamp_(-1.0, 1.0)
        if diag:
            T.fill_diagonal_(0.0)
        vals = T.reshape(-1)
        s1, s2 = float(vals.sum()), float(torch.dot(vals, vals))  # float32 sums per tile, float64 across
        w = 0.5 if diag else 1.0
        pairs = nr * (nr - 1) // 2 if diag else vals.numel()
        self.total.add(s.counts * w, s1 * w, s2 * w, s.sum_abs * w, pairs)
        if same_group is not None:
            self.groups[same_group].add(s.counts * w, s1 * w, s2 * w, s.sum_abs * w, pairs)
        for k, cnt in enumerate(self.off_edge.values()):
            cnt[0] += int(s.above[k, 0]) // (2 if diag else 1)
            cnt[1] += int(s.above[k, 1]) // (2 if diag else 1)
        self.max.update(s.vmin, s.vmax, s.argmin, s.argmax, r0, c0)
        self.nn.update(s.rmax, s.cmax, r0, c0)
        self.top.update(T, s.rmax, r0, c0, diag)

    def take(self, f: FusedPass) -> None:  # pragma: no cover (CUDA only; tests/unit: the kernel interpreted)
        """Everything a pass accumulates, from the fused kernel's one pass over all pairs."""
        self.total.counts = torch.from_numpy(f.counts).to(self.total.counts.device)
        self.total.s1, self.total.s2, self.total.sa, self.total.n = f.s1, f.s2, f.sa, f.n_pairs
        for k, cnt in enumerate(self.off_edge.values()):
            cnt[0], cnt[1] = int(f.above[k, 0]), int(f.above[k, 1])
        self.max.value, self.max.pair = f.max_abs, f.max_pair
        self.nn.cos = f.nn
        self.top.v, self.top.i, self.top.j = f.top_v, f.top_i, f.top_j

    def exceedances(self, h: Histogram) -> tuple[dict, dict]:
        n = self.total.n
        exceed, exceed_abs = {}, {}
        for t in self.thr:
            if t in self.off_edge:
                exceed[t], exceed_abs[t] = self.off_edge[t][0] / n, self.off_edge[t][1] / n
            else:
                above = h.count_above(t)
                below = h.total - h.count_above(-abs(t))  # values below -|t|
                exceed[t] = above / n
                exceed_abs[t] = (h.count_above(abs(t)) + below) / n if t >= 0 else 1.0
        return exceed, exceed_abs

    def sampling_error(self, quantiles: Sequence[float]) -> dict[str, float]:
        groups = [g for g in self.groups if g.n > 0]
        if len(groups) < 2:
            return {}
        est: dict[str, list[float]] = {"mean": [], "std": [], "eps": []}
        for g in groups:
            mu, sd = g.mean_std()
            est["mean"].append(mu)
            est["std"].append(sd)
            est["eps"].append(mu + 2 * sd)
        for q in quantiles:
            est[f"q{float(q)}"] = [Histogram(g.counts.cpu().numpy()).quantile(float(q)) for g in groups]
        out = {k: float(np.std(v, ddof=1) / math.sqrt(len(groups))) for k, v in est.items()}
        out["groups"] = float(len(groups))
        return out


def tiled_stats(
    X: Any,
    cfg: TiledConfig = DEFAULTS,
    *,
    device: str | torch.device = "auto",
    memory_budget: int | None = None,
    progress: bool = True,
    unit: bool = False,
) -> TiledStats:
    """One pass over the upper-triangle tiles of ``U U^T`` for ``X: (V, d)`` (see the module
    docstring) with the settings ``cfg`` (default :data:`DEFAULTS`): a histogram of ``cfg.bins``
    bins, the ``cfg.top_k`` most similar pairs, the exceedances at ``cfg.thresholds`` and the
    ``cfg.quantiles``.  With ``cfg.sample = m`` it visits all pairs among m rows drawn without
    replacement (seed ``cfg.seed``) and fills ``sampling_error`` from ``cfg.groups`` disjoint row
    groups.

    ``unit``: the rows are already unit vectors (a packing's), so they are used without being
    normalised again (no rounding of their last bit; the caller vouches for their norms).  The
    rest say how the pass runs: ``device``, ``memory_budget`` (bytes; sets the tile size, default
    from :func:`repcap.base.devices.memory_budget_bytes`) and ``progress`` (a bar over the tiles)."""
    from tqdm.auto import tqdm

    if not isinstance(cfg, TiledConfig):
        raise RepcapError(f"tiled_stats takes its settings as a TiledConfig, got {type(cfg).__name__}")
    dev = resolve_device(device)
    rows = _select_rows(X, cfg.sample, cfg.seed, cfg.groups, dev, unit)
    U = rounded(rows.U, cfg.precision)
    m, d = int(U.shape[0]), int(U.shape[1])
    acc = _Pass(rows, cfg.bins, cfg.thresholds, cfg.top_k, dev)
    if not rows.sampled and fused_usable(dev):  # pragma: no cover (CUDA only; tests/unit: the kernel interpreted)
        from .fused import fused_pass

        acc.take(fused_pass(U, cfg.bins, list(acc.off_edge), cfg.top_k, cfg.precision))
        return _result(acc, rows, d, cfg.quantiles)
    bounds, block_group = _blocks(rows.group_bounds, tile_size(d, m, memory_budget or memory_budget_bytes(dev), dev))
    nblk = len(block_group)
    bar = tqdm(
        total=nblk * (nblk + 1) // 2, desc="cosine tiles", unit="tile", disable=not show_progress(progress), leave=False
    )
    with torch.no_grad():
        for bi in range(nblk):
            A = U[bounds[bi] : bounds[bi + 1]]
            for bj in range(bi, nblk):
                T = A @ U[bounds[bj] : bounds[bj + 1]].T
                same = block_group[bi] if rows.sampled and block_group[bi] == block_group[bj] else None
                acc.add(T, bounds[bi], bounds[bj], bi == bj, same)
                del T
                bar.update(1)
    bar.close()
    return _result(acc, rows, d, cfg.quantiles)


def _result(acc: _Pass, rows: _Rows, d: int, quantiles: Sequence[float]) -> TiledStats:
    h = Histogram(acc.total.counts.cpu().numpy().round())
    mean, std = acc.total.mean_std()
    exceed, exceed_abs = acc.exceedances(h)
    ri = rows.row_index
    mi, mj = acc.max.pair
    return TiledStats(
        n_rows=rows.n,
        n_zero_rows=rows.n_zero,
        d=d,
        rows_used=int(rows.U.shape[0]),
        n_pairs=acc.total.n,
        sampled=rows.sampled,
        edges=h.edges,
        counts=h.counts.astype(np.int64),
        mean=mean,
        std=std,
        mean_sq=acc.total.s2 / acc.total.n,
        mean_abs=acc.total.sa / acc.total.n,
        max_abs=float(acc.max.value),
        max_abs_pair=tuple(sorted((int(ri[mi]), int(ri[mj])))),
        top_pairs=acc.top.pairs(ri),
        nn_cos=acc.nn.cos.cpu().numpy().astype(np.float64),
        row_index=np.asarray(ri),
        exceed=exceed,
        exceed_abs=exceed_abs,
        quantiles={float(q): h.quantile(float(q)) for q in quantiles},
        quantile_error=h.width,
        sampling_error=acc.sampling_error(quantiles) if rows.sampled else {},
    )


def batched_max_abs(U: torch.Tensor, tile: int = 2048) -> torch.Tensor:
    """Largest off-diagonal |cos| of each matrix of unit rows ``U: (B, n, d)`` -> ``(B,)``, tile by
    tile over row blocks (memory O(B * n * tile))."""
    B, n, _ = U.shape
    mx = torch.zeros(B, dtype=U.dtype, device=U.device)
    for j0 in range(0, n, tile):
        j1 = min(n, j0 + tile)
        G = U @ U[:, j0:j1].transpose(1, 2)  # (B, n, t)
        ar = torch.arange(j1 - j0, device=U.device)
        G[:, j0 + ar, ar] = 0.0
        mx = torch.maximum(mx, G.abs().amax(dim=(1, 2)))
    return mx
