"""Vector packing: optimise k unit vectors in R^d so that no two are nearly parallel (Guha 2026, Yoder
2025: their settings in :mod:`.optimiser`); a batch of B problems is ``V: (B, d, k)``.  Data flows one
way: settings -> :mod:`.losses` -> :mod:`.stats` -> :mod:`.optimiser` (Adam) and :mod:`.minimax` (ours);
beside them :mod:`.baselines` (random), :mod:`.cost` (a run's time) and :mod:`.points` (sweeps)."""

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

__all__ = ["LOSSES", "ORTHOGONAL_THRESHOLD", "PARALLEL_THRESHOLDS", "CostEstimate", "MinimaxConfig"]
__all__ += ["MinimaxResult", "PackConfig", "PackResult", "PackingStats", "TiledPackingLoss", "coherence"]
__all__ += ["default_block", "default_tile", "dense_loss", "estimate_cost", "guha_exponent", "guha_lr"]
__all__ += ["loss_and_grad", "max_abs_cos", "max_exp_beta", "normalise", "optimise", "packed_group", "pair_stats"]
__all__ += ["projection_distortion", "projection_matrix", "random_eps_star", "random_unit", "solve"]
__all__ += ["sweep_minimax", "sweep_packed", "sweep_projection", "sweep_random"]
