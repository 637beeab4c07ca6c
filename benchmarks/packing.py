"""Benchmark of repcap.engines.packing: the tiled loss+gradient against a naive full-Gram autograd
implementation (time and peak memory), against a plain matmul of the same shape (throughput), and a
batch of B packing problems against a Python loop over them.

    python benchmarks/packing.py            # k in {4000, 16000}
    python benchmarks/packing.py --quick    # k in {1000, 4000}

On a GPU it first times Guha's nine small cells (k <= 4000, d <= 512, his settings): the step replayed
from a CUDA graph (:mod:`repcap.engines.packing.graph`, the GPU's path) against the eager step, per step and
extrapolated to his 5000 steps (target: the nine under 20 s together), with the cost model's estimate.

Each measurement of peak memory runs in a fresh child process (CPU: peak RSS above the baseline after
the inputs exist; CUDA: torch.cuda.max_memory_allocated).  Prints a plain-text table of ratios.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, time, torch
from repcap import packing
from repcap.engines.packing.losses import flush_denormal
from repcap.base.devices import resolve_device
args = json.loads(sys.argv[1])
dev = resolve_device(args["device"])
if dev.type == "cpu":
    torch.set_num_threads(args["threads"])
torch.manual_seed(0)
V = packing.normalise(torch.randn(1, args["d"], args["k"], device=dev))

def rss_now():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize()

def run():
    if args["impl"] == "tiled":
        W = V.clone().requires_grad_(True)
        packing.TiledPackingLoss.apply(W, args["loss"], 20.0, 10.0, args["tile"]).sum().backward()
    elif args["impl"] == "dense":
        W = V.clone().requires_grad_(True)
        packing.dense_loss(W, args["loss"], beta=20.0, p=10.0).sum().backward()
    else:  # matmul: the Gram and the gradient product, same shapes, no elementwise work
        G = V.transpose(1, 2) @ V
        (V @ G)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)

with flush_denormal(dev):
    run()  # warm-up
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats(dev)
        base = torch.cuda.memory_allocated(dev)
    else:
        base = rss_now()
    t0 = time.perf_counter()
    for _ in range(args["reps"]):
        run()
    sec = (time.perf_counter() - t0) / args["reps"]
if dev.type == "cuda":
    peak = torch.cuda.max_memory_allocated(dev) - base
else:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
print(json.dumps({"seconds": sec, "peak_bytes": max(peak, 0)}))
"""


def child(**kw) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(kw)], capture_output=True, text=True)
    if out.returncode != 0:
        return {"seconds": float("nan"), "peak_bytes": float("nan"), "error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def batch_vs_loop(k: int, d: int, B: int, steps: int, device: str) -> tuple[float, float, float]:
    from repcap.engines import packing

    cfg = packing.PackConfig(k=k, d=d, loss="power", steps=steps, lr=0.01, device=device)
    packing.optimise(packing.PackConfig(k=k, d=d, loss="power", steps=2, device=device), progress=False)
    t0 = time.perf_counter()
    res = packing.optimise(cfg, seeds=list(range(B)), progress=False)
    t_batch = time.perf_counter() - t0
    t0 = time.perf_counter()
    eps = [
        packing.optimise(
            packing.PackConfig(k=k, d=d, loss="power", steps=steps, lr=0.01, seed=s, device=device), progress=False
        ).eps_star[0]
        for s in range(B)
    ]
    t_loop = time.perf_counter() - t0
    import numpy as np

    return t_batch, t_loop, float(np.max(np.abs(np.asarray(eps) - res.eps_star)))


#: Guha's nine cheapest cells of the paper-gpu grid (k <= 4000; 5000 Adam steps each at full scale).
GUHA_SMALL_CELLS = (
    (2000, 32),
    (2000, 64),
    (2000, 128),
    (2000, 256),
    (2000, 512),
    (4000, 32),
    (4000, 64),
    (4000, 128),
    (4000, 256),
)


def gpu_cells(steps: int, ceil: float, cells=GUHA_SMALL_CELLS, full_steps: int = 5000, device: str = "cuda") -> None:
    """Guha's small cells on the GPU, his settings (power loss, his exponent and rate), ``steps`` steps
    each: the step replayed from a CUDA graph (repcap's path) against the eager step (the path before
    it), per step, extrapolated to his 5000 steps, and as a fraction of the float32 matmul ceiling."""
    import os
    from dataclasses import replace

    from repcap.engines import packing

    print(f"\nGuha's small cells on the GPU, {steps} steps each (extrapolated to {full_steps}):")
    head = f"{'k':>6} {'d':>4} | {'graph ms/step':>13} {'%fp32':>6} | {'eager ms/step':>13} | {'eager/graph':>11} | {'cost model':>10}"
    print(head)
    print("-" * len(head))
    total = {"1": 0.0, "0": 0.0}
    for k, d in cells:
        cfg = packing.PackConfig(k=k, d=d, steps=steps, device=device)
        per = {}
        for switch in ("1", "0"):
            os.environ["REPCAP_FUSED"] = switch
            try:
                packing.optimise(replace(cfg, steps=10), progress=False)  # warm-up
                per[switch] = packing.optimise(cfg, progress=False).seconds / steps
            finally:
                os.environ.pop("REPCAP_FUSED")
            total[switch] += per[switch] * full_steps
        model = packing.estimate_cost(k, d, full_steps, device="cuda").seconds / full_steps
        print(
            f"{k:>6} {d:>4} | {1e3 * per['1']:>13.3f} {100 * 6 * k * k * d / per['1'] / ceil:>5.1f}% | "
            f"{1e3 * per['0']:>13.3f} | {per['0'] / per['1']:>10.1f}x | {1e3 * model:>10.3f}",
            flush=True,
        )
    print(
        f"the {len(cells)} cells at {full_steps} steps: graph {total['1']:.1f} s (target < 20 s), eager {total['0']:.1f} s "
        "(%fp32: 6 k^2 d FLOPs a step at the float32 matmul ceiling over the step's time; cost model: the eager "
        "step's estimate, repcap.engines.packing.cost)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    ap.add_argument("--smoke", action="store_true", help="toy sizes: only checks that it runs (tools/gpu_session.sh)")
    ap.add_argument("--d", type=int, default=100, help="dimension (default 100, as 3Blue1Brown/Yoder)")
    ap.add_argument("--loss", default="exp", help="loss (default exp)")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="CPU threads for every implementation (default 1: stable on a shared machine)",
    )
    args = ap.parse_args()
    ks = [200, 400] if args.smoke else [1000, 4000] if args.quick else [4000, 16000]
    from repcap.base.devices import resolve_device
    from repcap.engines import packing

    dev = resolve_device(args.device)
    print(f"repcap.engines.packing benchmark: d={args.d}, loss={args.loss}, device={dev}, cpu threads={args.threads}")
    import torch
    from _ceiling import describe as describe_ceiling
    from _ceiling import matmul_ceiling

    if dev.type == "cpu":
        torch.set_num_threads(args.threads)  # the ceiling with the children's thread count
    ceil = matmul_ceiling(dev)
    print(describe_ceiling(dev, ceil))
    if dev.type == "cuda":  # the graph-replayed step first: the table a lent GPU is for
        gpu_cells(20 if args.smoke else 300 if args.quick else 1000, ceil)
    print(
        f"{'k':>6} {'tile':>5} {'tiled s':>9} {'dense s':>9} {'dense/tiled time':>17} {'tiled MiB':>10} "
        f"{'dense MiB':>10} {'dense/tiled mem':>16} {'matmul s':>9} {'matmul/tiled thru':>18} {'tiled %ceil':>12}"
    )
    for k in [] if args.smoke else ks:  # smoke: no child processes (each pays torch's import)
        tile = packing.default_block(k, 1, dev) if dev.type == "cpu" else packing.default_tile(k, 1, dev)
        reps = 3 if k <= 4000 else 1
        common = dict(k=k, d=args.d, loss=args.loss, device=str(dev), tile=tile, reps=reps, threads=args.threads)
        t = child(impl="tiled", **common)
        n = child(impl="dense", **common)
        m = child(impl="matmul", **common)
        mib = 1 << 20
        print(
            f"{k:>6} {tile:>5} {t['seconds']:>9.3f} {n['seconds']:>9.3f} {n['seconds'] / t['seconds']:>17.2f} "
            f"{t['peak_bytes'] / mib:>10.1f} {n['peak_bytes'] / mib:>10.1f} "
            f"{n['peak_bytes'] / max(t['peak_bytes'], 1):>16.1f} {m['seconds']:>9.3f} "
            f"{m['seconds'] / t['seconds']:>18.2f} {100 * 4 * args.d * k * k / t['seconds'] / ceil:>11.1f}%"
        )
        if "error" in n:
            print(f"       dense failed: {n['error']}")
    print(
        "  (tiled: symmetric square blocks on a CPU, O(tile^2) working memory, column tiles O(tile * k) on a GPU;"
        " dense holds several k x k tensors. 'matmul/tiled thru' = time of the two plain matmuls V^T V and V G"
        " divided by the tiled loss+gradient: 1.0 means the elementwise loss work costs nothing;"
        " 'tiled %ceil' = the 4 d k^2 matmul FLOPs of loss+gradient per second over the matmul ceiling)"
    )

    kb, db, B, steps = (100, 8, 4, 5) if args.smoke else (500, 16, 8, 20) if args.quick else (1000, 32, 8, 50)
    t_batch, t_loop, diff = batch_vs_loop(kb, db, B, steps, args.device)
    print(
        f"\nbatch of B={B} problems (k={kb}, d={db}, {steps} steps): batched {t_batch:.2f} s, loop {t_loop:.2f} s, "
        f"loop/batched = {t_loop / t_batch:.2f}; max |eps* batched - eps* loop| = {diff:.2e}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
