"""The packing optimisation's step captured once in a CUDA graph and replayed: the GPU path of
:func:`repcap.engines.packing.optimise` at a fixed rate.

A step of k vectors is a few dozen small kernels (the normalisation, the tiled loss and gradient,
autograd through the normalisation, Adam, the renormalisation); for Guha's cells of k <= 8000 on a
GPU their arithmetic takes tens of microseconds and their launches about 1.7 ms (measured on one
H200: 8.3-10.5 s for 5000 steps, whatever d), so the run is launch-bound.  Replaying the captured
step launches it as one graph.  The replayed step is the eager step's own code
(:func:`repcap.engines.packing.optimiser._adam_step`), recorded once with its tensors at fixed addresses;
the curve's steps (every ``record_every``, with their host reads and the finiteness check) run
eagerly in between, on the same parameters and Adam state.  Adam runs with ``capturable=True`` (its
step count and bias corrections on the device), which rounds differently from the eager optimiser
in the last bits: a GPU trajectory, held to the eager one within a tolerance by tests/gpu, and to the
CPU's through the seed scatter (``repcap bundle compare``).

``REPCAP_FUSED=0`` turns it off (the eager loop runs); a capture that fails warns and the run goes on
eagerly.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable

import torch

#: Eager steps before the capture (on a side stream, as CUDA graphs need: Adam's state and the
#: libraries' workspaces exist before they are recorded).
WARMUP_STEPS = 3


def usable(device: torch.device, lr_floor: float) -> bool:
    """A run on ``device`` replays a captured step: CUDA, a fixed rate (``lr_floor == 1``), and
    ``REPCAP_FUSED`` not ``0``."""
    return device.type == "cuda" and lr_floor == 1.0 and os.environ.get("REPCAP_FUSED", "1") != "0"


def captured_loop(steps, every: int, step_fn: Callable[[int, bool], torch.Tensor]) -> str:
    """Run ``step_fn(step, keep_grad)`` over ``steps`` (an iterable of step numbers, e.g. the progress
    bar): curve steps (``step % every == 0``) eagerly, the first :data:`WARMUP_STEPS` others eagerly
    on a side stream, then one captured and replayed for every other step.  Returns how the steps ran:
    ``"graph"``, or ``"eager"`` (nothing to capture, or a capture that failed)."""
    graph: torch.cuda.CUDAGraph | None = None
    failed = False
    warm = 0
    for step in steps:
        if step % every == 0 or failed:
            step_fn(step, True)
            continue
        if graph is None and warm < WARMUP_STEPS:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                step_fn(step, True)
            torch.cuda.current_stream().wait_stream(side)
            warm += 1
            continue
        if graph is None:
            graph = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(graph):
                    step_fn(step, True)  # recorded, not run
            except Exception as exc:  # a capture that fails leaves the eager loop
                warnings.warn(
                    f"packing: capturing the step in a CUDA graph failed ({exc}); running eagerly", stacklevel=2
                )
                failed = True
                step_fn(step, True)
                continue
        graph.replay()
    return "graph" if graph is not None and not failed else "eager"
