"""How long points take: measured speeds of the packing and toy engines, the time budgets the
``reference`` set is sized by, and the estimates built on them."""

from __future__ import annotations

import os
from collections.abc import Callable

from repcap import RepcapError
from repcap.base import quotes

#: Seconds per Adam step of Yoder's problem (k = 10,000, d = 100, exp loss), measured on the 2-core
#: development machine (0.40-0.52 s/step with 2 threads, unloaded); the reference run's steps fill
#: about 30 minutes.
YODER_CPU_SECONDS_PER_STEP = 0.45
YODER_REFERENCE_STEPS = 4000

#: Steps of the decaying-rate exp run (``yoder-annealed``): the rate falls from chapter 06's 0.005
#: to 0 along a cosine; at 1.4 s a step on one of this machine's cores (the fixed-rate run took
#: 0.83 s on two) it costs about 70 minutes.
YODER_ANNEALED_STEPS = 3000

#: Seconds per model and step of the toy trainer at n = 1000, batch 2048, as ``(a, b)`` of
#: ``a + b m``: on a CPU the sparse path (benchmarks/toy_trainer.py on the 2-core development
#: machine, one thread: 2.6 ms at m = 10, 4.4-4.7 ms at m = 25, 11.6-12.1 ms at m = 100); on a GPU,
#: the dense path (what ``sampler="auto"`` took there before the fused kernel) measured on one H200
#: on 2026-12-04 (torch 2.11, batches of 12: 0.11 ms at m = 10 and 25, 0.15 ms at m = 100; a batch
#: of 170 models at m = 25: 85 us), for the large batches the paper-gpu set forms.  The estimate
#: before (15 us) was 5.7 times too low: Liu's 1020-model main sweep took about half an hour there,
#: not 5 minutes.  The fused kernel's rate is not measured yet: it stays the GPU's figure (an upper
#: bound, if the kernel does what it is for) until a lent GPU measures it (:data:`TOY_RATE_ENV`).
TOY_SECONDS_PER_MODEL_STEP = {"cpu": (1.6e-3, 1.0e-4), "cuda": (7.5e-5, 4.0e-7)}
#: The toy trainer's rate measured in the running session, ``"a,b"`` (seconds per model step at
#: n = 1000, batch 2048, ``a + b m``), in place of :data:`TOY_SECONDS_PER_MODEL_STEP`: the GPU path
#: on CUDA is now the fused kernel (:mod:`repcap.engines.toy.fused`), whose rate is measured only on a lent
#: GPU, so ``tools/gpu_session.sh`` sets this from ``benchmarks/toy_trainer.py`` run minutes before
#: the sweep it budgets.
TOY_RATE_ENV = "REPCAP_TOY_STEP_SECONDS"
#: The reference set's time for toy models, seconds (the rest of the set is fixed by the sources).
REFERENCE_TOY_BUDGET_S = 1200.0


def point_seconds(fn: Callable, c: dict, device: str = "cpu") -> float:
    """The estimated wall time of one point (packing, at a fixed or a decaying rate:
    :mod:`repcap.engines.packing.cost`; toy (trained by
    ``train_points`` or ``overlap_points``):
    :data:`TOY_SECONDS_PER_MODEL_STEP` scaled by ``n x batch``; anything else: 0)."""
    from repcap.engines.packing import estimate_cost, sweep_minimax, sweep_packed
    from repcap.engines.toy import train_points
    from repcap.engines.toy.overlaps import overlap_points

    kind = "cuda" if str(device).startswith("cuda") else "cpu"
    if fn is sweep_packed:
        steps = c.get("steps", int(quotes.value("guha2026.packing_steps")))
        return estimate_cost(c["k"], c["d"], steps, device=kind).seconds
    if fn is sweep_minimax:  # its stages cost what Adam's steps cost, once per start (the refinement is not counted)
        from repcap.engines.settings.packing import MinimaxConfig

        m = MinimaxConfig(**{k: v for k, v in c.items() if k != "device"})
        return estimate_cost(m.k, m.d, m.steps * len(m.schedule) * m.restarts, device=kind).seconds
    if fn is train_points or fn is overlap_points:
        return toy_model_seconds(c["steps"], c["n"], c["batch"], toy_step_seconds(c["m"], kind))
    return 0.0


def duration(s: float) -> str:
    """An estimate's wall time as people read it: ``under 1 s``, ``45 s``, ``12 min``, ``3.4 h``."""
    if s < 0.5:
        return "under 1 s"
    return f"{s:.0f} s" if s < 120 else (f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h")


def toy_step_seconds(m: int, device: str = "cpu") -> float:
    """One model step at n = 1000, batch 2048 and width ``m`` (:data:`TOY_SECONDS_PER_MODEL_STEP`, or
    the rate measured in this session: :data:`TOY_RATE_ENV`)."""
    measured = os.environ.get(TOY_RATE_ENV)
    if measured:
        try:
            a, b = (float(x) for x in measured.split(","))
        except ValueError:
            raise RepcapError(f"{TOY_RATE_ENV}={measured!r}: give 'a,b' (seconds per model step, a + b m)") from None
    else:
        a, b = TOY_SECONDS_PER_MODEL_STEP["cuda" if str(device).startswith("cuda") else "cpu"]
    return a + b * m


def toy_model_seconds(steps: int, n: int, batch: int, seconds_per_model_step: float) -> float:
    """One toy model's time: the per-model-step cost at n = 1000, batch 2048, scaled by n x batch."""
    return steps * seconds_per_model_step * (n * batch) / (1000 * 2048)
