"""How long a packing run takes, before it starts: an order-of-magnitude estimate from the work
of one step of :func:`repcap.packing.loss_and_grad` and a throughput per device kind.

One step of k vectors in R^d forms the Gram and the gradient products, about ``6 k^2 d`` flops
(counted as for a dense Gram and two products; the CPU's symmetric pass does half of it), plus
elementwise work over the k^2 pairs (the loss, its derivative and the sums).  The throughputs are
measured on this project's 2-core CPU development machine with one thread (the packing default):
``6 k^2 d`` at 150 GFLOP/s and 1.7 ns per pair at k = 2000, d = 4..1000 (power and exp losses,
within 10%); the GPU figures are conservative guesses for a current data-centre GPU in float32.
"""

from __future__ import annotations

from dataclasses import dataclass

#: ``6 k^2 d`` flops per second, by device kind.
MATMUL_FLOPS = {"cpu": 150e9, "cuda": 20e12}
#: Pairs of the elementwise pass per second, by device kind.
PAIRS_PER_SECOND = {"cpu": 1 / 1.7e-9, "cuda": 2e10}
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
    given.  The curve samples and the final statistics add about one step."""
    kind = "cuda" if str(device).startswith("cuda") else "cpu"
    F = float(flops_per_second or MATMUL_FLOPS[kind])
    R = float(pairs_per_second or PAIRS_PER_SECOND[kind])
    n = float(max(int(steps), 0) + 1) * int(batch)
    flops = n * 6.0 * float(k) ** 2 * int(d)
    pair_steps = n * float(k) ** 2
    return CostEstimate(flops=flops, pair_steps=pair_steps, seconds=flops / F + pair_steps / R)


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
