"""The named point sets, ``reference`` and ``paper-gpu``, at full and smoke scale; the profile a
set's findings are recorded under.

Sets (sources' settings: ``../shared/reference/README.md``; published numbers are read from
``data/reference`` through :mod:`repcap.evidence.reference`, never retyped):

* ``reference`` -- what 2 CPU cores afford, computed once and shipped as a bundle: Yoder 2025's
  10,000 vectors in R^100 under ``exp(20 cos^2)`` at full size (4000 Adam steps: 56 min measured
  on the 2-core development machine, with other work on it); Guha 2026's small cells (d in
  {32, 64, 128} x k in {2000, 4000, 8000}, 5000 Adam steps, his exponent and learning-rate rules),
  cheapest first: the seven up to k = 8000, d = 32 took 46 min there, and the last two (k = 8000
  at d = 64 and 128) took 37 and 35 min on 2 threads; and the Liu, Liu & Gore 2025 toy models at the
  main-sweep settings, in width sweeps and extra seeds (about 16 of the set's 22.5 hours of computing, by the
  bundle's provenance).  Guha's 5000 steps are his, so the set cannot be cut short without leaving
  his settings.
* ``paper-gpu`` -- one H200: Yoder's run (chapter 06's three losses at full size, and the long exp
  run), the alpha x gamma grid of Liu's Fig. 3 at m = 25, their n = 1000 main sweep (m in
  {10..100}, gamma in linspace(-1, 1, 10), alpha in 0..2 step 0.125), and Guha's grid for d <= 512
  (k in 2000..32000 step 2000), cheapest cells first.  Measured on one H200 (2026-12-04,
  ``tools/gpu_session.sh``): Yoder's four runs took 132 s; the Fig. 3 map is about 5 minutes and
  the main sweep about half an hour (the toy trainer's dense path at about 85 us per model step,
  :data:`repcap.results.runs.cost.TOY_SECONDS_PER_MODEL_STEP`); the grid's nine cheapest cells took 8-10 s
  each, and the whole grid is hours (:mod:`repcap.engines.packing.cost`, ``6 k^2 d`` flops per step, k up to
  32000), so ``make paper-gpu`` runs under a time budget and a re-run resumes.

Every set has a ``scale="smoke"`` variant that shrinks every size so it runs in seconds on a CPU.

Configs are spelled as the chapters spell theirs (chapter 06 for Yoder's run, 07 for Guha's grid,
08/09 through :func:`repcap.engines.toy.sweep_config`), so that a bundle imported before the book makes
the chapters' points cache hits: a key covers the config as written.
"""

from __future__ import annotations

from collections.abc import Sequence

from repcap import RepcapError
from repcap.base import quotes

from .cost import REFERENCE_TOY_BUDGET_S, YODER_ANNEALED_STEPS, YODER_REFERENCE_STEPS
from .experiment import Experiment, PointSet
from .points import (
    C_CURVE_DIMS,
    C_CURVE_MAX_K,
    C_CURVE_RATIOS,
    C_CURVE_WIDE_CELLS,
    C_CURVE_WIDE_DIMS,
    GUHA_EXTRA_SEEDS,
    GUHA_GPU_DIMS,
    GUHA_KS,
    GUHA_M60,
    GUHA_M60_KS,
    GUHA_SMALL_DIMS,
    GUHA_SMALL_KS,
    LIU_ALPHAS,
    LIU_EXTRA_SEEDS,
    LIU_FIG3_M,
    LIU_FIG6E_STRONG_GAMMAS,
    LIU_FIG6E_WEAK_GAMMA,
    LIU_GAMMAS,
    LIU_MS,
    LIU_WIDTH_ALPHAS,
    MINIMAX_LARGE,
    MINIMAX_YODER,
    YODER_LONG_LR,
    c_curve_points,
    c_curve_wide_points,
    frontier_cells,
    guha_point,
    liu_point,
    liu_reference_points,
    minimax_point,
    yoder_point,
)

SCALES = ("full", "smoke")


def _packing(name: str, configs: Sequence[dict], cache: str, what: str) -> Experiment:
    from repcap.engines.packing import packed_group, sweep_packed

    return Experiment(name, sweep_packed, tuple(configs), cache, what, batched=True, group_by=packed_group)


def _minimax(name: str, configs: Sequence[dict], cache: str, what: str) -> Experiment:
    from repcap.engines.packing import sweep_minimax

    return Experiment(name, sweep_minimax, tuple(configs), cache, what)


def _minimax_sets(smoke: bool) -> list[Experiment]:
    """Issue 44: our minimax method on Sloane's cells (chapter 11), at Yoder's size (chapter 06) and
    on Guha's cells with k <= 4000 (chapter 07's refit of his law), cheapest first."""
    if smoke:
        cells = [(3, 4), (3, 6), (4, 8)]
        yoder = [minimax_point(_SMOKE_YODER["k"], _SMOKE_YODER["d"], **(MINIMAX_LARGE | {"steps": _SMOKE_STEPS}))]
        guha = [
            minimax_point(k, d, **(MINIMAX_LARGE | {"steps": _SMOKE_STEPS}))
            for d in _SMOKE_GUHA_DIMS
            for k in _SMOKE_GUHA_KS
        ]
    else:
        cells = frontier_cells()
        yoder = [
            minimax_point(int(quotes.value("yoder2025.n_vectors")), int(quotes.value("yoder2025.dim")), **MINIMAX_YODER)
        ]
        guha = sorted(
            (minimax_point(k, d, **MINIMAX_LARGE) for d in GUHA_SMALL_DIMS for k in GUHA_M60_KS),
            key=lambda c: c["k"] ** 2 * c["d"],
        )
    return [
        _minimax(
            "frontier-minimax",
            [minimax_point(n, d) for d, n in cells],
            "frontier-best-known",
            "our minimax method (32 restarts, a continuation in p, linear-programming refinement) on the cells of "
            "Sloane's table that chapter 11 samples",
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


def _toy(name: str, configs: Sequence[dict], what: str, keep_large: bool) -> Experiment:
    from repcap.engines.toy import group_key, train_points

    return Experiment(
        name, train_points, tuple(configs), "toy", what, batched=True, group_by=group_key, keep_large=keep_large
    )


#: Sizes of the smoke variants: every set in seconds on a CPU.
_SMOKE_YODER: dict[str, int] = {"k": 300, "d": 12}
_SMOKE_STEPS = 15
_SMOKE_GUHA_KS, _SMOKE_GUHA_DIMS = (60, 120), (8, 16)
_SMOKE_TOY: dict[str, int] = {"n": 24, "steps": 12, "batch": 16}
_SMOKE_MS: tuple[int, ...] = (3, 6)
_SMOKE_REFERENCE_MS: tuple[int, ...] = (3, 6, 12)  # three widths: a chapter can fit an exponent to them
_SMOKE_ALPHAS: tuple[float, ...] = (0.5, 1.5)
_SMOKE_GAMMAS: tuple[float, ...] = (-1.0, 0.3333)


def _liu_width_sweeps(
    ms: Sequence[int],
    alphas: Sequence[float],
    toy_kw: dict,
    seeds: Sequence[int] = LIU_EXTRA_SEEDS,
    seed_gammas: Sequence[float] | None = None,
) -> list[Experiment]:
    """The reference set's Liu et al. width sweeps (issue: reference runs with power): for each alpha
    the three strong-regime gammas that Fig. 6e plots, then the weak series, gamma = -1, extra seeds
    for alpha = 1 and 1.5, and a frequency law that is not a power law (their Fig. 1b's contrast)."""
    from repcap.engines.toy import group_key
    from repcap.engines.toy.overlaps import overlap_points

    strong, weak = LIU_FIG6E_STRONG_GAMMAS, LIU_FIG6E_WEAK_GAMMA
    out = []
    for a in alphas:
        pts = [liu_point(m, a, g, **toy_kw) for m in ms for g in strong]
        out.append(
            _toy(
                f"liu-strong-a{a:g}".replace(".", ""),
                pts,
                f"Liu et al. 2025 Fig. 6e: widths at alpha = {a:g}, gamma of its three strong series",
                True,
            )
        )
    out.append(
        _toy(
            "liu-weak",
            [liu_point(m, a, weak, **toy_kw) for a in alphas for m in ms],
            "Liu et al. 2025 Fig. 6e's weak series (gamma = 0.3333): every width and alpha",
            True,
        )
    )
    out.append(
        _toy(
            "liu-gamma-1",
            [liu_point(m, a, -1.0, **toy_kw) for a in alphas for m in ms],
            "gamma = -1 (the exp-17 setting, no series of its own in Fig. 6e): every width and alpha",
            True,
        )
    )
    extra = [
        liu_point(m, a, g, seed=s, **toy_kw)
        for s in seeds
        for a in alphas[:2]
        for g in ((*strong, weak, -1.0) if seed_gammas is None else seed_gammas)
        for m in ms
    ]
    # experiments ordered by what their points decide (a sweep runs width by width, so a run cut
    # short of the rest loses nothing): each seeded alpha's strong series (Fig. 6e's rows, judged on
    # the seeds' mean), then the weak series (liu-weak-exponent), then gamma = -1 (no row of its own)
    seeded = ", ".join(map(str, seeds))
    for a in alphas[:2]:
        pts = [c for c in extra if c["alpha"] == a and c["gamma"] in strong]
        if pts:
            out.append(
                _toy(
                    f"liu-seeds-a{a:g}".replace(".", ""),
                    pts,
                    f"seeds {seeded} for alpha = {a:g} at the three plotted strong gammas",
                    True,
                )
            )
    weak_seeds = [c for c in extra if c["gamma"] == weak]
    if weak_seeds:
        out.append(
            _toy(
                "liu-seeds-weak",
                weak_seeds,
                f"seeds {seeded} for alpha = {' and '.join(f'{a:g}' for a in alphas[:2])} at the weak gamma",
                True,
            )
        )
    # the weak exponent row (liu-weak-exponent) averages alpha > 1: the steeper alphas' weak series
    # get the same seeds, so that every alpha it averages is judged on a seed mean
    steep = [a for a in alphas[2:] if a > 1]
    steep_weak = [liu_point(m, a, weak, seed=s, **toy_kw) for s in seeds for a in steep for m in ms]
    if steep_weak:
        out.append(
            _toy(
                "liu-seeds-weak-" + "-".join(f"a{a:g}".replace(".", "") for a in steep),
                steep_weak,
                f"seeds {seeded} for alpha = {' and '.join(f'{a:g}' for a in steep)} at the weak gamma "
                "(the other alpha that the weak exponent row averages)",
                True,
            )
        )
    taken = [c for c in extra if c["gamma"] in strong or c["gamma"] == weak]
    out.append(
        _toy(
            "liu-seeds",
            [c for c in extra if c not in taken],
            f"seeds {seeded} for alpha = {' and '.join(f'{a:g}' for a in alphas[:2])} at every other gamma and width",
            True,
        )
    )
    out.append(
        Experiment(
            "liu-overlap",
            overlap_points,
            tuple(liu_point(m, alphas[0], strong[0], **toy_kw) for m in ms),
            "toy-overlaps",
            f"Liu et al. 2025 Fig. 6d's overlap: the alpha = {alphas[0]:g}, gamma = {strong[0]:+.4f} models retrained, "
            "their mean square overlap under each candidate definition",
            batched=True,
            group_by=group_key,
        )
    )
    contrast = [liu_point(m, 1.0, g, distribution="exp", **toy_kw) for g in (-1.0, weak) for m in ms]
    out.append(
        _toy("liu-contrast", contrast, "Liu et al. 2025 Fig. 1b's idea: exp(-i/tau) frequencies, not a power law", True)
    )
    return out


def _reference(scale: str, toy_budget_s: float | None, toy_seconds_per_model_step: float | None) -> PointSet:
    smoke = scale == "smoke"
    if smoke:
        yoder = [yoder_point("exp", steps=_SMOKE_STEPS, lr=YODER_LONG_LR, **_SMOKE_YODER)]
        yoder_losses = [yoder_point(loss, steps=_SMOKE_STEPS, **_SMOKE_YODER) for loss in ("power", "abs-relu")]
        annealed = [yoder_point("exp", steps=_SMOKE_STEPS, **_SMOKE_YODER) | {"lr_floor": 0.0}]
        guha = [guha_point(k, d, steps=_SMOKE_STEPS) for d in _SMOKE_GUHA_DIMS for k in _SMOKE_GUHA_KS]
        m60 = [guha_point(k, d, steps=_SMOKE_STEPS, M=GUHA_M60) for d in _SMOKE_GUHA_DIMS for k in _SMOKE_GUHA_KS]
        guha_seeds = [
            guha_point(k, d, steps=_SMOKE_STEPS, seed=s)
            for d in _SMOKE_GUHA_DIMS
            for k in _SMOKE_GUHA_KS[:1]
            for s in (1, 2)
        ]
        c_curve = c_curve_points((2, 4), (4, 16), 64, steps=_SMOKE_STEPS)
        c_wide = c_curve_wide_points((3,), (4, 16), 64, ((128, 4),), steps=_SMOKE_STEPS)
        phi_weak = [liu_point(m, _SMOKE_ALPHAS[0], 1.0, **_SMOKE_TOY) for m in _SMOKE_REFERENCE_MS]
        liu = [
            liu_point(m, a, g, **_SMOKE_TOY)
            for m in _SMOKE_REFERENCE_MS
            for a in _SMOKE_ALPHAS[:1]
            for g in _SMOKE_GAMMAS
        ]
        widths = _liu_width_sweeps(_SMOKE_REFERENCE_MS, _SMOKE_ALPHAS, _SMOKE_TOY, seeds=(1,), seed_gammas=(-1.0,))
    else:
        yoder = [yoder_point("exp", steps=YODER_REFERENCE_STEPS, lr=YODER_LONG_LR)]
        yoder_losses = [yoder_point(loss, steps=YODER_REFERENCE_STEPS) for loss in ("power", "abs-relu")]
        annealed = [yoder_point("exp", steps=YODER_ANNEALED_STEPS) | {"lr_floor": 0.0}]
        # cheapest first (a step costs about k^2 d), so a run stopped early has the most cells
        guha = sorted(
            (guha_point(k, d) for d in GUHA_SMALL_DIMS for k in GUHA_SMALL_KS), key=lambda c: c["k"] ** 2 * c["d"]
        )
        m60 = sorted(
            (guha_point(k, d, M=GUHA_M60) for d in GUHA_SMALL_DIMS for k in GUHA_M60_KS),
            key=lambda c: c["k"] ** 2 * c["d"],
        )
        guha_seeds = sorted(
            (guha_point(k, d, seed=s) for d in GUHA_SMALL_DIMS for k in GUHA_M60_KS for s in GUHA_EXTRA_SEEDS),
            key=lambda c: (c["k"] ** 2 * c["d"], c["seed"]),
        )
        c_curve = c_curve_points(C_CURVE_DIMS, C_CURVE_RATIOS, C_CURVE_MAX_K)
        c_wide = c_curve_wide_points(C_CURVE_WIDE_DIMS, C_CURVE_RATIOS, C_CURVE_MAX_K, C_CURVE_WIDE_CELLS)
        phi_weak = [liu_point(m, 1.0, 1.0) for m in LIU_MS]
        liu = liu_reference_points(
            REFERENCE_TOY_BUDGET_S if toy_budget_s is None else toy_budget_s, toy_seconds_per_model_step
        )
        widths = _liu_width_sweeps(LIU_MS, LIU_WIDTH_ALPHAS, {})
    exps = [
        _packing(
            "yoder",
            yoder,
            "packing-losses",
            "Yoder 2025: 10,000 unit vectors in R^100 under exp(20 cos^2), until the worst angle flattens",
        ),
        _packing(
            "yoder-losses",
            yoder_losses,
            "packing-losses",
            "Yoder 2025's problem at full size under the power and abs-relu losses (his 99% solution, the trap)",
        ),
        _packing(
            "yoder-annealed",
            annealed,
            "packing-losses",
            "Yoder 2025's exp(20 cos^2) run at full size with the rate decaying along a cosine to 0 "
            "(the fixed-rate run's noise floor taken away)",
        ),
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
            guha_seeds,
            "packing-grid",
            "Guha 2026's k <= 4000 cells again at seeds 1 and 2 (our addition): the run-to-run scatter of eps*, the "
            "yardstick against which a run of the same cell on another machine is compared",
        ),
        _packing(
            "c-curve",
            c_curve,
            "packing-grid",
            "Yoder 2025's C against N/k: k = ratio x d vectors in d = 2..16, Guha's settings",
        ),
    ]
    if liu:
        exps.append(_toy("liu-main", liu, "Liu et al. 2025: main-sweep toy models that fit the budget", True))
    exps += widths
    # issue 36: the C curve judged per dimension on curves that bracket their peak, and phi_1/2 of the
    # weak regime at Fig. 3a's gamma = 1 and the main sweep's n (each cheap: minutes of CPU)
    exps.append(
        _packing(
            "c-curve-wide",
            c_wide,
            "packing-grid",
            "Yoder 2025's C against N/k at more dimensions (5, 6, 12) and one ratio further at d = 8 and 16 "
            "(k = 8192), so that each dimension's curve brackets its peak",
        )
    )
    exps.append(
        _toy(
            "liu-phi-weak",
            phi_weak,
            "Liu et al. 2025 Fig. 3a's weak end: gamma = 1 at alpha = 1, the main sweep's widths (phi_1/2 against m/n)",
            True,
        )
    )
    exps += _minimax_sets(smoke)
    return PointSet("reference", scale, tuple(exps), "what 2 CPU cores afford, computed once and shipped")


def _paper_gpu(scale: str) -> PointSet:
    smoke = scale == "smoke"
    if smoke:
        ms, alphas, gammas, m3 = _SMOKE_MS, _SMOKE_ALPHAS, _SMOKE_GAMMAS, _SMOKE_MS[0]
        toy_kw: dict[str, int] = _SMOKE_TOY
        yk: dict[str, int] = _SMOKE_YODER
        ysteps = lsteps = _SMOKE_STEPS
        cells = [(k, d) for d in _SMOKE_GUHA_DIMS for k in _SMOKE_GUHA_KS]
        gsteps: int | None = _SMOKE_STEPS
    else:
        ms, alphas, gammas, m3, toy_kw, yk = LIU_MS, LIU_ALPHAS, LIU_GAMMAS, LIU_FIG3_M, {}, {}
        ysteps, lsteps = int(quotes.value("guha2026.packing_steps")), 4 * YODER_REFERENCE_STEPS
        cells = [(k, d) for d in GUHA_GPU_DIMS for k in GUHA_KS]
        gsteps = None
    from repcap.engines.packing import cost, estimate_cost

    def arithmetic(kd: tuple[int, int]) -> float:  # the GPU's step floor aside: the small cells tie at it
        F, R = cost.MATMUL_FLOPS["cuda"], cost.PAIRS_PER_SECOND["cuda"]
        return estimate_cost(kd[0], kd[1], 1, device="cuda", flops_per_second=F, pairs_per_second=R).seconds

    cells.sort(key=lambda kd: (estimate_cost(kd[0], kd[1], 1, device="cuda").seconds, arithmetic(kd)))  # cheapest first
    fig3 = [liu_point(m3, a, g, **toy_kw) for a in alphas for g in gammas]
    main = [liu_point(m, a, g, **toy_kw) for m in ms for a in alphas for g in gammas]
    yoder = [yoder_point(loss, steps=ysteps, **yk) for loss in ("abs-relu", "exp", "power")]
    yoder.append(yoder_point("exp", steps=lsteps, lr=YODER_LONG_LR, **yk))
    exps = (
        _packing(
            "yoder", yoder, "packing-losses", "Yoder 2025 at full size: chapter 06's three losses, and the long exp run"
        ),
        _toy("liu-fig3", fig3, "Liu et al. 2025 Fig. 3: the alpha x gamma map at m = 25 (norms kept)", True),
        _toy(
            "liu-main", main, "Liu et al. 2025 main sweep: n = 1000, m = 10..100, the whole alpha x gamma grid", False
        ),
        _packing(
            "guha-grid",
            [guha_point(k, d, steps=gsteps) for k, d in cells],
            "packing-grid",
            "Guha 2026's grid for d <= 512, 5000 Adam steps, cheapest cells first",
        ),
    )
    return PointSet("paper-gpu", scale, exps, "the GPU-feasible parts of the paper profile, on one H200")


#: The profile whose claims a set's full-scale points check (the scorecard's ``checked_by``).
PROFILE_OF_SET = {"reference": "reference", "paper-gpu": "paper"}


def finding_profile(set_name: str, scale: str = "full") -> str:
    """The profile a chapter records a finding under when it comes from set ``set_name`` at
    ``scale``: the set's profile at full scale; otherwise a name no claim is checked by (a smoke
    set's numbers are shown, never judged)."""
    if scale == "full" and set_name in PROFILE_OF_SET:
        return PROFILE_OF_SET[set_name]
    return f"{set_name}-{scale}"


SETS: dict[str, str] = {
    "reference": "what 2 CPU cores afford (Yoder full size, Guha's small cells, Liu toy points in a budget)",
    "paper-gpu": "the GPU-feasible parts of the paper profile, hours on one H200, under a time budget",
}


def point_set(
    name: str,
    scale: str = "full",
    *,
    toy_budget_s: float | None = None,
    toy_seconds_per_model_step: float | None = None,
) -> PointSet:
    """The named set at ``scale`` (``full`` or ``smoke``).  For ``reference``, ``toy_budget_s`` and
    ``toy_seconds_per_model_step`` size its toy part (see :func:`liu_reference_points`)."""
    if name not in SETS:
        raise RepcapError(f"unknown point set {name!r}; known: {', '.join(SETS)}")
    if scale not in SCALES:
        raise RepcapError(f"scale {scale!r} must be one of {', '.join(SCALES)}")
    if name == "reference":
        return _reference(scale, toy_budget_s, toy_seconds_per_model_step)
    return _paper_gpu(scale)
