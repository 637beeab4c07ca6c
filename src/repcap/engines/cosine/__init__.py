"""Statistics over the pairs of unit vectors: the one engine behind every cosine number of the book.

Reference: Guha 2026 (arXiv:2606.02765), Sec. 2.4: eps = mu + 2 sigma of the cosine similarity over
all pairs i < j of the (non-zero) token rows, no centring.  The engine works on rows, ``X: (V, d)``
(or a batch ``(B, n, d)``), on the CPU or CUDA from one code path, and imports no loader, law or
catalog: it is handed a matrix and returns numbers.

* :mod:`.rows` -- unit rows (float64 norms, zero rows dropped and counted, NaN/inf refused);
* :mod:`.moments` -- exact moments over all pairs from the d x d Gram, O(V d^2) (a few rows: from
  the dense float64 cosine matrix);
* :mod:`.histogram` -- the fixed-bin :class:`Histogram` and what is read off it;
* :mod:`.extremes` -- max |cos|, top-k pairs, nearest neighbours, tile by tile;
* :mod:`.tiled` -- one tiled pass over the pairs composing the above, optionally on a row sample
  with its sampling error.
"""

from .histogram import Histogram, bin_index, tile_counts
from .moments import CosineMoments, mean_sq_offdiag, moments
from .rows import GRAM_CHUNK_ROWS, as_matrix, normalised, unit_batch
from .tiled import CPU_MAX_TILE, DEFAULTS, TiledConfig, TiledStats, batched_max_abs, tile_size, tiled_stats

__all__ = [
    "CPU_MAX_TILE",
    "DEFAULTS",
    "GRAM_CHUNK_ROWS",
    "CosineMoments",
    "Histogram",
    "TiledConfig",
    "TiledStats",
    "as_matrix",
    "batched_max_abs",
    "bin_index",
    "mean_sq_offdiag",
    "moments",
    "normalised",
    "tile_counts",
    "tile_size",
    "tiled_stats",
    "unit_batch",
]
