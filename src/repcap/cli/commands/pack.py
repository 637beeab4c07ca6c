"""``repcap pack``: optimise k unit vectors in R^d under a packing loss and report the worst pair.

    repcap pack --k 10000 --d 100 --loss exp --steps 300 --json

Defaults are Guha 2026's: Adam, 5000 steps, lr 0.005 for d <= 1024 and 0.0025 above, the power
loss with p = min(floor(M / ln d), 20).  ``--loss exp`` is Yoder 2025's exp(beta cos^2) (beta 20);
``--loss abs-relu`` is 3Blue1Brown's relu(|cos|).  The flags, their defaults and checks are
:class:`repcap.engines.packing.PackConfig`'s.  A run estimated to take over an hour asks first (``--yes``
starts it without asking).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from repcap import RepcapError
from repcap.base import config

from . import print_json, strict_json


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "pack",
        help="optimise k unit vectors in R^d (vector packing) and report eps* = max |cos|",
        description="Optimise k unit vectors in R^d with Adam on the column-normalised Gram "
        "(Guha 2026; Yoder 2025) and print eps* (max |cos|), the worst pair's angle, "
        "mean |cos|, nearly-parallel pair counts and the final loss.",
    )
    from repcap.engines.settings.packing import PackConfig  # after add_parser: `repcap --help` stops there

    config.add_arguments(p, PackConfig, required=("k", "d"))
    p.add_argument("--json", action="store_true", help="print one JSON object (strict: null for a non-number)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--yes", action="store_true", help="start a run estimated to take over an hour without asking")
    p.set_defaults(func=run)


def build_config(args: argparse.Namespace):
    """The :class:`PackConfig` of the flags; an error names the flag it comes from."""
    from repcap.engines.settings.packing import PackConfig

    try:
        return config.from_args(PackConfig, args)
    except RepcapError as exc:
        for f in dataclasses.fields(PackConfig):  # which flag: the first whose own checks fail
            v = getattr(args, f.name, None)
            try:
                for chk in f.metadata.get("checks", ()):
                    chk(f.name, v)
            except RepcapError:
                raise RepcapError(f"{exc} (from --{f.name.replace('_', '-')} {v})") from None
        raise


def confirm_cost(cfg, assume_yes: bool, stdin=None, stderr=None) -> None:
    """Ask before a run estimated above :data:`repcap.engines.packing.cost.CONFIRM_SECONDS`; refuse
    without a terminal unless ``assume_yes``."""
    from repcap.base.devices import resolve_device
    from repcap.engines.packing import cost

    stdin, stderr = stdin or sys.stdin, stderr or sys.stderr
    est = cost.estimate_cost(cfg.k, cfg.d, cfg.steps, device=resolve_device(cfg.device).type)
    if est.seconds <= cost.CONFIRM_SECONDS:
        return
    what = f"k={cfg.k}, d={cfg.d}, {cfg.steps} steps would take {est.describe()}"
    if assume_yes:
        print(f"repcap pack: {what}; starting (--yes)", file=stderr)
        return
    if not (hasattr(stdin, "isatty") and stdin.isatty()):
        raise RepcapError(f"{what}; add --yes to start it anyway, or lower --k or --steps")
    print(f"repcap pack: {what}. Start it? [y/N] ", end="", file=stderr, flush=True)
    if stdin.readline().strip().lower() not in ("y", "yes"):
        raise RepcapError("not started")


def _check_memory(cfg) -> None:
    """Refuse, in one line, a packing whose vectors and optimiser state cannot fit in the memory
    this process may use (:func:`repcap.book.sizing.packing_bytes`)."""
    from repcap.base import memory
    from repcap.book.sizing import packing_bytes

    need = packing_bytes(cfg.k, cfg.d)
    if memory.too_big(need):
        raise RepcapError(
            f"k={cfg.k}, d={cfg.d}: the vectors, gradient, Adam state and Gram tiles need about {memory.gib(need)}, "
            f"more than {memory.machine_text()}; lower --k or --d"
        )


def run(args: argparse.Namespace) -> int:
    from repcap.base.devices import resolve_device
    from repcap.engines import packing

    cfg = build_config(args)
    resolve_device(cfg.device)  # a device asked for is there, or one line: before the sizes are judged
    _check_memory(cfg)
    confirm_cost(cfg, args.yes)
    try:
        res = packing.optimise(cfg, progress=not args.no_progress)
    except (MemoryError, RuntimeError) as exc:  # the allocator's refusal, not a bug: one line
        from repcap.base import memory

        if not memory.allocation_error(exc):
            raise
        raise RepcapError(memory.refusal(f"k={cfg.k}, d={cfg.d}", exc)) from None
    out = strict_json(res.summary(0))
    out.pop("hist")  # n_bins counts: for the sweep results, not the terminal
    if args.json:
        print_json(out)
        return 0
    for key in (
        "k",
        "d",
        "loss",
        "p",
        "beta",
        "steps",
        "lr",
        "eps_star",
        "max_angle_deg",
        "mean_abs",
        "mean_sq",
        "loss_final",
        "n_orthogonal",
        "n_pairs",
        "seconds",
        "device",
    ):
        v = out[key]
        if v is not None:
            print(f"{key:16s} {v:.6g}" if isinstance(v, float) else f"{key:16s} {v}")
    for t, c in out["n_above"].items():
        print(f"{'|cos| > ' + t:16s} {c:.0f}" if c is not None else f"{'|cos| > ' + t:16s} -")
    return 0
