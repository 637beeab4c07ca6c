"""Batched toy-model training against a Python loop over single models (same models, same
total steps, same process).

Both paths run :func:`repcap.engines.toy.train` on identical model specs (Liu, Liu & Gore 2025 toy model:
different alpha, gamma and seed per model); the batched path trains them as one
``W: (n_models, n, m)`` batch, the loop trains them one at a time.  The results are identical up to
float round-off (checked here), so the ratio is pure batching gain.  Both use the default sampler
(``sampler="auto"``: dense below n = 512, the sparse path from there on a CPU); the table says which.

    python benchmarks/toy_sweep.py            # 16 and 64 small models, and one paper-sized shape
    python benchmarks/toy_sweep.py --quick    # 16 and 32 small models, fewer steps
"""

from __future__ import annotations

import argparse
import time

import torch
from _ceiling import describe as describe_ceiling
from _ceiling import matmul_ceiling

from repcap.base.devices import device_name, resolve_device
from repcap.engines import toy


def specs(k: int) -> list[toy.ModelSpec]:
    alphas, gammas = (0.5, 1.0, 1.5, 2.0), (-1.0, 0.1, 0.5, 1.0)
    return [toy.ModelSpec(alpha=alphas[i % 4], gamma=gammas[(i // 4) % 4], seed=i) for i in range(k)]


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.perf_counter() - t0, out


def bench(n: int, m: int, batch: int, steps: int, k: int, device: str, repeat: int = 3) -> dict:
    """Best of ``repeat`` alternating runs of each path (the minimum is the least disturbed by
    other processes on a shared machine)."""
    cfg = toy.TrainConfig(n=n, m=m, steps=steps, batch=batch, device=device)
    ss = specs(k)
    toy.train(ss[:1], toy.TrainConfig(n=n, m=m, steps=5, batch=batch, device=device))  # warm-up
    tb, tl = [], []
    for _ in range(repeat):
        t, rb = timed(lambda: toy.train(ss, cfg))
        tb.append(t)
        t, rl = timed(lambda: [toy.train([s], cfg) for s in ss])
        tl.append(t)
    t_batched, t_loop = min(tb), min(tl)
    W_loop = torch.cat([r.W for r in rl])
    err = (W_loop - rb.W).abs().max().item()
    return {
        "n": n,
        "m": m,
        "batch": batch,
        "steps": steps,
        "models": k,
        "batched_s": t_batched,
        "loop_s": t_loop,
        "ratio": t_loop / t_batched,
        "max_abs_dW": err,
        "sampler": rb.sampler,
    }


def toy_flops(r: dict) -> float:
    """Matmul FLOPs of a toy run per step and model: dense, forward x W and h W^T (2 x 2 batch n m)
    and about twice that backward; sparse, the three dense products (6 batch n m, the GEMM floor of
    benchmarks/toy_trainer.py)."""
    per = 6.0 if r["sampler"] == "sparse" else 12.0
    return per * r["batch"] * r["n"] * r["m"] * r["steps"] * r["models"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small run (seconds)")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--repeat", type=int, default=3, help="runs per path; the best is reported")
    args = ap.parse_args()
    dev = resolve_device(args.device)
    if args.quick:
        cases = [(40, 5, 64, 200, 16), (40, 5, 64, 200, 32)]
    else:
        cases = [
            (40, 5, 64, 500, 16),
            (40, 5, 64, 500, 64),
            (100, 10, 256, 300, 16),
            (256, 16, 256, 200, 40),
            (1000, 10, 2048, 20, 16),
        ]
    print(f"toy sweep benchmark on {device_name(dev)} (torch {torch.__version__}), best of {args.repeat}")
    ceil = matmul_ceiling(dev)
    print(describe_ceiling(dev, ceil))
    head = (
        f"{'n':>5} {'m':>3} {'batch':>5} {'steps':>5} {'models':>6} {'batched s':>10} {'loop s':>8} {'ratio':>6} "
        f"{'max|ΔW|':>9} {'batched %ceil':>13} {'sampler':>7}"
    )
    print(head)
    print("-" * len(head))
    for case in cases:
        r = bench(*case, device=str(dev), repeat=args.repeat)
        print(
            f"{r['n']:>5} {r['m']:>3} {r['batch']:>5} {r['steps']:>5} {r['models']:>6} {r['batched_s']:>10.2f} "
            f"{r['loop_s']:>8.2f} {r['ratio']:>5.1f}x {r['max_abs_dW']:>9.1e} "
            f"{100 * toy_flops(r) / r['batched_s'] / ceil:>12.2f}% {r['sampler']:>7}"
        )
    print(
        "(batched %ceil: approximate matmul FLOP/s of the batched run -- 12 batch n m per step and model"
        " for the dense path, 6 batch n m for the sparse one -- over the matmul ceiling)"
    )


if __name__ == "__main__":
    main()
