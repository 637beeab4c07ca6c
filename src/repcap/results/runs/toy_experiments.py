"""The sets' toy-model experiments (:mod:`repcap.engines.toy`): Liu, Liu & Gore 2025's main sweep
and Fig. 3 map, the reference set's width sweeps (Fig. 6e's series, extra seeds, the overlap of Fig.
6d, a frequency law that is not a power law) and the weak end of Fig. 3a.  Each function gives its
experiments at full or smoke scale; :mod:`.sets` puts them in a set's order."""

from __future__ import annotations

from collections.abc import Sequence

from .cost import REFERENCE_TOY_BUDGET_S
from .experiment import Experiment
from .points import (
    LIU_ALPHAS,
    LIU_EXTRA_SEEDS,
    LIU_FIG3_M,
    LIU_FIG6E_STRONG_GAMMAS,
    LIU_FIG6E_WEAK_GAMMA,
    LIU_GAMMAS,
    LIU_MS,
    LIU_WIDTH_ALPHAS,
    liu_point,
    liu_reference_points,
)
from .smoke_sizes import SMOKE_ALPHAS, SMOKE_GAMMAS, SMOKE_MS, SMOKE_REFERENCE_MS, SMOKE_TOY


def _toy(name: str, configs: Sequence[dict], what: str, keep_large: bool) -> Experiment:
    from repcap.engines.toy import group_key, train_points

    return Experiment(
        name, train_points, tuple(configs), "toy", what, batched=True, group_by=group_key, keep_large=keep_large
    )


def _names(alphas: Sequence[float]) -> str:
    """``1 and 1.5``: alphas as a description names them."""
    return " and ".join(f"{a:g}" for a in alphas)


def reference_liu(
    smoke: bool, toy_budget_s: float | None, toy_seconds_per_model_step: float | None
) -> list[Experiment]:
    """The reference set's toy models: the main-sweep points that fit the budget (``liu-main``, left
    out where none does), then the width sweeps (:func:`liu_width_sweeps`)."""
    if smoke:
        liu = [
            liu_point(m, a, g, **SMOKE_TOY) for m in SMOKE_REFERENCE_MS for a in SMOKE_ALPHAS[:1] for g in SMOKE_GAMMAS
        ]
        widths = liu_width_sweeps(SMOKE_REFERENCE_MS, SMOKE_ALPHAS, SMOKE_TOY, seeds=(1,), seed_gammas=(-1.0,))
    else:
        budget = REFERENCE_TOY_BUDGET_S if toy_budget_s is None else toy_budget_s
        liu = liu_reference_points(budget, toy_seconds_per_model_step)
        widths = liu_width_sweeps(LIU_MS, LIU_WIDTH_ALPHAS, {})
    main = [_toy("liu-main", liu, "Liu et al. 2025: main-sweep toy models that fit the budget", True)] if liu else []
    return main + widths


def phi_weak(smoke: bool) -> Experiment:
    """Issue 36: phi_1/2 of the weak regime at Fig. 3a's gamma = 1 and the main sweep's n."""
    if smoke:
        points = [liu_point(m, SMOKE_ALPHAS[0], 1.0, **SMOKE_TOY) for m in SMOKE_REFERENCE_MS]
    else:
        points = [liu_point(m, 1.0, 1.0) for m in LIU_MS]
    return _toy(
        "liu-phi-weak",
        points,
        "Liu et al. 2025 Fig. 3a's weak end: gamma = 1 at alpha = 1, the main sweep's widths (phi_1/2 against m/n)",
        True,
    )


def paper_gpu_liu(smoke: bool) -> list[Experiment]:
    """The paper-gpu set's toy models: the alpha x gamma map of Fig. 3 and the whole main sweep."""
    toy_kw: dict[str, int]
    if smoke:
        ms, alphas, gammas, m3, toy_kw = SMOKE_MS, SMOKE_ALPHAS, SMOKE_GAMMAS, SMOKE_MS[0], SMOKE_TOY
    else:
        ms, alphas, gammas, m3, toy_kw = LIU_MS, LIU_ALPHAS, LIU_GAMMAS, LIU_FIG3_M, {}
    fig3 = [liu_point(m3, a, g, **toy_kw) for a in alphas for g in gammas]
    main = [liu_point(m, a, g, **toy_kw) for m in ms for a in alphas for g in gammas]
    return [
        _toy("liu-fig3", fig3, "Liu et al. 2025 Fig. 3: the alpha x gamma map at m = 25 (norms kept)", True),
        _toy(
            "liu-main", main, "Liu et al. 2025 main sweep: n = 1000, m = 10..100, the whole alpha x gamma grid", False
        ),
    ]


def liu_width_sweeps(
    ms: Sequence[int],
    alphas: Sequence[float],
    toy_kw: dict,
    seeds: Sequence[int] = LIU_EXTRA_SEEDS,
    seed_gammas: Sequence[float] | None = None,
) -> list[Experiment]:
    """The reference set's Liu et al. width sweeps (issue: reference runs with power): for each alpha
    the three strong-regime gammas that Fig. 6e plots, then the weak series, gamma = -1, extra seeds
    for alpha = 1 and 1.5, and a frequency law that is not a power law (their Fig. 1b's contrast)."""
    return [
        *_series(ms, alphas, toy_kw),
        *_seed_series(ms, alphas, toy_kw, seeds, seed_gammas),
        _overlap(ms, alphas[0], toy_kw),
        _contrast(ms, toy_kw),
    ]


def _series(ms: Sequence[int], alphas: Sequence[float], toy_kw: dict) -> list[Experiment]:
    """Fig. 6e's three strong series for each alpha, then its weak series and gamma = -1 at every alpha."""
    strong, weak = LIU_FIG6E_STRONG_GAMMAS, LIU_FIG6E_WEAK_GAMMA
    out = [
        _toy(
            f"liu-strong-a{a:g}".replace(".", ""),
            [liu_point(m, a, g, **toy_kw) for m in ms for g in strong],
            f"Liu et al. 2025 Fig. 6e: widths at alpha = {a:g}, gamma of its three strong series",
            True,
        )
        for a in alphas
    ]
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
    return out


def _seed_series(
    ms: Sequence[int], alphas: Sequence[float], toy_kw: dict, seeds: Sequence[int], seed_gammas: Sequence[float] | None
) -> list[Experiment]:
    """The extra seeds of alpha = ``alphas[:2]``, in experiments ordered by what their points decide
    (a sweep runs width by width, so a run cut short of the rest loses nothing): each seeded alpha's
    strong series (Fig. 6e's rows, judged on the seeds' mean), then the weak series
    (liu-weak-exponent), then the steeper alphas' weak series, then every other gamma (-1: no row of
    its own)."""
    strong, weak = LIU_FIG6E_STRONG_GAMMAS, LIU_FIG6E_WEAK_GAMMA
    gammas = (*strong, weak, -1.0) if seed_gammas is None else seed_gammas
    extra = [liu_point(m, a, g, seed=s, **toy_kw) for s in seeds for a in alphas[:2] for g in gammas for m in ms]
    seeded = ", ".join(map(str, seeds))
    out = []
    for a in alphas[:2]:
        pts = [c for c in extra if c["alpha"] == a and c["gamma"] in strong]
        if pts:
            name = f"liu-seeds-a{a:g}".replace(".", "")
            out.append(_toy(name, pts, f"seeds {seeded} for alpha = {a:g} at the three plotted strong gammas", True))
    weak_seeds = [c for c in extra if c["gamma"] == weak]
    if weak_seeds:
        what = f"seeds {seeded} for alpha = {_names(alphas[:2])} at the weak gamma"
        out.append(_toy("liu-seeds-weak", weak_seeds, what, True))
    out += _steep_weak_seeds(ms, alphas, toy_kw, seeds)
    taken = [c for c in extra if c["gamma"] in strong or c["gamma"] == weak]
    out.append(
        _toy(
            "liu-seeds",
            [c for c in extra if c not in taken],
            f"seeds {seeded} for alpha = {_names(alphas[:2])} at every other gamma and width",
            True,
        )
    )
    return out


def _steep_weak_seeds(
    ms: Sequence[int], alphas: Sequence[float], toy_kw: dict, seeds: Sequence[int]
) -> list[Experiment]:
    """The weak exponent row (liu-weak-exponent) averages alpha > 1: the steeper alphas' weak series
    get the same seeds, so that every alpha it averages is judged on a seed mean."""
    steep = [a for a in alphas[2:] if a > 1]
    points = [liu_point(m, a, LIU_FIG6E_WEAK_GAMMA, seed=s, **toy_kw) for s in seeds for a in steep for m in ms]
    if not points:
        return []
    seeded = ", ".join(map(str, seeds))
    return [
        _toy(
            "liu-seeds-weak-" + "-".join(f"a{a:g}".replace(".", "") for a in steep),
            points,
            f"seeds {seeded} for alpha = {_names(steep)} at the weak gamma "
            "(the other alpha that the weak exponent row averages)",
            True,
        )
    ]


def _overlap(ms: Sequence[int], alpha: float, toy_kw: dict) -> Experiment:
    """Fig. 6d's overlap: the first strong series at ``alpha`` retrained, each model's mean square overlap."""
    from repcap.engines.toy import group_key
    from repcap.engines.toy.overlaps import overlap_points

    gamma = LIU_FIG6E_STRONG_GAMMAS[0]
    return Experiment(
        "liu-overlap",
        overlap_points,
        tuple(liu_point(m, alpha, gamma, **toy_kw) for m in ms),
        "toy-overlaps",
        f"Liu et al. 2025 Fig. 6d's overlap: the alpha = {alpha:g}, gamma = {gamma:+.4f} models retrained, "
        "their mean square overlap under each candidate definition",
        batched=True,
        group_by=group_key,
    )


def _contrast(ms: Sequence[int], toy_kw: dict) -> Experiment:
    """Fig. 1b's idea: exp(-i/tau) frequencies, at gamma = -1 and the weak gamma."""
    contrast = [liu_point(m, 1.0, g, distribution="exp", **toy_kw) for g in (-1.0, LIU_FIG6E_WEAK_GAMMA) for m in ms]
    return _toy(
        "liu-contrast", contrast, "Liu et al. 2025 Fig. 1b's idea: exp(-i/tau) frequencies, not a power law", True
    )
