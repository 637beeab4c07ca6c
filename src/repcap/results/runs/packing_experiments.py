"""The sets' packing experiments (:mod:`repcap.engines.packing`): Yoder 2025's runs, Guha 2026's
cells, Yoder's C curve, and our minimax method on the cells of chapters 06, 07 and 11.  Each
function gives its experiments at full or smoke scale; :mod:`.sets` puts them in a set's order."""

from __future__ import annotations

from collections.abc import Sequence

from repcap.base import quotes

from .cost import YODER_ANNEALED_STEPS, YODER_REFERENCE_STEPS
from .experiment import Experiment
from .points import (
    C_CURVE_DIMS,
    C_CURVE_EXTRA_SEEDS,
    C_CURVE_MAX_K,
    C_CURVE_RATIOS,
    C_CURVE_SEED_CELLS,
    C_CURVE_WIDE_CELLS,
    C_CURVE_WIDE_DIMS,
    FRONTIER_WIDE_CELLS,
    GUHA_EXTRA_SEEDS,
    GUHA_GPU_DIMS,
    GUHA_KS,
    GUHA_M60,
    GUHA_M60_KS,
    GUHA_SMALL_DIMS,
    GUHA_SMALL_KS,
    MINIMAX_LARGE,
    MINIMAX_WIDE,
    MINIMAX_YODER,
    YODER_LONG_LR,
    c_curve_points,
    c_curve_wide_points,
    frontier_cells,
    guha_point,
    minimax_point,
    yoder_point,
)
from .smoke_sizes import SMOKE_GUHA_DIMS, SMOKE_GUHA_KS, SMOKE_STEPS, SMOKE_YODER


def _packing(name: str, configs: Sequence[dict], cache: str, what: str) -> Experiment:
    """An experiment of packing runs (batched: runs of one shape share a batch)."""
    from repcap.engines.packing import packed_group, sweep_packed

    return Experiment(name, sweep_packed, tuple(configs), cache, what, batched=True, group_by=packed_group)


def _minimax(name: str, configs: Sequence[dict], cache: str, what: str) -> Experiment:
    from repcap.engines.packing import sweep_minimax

    return Experiment(name, sweep_minimax, tuple(configs), cache, what)


def _cheapest_first(cells: Sequence[dict]) -> list[dict]:
    """Guha's cells by their cost (a step costs about k^2 d): a run stopped early has the most cells."""
    return sorted(cells, key=lambda c: c["k"] ** 2 * c["d"])


def reference_yoder(smoke: bool) -> list[Experiment]:
    """The reference set's Yoder runs: his exp loss run until the worst angle flattens, his other two
    losses, and the exp run with an annealed rate."""
    if smoke:
        size, steps, annealed_steps = SMOKE_YODER, SMOKE_STEPS, SMOKE_STEPS
    else:
        size, steps, annealed_steps = {}, YODER_REFERENCE_STEPS, YODER_ANNEALED_STEPS
    return [
        _packing(
            "yoder",
            [yoder_point("exp", steps=steps, lr=YODER_LONG_LR, **size)],
            "packing-losses",
            "Yoder 2025: 10,000 unit vectors in R^100 under exp(20 cos^2), until the worst angle flattens",
        ),
        _packing(
            "yoder-losses",
            [yoder_point(loss, steps=steps, **size) for loss in ("power", "abs-relu")],
            "packing-losses",
            "Yoder 2025's problem at full size under the power and abs-relu losses (his 99% solution, the trap)",
        ),
        _packing(
            "yoder-annealed",
            [yoder_point("exp", steps=annealed_steps, **size) | {"lr_floor": 0.0}],
            "packing-losses",
            "Yoder 2025's exp(20 cos^2) run at full size with the rate decaying along a cosine to 0 "
            "(the fixed-rate run's noise floor taken away)",
        ),
    ]


def reference_guha(smoke: bool) -> list[Experiment]:
    """The reference set's Guha cells: his small cells, the k <= 4000 ones at M = 60 and at two more
    seeds (cheapest first at full scale)."""
    if smoke:
        cells = [(k, d) for d in SMOKE_GUHA_DIMS for k in SMOKE_GUHA_KS]
        guha = [guha_point(k, d, steps=SMOKE_STEPS) for k, d in cells]
        m60 = [guha_point(k, d, steps=SMOKE_STEPS, M=GUHA_M60) for k, d in cells]
        seeds = [
            guha_point(k, d, steps=SMOKE_STEPS, seed=s)
            for d in SMOKE_GUHA_DIMS
            for k in SMOKE_GUHA_KS[:1]
            for s in (1, 2)
        ]
    else:
        guha = _cheapest_first([guha_point(k, d) for d in GUHA_SMALL_DIMS for k in GUHA_SMALL_KS])
        m60 = _cheapest_first([guha_point(k, d, M=GUHA_M60) for d in GUHA_SMALL_DIMS for k in GUHA_M60_KS])
        seeds = sorted(
            (guha_point(k, d, seed=s) for d in GUHA_SMALL_DIMS for k in GUHA_M60_KS for s in GUHA_EXTRA_SEEDS),
            key=lambda c: (c["k"] ** 2 * c["d"], c["seed"]),
        )
    return [
        _packing(
            "guha-small",
            guha,
            "packing-grid",
            "Guha 2026: d in {32, 64, 128} x k in {2000, 4000, 8000}, 5000 Adam steps, his rules",
        ),
        _packing(
            "guha-m60",
            m60,
            "packing-grid",
            "Guha 2026's k <= 4000 cells again with the exponent rule's M = 60 (his code: M = 40)",
        ),
        _packing(
            "guha-seeds",
            seeds,
            "packing-grid",
            "Guha 2026's k <= 4000 cells again at seeds 1 and 2 (our addition): the run-to-run scatter of eps*, the "
            "yardstick against which a run of the same cell on another machine is compared",
        ),
    ]


def c_curve(smoke: bool) -> Experiment:
    """Yoder's C against N/k at small dimensions, Guha's settings."""
    if smoke:
        points = c_curve_points((2, 4), (4, 16), 64, steps=SMOKE_STEPS)
    else:
        points = c_curve_points(C_CURVE_DIMS, C_CURVE_RATIOS, C_CURVE_MAX_K)
    return _packing(
        "c-curve",
        points,
        "packing-grid",
        "Yoder 2025's C against N/k: k = ratio x d vectors in d = 2..16, Guha's settings",
    )


def c_curve_wide(smoke: bool) -> Experiment:
    """Issue 36: the C curve at more dimensions and one ratio further, so that each curve brackets its peak."""
    if smoke:
        points = c_curve_wide_points((3,), (4, 16), 64, ((128, 4),), steps=SMOKE_STEPS)
    else:
        points = c_curve_wide_points(C_CURVE_WIDE_DIMS, C_CURVE_RATIOS, C_CURVE_MAX_K, C_CURVE_WIDE_CELLS)
    return _packing(
        "c-curve-wide",
        points,
        "packing-grid",
        "Yoder 2025's C against N/k at more dimensions (5, 6, 12) and one ratio further at d = 8 and 16 "
        "(k = 8192), so that each dimension's curve brackets its peak",
    )


def c_curve_seeds(smoke: bool) -> Experiment:
    """Issue 46.2: the C curve's peak cell at two more seeds, the seed scatter of C against which the
    fall after the peak is judged (``yoder-C-peak``)."""
    cells = ((64, 4),) if smoke else C_CURVE_SEED_CELLS
    steps = {"steps": SMOKE_STEPS} if smoke else {}
    points = [guha_point(k, d, seed=s, **steps) for k, d in cells for s in C_CURVE_EXTRA_SEEDS]
    return _packing(
        "c-curve-seeds",
        points,
        "packing-grid",
        "Yoder 2025's C curve at its peak cell (k = 2048 vectors in R^8) at seeds 1 and 2: the seed scatter of C "
        "that the fall after the peak must exceed",
    )


def minimax(smoke: bool) -> list[Experiment]:
    """Issue 44: our minimax method on Sloane's cells (chapter 11), at Yoder's size (chapter 06) and
    on Guha's cells with k <= 4000 (chapter 07's refit of his law), cheapest first."""
    if smoke:
        cells = [(3, 4), (3, 6), (4, 8)]
        wide = [(4, 8)]
        yoder = [minimax_point(SMOKE_YODER["k"], SMOKE_YODER["d"], **(MINIMAX_LARGE | {"steps": SMOKE_STEPS}))]
        guha = [
            minimax_point(k, d, **(MINIMAX_LARGE | {"steps": SMOKE_STEPS}))
            for d in SMOKE_GUHA_DIMS
            for k in SMOKE_GUHA_KS
        ]
    else:
        cells = frontier_cells()
        wide = list(FRONTIER_WIDE_CELLS)
        yoder = [
            minimax_point(int(quotes.value("yoder2025.n_vectors")), int(quotes.value("yoder2025.dim")), **MINIMAX_YODER)
        ]
        guha = _cheapest_first([minimax_point(k, d, **MINIMAX_LARGE) for d in GUHA_SMALL_DIMS for k in GUHA_M60_KS])
    return [
        _minimax(
            "frontier-minimax",
            [minimax_point(n, d) for d, n in cells],
            "frontier-best-known",
            "our minimax method (32 restarts, a continuation in p, linear-programming refinement) on the cells of "
            "Sloane's table that chapter 11 samples",
        ),
        _minimax(
            "frontier-minimax-wide",
            [minimax_point(n, d, **MINIMAX_WIDE) for d, n in wide],
            "frontier-best-known",
            "our minimax method's wider setting (256 restarts) on the cells of frontier-minimax that it leaves more "
            "than 1% above the best known",
        ),
        _minimax(
            "yoder-minimax",
            yoder,
            "packing-losses",
            "our minimax method at Yoder 2025's size, 10,000 vectors in R^100 (one start, five sharpening stages of 200 steps)",
        ),
        _minimax(
            "guha-minimax",
            guha,
            "packing-grid",
            "our minimax method on Guha 2026's cells with k <= 4000 (d in {32, 64, 128}): his law refitted with the "
            "optimiser's slack taken out",
        ),
    ]


def paper_gpu_yoder(smoke: bool) -> Experiment:
    """The paper-gpu set's Yoder runs: chapter 06's three losses at full size, and the long exp run."""
    if smoke:
        size, steps, long_steps = SMOKE_YODER, SMOKE_STEPS, SMOKE_STEPS
    else:
        size, steps, long_steps = {}, int(quotes.value("guha2026.packing_steps")), 4 * YODER_REFERENCE_STEPS
    yoder = [yoder_point(loss, steps=steps, **size) for loss in ("abs-relu", "exp", "power")]
    yoder.append(yoder_point("exp", steps=long_steps, lr=YODER_LONG_LR, **size))
    return _packing(
        "yoder", yoder, "packing-losses", "Yoder 2025 at full size: chapter 06's three losses, and the long exp run"
    )


def paper_gpu_guha(smoke: bool) -> Experiment:
    """The paper-gpu set's Guha grid for d <= 512, cheapest cells on the GPU first."""
    from repcap.engines.packing import cost, estimate_cost

    if smoke:
        cells = [(k, d) for d in SMOKE_GUHA_DIMS for k in SMOKE_GUHA_KS]
        steps: int | None = SMOKE_STEPS
    else:
        cells = [(k, d) for d in GUHA_GPU_DIMS for k in GUHA_KS]
        steps = None

    def arithmetic(kd: tuple[int, int]) -> float:  # the GPU's step floor aside: the small cells tie at it
        F, R = cost.MATMUL_FLOPS["cuda"], cost.PAIRS_PER_SECOND["cuda"]
        return estimate_cost(kd[0], kd[1], 1, device="cuda", flops_per_second=F, pairs_per_second=R).seconds

    cells.sort(key=lambda kd: (estimate_cost(kd[0], kd[1], 1, device="cuda").seconds, arithmetic(kd)))
    return _packing(
        "guha-grid",
        [guha_point(k, d, steps=steps) for k, d in cells],
        "packing-grid",
        "Guha 2026's grid for d <= 512, 5000 Adam steps, cheapest cells first",
    )
