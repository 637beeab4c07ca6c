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

from .histogram import *  # noqa: F403  (each module's __all__: the engine's public names)
from .moments import *  # noqa: F403
from .rows import *  # noqa: F403
from .tiled import *  # noqa: F403
