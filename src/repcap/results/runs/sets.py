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
08/09 through :func:`repcap.engines.toy.points.sweep_config`), so that a bundle imported before the book makes
the chapters' points cache hits: a key covers the config as written.

The experiments are made per engine, at either scale, in :mod:`.packing_experiments` (Yoder's runs,
Guha's cells, the C curve, our minimax method) and :mod:`.toy_experiments` (Liu et al.'s toy models);
the smoke sizes are :mod:`.smoke_sizes`'.  This module puts them in each set's order.
"""

from __future__ import annotations

from repcap import RepcapError

from . import packing_experiments, toy_experiments
from .experiment import PointSet
from .names import SCALES, SETS


def _reference(scale: str, toy_budget_s: float | None, toy_seconds_per_model_step: float | None) -> PointSet:
    smoke = scale == "smoke"
    exps = [
        *packing_experiments.reference_yoder(smoke),
        *packing_experiments.reference_guha(smoke),
        packing_experiments.c_curve(smoke),
    ]
    exps += toy_experiments.reference_liu(smoke, toy_budget_s, toy_seconds_per_model_step)
    # issue 36: the C curve judged per dimension on curves that bracket their peak, and phi_1/2 of the
    # weak regime at Fig. 3a's gamma = 1 and the main sweep's n (each cheap: minutes of CPU)
    exps += [packing_experiments.c_curve_wide(smoke), toy_experiments.phi_weak(smoke)]
    exps += packing_experiments.minimax(smoke)
    exps += [packing_experiments.c_curve_seeds(smoke)]  # issue 46.2: the seed scatter of C at its peak
    return PointSet("reference", scale, tuple(exps), "what 2 CPU cores afford, computed once and shipped")


def _paper_gpu(scale: str) -> PointSet:
    smoke = scale == "smoke"
    exps = (
        packing_experiments.paper_gpu_yoder(smoke),
        *toy_experiments.paper_gpu_liu(smoke),
        packing_experiments.paper_gpu_guha(smoke),
    )
    return PointSet("paper-gpu", scale, exps, "the GPU-feasible parts of the paper profile, on one H200")


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
