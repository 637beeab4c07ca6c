"""Cosine statistics: our two paths against the obvious alternatives, side by side in one process.

For each (V, d) it times, on the same random matrix (rows with a common component, like real
embeddings):

* ``moments``  - repcap.engines.cosine.moments: exact mean/std/E[cos^2] from the d x d Gram, O(V d^2);
* ``tiled``    - repcap.engines.cosine.tiled_stats: one pass over the upper-triangle tiles (histogram,
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

On a GPU with the fused kernel (:mod:`repcap.engines.cosine.fused`) it prints instead, at 262,144 x 640 (the
issue's size; ``--quick``: 32,768 x 384): the fused pass in fp32, tf32 and bf16, each against the
matmul ceiling of its own precision and a plain ``U @ U.T`` in that precision; the torch tiled pass
(the GPU's path before the kernel) and a torch loop of bf16 products with ``histc``; and the reduced
precisions' error against float64 on 8192 rows (histogram, quantiles, top pairs, mean).
"""

from __future__ import annotations

import argparse
import math
import time

import torch
from _ceiling import ceilings, matmul_ceiling
from _ceiling import describe as describe_ceiling

from repcap.base.devices import device_name, resolve_device
from repcap.engines.cosine import TiledConfig, moments, tiled_stats
from repcap.engines.cosine.fused import usable as fused_usable


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


def torch_loop(U, precision="bf16", block=8192, bins=2000):
    """The obvious alternative on a GPU: a short torch loop over the upper row blocks, products in the
    given precision, ``histc`` and the max of each block (no top pairs, no exceedances)."""
    n = U.shape[0]
    Ul = U.to(torch.bfloat16) if precision == "bf16" else U
    hist = torch.zeros(bins, dtype=torch.float64, device=U.device)
    mx = torch.tensor(-2.0, device=U.device)
    for s in range(0, n, block):
        S = (Ul[s : s + block] @ Ul[s:].T).float().clamp_(-1, 1)
        b = S.shape[0]  # the pairs j <= i of the diagonal block: out of range, so histc and max skip them
        S[:, :b].masked_fill_(torch.ones(b, b, dtype=torch.bool, device=S.device).tril_(), -3.0)
        hist += torch.histc(S, bins=bins, min=-1, max=1).double()
        mx = torch.maximum(mx, S.max())
    return hist, float(mx)


def plain(U, precision, block=8192):
    """A plain ``U @ U.T`` over all V x V entries in row blocks, in the given precision (the ceiling's shape)."""
    Ul = U.to(torch.bfloat16) if precision == "bf16" else U
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    try:
        return plain_matmul(Ul, block)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before


def exact_reference(X, rows=8192, bins=2000):
    """float64 cosines of the pairs of the first ``rows`` rows: histogram counts, the sorted values'
    top 10 with their pairs, the mean."""
    U64 = torch.nn.functional.normalize(X[:rows].double(), dim=1)
    n = U64.shape[0]
    iu = torch.triu_indices(n, n, 1, device=X.device)
    vals = (U64 @ U64.T).clamp_(-1, 1)[iu[0], iu[1]]
    counts = torch.bincount(((vals + 1) * (bins / 2)).long().clamp_(max=bins - 1), minlength=bins).double()
    top = torch.topk(vals, 10)
    pairs = [(int(iu[0, t]), int(iu[1, t])) for t in top.indices]
    return counts.cpu().numpy(), top.values.cpu().numpy(), pairs, float(vals.mean())


def precision_error(X, precision, exact, rows=8192):
    """The pass on ``rows`` rows in ``precision`` against float64: histogram (L1 over pairs), quantiles,
    the top 10 pairs (shared, and the largest |cos| error among them), the mean."""
    import numpy as np

    from repcap.engines.cosine import Histogram

    counts, top_v, top_p, mean = exact
    low = tiled_stats(X[:rows], TiledConfig(precision=precision, top_k=10), device=X.device, progress=False)
    l1 = float(np.abs(low.counts - counts).sum()) / counts.sum()
    h = Histogram(counts)
    dq = max(abs(low.quantiles[q] - h.quantile(q)) for q in low.quantiles)
    shared = len({p[:2] for p in low.top_pairs} & set(top_p))
    dtop = float(np.max(np.abs(np.array([p[2] for p in low.top_pairs]) - top_v)))
    return l1, dq, shared, dtop, abs(low.mean - mean)


def gpu_table(dev, quick: bool, ceil: dict, shape: tuple[int, int] | None = None) -> None:
    """The GPU's paths side by side: the fused pass in fp32 / tf32 / bf16 against the matmul ceiling of the
    same precision (the upper triangle, V^2 d FLOPs, at the ceiling's rate) and a plain U @ U.T in that
    precision; the torch tiled pass (the GPU's path before the kernel) and a torch loop of bf16 products
    with histc; then the reduced precisions' error against float64 on 8192 rows."""
    import os

    V, d = shape or ((32768, 384) if quick else (262144, 640))
    g = torch.Generator().manual_seed(V + d)
    X = (torch.randn(V, d, generator=g) + 0.3 * torch.randn(1, d, generator=g)).to(dev)
    U = torch.nn.functional.normalize(X, dim=1)
    tm, _ = timed(lambda: moments(X, device=dev), dev, repeat=2)
    print(f"V = {V}, d = {d}: {V * (V - 1) // 2:.3g} pairs; exact moments {tm:.4f} s")
    head = (
        f"{'path':>22} | {'s':>7} | {'pairs/s':>9} | {'ceiling s':>9} {'of ceiling':>10} | {'plain U@U.T s':>13} "
        f"{'vs plain/2':>10}"
    )
    print(head)
    print("-" * len(head))
    flops = float(V) * V * d  # the upper triangle's products
    for precision in ("fp32", "tf32", "bf16"):
        cfg = TiledConfig(precision=precision)
        tiled_stats(X[:1024], cfg, device=dev, progress=False)  # compile the kernel outside the timing
        tt, _ = timed(lambda cfg=cfg: tiled_stats(X, cfg, device=dev, progress=False), dev)
        tp, _ = timed(lambda precision=precision: plain(U, precision), dev)
        ideal = flops / ceil[precision]
        print(
            f"{'fused ' + precision:>22} | {tt:>7.3f} | {V * (V - 1) / 2 / tt:>9.3g} | {ideal:>9.3f} "
            f"{ideal / tt:>10.2f} | {tp:>13.3f} {tp / 2 / tt:>10.2f}",
            flush=True,
        )
    os.environ["REPCAP_FUSED"] = "0"
    try:
        tt, _ = timed(lambda: tiled_stats(X, device=dev, progress=False), dev)
    finally:
        os.environ.pop("REPCAP_FUSED")
    ideal = flops / ceil["fp32"]
    print(f"{'torch tiled fp32':>22} | {tt:>7.3f} | {V * (V - 1) / 2 / tt:>9.3g} | {ideal:>9.3f} {ideal / tt:>10.2f} |")
    torch_loop(U[:1024])
    tl_, _ = timed(lambda: torch_loop(U), dev)
    ideal = flops / ceil["bf16"]
    print(
        f"{'torch loop bf16+histc':>22} | {tl_:>7.3f} | {V * (V - 1) / 2 / tl_:>9.3g} | {ideal:>9.3f} {ideal / tl_:>10.2f} |"
    )
    print(
        "(fused: repcap's pass, histogram + moments + exceedances + extremes + top pairs in the product tile; "
        "of ceiling: the upper triangle's V^2 d FLOPs at the same precision's matmul ceiling over the path's time "
        "(targets: fp32 >= 0.7, tf32/bf16 >= 0.5); vs plain/2: half a plain U @ U.T over the path's time)"
    )
    print("\nreduced precision against float64, first 8192 rows:")
    print(
        f"{'precision':>9} | {'hist L1/pairs':>13} | {'max |dq|':>9} | {'top-10 shared':>13} | {'max |dcos| top':>14} | {'|d mean|':>9}"
    )
    exact = exact_reference(X)
    for precision in ("fp32", "tf32", "bf16"):
        l1, dq, shared, dtop, dm = precision_error(X, precision, exact)
        print(f"{precision:>9} | {l1:>13.2e} | {dq:>9.2e} | {shared:>10}/10 | {dtop:>14.2e} | {dm:>9.2e}")
    # last (a time limit cuts these first): the fused fp32 pass's execution choices, the same counts
    print("\nfused fp32, other execution choices (the same counts):")
    ideal = flops / ceil["fp32"]
    for env, label in (
        ({"REPCAP_COSINE_HIST": "warp"}, "tl.histogram per tile"),
        ({"REPCAP_COSINE_BLOCK": "64"}, "64-row tiles"),
    ):
        os.environ.update(env)
        try:
            tiled_stats(X[:1024], device=dev, progress=False)
            tt, _ = timed(lambda: tiled_stats(X, device=dev, progress=False), dev)
        finally:
            for k in env:
                os.environ.pop(k)
        print(f"{label:>22} | {tt:>7.3f} s | of the fp32 ceiling {ideal / tt:.2f}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="V = 8k only")
    ap.add_argument("--smoke", action="store_true", help="toy sizes: only checks that it runs (tools/gpu_session.sh)")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--naive-gb", type=float, default=4.0, help="largest V x V float32 matrix to build")
    ap.add_argument("--sizes", default=None, help="e.g. 8192x384,30522x576")
    args = ap.parse_args(argv)
    dev = resolve_device(args.device)
    if dev.type == "cuda" and fused_usable(dev) and not args.sizes:
        print(f"device: {device_name(dev)}; torch {torch.__version__}")
        ceil = ceilings(dev)
        print(describe_ceiling(dev, ceil))
        gpu_table(dev, args.quick, ceil, (4096, 64) if args.smoke else None)
        return 0
    if args.smoke:
        grid = [(1024, 32)]
    elif args.sizes:
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
