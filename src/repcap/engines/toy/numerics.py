"""The toy engine's numerics version: the one declaration that a toy point's identity carries
(:mod:`repcap.sweep.keys`).

Bump it (``toy/N`` to ``toy/N+1``) in the same commit as any change that moves the toy engine's
fingerprints (``tests/fingerprints/toy.json``: the trainer, the samplers, the optimiser, the
schedules, the measurements, the overlaps), and rewrite the table
(``python tools/fingerprints.py --update toy``).  The fingerprint test fails on a moved fingerprint
without a bump, and on a bump whose fingerprints did not move.  A bump makes exactly the toy points
stale; an edit that leaves the fingerprints where they were (a refactor, a help text, a cost
estimate) makes none.

History:

* ``toy/1``: the engine that computed the 282 toy points of the ``reference`` bundle (identity keys
  introduced; its code at commit 12d7158 gives the same fingerprints).
"""

NUMERICS = "toy/1"
