"""The toy-model trainer at the paper's main-sweep size, side by side in one process: today's dense
path, the sparse path, and a plain autograd + ``torch.optim.AdamW`` loop, against the GEMM floor (on
a GPU also the fused kernel, the trainer's path there, with 12 and 120 models).

Paths (Liu, Liu & Gore 2025 toy model, ``y = ReLU(x W Wᵀ + b)``, ``n`` features, width ``m``):

* ``dense``    - :func:`repcap.engines.toy.train` with ``sampler="dense"``: ``B x n`` uniforms a step and
                 dense batched products (the trainer before the sparse path);
* ``sparse``   - :func:`repcap.engines.toy.train` with ``sampler="sparse"``: the active entries only
                 (geometric gaps), ``h = x W`` and ``xᵀ (g W)`` as gathers/scatters, three dense
                 products (``z = [h, 1] [W, b]ᵀ``, ``(g W)ᵀ``, ``[h, 1]ᵀ g``);
* ``autograd`` - a plain loop as a PyTorch user writes it: dense data, ``relu(x W Wᵀ + b)``,
                 ``mse_loss``, ``backward()``, ``torch.optim.AdamW`` (models batched with ``bmm``).

Each is timed as ms per model step (best of ``--repeat``) and as a multiple of the GEMM floor:
``6 B n m`` FLOPs per model step (``z = h Wᵀ``, ``g W``, ``gᵀ h``, once the sparse input is
exploited) at the float32 matmul throughput measured in the same run (``_ceiling.py``) on the
trainers' thread count (one: :class:`repcap.base.devices.cpu_threads`).  ``--profile`` prints the
sparse path's top operators (``torch.profiler``) at the first width.

    python benchmarks/toy_trainer.py                  # n = 1000, batch 2048, m = 10, 25, 100, 1 and 12 models
    python benchmarks/toy_trainer.py --quick          # small sizes, a few steps (make bench)
    python benchmarks/toy_trainer.py --device cuda --calibrate rate.json   # a GPU: the fused path too

On a GPU the table is in us per model step: ``fused`` (the sparse sampler and the fused Triton kernel,
:mod:`repcap.engines.toy.fused`: the trainer's path there), ``sparse-torch`` (the same sampler, the torch ops),
``dense`` (the GPU's path before the kernel) and ``autograd``, each with the fraction of the float32
matmul ceiling that its GEMM floor reaches; ``--calibrate`` writes the fused path's rate, ``a + b m``
seconds per model step, for the sweep's time budget (``REPCAP_TOY_STEP_SECONDS``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace

import numpy as np
import torch
import torch.nn.functional as F
from _ceiling import ceilings, matmul_ceiling
from _ceiling import describe as describe_ceiling

from repcap.base.devices import device_name, resolve_device
from repcap.engines import toy
from repcap.engines.toy.fused import ENV_SWITCH
from repcap.engines.toy.fused import usable as fused_usable


def sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def specs(k: int) -> list[toy.ModelSpec]:
    return [toy.ModelSpec(alpha=1.0, gamma=(-1.0, 0.5)[i % 2], seed=i) for i in range(k)]


def trainer_ms(sampler: str, n: int, m: int, batch: int, steps: int, k: int, dev: torch.device, repeat: int) -> float:
    """ms per model step of :func:`repcap.engines.toy.train` (its own loop timer; the loss is computed on
    a few steps, as in a long run)."""
    cfg = toy.TrainConfig(n=n, m=m, batch=batch, steps=steps, loss_window=1, sampler=sampler, device=str(dev))
    ss = specs(k)
    toy.train(ss, toy.TrainConfig(n=n, m=m, batch=batch, steps=2, sampler=sampler, device=str(dev)))  # warm-up
    best = min(toy.train(ss, cfg, n_curve=1).seconds for _ in range(repeat))
    return 1e3 * best / (steps * k)


def autograd_ms(n: int, m: int, batch: int, steps: int, k: int, dev: torch.device, repeat: int) -> float:
    """ms per model step of a plain autograd + AdamW loop over ``k`` models (``W: (k, n, m)``)."""
    p = toy.frequencies(n, "power", 1.0).to(dev, torch.float32)
    g = torch.Generator(device=dev).manual_seed(0)
    W = (torch.randn(k, n, m, generator=g, device=dev) / m**0.5).requires_grad_()
    b = torch.randn(k, n, generator=g, device=dev).requires_grad_()
    opt = torch.optim.AdamW([W, b], lr=1e-2, weight_decay=0.1)

    def run(t: int) -> None:
        for _ in range(t):
            x = (torch.rand(k, batch, n, generator=g, device=dev) < p) * torch.rand(
                k, batch, n, generator=g, device=dev
            )
            x = 2 * x
            y = torch.relu(torch.baddbmm(b[:, None, :], torch.bmm(x, W), W.transpose(1, 2)))
            loss = F.mse_loss(y, x, reduction="none").mean(dim=(1, 2)).sum()  # each model its own mean
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        sync(dev)

    run(2)  # warm-up
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run(steps)
        best = min(best, time.perf_counter() - t0)
    return 1e3 * best / (steps * k)


def floor_ms(n: int, m: int, batch: int, flops: float) -> float:
    return 1e3 * 6.0 * batch * n * m / flops


def profile_sparse(n: int, m: int, batch: int, dev: torch.device, steps: int = 100) -> None:
    """Where a sparse step's time goes: the stages (sampler, forward/backward, optimiser) labelled
    with ``record_function`` and the top operators, from ``torch.profiler``."""
    from torch.profiler import ProfilerActivity, profile, record_function

    from repcap.engines.toy import training

    def labelled(name, fn):
        def wrapped(*a, **k):
            with record_function(name):
                return fn(*a, **k)

        return wrapped

    patches = [(training.SparseSampler, "sample"), (training, "sparse_loss_and_grad"), (training._Models, "step_")]
    saved = [getattr(obj, attr) for obj, attr in patches]
    for (obj, attr), fn in zip(patches, saved):
        setattr(obj, attr, labelled(f"stage: {attr}", fn))
    cfg = toy.TrainConfig(n=n, m=m, batch=batch, steps=steps, loss_window=1, sampler="sparse", device=str(dev))
    try:
        toy.train(specs(1), replace(cfg, steps=3))
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
        with profile(activities=acts) as prof:
            res = toy.train(specs(1), cfg, n_curve=1)
    finally:
        for (obj, attr), fn in zip(patches, saved):
            setattr(obj, attr, fn)
    ev = prof.key_averages()
    per = 1e3 * res.seconds / steps
    print(
        f"\nprofile of the sparse trainer, n={n} m={m} batch={batch}, {steps} steps, one model "
        f"({per:.2f} ms/step under the profiler):"
    )
    stages = {e.key: e.cpu_time_total / steps / 1e3 for e in ev if e.key.startswith("stage: ")}
    for key, ms in stages.items():
        print(f"  {key[7:]:>22}: {ms:6.3f} ms/step ({100 * ms / per:4.1f}%)")
    print(f"  {'rest of the loop':>22}: {per - sum(stages.values()):6.3f} ms/step")
    gemm = sum(e.self_cpu_time_total for e in ev if e.key in ("aten::bmm", "aten::mm")) / steps / 1e3
    print(
        f"  {'of which the GEMMs':>22}: {gemm:6.3f} ms/step ({100 * gemm / per:4.1f}%), "
        f"floor {floor_ms(n, m, batch, matmul_ceiling(dev)):.3f} ms"
    )
    top = sorted((e for e in ev if not e.key.startswith("stage: ")), key=lambda e: -e.self_cpu_time_total)[:10]
    for e in top:
        print(f"  {e.key:>22}: {e.self_cpu_time_total / steps / 1e3:6.3f} ms/step, {e.count / steps:5.1f} calls")


def fused_ms(n: int, m: int, batch: int, steps: int, k: int, dev: torch.device, repeat: int, on: bool) -> float:
    """ms per model step of the sparse trainer with the fused kernel (``on``) or its torch ops."""
    before = os.environ.get(ENV_SWITCH)
    os.environ[ENV_SWITCH] = "1" if on else "0"
    try:
        return trainer_ms("sparse", n, m, batch, steps, k, dev, repeat)
    finally:
        if before is None:
            os.environ.pop(ENV_SWITCH, None)
        else:
            os.environ[ENV_SWITCH] = before


#: The main sweep's widths (Liu, Liu & Gore 2025), over which the issue's target (<= 15 us a model
#: step on the GPU) is averaged, and its size: 1020 models of 20,000 steps.
MAIN_WIDTHS = (10, 15, 25, 39, 63, 100)
MAIN_MODELS, MAIN_STEPS = 1020, 20000


def gpu_table(n: int, batch: int, ms, ks, dev: torch.device, repeat: int, ceil: dict, calibrate: str | None) -> None:
    """The GPU's paths side by side: the fused kernel (the trainer's path on CUDA), the sparse path's
    torch ops, the dense path (the GPU's path before the kernel), autograd + AdamW; each in us per model
    step and as the fraction of the float32 matmul ceiling its GEMM floor (6 B n m FLOPs) reaches."""
    head = (
        f"{'m':>4} {'models':>6} {'floor us':>8} | {'fused us':>8} {'%fp32':>6} | {'sparse-torch us':>15} | "
        f"{'dense us':>8} {'%fp32':>6} | {'autograd us':>11} | {'fused vs dense':>14} {'vs autograd':>11}"
    )
    print(head)
    print("-" * len(head))
    fits = []
    for m in ms:
        for k in ks:
            t_f = fused_ms(n, m, batch, max(50, 6000 // k), k, dev, repeat, on=True)
            t_s = fused_ms(n, m, batch, max(10, 600 // k), k, dev, repeat, on=False)
            t_d = trainer_ms("dense", n, m, batch, max(4, 240 // k), k, dev, repeat)
            t_a = autograd_ms(n, m, batch, max(4, 240 // k), k, dev, repeat)
            fl = floor_ms(n, m, batch, ceil["fp32"])
            if k == max(ks):
                fits.append((m, t_f))
            print(
                f"{m:>4} {k:>6} {1e3 * fl:>8.2f} | {1e3 * t_f:>8.2f} {100 * fl / t_f:>5.1f}% | {1e3 * t_s:>15.2f} | "
                f"{1e3 * t_d:>8.2f} {100 * fl / t_d:>5.1f}% | {1e3 * t_a:>11.2f} | {t_d / t_f:>13.1f}x {t_a / t_f:>10.1f}x",
                flush=True,
            )
    print(
        "(us per model step; floor: 6 batch n m FLOPs at the float32 matmul ceiling measured above; %fp32: the "
        f"floor over the path's time; at tf32 the floor is {ceil['fp32'] / ceil['tf32']:.2f}x the fp32 one)"
    )
    if len(fits) >= 2:
        write_rate(calibrate, fits, max(ks), "fused")


def write_rate(path: str | None, fits: list, models: int, what: str) -> None:
    """Fit ``a + b m`` seconds per model step to ``fits`` (``(m, ms per model step)``), print it with
    Liu's main sweep at that rate, and write it as JSON to ``path`` (for ``REPCAP_TOY_STEP_SECONDS``)."""
    a, b = (float(x) for x in np.polyfit([m for m, _ in fits], [t / 1e3 for _, t in fits], 1)[::-1])
    if a < 0 or b < 0:  # seconds: a + b m, neither negative (noise on a flat rate)
        a, b = float(np.mean([t / 1e3 for _, t in fits])), 0.0
    mean = float(np.mean([a + b * m for m in MAIN_WIDTHS]))
    print(
        f"{what}, {models} models: {1e6 * a:.2f} + {1e6 * b:.3f} m us per model step at n = 1000, batch 2048; over "
        f"the main sweep's widths {1e6 * mean:.1f} us (target on a GPU <= 15): Liu's main sweep ({MAIN_MODELS} "
        f"models x {MAIN_STEPS} steps) about {MAIN_MODELS * MAIN_STEPS * mean / 60:.1f} min"
    )
    if path:
        with open(path, "w") as fh:
            json.dump({"a": a, "b": b, "models": models, "widths": [m for m, _ in fits], "path": what}, fh)
        print(f"rate written to {path} (for REPCAP_TOY_STEP_SECONDS)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, a few steps (make bench)")
    ap.add_argument("--smoke", action="store_true", help="toy sizes: only checks that it runs (tools/gpu_session.sh)")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--repeat", type=int, default=2, help="runs per path; the best is reported")
    ap.add_argument("--profile", action="store_true", help="print the sparse path's top operators")
    ap.add_argument("--calibrate", metavar="FILE", help="on a GPU: write the fused path's rate (a + b m) as JSON")
    args = ap.parse_args()
    dev = resolve_device(args.device)
    if args.smoke:
        n, batch, ms, ks, steps = 64, 32, (4, 8), (1, 2), {"dense": 2, "sparse": 4, "autograd": 2}
    elif args.quick:
        n, batch, ms, ks, steps = 256, 256, (8, 16), (1, 4), {"dense": 4, "sparse": 10, "autograd": 4}
    else:
        n, batch, ms, ks, steps = 1000, 2048, (10, 25, 100), (1, 12), {"dense": 12, "sparse": 120, "autograd": 12}
    threads = torch.get_num_threads()
    if dev.type == "cpu":
        torch.set_num_threads(1)  # the trainers' count (repcap.base.devices.cpu_threads); the loop and ceiling too
    print(
        f"toy trainer benchmark on {device_name(dev)} (torch {torch.__version__}), n={n} batch={batch}, "
        f"best of {args.repeat}"
    )
    if dev.type == "cuda" and fused_usable(dev):
        ceil = ceilings(dev)
        print(describe_ceiling(dev, ceil))
        if args.smoke:
            gpu_table(n, batch, ms, ks, dev, 1, ceil, args.calibrate)
        else:
            gpu_ks = (4, 12) if args.quick else (12, 120)
            ms_gpu = (10, 25) if args.quick else (10, 25, 100)
            gpu_table(1000, 2048, ms_gpu, gpu_ks, dev, args.repeat, ceil, args.calibrate)
        return
    ceil1 = matmul_ceiling(dev)
    print(describe_ceiling(dev, ceil1))
    if dev.type == "cpu" and threads > 1:
        torch.set_num_threads(threads)
        print(f"  (with {threads} threads: {matmul_ceiling(dev) / 1e12:.3f} TFLOP/s; the runs below use 1)")
        torch.set_num_threads(1)
    head = (
        f"{'m':>4} {'models':>6} {'floor ms':>8} | {'dense ms':>8} {'x floor':>7} | {'sparse ms':>9} {'x floor':>7} | "
        f"{'autograd ms':>11} {'x floor':>7} | {'sparse vs dense':>15} {'vs autograd':>11}"
    )
    print(head)
    print("-" * len(head))
    rates = []
    for m in ms:
        for k in ks:
            scale = max(1, 12 // k) if not (args.quick or args.smoke) else 1
            t_d = trainer_ms("dense", n, m, batch, max(2, steps["dense"] // k), k, dev, args.repeat)
            t_s = trainer_ms("sparse", n, m, batch, max(4, steps["sparse"] * scale // 12), k, dev, args.repeat)
            t_a = autograd_ms(n, m, batch, max(2, steps["autograd"] // k), k, dev, args.repeat)
            fl = floor_ms(n, m, batch, ceil1)
            if k == max(ks):
                rates.append((m, t_s * (1000 * 2048) / (n * batch)))  # at the main sweep's n x batch
            print(
                f"{m:>4} {k:>6} {fl:>8.2f} | {t_d:>8.2f} {t_d / fl:>6.1f}x | {t_s:>9.2f} {t_s / fl:>6.2f}x | "
                f"{t_a:>11.2f} {t_a / fl:>6.1f}x | {t_d / t_s:>14.1f}x {t_a / t_s:>10.1f}x",
                flush=True,
            )
    print(
        "(ms per model step; x floor: time over the GEMM floor, 6 batch n m FLOPs at the measured matmul "
        "throughput; sparse vs dense / vs autograd: speed-up of the sparse trainer)"
    )
    if dev.type == "cuda":
        print("(no fused kernel here: triton is missing or REPCAP_FUSED=0)")
    if args.calibrate and len(rates) >= 2:
        write_rate(args.calibrate, rates, max(ks), "the sparse trainer")
    if args.profile:
        profile_sparse(n, ms[0], batch, dev)


if __name__ == "__main__":
    main()
