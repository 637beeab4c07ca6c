"""Benchmark of the minimax method (:mod:`repcap.engines.packing.minimax`) against the obvious
alternative, Adam on Guha's power loss (:func:`repcap.engines.packing.optimise`, chapter 11's quick
settings: 1000 steps, rate 0.01), on cells of Sloane's table of best-known line packings: wall time per
cell, each method's coherence over the best known, the time ratio, and the Gram products' throughput
as a fraction of the matmul ceiling measured in the same run.

    python benchmarks/minimax.py            # (d, N) in {(3, 20), (7, 28), (11, 72), (16, 50)}
    python benchmarks/minimax.py --quick    # (3, 20), (7, 28)
"""

from __future__ import annotations

import argparse
import sys
import time

import torch
from _ceiling import describe, matmul_ceiling

CELLS = [(3, 20), (7, 28), (11, 72), (16, 50)]
ADAM = {"loss": "power", "steps": 1000, "lr": 0.01}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--threads", type=int, default=1, help="CPU threads of both methods (default 1)")
    args = ap.parse_args()
    from repcap.engines import constructions, packing
    from repcap.engines.packing import minimax

    torch.set_num_threads(args.threads)
    dev = torch.device("cpu")
    ceiling = matmul_ceiling(dev)
    print(describe(dev, ceiling), f"{args.threads} thread(s)")
    best = constructions.best_known().set_index(["d", "N"]).mu
    cells = CELLS[:2] if args.quick else CELLS
    print(f"{'cell':>10} {'best known':>10} | {'Adam s':>7} {'Adam/best':>9} | {'minimax s':>9} {'mm/best':>8} | ratio")
    for d, n in cells:
        mu = float(best.loc[(d, n)])
        t0 = time.perf_counter()
        adam = packing.optimise(
            packing.PackConfig(k=n, d=d, seed=0, device="cpu", threads=args.threads, **ADAM), progress=False
        )
        t_adam = time.perf_counter() - t0
        cfg = packing.MinimaxConfig(k=n, d=d, device="cpu", threads=args.threads)
        t0 = time.perf_counter()
        mm = minimax.solve(cfg, progress=False)
        t_mm = time.perf_counter() - t0
        # Gram and its two gradient products: 3 x 2 k^2 d FLOPs a step, per start
        stage_flops = 6.0 * n * n * d * cfg.steps * len(cfg.schedule) * cfg.restarts
        print(
            f"{f'({d}, {n})':>10} {mu:10.5f} | {t_adam:7.2f} {float(adam.eps_star.ravel()[0]) / mu:9.4f} | {t_mm:9.2f} "
            f"{mm.eps_star / mu:8.5f} | {t_mm / t_adam:5.1f}x  (minimax stages at "
            f"{stage_flops / t_mm / ceiling:.1%} of the ceiling, {mm.programs} programs)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
