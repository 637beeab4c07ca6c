"""Named point sets: what a profile computes outside the notebooks, as data and code in one place.

A point set is a list of :class:`Experiment` s; an experiment is one call of
:func:`repcap.sweep.run` (a point function, its configs, the cache it writes to, how its points
batch).  ``repcap bundle compute SET`` runs a set, :mod:`repcap.bundle` ships its finished points
with their provenance, and the book reads them back with :func:`repcap.bundle.lookup`.

Sets (sources' settings: ``../shared/reference/README.md``; published numbers are read from
``data/reference`` through :mod:`repcap.reference`, never retyped):

* ``reference`` -- what 2 CPU cores afford, computed once and shipped as a bundle: Yoder 2025's
  10,000 vectors in R^100 under ``exp(20 cos^2)`` at full size (4000 Adam steps: 56 min measured
  on the 2-core development machine, with other work on it); Guha 2026's small cells (d in
  {32, 64, 128} x k in {2000, 4000, 8000}, 5000 Adam steps, his exponent and learning-rate rules),
  cheapest first: the seven up to k = 8000, d = 32 took 46 min there, and the last two (k = 8000
  at d = 64 and 128) take about 45 and 90 min more by that cell's 23 min; and the Liu, Liu & Gore
  2025 toy models at the main-sweep settings that fit a time budget (:func:`liu_reference_points`:
  12 models, 28 min).  About 4 hours in all: Guha's 5000 steps are his, so the set cannot be cut
  to one hour without leaving his settings.
* ``paper-gpu`` -- one H200: Yoder's run (chapter 06's three losses at full size, and the long exp
  run), the alpha x gamma grid of Liu's Fig. 3 at m = 25, their n = 1000 main sweep (m in
  {10..100}, gamma in linspace(-1, 1, 10), alpha in 0..2 step 0.125), and Guha's grid for d <= 512
  (k in 2000..32000 step 2000), cheapest cells first.  The first three take minutes; the grid is
  hours even on an H200 by :mod:`repcap.packing.cost` (``6 k^2 d`` flops per step, k up to 32000),
  so ``make paper-gpu`` runs under a time budget and a re-run resumes.

Every set has a ``scale="smoke"`` variant that shrinks every size so it runs in seconds on a CPU.

Configs are spelled as the chapters spell theirs (chapter 06 for Yoder's run, 07 for Guha's grid,
08/09 through :func:`repcap.toy.sweep_config`), so that a bundle imported before the book makes
the chapters' points cache hits: a key covers the config as written.

Modules: :mod:`.experiment` (what a set is made of), :mod:`.points` (the sources' grids and one
point of each), :mod:`.cost` (how long points take), :mod:`.sets` (the named sets),
:mod:`.computing` (running a set) and :mod:`.point_functions` (what a bundle may name).
"""

from __future__ import annotations

from .computing import ExperimentRun, compute
from .cost import (
    REFERENCE_TOY_BUDGET_S,
    TOY_SECONDS_PER_MODEL_STEP,
    YODER_CPU_SECONDS_PER_STEP,
    YODER_REFERENCE_STEPS,
    point_seconds,
    toy_model_seconds,
    toy_step_seconds,
)
from .experiment import Experiment, PointSet
from .point_functions import POINT_FUNCTIONS, point_function
from .points import (
    GUHA_GPU_DIMS,
    GUHA_KS,
    GUHA_SMALL_DIMS,
    GUHA_SMALL_KS,
    LIU_ALPHAS,
    LIU_FIG3_M,
    LIU_GAMMAS,
    LIU_MS,
    LIU_REFERENCE_ALPHAS,
    LIU_REFERENCE_GAMMAS,
    LIU_REFERENCE_MS,
    YODER_LONG_LR,
    guha_point,
    liu_point,
    liu_reference_points,
    yoder_point,
)
from .sets import PROFILE_OF_SET, SCALES, SETS, finding_profile, point_set

__all__ = [
    "GUHA_GPU_DIMS",
    "GUHA_KS",
    "GUHA_SMALL_DIMS",
    "GUHA_SMALL_KS",
    "LIU_ALPHAS",
    "LIU_FIG3_M",
    "LIU_GAMMAS",
    "LIU_MS",
    "LIU_REFERENCE_ALPHAS",
    "LIU_REFERENCE_GAMMAS",
    "LIU_REFERENCE_MS",
    "POINT_FUNCTIONS",
    "PROFILE_OF_SET",
    "REFERENCE_TOY_BUDGET_S",
    "SCALES",
    "SETS",
    "TOY_SECONDS_PER_MODEL_STEP",
    "YODER_CPU_SECONDS_PER_STEP",
    "YODER_LONG_LR",
    "YODER_REFERENCE_STEPS",
    "Experiment",
    "ExperimentRun",
    "PointSet",
    "compute",
    "finding_profile",
    "guha_point",
    "liu_point",
    "liu_reference_points",
    "point_function",
    "point_seconds",
    "point_set",
    "toy_model_seconds",
    "toy_step_seconds",
    "yoder_point",
]
