"""The cosine engine's numerics version (the pair statistics: exact moments, the tiled pass, its
kernels).

No point function belongs to this engine: its numbers reach points through the survey, packing and
toy engines, whose fingerprints run it end to end and whose versions move with it when its change
moves their fingerprints.  Its own fingerprints (``tests/fingerprints/cosine.json``) pin it on every
path (exact and tiled, the numba kernel and the torch one, float32 and float64 input).  Bump it in
the same commit as a change that moves them (``python tools/fingerprints.py --update cosine``).

History:

* ``cosine/1``: the engine at commit 12d7158 (identity keys introduced).
* ``cosine/2``: :func:`repcap.engines.cosine.moments` exact for a few rows: up to 2048 non-zero rows it sums
  the dense float64 cosine matrix in two passes instead of the d x d Gram's cancelling sums (two
  rows' variance was 3e-4 in float32, now 0; the survey had the same fix beside it, so no survey
  record moved).
"""

NUMERICS = "cosine/2"
