"""Explicit line packings with a known coherence: what is *achievable*, next to the bounds of
:mod:`repcap.engines.bounds` (what no packing can beat) and the fitted laws of :mod:`repcap.engines.laws`
(what gradient descent finds).  Guha 2026 and Yoder 2025 both measure |cos|, so the classical problem
behind them is packing *lines* (antipodal spherical codes): the coherence of N unit vectors is
``mu = max_{i != j} |<v_i, v_j>|`` (the facts in ``../shared/reference/README.md``, "What is achievable").

* :mod:`.codes` -- :class:`Code`, the coherence of a set of vectors, the polytopes and root systems;
* :mod:`.algebraic` -- GF(2^m), Kerdock sets (real MUBs, d = 4^m) and dual BCH codes, their
  coherence from the codes' structure (or the Carlitz-Uchiyama bound);
* :mod:`.families` -- the catalogue of the book and :func:`largest_code`;
* :mod:`.table` -- the best-known packings of Sloane's and Cohn's tables (:func:`best_known`).

Each module's ``__all__`` is its public part; this face re-exports them all.
"""

from .algebraic import *  # noqa: F403
from .codes import *  # noqa: F403
from .families import *  # noqa: F403
from .table import *  # noqa: F403
