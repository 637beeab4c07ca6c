"""Named point sets: what a profile computes outside the notebooks, as data and code in one place.

A point set is a list of :class:`Experiment` s; an experiment is one call of
:func:`repcap.sweep.run` (a point function, its configs, the cache it writes to, how its points
batch).  ``repcap bundle compute SET`` runs a set, :mod:`repcap.bundle` ships its finished points
with their provenance, and the book reads them back with :func:`repcap.bundle.lookup`.

Sets (sources' settings: ``../shared/reference/README.md``; published numbers are read from
``data/reference`` through :mod:`repcap.reference`, never retyped):

* ``reference`` -- what 2 CPU cores afford, computed once and shipped as a bundle: Yoder 2025's
  10,000 vectors in R^100 under ``exp(20 cos^2)`` at full size (4000 Adam steps, about 30 min);
  Guha 2026's small cells (d in {32, 64, 128} x k in {2000, 4000, 8000}, 5000 Adam steps, his
  exponent and learning-rate rules; about 95 min, 60% of it the three k = 8000 cells); and the
  Liu, Liu & Gore 2025 toy models at the main-sweep settings that fit a time budget
  (:func:`liu_reference_points`; one model at today's trainer speed).  About 2.5 hours in all on
  the development machine: Guha's 5000 steps are his, so the set cannot be cut to one hour
  without leaving his settings.
* ``paper-gpu`` -- one H200: Yoder's run (chapter 05's three losses at full size, and the long exp
  run), the alpha x gamma grid of Liu's Fig. 3 at m = 25, their n = 1000 main sweep (m in
  {10..100}, gamma in linspace(-1, 1, 10), alpha in 0..2 step 0.125), and Guha's grid for d <= 512
  (k in 2000..32000 step 2000), cheapest cells first.  The first three take minutes; the grid is
  hours even on an H200 by :mod:`repcap.packing.cost` (``6 k^2 d`` flops per step, k up to 32000),
  so ``make paper-gpu`` runs under a time budget and a re-run resumes.

Every set has a ``scale="smoke"`` variant that shrinks every size so it runs in seconds on a CPU.

Configs are spelled as the chapters spell theirs (chapter 05 for Yoder's run, 06 for Guha's grid,
07/08 through :func:`repcap.toy.sweep_config`), so that a bundle imported before the book makes
the chapters' points cache hits: a key covers the config as written.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import RepcapError, config, reference

SCALES = ("full", "smoke")

#: Liu, Liu & Gore 2025, main sweep (the toy engine's TrainConfig defaults are its n, steps and batch).
LIU_MS = (10, 15, 25, 39, 63, 100)
#: gamma = linspace(-1, 1, 10), to 4 decimals as the chapters spell it (-0.7778, ..., 0.3333, ...).
LIU_GAMMAS = tuple(round(-1.0 + 2.0 * i / 9, 4) for i in range(10))
#: alpha in 0..2 step 0.125.
LIU_ALPHAS = tuple(0.125 * i for i in range(17))
#: The width of the alpha x gamma map (their Fig. 3).
LIU_FIG3_M = 25
#: The reference set's toy candidates, most useful first: both regimes (gamma = -1, strong; 0.3333,
#: weak, a value of the paper's grid) at three widths, alpha = 1 first, then 1.5, 0.5, 2.
LIU_REFERENCE_GAMMAS = (-1.0, 0.3333)
LIU_REFERENCE_ALPHAS = (1.0, 1.5, 0.5, 2.0)
LIU_REFERENCE_MS = (10, 25, 63)

#: Guha 2026's optimised grid: k = 2000..32000 step 2000; the dimensions each set takes.
GUHA_KS = tuple(range(2000, 32001, 2000))
GUHA_SMALL_DIMS = (32, 64, 128)
GUHA_SMALL_KS = (2000, 4000, 8000)
GUHA_GPU_DIMS = (32, 64, 128, 256, 512)

#: Seconds per Adam step of Yoder's problem (k = 10,000, d = 100, exp loss), measured on the 2-core
#: development machine (0.40-0.52 s/step with 2 threads, unloaded); the reference run's steps fill
#: about 30 minutes.
YODER_CPU_SECONDS_PER_STEP = 0.45
YODER_REFERENCE_STEPS = 4000
#: The learning rate of the long exp runs.  Measured here: at chapter 05's 0.005 (Guha's rule) the
#: worst-pair angle reaches 73.4 degrees by step 200 and then only jitters (73.1-73.6 up to step
#: 1000: Adam's noise at a fixed rate); at 0.001 it is 73.3 at step 800 and still rising, with less
#: jitter, so the long runs use the lower rate for more steps.
YODER_LONG_LR = 0.001

#: Seconds per model and step of the toy trainer at n = 1000, batch 2048, as ``(a, b)`` of
#: ``a + b m``: on a CPU the sparse path (benchmarks/toy_trainer.py on the 2-core development
#: machine, one thread: 2.6 ms at m = 10, 4.4-4.7 ms at m = 25, 11.6-12.1 ms at m = 100); on a GPU,
#: the estimate of issue 14 (the 1020-model main sweep in about 5 minutes on one H200).
TOY_SECONDS_PER_MODEL_STEP = {"cpu": (1.6e-3, 1.0e-4), "cuda": (1.5e-5, 0.0)}
#: The reference set's time for toy models, seconds (the rest of the set is fixed by the sources).
REFERENCE_TOY_BUDGET_S = 1200.0


@dataclass(frozen=True)
class Experiment:
    """One :func:`repcap.sweep.run` call: ``fn`` over ``configs`` into the cache ``cache``.

    ``keep_large``: the bundle keeps the large fields of its results (the toy models' ``norms``),
    for small experiments whose chapters plot them; otherwise they are left out of the bundle.
    """

    name: str
    fn: Callable
    configs: tuple[dict, ...]
    cache: str
    what: str = ""
    batched: bool = False
    group_by: Callable[[dict], Any] | None = None
    keep_large: bool = False

    def max_batch(self) -> int | None:
        """How many points one batch may hold (toy models: what fits the device's memory)."""
        from .toy import models_per_batch, train_points

        if self.fn is train_points and self.configs:
            return min(models_per_batch(c["n"], c["batch"]) for c in self.configs)
        return None

    def estimate_seconds(self, device: str = "cpu") -> float:
        """An order-of-magnitude wall time of all its points on ``device`` (``cpu`` or ``cuda``)."""
        return sum(point_seconds(self.fn, c, device) for c in self.configs)


@dataclass(frozen=True)
class PointSet:
    name: str
    scale: str
    experiments: tuple[Experiment, ...]
    what: str = ""

    def experiment(self, name: str) -> Experiment:
        for e in self.experiments:
            if e.name == name:
                return e
        raise RepcapError(f"set {self.name!r} has no experiment {name!r}; it has {', '.join(self.names)}")

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.experiments]

    def only(self, names: Sequence[str] | None) -> list[Experiment]:
        """The experiments named (all when ``names`` is empty), in the set's order."""
        if not names:
            return list(self.experiments)
        wanted = [self.experiment(n).name for n in names]
        return [e for e in self.experiments if e.name in wanted]


# ----------------------------------------------------------------------------------------- points


def yoder_point(
    loss: str = "exp", *, steps: int, lr: float | None = None, k: int | None = None, d: int | None = None, seed: int = 0
) -> dict:
    """One packing of Yoder's problem, spelled as chapter 05 spells its configs (every setting
    resolved).  ``k, d`` default to his 10,000 vectors in R^100; beta is his 20."""
    from .packing import PackConfig

    cfg = PackConfig(
        k=k or int(reference.value("yoder2025.n_vectors")),
        d=d or int(reference.value("yoder2025.dim")),
        loss=loss,
        beta=float(reference.value("yoder2025.beta")),
        steps=int(steps),
        seed=seed,
        **config.given(lr=lr),
    )
    return dict(
        k=cfg.k,
        d=cfg.d,
        loss=cfg.loss,
        beta=cfg.beta,
        p=None,
        steps=cfg.steps,
        lr=cfg.learning_rate,
        seed=cfg.seed,
        n_bins=cfg.n_bins,
        device="auto",
    )


def guha_point(k: int, d: int, *, steps: int | None = None, seed: int = 0) -> dict:
    """One cell of Guha's grid at his settings (power loss, his exponent and lr rules, 5000 steps),
    spelled as chapter 06 spells its grid."""
    from .packing import PackConfig

    steps = int(reference.value("guha2026.packing_steps")) if steps is None else int(steps)
    PackConfig(k=k, d=d, loss="power", steps=steps, seed=seed)  # refuse a bad cell now
    return dict(k=k, d=d, loss="power", steps=steps, seed=seed, device="auto")


def liu_point(m: int, alpha: float, gamma: float, *, seed: int = 0, **settings: Any) -> dict:
    """One toy model at the main sweep's settings (the engine's defaults: n = 1000, batch 2048,
    20000 steps, lr 1e-2) unless ``settings`` say otherwise, with its norms kept, as chapters 07
    and 08 spell theirs."""
    from .toy import sweep_config

    return sweep_config(m=m, alpha=alpha, gamma=gamma, seed=seed, keep_norms=True, **settings)


def point_seconds(fn: Callable, c: dict, device: str = "cpu") -> float:
    """The estimated wall time of one point (packing: :mod:`repcap.packing.cost`; toy:
    :data:`TOY_SECONDS_PER_MODEL_STEP` scaled by ``n x batch``; anything else: 0)."""
    from .packing import estimate_cost, sweep_packed
    from .toy import train_points

    kind = "cuda" if str(device).startswith("cuda") else "cpu"
    if fn is sweep_packed:
        steps = c.get("steps", int(reference.value("guha2026.packing_steps")))
        return estimate_cost(c["k"], c["d"], steps, device=kind).seconds
    if fn is train_points:
        return toy_model_seconds(c["steps"], c["n"], c["batch"], toy_step_seconds(c["m"], kind))
    return 0.0


def toy_step_seconds(m: int, device: str = "cpu") -> float:
    """One model step at n = 1000, batch 2048 and width ``m`` (:data:`TOY_SECONDS_PER_MODEL_STEP`)."""
    a, b = TOY_SECONDS_PER_MODEL_STEP["cuda" if str(device).startswith("cuda") else "cpu"]
    return a + b * m


def toy_model_seconds(steps: int, n: int, batch: int, seconds_per_model_step: float) -> float:
    """One toy model's time: the per-model-step cost at n = 1000, batch 2048, scaled by n x batch."""
    return steps * seconds_per_model_step * (n * batch) / (1000 * 2048)


def liu_reference_points(
    budget_s: float = REFERENCE_TOY_BUDGET_S, seconds_per_model_step: float | None = None, **settings: Any
) -> list[dict]:
    """The longest prefix of the reference candidates (both regimes at each width, alpha = 1 first)
    whose estimated time fits ``budget_s``.  ``seconds_per_model_step``: the trainer's cost at
    n = 1000, batch 2048 (default: :func:`toy_step_seconds` on a CPU, by width)."""
    if isinstance(budget_s, bool) or not isinstance(budget_s, (int, float)) or not budget_s >= 0:
        raise RepcapError(f"budget_s={budget_s!r} must be a number of seconds >= 0")
    cost = seconds_per_model_step
    if cost is not None and (
        isinstance(cost, bool) or not isinstance(cost, (int, float)) or not (math.isfinite(cost) and cost > 0)
    ):
        raise RepcapError(f"seconds_per_model_step={cost!r} must be a finite number > 0")
    out: list[dict] = []
    used = 0.0
    for a in LIU_REFERENCE_ALPHAS:
        for m in LIU_REFERENCE_MS:
            for g in LIU_REFERENCE_GAMMAS:
                c = liu_point(m, a, g, **settings)
                t = toy_model_seconds(c["steps"], c["n"], c["batch"], toy_step_seconds(m) if cost is None else cost)
                if used + t > budget_s:
                    return out
                out.append(c)
                used += t
    return out


# ------------------------------------------------------------------------------------- the sets


def _packing(name: str, configs: Sequence[dict], cache: str, what: str) -> Experiment:
    from .packing import packed_group, sweep_packed

    return Experiment(name, sweep_packed, tuple(configs), cache, what, batched=True, group_by=packed_group)


def _toy(name: str, configs: Sequence[dict], what: str, keep_large: bool) -> Experiment:
    from .toy import group_key, train_points

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


def _reference(scale: str, toy_budget_s: float | None, toy_seconds_per_model_step: float | None) -> PointSet:
    smoke = scale == "smoke"
    if smoke:
        yoder = [yoder_point("exp", steps=_SMOKE_STEPS, lr=YODER_LONG_LR, **_SMOKE_YODER)]
        guha = [guha_point(k, d, steps=_SMOKE_STEPS) for d in _SMOKE_GUHA_DIMS for k in _SMOKE_GUHA_KS]
        liu = [
            liu_point(m, a, g, **_SMOKE_TOY)
            for m in _SMOKE_REFERENCE_MS
            for a in _SMOKE_ALPHAS[:1]
            for g in _SMOKE_GAMMAS
        ]
    else:
        yoder = [yoder_point("exp", steps=YODER_REFERENCE_STEPS, lr=YODER_LONG_LR)]
        guha = [guha_point(k, d) for d in GUHA_SMALL_DIMS for k in GUHA_SMALL_KS]
        liu = liu_reference_points(
            REFERENCE_TOY_BUDGET_S if toy_budget_s is None else toy_budget_s, toy_seconds_per_model_step
        )
    exps = [
        _packing(
            "yoder",
            yoder,
            "packing-losses",
            "Yoder 2025: 10,000 unit vectors in R^100 under exp(20 cos^2), until the worst angle flattens",
        ),
        _packing(
            "guha-small",
            guha,
            "packing-grid",
            "Guha 2026: d in {32, 64, 128} x k in {2000, 4000, 8000}, 5000 Adam steps, his rules",
        ),
    ]
    if liu:
        exps.append(_toy("liu-main", liu, "Liu et al. 2025: main-sweep toy models that fit the budget", True))
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
        ysteps, lsteps = int(reference.value("guha2026.packing_steps")), 4 * YODER_REFERENCE_STEPS
        cells = [(k, d) for d in GUHA_GPU_DIMS for k in GUHA_KS]
        gsteps = None
    from .packing import estimate_cost

    cells.sort(key=lambda kd: estimate_cost(kd[0], kd[1], 1, device="cuda").seconds)  # cheapest first
    fig3 = [liu_point(m3, a, g, **toy_kw) for a in alphas for g in gammas]
    main = [liu_point(m, a, g, **toy_kw) for m in ms for a in alphas for g in gammas]
    yoder = [yoder_point(loss, steps=ysteps, **yk) for loss in ("abs-relu", "exp", "power")]
    yoder.append(yoder_point("exp", steps=lsteps, lr=YODER_LONG_LR, **yk))
    exps = (
        _packing(
            "yoder", yoder, "packing-losses", "Yoder 2025 at full size: chapter 05's three losses, and the long exp run"
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
    "paper-gpu": "the GPU-feasible parts of the paper profile in minutes on one H200",
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


# ------------------------------------------------------------------------------------ computing


@dataclass
class ExperimentRun:
    """What :func:`compute` did for one experiment."""

    name: str
    n_points: int
    n_cached: int = 0
    n_computed: int = 0
    n_left: int = 0  # not started: the time budget ran out
    seconds: float = 0.0


def _duration(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else (f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h")


def _chunks(e: Experiment, max_batch: int | None) -> list[list[dict]]:
    """The experiment's configs in the batches :func:`repcap.sweep.run` would form (so a time budget
    is checked between batches)."""
    from .sweep import canonical

    if not e.batched:
        return [[c] for c in e.configs]
    groups: dict[str, list[dict]] = {}
    for c in e.configs:
        groups.setdefault(canonical(e.group_by(c)) if e.group_by else "", []).append(c)
    size = max_batch or len(e.configs)
    return [g[i : i + size] for g in groups.values() for i in range(0, len(g), size)]


def compute(
    pset: PointSet,
    *,
    only: Sequence[str] | None = None,
    executor: Any = None,
    budget_s: float | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> list[ExperimentRun]:
    """Run the experiments of ``pset`` (those named in ``only``; all by default) through
    :func:`repcap.sweep.run`: finished points are read from the cache, so an interrupted run
    resumes.  With ``budget_s`` no new batch starts once that many seconds have passed (what is left
    is reported, and computed by the next call).  Logs one line before and after each experiment."""
    import time

    from . import sweep
    from .devices import resolve_device

    kind = resolve_device("auto").type
    t0, out = time.perf_counter(), []
    for e in pset.only(only):
        run = ExperimentRun(e.name, len(e.configs))
        log(
            f"== {e.name} ({len(e.configs)} points, estimated {_duration(e.estimate_seconds(kind))} on {kind}): {e.what}"
        )
        mb = e.max_batch()
        for chunk in _chunks(e, mb) if budget_s is not None else [list(e.configs)]:
            if budget_s is not None and time.perf_counter() - t0 > budget_s:
                run.n_left += len(chunk)
                continue
            t1 = time.perf_counter()
            rep = sweep.run(
                e.fn,
                chunk,
                cache=e.cache,
                batched=e.batched,
                group_by=e.group_by,
                max_batch=mb,
                desc=e.name,
                progress=progress,
                executor=executor,
            )
            run.n_cached, run.n_computed = run.n_cached + rep.n_cached, run.n_computed + rep.n_computed
            run.seconds += time.perf_counter() - t1
        log(
            f"   {e.name}: {run.n_computed} computed, {run.n_cached} cached"
            + (f", {run.n_left} left (time budget spent)" if run.n_left else "")
            + f"; wall time {run.seconds:.1f} s"
        )
        out.append(run)
    return out


# ------------------------------------------------------------------------------ point functions

#: The point functions a bundle may name (``module:qualname``); nothing else is ever imported.
POINT_FUNCTIONS: dict[str, str] = {
    "repcap.packing.points:sweep_packed": "repcap.packing.points",
    "repcap.packing.points:sweep_random": "repcap.packing.points",
    "repcap.packing.points:sweep_projection": "repcap.packing.points",
    "repcap.toy.points:train_points": "repcap.toy.points",
    "repcap.survey:describe_point": "repcap.survey",
}


def point_function(name: str) -> Callable:
    """The point function called ``name`` (one of :data:`POINT_FUNCTIONS`), imported on demand."""
    import importlib

    from .sweep import fn_name

    if not isinstance(name, str) or name not in POINT_FUNCTIONS:
        raise RepcapError(
            f"point function {str(name)[:80]!r} is not one of repcap's sweep point functions "
            f"({', '.join(POINT_FUNCTIONS)})"
        )
    fn = getattr(importlib.import_module(POINT_FUNCTIONS[name]), name.split(":", 1)[1])
    if fn_name(fn) != name:  # pragma: no cover - the table above is out of date
        raise RepcapError(f"point function {name} now lives at {fn_name(fn)}; update repcap.runs.POINT_FUNCTIONS")
    return fn


__all__ = [
    "LIU_ALPHAS",
    "LIU_GAMMAS",
    "LIU_MS",
    "POINT_FUNCTIONS",
    "SCALES",
    "SETS",
    "Experiment",
    "ExperimentRun",
    "PointSet",
    "compute",
    "guha_point",
    "liu_point",
    "liu_reference_points",
    "point_function",
    "point_seconds",
    "point_set",
    "toy_model_seconds",
    "yoder_point",
]
