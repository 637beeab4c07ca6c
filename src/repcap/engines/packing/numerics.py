"""The packing engine's numerics version: the one declaration that a packing point's identity
carries (:mod:`repcap.sweep.keys`).

Bump it (``packing/N`` to ``packing/N+1``) in the same commit as any change that moves the packing
engine's fingerprints (``tests/fingerprints/packing.json``: the losses, the optimiser and its rate
schedule, the statistics, the random baselines and projections), and rewrite the table
(``python tools/fingerprints.py --update packing``).  The fingerprint test fails on a moved
fingerprint without a bump, and on a bump whose fingerprints did not move.  The cost model
(:mod:`repcap.engines.packing.cost`) is no part of it: it says how long a point takes, not what it is.

History:

* ``packing/1``: the engine that computed the 66 packing points of the ``reference`` bundle and the
  13 of ``paper-gpu`` (identity keys introduced; its code at commits 12d7158 and a57bd00 gives the
  same fingerprints).
"""

NUMERICS = "packing/1"

#: The minimax method's own numerics version (:mod:`repcap.engines.packing.minimax`, point function
#: ``packing.minimax``; fingerprints in ``tests/fingerprints/minimax.json``). It is separate from
#: :data:`NUMERICS` so that the method can change without staling the shipped Adam points.
#:
#: * ``minimax/1``: batch restarts, the continuation in p, the refinement by interior-point programs
#:   with a box, a stall stop and an iteration cap (first computed: the reference set's minimax runs).
MINIMAX = "minimax/1"
