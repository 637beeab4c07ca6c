"""Cosine statistics: our two paths against the obvious alternatives, side by side in one process.

For each (V, d) it times, on the same random matrix (rows with a common component, like real
embeddings):

* ``moments``  - repcap.cosine.moments: exact mean/std/E[cos^2] from the d x d Gram, O(V d^2);
* ``tiled``    - repcap.cosine.tiled_stats: one pass over the upper-triangle tiles (histogram,
                 quantiles, max, top pairs, nearest neighbours, exceedances);
* ``matmul``   - a plain ``X @ X.T`` over all V x V entries, in row blocks, nothing else: the
                 throughput ceiling of any pairwise pass;
* ``naive``    - the full V x V matrix in memory, then histogram / mean / std over it (only where it
                 fits in --naive-gb).

Throughput is unique pairs per second: the tiled pass visits V(V-1)/2 pairs, the plain matmul
computes V^2 entries, so ``tiled/matmul = t_matmul / (2 t_tiled)`` up to the diagonal.

The matmul ceiling (a square float32 matmul, ``_ceiling.py``) is measured in the same run; ``moments
%ceil`` and ``tiled %ceil`` are each path's useful FLOP/s (2 V d^2 for the moments, V^2 d for the
upper-triangle tiles) as a fraction of it -- on a GPU the number the README records.

    python benchmarks/cosine_stats.py [--quick] [--device auto|cpu|cuda]
"""

from __future__ import annotations

import argparse
import math
import time

import torch
from _ceiling import describe as describe_ceiling
from _ceiling import matmul_ceiling

from repcap.cosine import moments, tiled_stats
from repcap.devices import device_name, resolve_device


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def timed(fn, dev, repeat=1):
    best = math.inf
    out = None
    for _ in range(repeat):
        sync(dev)
        t0 = time.perf_counter()
        out = fn()
        sync(dev)
        best = min(best, time.perf_counter() - t0)
    return best, out


def plain_matmul(U, block=8192):
    acc = 0.0
    for s in range(0, U.shape[0], block):
        C = U[s : s + block] @ U.T
        acc += float(C[0, 0])  # keep the product alive
    return acc


def naive(U, bins=2000):
    n = U.shape[0]
    C = U @ U.T
    h = torch.histc(C.clamp_(-1, 1), bins=bins, min=-1, max=1)
    total = float(C.sum(dtype=torch.float64))
    sq = float((C * C).sum(dtype=torch.float64))
    h[-1] -= n  # the diagonal
    mean = (total - n) / (n * (n - 1))
    return h / 2, mean, math.sqrt((sq - n) / (n * (n - 1)) - mean**2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="V = 8k only")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--naive-gb", type=float, default=4.0, help="largest V x V float32 matrix to build")
    ap.add_argument("--sizes", default=None, help="e.g. 8192x384,30522x576")
    args = ap.parse_args(argv)
    dev = resolve_device(args.device)
    if args.sizes:
        grid = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]
    else:
        vs = [8192] if args.quick else [8192, 30522, 49152]
        grid = [(v, d) for v in vs for d in (384, 576)]
    print(f"device: {device_name(dev)}; torch {torch.__version__}")
    ceil = matmul_ceiling(dev)
    print(describe_ceiling(dev, ceil))
    hdr = (
        f"{'V':>6} {'d':>4} | {'moments s':>9} {'tiled s':>8} {'matmul s':>8} {'naive s':>8} | "
        f"{'tiled/matmul thr':>16} {'moments x faster':>16} {'tiled vs naive':>14} | "
        f"{'moments %ceil':>13} {'tiled %ceil':>11} | {'|d mean|':>8}"
    )
    print(hdr)
    print("-" * len(hdr))
    for V, d in grid:
        g = torch.Generator().manual_seed(V + d)
        X = (torch.randn(V, d, generator=g) + 0.3 * torch.randn(1, d, generator=g)).to(dev)
        U = torch.nn.functional.normalize(X, dim=1)
        tm, m = timed(lambda X=X: moments(X, device=dev), dev, repeat=2)
        tt, t = timed(lambda X=X: tiled_stats(X, device=dev, progress=False), dev)
        tp, _ = timed(lambda U=U: plain_matmul(U), dev)
        tn = float("nan")
        if args.naive_gb >= V * V * 4 / 2**30:
            tn, (_h, mean_n, _std_n) = timed(lambda U=U: naive(U), dev)
            assert abs(mean_n - m.mean) < 1e-4, (mean_n, m.mean)
        thr = tp / (2 * tt)
        print(
            f"{V:>6} {d:>4} | {tm:>9.3f} {tt:>8.2f} {tp:>8.2f} {tn:>8.2f} | {thr:>16.2f} {tt / tm:>16.1f} "
            f"{(tn / tt if tn == tn else float('nan')):>14.2f} | {100 * 2 * V * d * d / tm / ceil:>12.1f}% "
            f"{100 * V * V * d / tt / ceil:>10.1f}% | {abs(t.mean - m.mean):>8.1e}"
        )
        del X, U
    print(
        "\ntiled/matmul thr: unique pairs per second of the tiled pass over those of a plain X @ X.T "
        "(target >= 0.7);\nmoments x faster: tiled time / moment time (target >= 20 at V = 30k); "
        "tiled vs naive: naive time / tiled time."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
