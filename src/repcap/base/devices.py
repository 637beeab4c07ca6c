"""Device, dtype and seeding: the only module that looks at CUDA.

Every engine takes ``device="auto"`` and calls :func:`resolve_device`, so one code path runs on the
CPU and on a GPU.
"""

from __future__ import annotations

import os
import random

import numpy as np
import torch

from repcap import RepcapError
from repcap.base.memory import max_cpu_threads


def resolve_device(device: str | torch.device | None = "auto") -> torch.device:
    """``"auto"`` -> CUDA when available, else CPU (``REPCAP_AUTO_DEVICE=cpu`` makes ``"auto"`` the
    CPU on any machine: what the engine fingerprints run under).  ``"cuda"`` without CUDA, or
    ``"cuda:N"`` past the last GPU, is a clear error: a device asked for is given or refused, never
    swapped for another."""
    if device is None or (isinstance(device, str) and device == "auto"):
        if os.environ.get("REPCAP_AUTO_DEVICE") == "cpu":
            return torch.device("cpu")
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise RepcapError(f"device {device!r} is not a torch device; use 'auto', 'cpu' or 'cuda[:N]'") from exc
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise RepcapError(f"device {device!r} asked for, but this torch has no CUDA; use device='auto' or 'cpu'")
    if dev.type == "cuda" and dev.index is not None and dev.index >= (n := torch.cuda.device_count()):
        raise RepcapError(
            f"device {device!r} asked for, but this machine has {n} CUDA device{'s' if n != 1 else ''} "
            f"(cuda:0{f' .. cuda:{n - 1}' if n > 1 else ''}); use device='auto' or 'cuda:0'"
        )
    return dev


def device_name(device: torch.device) -> str:
    """A human-readable description for sidecars ("cpu (2 threads)", "cuda:0 NVIDIA H200")."""
    if device.type == "cuda":
        return f"{device} {torch.cuda.get_device_name(device)}"
    return f"cpu ({torch.get_num_threads()} threads)"


def seed_everything(seed: int) -> torch.Generator:
    """Seed Python, NumPy and torch; return a CPU ``torch.Generator`` seeded with ``seed``."""
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def generator(seed: int, device: torch.device) -> torch.Generator:
    """A generator on ``device`` (CUDA generators must live on the GPU)."""
    return torch.Generator(device=device).manual_seed(int(seed))


class cpu_threads:
    """``with cpu_threads(device, work, threads):`` run small CPU work on one thread.

    Packing steps and toy-model steps are many short ops; with intra-op threads on a busy machine
    each op waits for the slowest thread, and steps were measured 10-100x slower with 2 threads than
    with 1 while other processes shared the cores.  ``work`` is the size of the largest tensor op
    (elements); above 16 M torch keeps its own thread count.  ``threads`` overrides the choice.
    Does nothing on a GPU.  ``threads`` outside 1 .. :func:`max_cpu_threads` is refused.
    """

    def __init__(self, device: torch.device, work: int, threads: int | None = None):
        if threads is not None and (
            isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= max_cpu_threads()
        ):
            raise RepcapError(
                f"threads={threads!r} must be an integer in 1 .. {max_cpu_threads()} "
                f"(4 x the {os.cpu_count() or 1} cores of this machine)"
            )
        self.n = threads if threads is not None else (1 if work <= (1 << 24) else None)
        self.on = device.type == "cpu" and self.n is not None

    def __enter__(self):
        if self.on:
            self.old = torch.get_num_threads()
            torch.set_num_threads(int(self.n))  # type: ignore[arg-type]  # self.on implies a count
        return self

    def __exit__(self, *exc):
        if self.on:
            torch.set_num_threads(self.old)


def memory_budget_bytes(device: torch.device, default_cpu: int = 1 << 30) -> int:
    """Working-memory budget for tiled passes: ``REPCAP_MEMORY_BUDGET`` (bytes) if set, else a
    quarter of free GPU memory, else ``default_cpu`` (1 GiB) on the CPU."""
    env = os.environ.get("REPCAP_MEMORY_BUDGET")
    if env:
        return int(float(env))
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free // 4)
    return default_cpu
