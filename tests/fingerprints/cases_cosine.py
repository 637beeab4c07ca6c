"""Fingerprint cases of the cosine engine (:mod:`repcap.engines.cosine`): the exact moments (float32 and
float64 compute precision; float32, float64, integer and tiny-valued input; zero rows dropped; a
matrix of more than one Gram chunk), the tiled pass on the numba kernel and on the torch path
(histogram, quantiles, max |cos|, top-k pairs, nearest neighbours, exceedances on and off the bin
edges, the row sample with its sampling error, unit rows taken as they are; the products' inputs
rounded to tf32 and bf16), one tile's summary on
both paths, the row helpers, :class:`~repcap.engines.cosine.Histogram`, ``batched_max_abs`` and
``mean_sq_offdiag``.

No point function belongs to this engine (its numbers reach points through the survey, packing and
toy engines), so every case is a ``run`` case on matrices drawn here from fixed seeds.  Fractions of
pairs above a threshold are given as pair counts (``n_above``), which the harness compares as
counts, one pair either way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from harness import Case

#: Thresholds of the tiled cases: on a bin edge of 40 bins (0.1, 0.5), off every edge (0.33, 0.07),
#: and negative (-0.2).
_THRESHOLDS = (0.1, 0.33, 0.5, -0.2, 0.07)
_QUANTILES = (0.0, 0.1, 0.5, 0.9, 0.99, 1.0)
#: A memory budget that gives 64-row tiles (the smallest), so a few hundred rows make many tiles.
_SMALL_TILES = 16 * 64 * 64


def _matrix(V: int, d: int, seed: int, mean: float = 0.3):
    """``(V, d)`` float64 rows: Gaussian plus a common direction of weight ``mean``, rows rescaled
    over two orders of magnitude (a cosine ignores the scale; the normalisation does not)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    c = rng.standard_normal(d)
    X = rng.standard_normal((V, d)) + 2.0 * mean * c * np.sqrt(d) / np.linalg.norm(c)
    return X * np.exp(rng.uniform(-2.0, 2.0, size=(V, 1)))


def _with_zero_rows(X):
    """``X`` with rows 0, 7 and the last set to zero (dropped and counted by the engine)."""
    X = X.copy()
    X[[0, 7, -1]] = 0.0
    return X


@contextlib.contextmanager
def _torch_path() -> Iterator[None]:
    """The tiled pass on the torch path on the CPU: :func:`repcap.engines.cosine.kernels.tile_summary`
    takes the numba kernel where numba is installed and the tile is a CPU float32 one (every CPU
    tile of the pass), so the torch path is forced by saying numba is absent."""
    from repcap.engines.cosine import kernels

    before = kernels.HAVE_NUMBA
    kernels.HAVE_NUMBA = False
    try:
        yield
    finally:
        kernels.HAVE_NUMBA = before


def _tiled_values(t) -> dict:
    """Every number of a :class:`~repcap.engines.cosine.TiledStats`, exceedance fractions as pair counts."""
    out = t.to_dict(full=True)
    for key in ("exceed", "exceed_abs", "edges", "bin_width", "quantile_error"):
        out.pop(key)
    out["n_above"] = {str(k): round(v * t.n_pairs) for k, v in t.exceed.items()}
    out["n_above_abs"] = {str(k): round(v * t.n_pairs) for k, v in t.exceed_abs.items()}
    out["quantiles_abs"] = {str(q): t.quantile(q, absolute=True) for q in t.quantiles}
    nn = out.pop("nn_cos")
    out["nn_cos"] = {"head": nn[:12], "sum": float(t.nn_cos.sum()), "sum_sq": float((t.nn_cos**2).sum())}
    out["row_index_sum"] = int(t.row_index.sum())
    out["bin_width"], out["quantile_error"] = t.bin_width, t.quantile_error
    return out


def _tiled() -> dict:
    """The tiled pass over float32 rows with zero rows (many 64-row tiles; thresholds on and off
    the bin edges and negative), float64 rows, a tensor in one tile, a row sample (four groups, one
    group, more rows than there are), unit rows taken as they are (clamped), and no top pairs."""
    import numpy as np
    import torch

    from repcap.engines.cosine import TiledConfig, tiled_stats

    def ts(X, memory_budget=None, unit=False, **settings):
        return tiled_stats(
            X, TiledConfig(**settings), device="cpu", progress=False, memory_budget=memory_budget, unit=unit
        )

    X = _with_zero_rows(_matrix(300, 16, seed=1))
    X32 = X.astype(np.float32)
    Y = _matrix(90, 6, seed=2, mean=0.0)
    # unit rows taken as they are (``unit=True``), two of them duplicated at 1.001 their length: their
    # cosine 1.002 lies outside [-1, 1] and is clamped (the pass's guard against float32 rounding)
    U = torch.from_numpy((Y / np.linalg.norm(Y, axis=1, keepdims=True)).astype(np.float32))
    U[5] = U[4] * 1.001
    U[60] = -U[4] * 1.001
    runs = {
        "f32": ts(
            X32,
            bins=40,
            top_k=6,
            thresholds=_THRESHOLDS,
            quantiles=_QUANTILES,
            memory_budget=_SMALL_TILES,
        ),
        "f64": ts(X, bins=200, top_k=3, thresholds=(0.2, 0.55), quantiles=(0.5, 0.95)),
        "tensor-one-tile": ts(torch.from_numpy(X32), bins=40, top_k=4),
        "sample": ts(
            X32,
            bins=40,
            top_k=5,
            thresholds=_THRESHOLDS,
            sample=150,
            groups=4,
            seed=2,
            memory_budget=_SMALL_TILES,
        ),
        # one group: no sampling error
        "sample-one-group": ts(X32, bins=40, top_k=2, sample=80, groups=1, seed=5),
        "sample-all-rows": ts(X32, bins=40, top_k=2, sample=299),  # more than the 297 non-zero
        "unit-clamped": ts(U, bins=20, top_k=3, thresholds=(0.3, 0.95), unit=True),
        "no-top-k": ts(Y, bins=20, top_k=0, quantiles=(0.5,), memory_budget=_SMALL_TILES),
    }
    return {k: _tiled_values(v) for k, v in runs.items()}


def _tiled_precision() -> dict:
    """The tiled pass with the products' inputs rounded to tf32 and to bf16 (``TiledConfig.precision``):
    the CPU's emulation of a GPU's tensor-core inputs, the numba kernel on the rounded rows."""
    import numpy as np

    from repcap.engines.cosine import TiledConfig, tiled_stats

    X32 = _with_zero_rows(_matrix(300, 16, seed=1)).astype(np.float32)
    out = {}
    for precision in ("tf32", "bf16"):
        cfg = TiledConfig(bins=40, top_k=6, thresholds=_THRESHOLDS, quantiles=_QUANTILES, precision=precision)
        out[precision] = _tiled_values(tiled_stats(X32, cfg, device="cpu", progress=False, memory_budget=_SMALL_TILES))
    return out


def _tiled_torch() -> dict:
    """:func:`_tiled` with every tile summarised by the torch ops (the GPU's path) on the CPU."""
    with _torch_path():
        return _tiled()


def _tile_summary() -> dict:
    """One tile's summary on the numba kernel and on the torch ops, a diagonal and an off-diagonal
    tile holding values beyond [-1, 1], ties of the extremes, and thresholds."""
    import numpy as np
    import torch

    from repcap.engines.cosine import kernels

    rng = np.random.default_rng(4)
    T = torch.from_numpy(rng.uniform(-1.0, 1.0, size=(37, 23)).astype(np.float32))
    T[3, 4], T[10, 2], T[20, 7] = 1.0000002, -1.0000005, 1.0  # beyond and at the ends
    S = T[:23].clone()
    S = (S + S.T) / 2  # a diagonal tile: symmetric
    out = {}
    for label, fn in (("numba", kernels.tile_summary), ("torch", kernels.tile_summary_torch)):
        for diag, tile in ((False, T), (True, S)):
            s = fn(tile.clone(), diag, 16, [0.3, -0.45, 0.9])
            out[f"{label}-{'diag' if diag else 'off'}"] = {
                "counts": s.counts,
                "rmax": s.rmax,
                "cmax": s.cmax,
                "vmin": s.vmin,
                "vmax": s.vmax,
                "raw_beyond": s.raw_beyond,
                "argmin": s.argmin,
                "argmax": s.argmax,
                "sum_abs": s.sum_abs,
                "n_above": s.above,
            }
    # a float64 tile goes to the torch ops whatever is installed
    s = kernels.tile_summary(T.double(), False, 16, [0.5])
    out["float64"] = {"counts": s.counts, "sum_abs": s.sum_abs, "vmax": s.vmax, "argmax": s.argmax}
    return out


def _moments() -> dict:
    """Exact moments: float32 and float64 compute precision on float32, float64, integer and
    tiny-valued input with zero rows, and a matrix of more than one Gram chunk."""
    import numpy as np

    from repcap.engines.cosine import GRAM_CHUNK_ROWS, moments

    X = _with_zero_rows(_matrix(500, 24, seed=3))
    rng = np.random.default_rng(5)
    ints = rng.integers(-50, 50, size=(200, 12)).astype(np.int16)
    ints[3] = 0
    tiny = (_matrix(150, 8, seed=6) * 1e-36).astype(np.float32)  # float32 norms below 1e-30
    big = _matrix(GRAM_CHUNK_ROWS + 1500, 6, seed=7).astype(np.float32)  # two chunks
    inputs = {"f32": X.astype(np.float32), "f64": X, "int16": ints, "tiny": tiny, "two-chunks": big}
    out = {}
    for name, M in inputs.items():
        for compute in ("float32", "float64"):
            if name == "two-chunks" and compute == "float64":
                continue
            out[f"{name}-{compute}"] = moments(M, device="cpu", compute=compute).to_dict()
    return out


def _few_rows() -> dict:
    """Exact moments of matrices of a few rows (2 and 3 rows; two identical rows; a zero row among
    three; 17 rows), where the d x d Gram's sums cancel most: the variance of two rows' one cosine
    is 0, whatever float32 makes of ``||U^T U||_F^2 - n``."""
    import numpy as np

    from repcap.engines.cosine import moments

    base = _matrix(17, 300, seed=13)
    cases = {
        "two": base[:2],
        "three": base[:3],
        "twins": np.vstack([base[:1], base[:1]]),
        "zero-among-three": np.vstack([base[:1], np.zeros((1, 300)), base[1:2]]),
        "seventeen": base,
    }
    out = {}
    for name, M in cases.items():
        for compute in ("float32", "float64"):
            out[f"{name}-{compute}"] = moments(M.astype(np.float32), device="cpu", compute=compute).to_dict()
    return out


def _rows() -> dict:
    """The row helpers: unit rows (float32 and float64 out) with the input index of each row kept,
    the non-zero rows from norms only, and a batch's unit rows under a norm floor."""
    import numpy as np
    import torch

    from repcap.engines.cosine import as_matrix, normalised, unit_batch
    from repcap.engines.cosine.rows import kept_rows

    X = _with_zero_rows(_matrix(40, 5, seed=8))
    cpu = torch.device("cpu")
    U32, idx32, z32 = normalised(X.astype(np.float32), cpu)
    U64, idx64, z64 = normalised(X, cpu, torch.float64)
    W = torch.from_numpy(_matrix(24, 4, seed=9)).reshape(2, 12, 4)
    W[0, :3] *= 1e-3  # below the floor
    W[1, 5] = 0.0
    Ub, keep = unit_batch(W, min_norm=0.05)
    return {
        "f32": {"U": U32.double(), "index": idx32, "zero": z32},
        "f64": {"U_sum": U64.sum(dim=0), "norms": U64.norm(dim=1), "index": idx64, "zero": z64},
        "kept": kept_rows(X, cpu),
        "as_matrix_shape": list(as_matrix(np.arange(12, dtype=np.int32).reshape(3, 4)).shape),
        "batch": {"U": Ub, "keep": keep},
    }


def _histogram() -> dict:
    """:class:`~repcap.engines.cosine.Histogram`: built from values (clipped or not), merged, folded, and
    read off (quantiles, fractions, counts above an edge, density); an empty one; the tile counts."""
    import numpy as np
    import torch

    from repcap.engines.cosine import Histogram, bin_index, tile_counts
    from repcap.engines.cosine.histogram import quantiles

    rng = np.random.default_rng(10)
    vals = np.concatenate([rng.normal(0.9, 0.4, 500), [-0.5, 2.5, 3.0]])
    h = Histogram.of(vals, bins=20, lo=0.0, hi=2.0)
    unclipped = Histogram.of(vals, bins=20, lo=0.0, hi=2.0, clip=False)
    sym = Histogram(np.arange(1.0, 13.0) ** 2, -1.0, 1.0)
    folded = sym.folded()
    empty = Histogram(np.zeros(4))
    t = torch.from_numpy(rng.uniform(-1.0, 1.0, 300).astype(np.float32))
    t[0], t[1] = 1.0, -1.0
    return {
        "counts": h.counts,
        "unclipped": unclipped.counts,
        "centres": h.centres,
        "width": h.width,
        "total": h.total,
        "density": h.density(),
        "rebin": h.rebin(4).counts,
        "folded": folded.counts,
        "folded_hi": folded.hi,
        "quantiles": [h.quantile(q) for q in (0.0, 0.05, 0.5, 0.77, 1.0)],
        "quantiles_sym": quantiles(sym, (0.25, 0.5, 0.75)),
        "fraction_below": [h.fraction_below(x) for x in (-1.0, 0.0, 0.33, 1.0, 1.95, 2.0, 5.0)],
        "n_above": [h.count_above(x) for x in (0.0, 0.5, 1.9)],
        "is_edge": [h.is_edge(x) for x in (0.3, 0.35)],
        "empty": {"quantile": empty.quantile(0.5), "fraction": empty.fraction_below(0.0), "density": empty.density()},
        "bin_index": bin_index(t, 16),
        "tile_counts": tile_counts(t, 16),
        "tile_counts_range": tile_counts(t.abs(), 10, 0.0, 1.0),
    }


def _batched() -> dict:
    """The largest off-diagonal |cos| of a batch (row blocks smaller than the rows, float32 and
    float64), and the batched mean cos^2 with a norm floor (one matrix left with one row: NaN)."""
    import torch

    from repcap.engines.cosine import batched_max_abs, mean_sq_offdiag
    from repcap.engines.cosine.rows import unit_batch

    W = torch.from_numpy(_matrix(150, 8, seed=11)).reshape(3, 50, 8)
    U, _ = unit_batch(W)
    W2 = W.clone()
    W2[2, 1:] *= 1e-4  # under the floor but one row
    return {
        "max_abs_f64": batched_max_abs(U, tile=16),
        "max_abs_f32": batched_max_abs(U.float(), tile=50),
        "max_abs_one_tile": batched_max_abs(U),
        "mean_sq": mean_sq_offdiag(W),
        "mean_sq_floor": mean_sq_offdiag(W2, min_norm=0.01),
        "mean_sq_f32": mean_sq_offdiag(W.float()),
    }


def _tile_sizes() -> list:
    """Rows per tile from the memory budget (capped on the CPU, not on a GPU)."""
    import torch

    from repcap.engines.cosine import tile_size

    cpu, gpu = torch.device("cpu"), torch.device("cuda")  # a device name: nothing runs on it
    return [
        tile_size(16, 100_000, 1 << 30, cpu),
        tile_size(16, 100_000, 1 << 30, None),
        tile_size(16, 100_000, 1 << 30, gpu),
        tile_size(16, 100_000, 1 << 12, cpu),
        tile_size(16, 500, 1 << 30, gpu),
    ]


CASES = [
    Case("cosine", "moments", run=_moments),
    Case("cosine", "few-rows", run=_few_rows),
    Case("cosine", "tiled-numba", run=_tiled),
    Case("cosine", "tiled-torch", run=_tiled_torch),
    Case("cosine", "tiled-precision", run=_tiled_precision),
    Case("cosine", "tile-summary", run=_tile_summary),
    Case("cosine", "rows", run=_rows),
    Case("cosine", "histogram", run=_histogram),
    Case("cosine", "batched", run=_batched),
    Case("cosine", "tile-sizes", run=_tile_sizes),
]
