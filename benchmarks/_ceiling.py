"""The matmul ceiling of a device, measured in the same run as a benchmark (issue 6, "One GPU, used well").

:func:`matmul_ceiling` times a square float32 ``A @ B`` (n = 8192 on CUDA, 2048 on a CPU; best of
``repeat`` after a warm-up) and returns FLOP/s (2 n^3 per product).  The benchmarks divide the FLOP/s
of their own paths by it, so a GPU run reports throughput as a fraction of what that GPU's plain
matmul reaches at that moment (TF32 stays as torch's default: off for float32 matmuls).  The CPU and
CUDA paths are the same code.
"""

from __future__ import annotations

import time

import torch


def matmul_ceiling(dev: torch.device, n: int | None = None, repeat: int = 5) -> float:
    """FLOP/s of a square float32 matmul of side ``n`` on ``dev``."""
    n = n or (8192 if dev.type == "cuda" else 2048)
    g = torch.Generator().manual_seed(0)
    A = torch.randn(n, n, generator=g).to(dev)
    B = torch.randn(n, n, generator=g).to(dev)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    A @ B  # warm-up (cuBLAS handles, CPU thread pool)
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        A @ B
        sync()
        best = min(best, time.perf_counter() - t0)
    del A, B
    return 2.0 * n**3 / best


def describe(dev: torch.device, flops: float) -> str:
    return f"matmul ceiling on {dev}: {flops / 1e12:.3f} TFLOP/s (float32, measured now)"
