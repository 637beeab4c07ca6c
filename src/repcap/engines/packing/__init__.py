"""Vector packing: optimise k unit vectors in R^d so that no two are nearly parallel.

References (facts in ``../shared/reference/README.md``):

* Guha 2026 (arXiv:2606.02765), Sec. 3.2-3.3, packing simulation: unit columns ``V in R^{d x k}``,
  loss ``sum_{i != j} |G_ij|^p`` on the column-normalised Gram ``G = V^T V``, Adam, 5000 steps,
  lr 0.005 (d <= 1024) else 0.0025, exponent ``p = min(floor(M / ln d), 20)`` with M = 40 if
  k <= 4000, else 50 if d >= 3072, else 60.  Random baseline: min over T trials of max |cos|.
* Yoder 2025 ("Beyond Orthogonality"): 3Blue1Brown's 10,000 vectors in R^100; the loss
  ``sum relu(|cos|)`` (gradient trap, "99% solution") against ``sum exp(beta cos^2)``, beta = 20,
  which reaches a worst-pair angle of about 76.5 degrees.
* Random projections of the N standard basis vectors of R^N into R^k (Johnson & Lindenstrauss 1984;
  Achlioptas 2003 for +-1 entries; Ailon & Chazelle 2009 for the subsampled randomised Hadamard
  transform), with the empirical constant ``C = eps^2 k / ln N``.

Shapes: a batch of B independent problems is ``V: (B, d, k)`` (columns are the vectors).  Data
flows one way through the modules:

* :mod:`repcap.engines.settings.packing` -- :class:`PackConfig` (every setting's default, help and check), Guha's rules;
* :mod:`.losses` -- the tiled loss and gradient (:func:`loss_and_grad`) and the dense reference;
* :mod:`.stats` -- :class:`PackingStats` (eps*, mean |cos|, the |cos| histogram), from the engine
  :mod:`repcap.engines.cosine`;
* :mod:`.optimiser` -- Adam over a batch of seeds, at a fixed rate or one decaying along a cosine
  (``lr_floor``) -> :class:`PackResult`;
* :mod:`.minimax` -- our method aimed at the worst pair: restarts, a continuation in the loss's
  sharpness and a minimax refinement by linear programming -> :class:`MinimaxResult`;
* :mod:`.baselines` -- random unit vectors and random projections;
* :mod:`.cost` -- the estimated time of a run, before it starts;
* :mod:`.points` -- the sweep functions of the chapters.
"""

from repcap.engines.settings.packing import (
    LOSSES,
    ORTHOGONAL_THRESHOLD,
    PARALLEL_THRESHOLDS,
    MinimaxConfig,
    PackConfig,
    guha_exponent,
    guha_lr,
    max_exp_beta,
)

from .baselines import projection_distortion, projection_matrix, random_eps_star, random_unit
from .cost import CostEstimate, estimate_cost
from .losses import TiledPackingLoss, default_block, default_tile, dense_loss, loss_and_grad, normalise
from .minimax import MinimaxResult, solve
from .optimiser import PackResult, optimise
from .points import packed_group, sweep_minimax, sweep_packed, sweep_projection, sweep_random
from .stats import PackingStats, coherence, max_abs_cos, pair_stats

__all__ = [
    "LOSSES",
    "ORTHOGONAL_THRESHOLD",
    "PARALLEL_THRESHOLDS",
    "CostEstimate",
    "MinimaxConfig",
    "MinimaxResult",
    "PackConfig",
    "PackResult",
    "PackingStats",
    "TiledPackingLoss",
    "coherence",
    "default_block",
    "default_tile",
    "dense_loss",
    "estimate_cost",
    "guha_exponent",
    "guha_lr",
    "loss_and_grad",
    "max_abs_cos",
    "max_exp_beta",
    "normalise",
    "optimise",
    "packed_group",
    "pair_stats",
    "projection_distortion",
    "projection_matrix",
    "random_eps_star",
    "random_unit",
    "solve",
    "sweep_minimax",
    "sweep_packed",
    "sweep_projection",
    "sweep_random",
]
