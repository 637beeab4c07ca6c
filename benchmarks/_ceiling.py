"""The matmul ceiling of a device, measured in the same run as a benchmark (issue 6, "One GPU, used well").

:func:`matmul_ceiling` times a square ``A @ B`` (n = 8192 on CUDA, 2048 on a CPU; best of ``repeat``
after a warm-up) and returns FLOP/s (2 n^3 per product), in one of three precisions: ``fp32``
(float32 with TF32 off, torch's default), ``tf32`` (float32 inputs on the tensor cores) and ``bf16``
(bfloat16 inputs, float32 accumulation).  The benchmarks divide the FLOP/s of their own paths by the
ceiling of the precision those paths compute in, so a GPU run reports throughput as a fraction of
what that GPU's plain matmul reaches at that moment.  On a CPU only ``fp32`` is measured (it has no
TF32, and its bfloat16 matmul is no ceiling of anything here).  The CPU and CUDA paths are the same code.
"""

from __future__ import annotations

import time

import torch

PRECISIONS = ("fp32", "tf32", "bf16")


def matmul_ceiling(dev: torch.device, n: int | None = None, repeat: int = 5, precision: str = "fp32") -> float:
    """FLOP/s of a square matmul of side ``n`` on ``dev`` in ``precision``."""
    n = n or (8192 if dev.type == "cuda" else 2048)
    g = torch.Generator().manual_seed(0)
    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    A = torch.randn(n, n, generator=g).to(dev, dtype)
    B = torch.randn(n, n, generator=g).to(dev, dtype)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    try:
        A @ B  # warm-up (cuBLAS handles, CPU thread pool)
        sync()
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            A @ B
            sync()
            best = min(best, time.perf_counter() - t0)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before
    del A, B
    return 2.0 * n**3 / best


def ceilings(dev: torch.device) -> dict[str, float]:
    """The ceilings of every precision the device has (a CPU: ``fp32`` only)."""
    kinds = PRECISIONS if dev.type == "cuda" else ("fp32",)
    return {p: matmul_ceiling(dev, precision=p) for p in kinds}


def describe(dev: torch.device, flops: float | dict[str, float]) -> str:
    if isinstance(flops, dict):
        parts = ", ".join(f"{p} {v / 1e12:.3f}" for p, v in flops.items())
        return f"matmul ceilings on {dev}: {parts} TFLOP/s (measured now)"
    return f"matmul ceiling on {dev}: {flops / 1e12:.3f} TFLOP/s (float32, measured now)"
