"""``repcap toy``: train one superposition toy model (Liu, Liu & Gore 2025) and print its loss,
represented fraction and mean square overlap.

    repcap toy --n 1000 --m 20 --alpha 1.0 --gamma -1 --steps 2000 --json

Every flag but ``--json`` and ``--no-progress`` is a field of :class:`repcap.engines.toy.TrainConfig` or
:class:`repcap.engines.toy.ModelSpec`, with its default, type, help and check (``--lr`` is the config's).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from . import print_json

#: Flags every run must give (the model to train); the rest default to the dataclasses' values.
REQUIRED_CONFIG = ("n", "m")
REQUIRED_MODEL = ("alpha", "gamma")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "toy",
        help="train one superposition toy model y = ReLU(x W Wᵀ + b)",
        description="Train one toy model (Liu, Liu & Gore 2025) with the signed weight-decay AdamW and "
        "print the final loss (summed over features), phi_1/2 and the mean square overlap.",
    )
    from repcap.base import config
    from repcap.engines.settings.toy import ModelSpec, TrainConfig  # after add_parser: `repcap --help` stops there

    config.add_arguments(p, TrainConfig, required=REQUIRED_CONFIG)
    config.add_arguments(p, ModelSpec, required=REQUIRED_MODEL, exclude=("lr",))
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(func=run)


def _configs(args: argparse.Namespace) -> tuple[Any, Any]:
    """``(TrainConfig, ModelSpec)`` from the flags; a bad value is named by its flag."""
    from repcap import RepcapError
    from repcap.base import config
    from repcap.engines.settings.toy import ModelSpec, TrainConfig

    try:
        return config.from_args(TrainConfig, args), config.from_args(ModelSpec, args, lr=None)
    except RepcapError as exc:
        name, sep, rest = str(exc).partition("=")
        if sep and name.isidentifier() and hasattr(args, name):
            raise RepcapError(f"--{name.replace('_', '-')}={rest}") from None
        raise


def _check_memory(cfg: Any) -> None:
    """Refuse, in one line, a model whose weights and one batch cannot fit in the memory this
    process may use (:func:`repcap.book.sizing.toy_bytes`, against :mod:`repcap.base.memory`'s limit)."""
    from repcap import RepcapError
    from repcap.base import memory
    from repcap.book.sizing import toy_bytes

    need = toy_bytes(cfg.n, cfg.m, cfg.batch)
    if memory.too_big(need):
        raise RepcapError(
            f"n = {cfg.n:,} features at m = {cfg.m}, batch {cfg.batch:,} need about {memory.gib(need)}, "
            f"more than {memory.machine_text()}"
        )


def run(args: argparse.Namespace) -> int:
    from repcap.base.devices import resolve_device
    from repcap.engines import toy

    cfg, spec = _configs(args)
    resolve_device(cfg.device)  # a device asked for is there, or one line: before the sizes are judged
    _check_memory(cfg)
    try:
        res = toy.train([spec], cfg, progress=not args.no_progress)
    except (MemoryError, RuntimeError) as exc:  # the allocator's refusal, not a bug: one line
        from repcap import RepcapError
        from repcap.base import memory

        if not memory.allocation_error(exc):
            raise
        raise RepcapError(memory.refusal(f"n = {cfg.n:,}, m = {cfg.m}, batch {cfg.batch:,}", exc)) from None
    meas = res.measurements()[0]
    out = {
        "loss": meas["loss"],
        "phi_half": meas["phi_half"],
        "n_represented": int(meas["n_represented"]),
        "mean_sq_overlap": meas["mean_sq_overlap"],
        "mean_sq_overlap_represented": meas["mean_sq_overlap_represented"],
        "one_over_m": 1.0 / cfg.m,
        "lr": float(res.lr[0]),
        "bias_lr": float(res.bias_lr[0]),
        "warmup": cfg.resolved_warmup(),
        "loss_window": cfg.resolved_window(),
        "seconds": round(res.seconds, 3),
        "device": res.device,
        "config": {**dataclasses.asdict(cfg), **dataclasses.asdict(spec), "lr": cfg.lr},
    }
    if args.json:
        print_json(out)
    else:
        for k in (
            "loss",
            "phi_half",
            "n_represented",
            "mean_sq_overlap",
            "mean_sq_overlap_represented",
            "one_over_m",
            "lr",
            "bias_lr",
            "warmup",
            "loss_window",
            "seconds",
            "device",
        ):
            v = out[k]
            print(f"{k:30s} {v:.6g}" if isinstance(v, float) else f"{k:30s} {v}")
    return 0
