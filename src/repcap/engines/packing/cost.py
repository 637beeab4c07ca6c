"""How long a packing run takes, before it starts: an order-of-magnitude estimate from the work
of one step of :func:`repcap.engines.packing.loss_and_grad` and a throughput per device kind.

One step of k vectors in R^d forms the Gram and the gradient products, about ``6 k^2 d`` flops
(counted as for a dense Gram and two products; the CPU's symmetric pass does half of it), plus
elementwise work over the k^2 pairs (the loss, its derivative and the sums); on a GPU a step takes
at least a fixed time (its few dozen kernel launches, which overlap the arithmetic of a large step).  The throughputs are measured on this
project's 2-core CPU development machine with one thread (the packing default): ``6 k^2 d`` at 150
GFLOP/s and 1.7 ns per pair at k = 2000, d = 4..1000 (power and exp losses, within 10%).

The GPU figures are fitted to one H200 (2026-12-04, torch 2.11, the eager step, data/runs/paper-gpu):
Guha's cells at k = 2000 took about 1.7 ms a step whatever d (32..512) and at k = 4000 about 2 ms
(d = 32..256): launch-bound, at least 1.9 ms a step; 10,000 vectors in R^100 took 5.4 ms a step under
the power loss (3.5 abs-relu, 4.1-4.3 exp), fitted with ``6 k^2 d`` at 30 TFLOP/s (0.6 of the float32
matmul ceiling measured there) and 3e10 pairs a second (the power loss's; exp and abs-relu run
faster).  A step's estimate is the larger of the two; it is within -9% .. +51% of those 13 runs (the
former guesses, 20 TFLOP/s, 2e10 pairs/s and no floor, were 6-7x too low on the small cells and
1.5-2x too high on 10,000 x 100).
The CUDA-graph step (:mod:`repcap.engines.packing.graph`) removes most of the launch time; its rate is to be
measured on a lent GPU (``benchmarks/packing.py --device cuda``), so the estimate stays the eager
step's (conservative for the time budget).
"""

from __future__ import annotations

from dataclasses import dataclass

#: ``6 k^2 d`` flops per second, by device kind.
MATMUL_FLOPS = {"cpu": 150e9, "cuda": 30e12}
#: Pairs of the elementwise pass per second, by device kind.
PAIRS_PER_SECOND = {"cpu": 1 / 1.7e-9, "cuda": 3e10}
#: The least time of a (batch's) step, whatever its size: its kernel launches, by device kind.
STEP_SECONDS = {"cpu": 0.0, "cuda": 1.9e-3}
#: ``repcap pack`` asks before a run estimated above this many seconds.
CONFIRM_SECONDS = 3600.0


@dataclass(frozen=True)
class CostEstimate:
    """The work of a run and its estimated wall time."""

    flops: float  # matmul flops, all steps and problems
    pair_steps: float  # pairs x steps x problems of elementwise work
    seconds: float

    def describe(self) -> str:
        return f"about {_duration(self.seconds)} ({self.flops:.2g} flops and {self.pair_steps:.2g} pair-steps)"


def estimate_cost(
    k: int,
    d: int,
    steps: int,
    *,
    batch: int = 1,
    device: str = "cpu",
    flops_per_second: float | None = None,
    pairs_per_second: float | None = None,
) -> CostEstimate:
    """The cost of ``steps`` Adam steps on ``batch`` problems of k vectors in R^d on ``device``
    (``"cpu"`` or ``"cuda"``; a torch device string's type), with the module's throughputs unless
    given (and then no least time per step).  The curve samples and the final statistics add about
    one step.  ``seconds`` is each step's arithmetic or the device's least time per step, whichever
    is larger."""
    kind = "cuda" if str(device).startswith("cuda") else "cpu"
    F = float(flops_per_second or MATMUL_FLOPS[kind])
    R = float(pairs_per_second or PAIRS_PER_SECOND[kind])
    least = 0.0 if flops_per_second or pairs_per_second else STEP_SECONDS[kind]
    batch_steps = float(max(int(steps), 0) + 1)
    n = batch_steps * int(batch)
    flops = n * 6.0 * float(k) ** 2 * int(d)
    pair_steps = n * float(k) ** 2
    work = flops / F + pair_steps / R
    return CostEstimate(flops=flops, pair_steps=pair_steps, seconds=max(work, batch_steps * least))


def _duration(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 2 * 3600:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    if s < 2 * 365 * 86400:
        return f"{s / 86400:.0f} days"
    return f"{s / (365 * 86400):.2g} years"
