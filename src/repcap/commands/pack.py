"""``repcap pack``: optimise k unit vectors in R^d under a packing loss and report the worst pair.

    repcap pack --k 10000 --d 100 --loss exp --steps 300 --json

Defaults are Guha 2026's: Adam, 5000 steps, lr 0.005 for d <= 1024 and 0.0025 above, the power
loss with p = min(floor(M / ln d), 20).  ``--loss exp`` is Yoder 2025's exp(beta cos^2) (beta 20);
``--loss abs-relu`` is 3Blue1Brown's relu(|cos|).
"""

from __future__ import annotations

import argparse
import json
import math
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "pack", help="optimise k unit vectors in R^d (vector packing) and report eps* = max |cos|",
        description="Optimise k unit vectors in R^d with Adam on the column-normalised Gram "
                    "(Guha 2026; Yoder 2025) and print eps* (max |cos|), the worst pair's angle, "
                    "mean |cos|, nearly-parallel pair counts and the final loss.")
    p.add_argument("--k", type=int, required=True, help="number of vectors (>= 2)")
    p.add_argument("--d", type=int, required=True, help="dimension (>= 1)")
    p.add_argument("--loss", default="power", help="power (Guha, default) | exp (Yoder) | abs-relu (3Blue1Brown)")
    p.add_argument("--beta", type=float, default=20.0, help="exp loss sharpness beta (Yoder: 20)")
    p.add_argument("--p", type=float, default=None, help="power-loss exponent (default: Guha's rule min(floor(M/ln d), 20))")
    p.add_argument("--steps", type=int, default=5000, help="Adam steps (Guha: 5000)")
    p.add_argument("--lr", type=float, default=None, help="learning rate (default: 0.005 if d <= 1024 else 0.0025)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random initial vectors")
    p.add_argument("--tile", type=int, default=None, help="columns per tile (default: from the memory budget)")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda[:N]")
    p.add_argument("--threads", type=int, default=None,
                   help="CPU threads (default: 1 for k^2 <= 16M, else torch's setting)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import RepcapError, packing

    if args.lr is not None and not math.isfinite(args.lr):
        raise RepcapError(f"--lr {args.lr}: the learning rate must be a finite number > 0")
    if args.threads is not None and args.threads < 1:
        raise RepcapError(f"--threads {args.threads} must be a positive integer")
    if args.tile is not None and args.tile < 1:
        raise RepcapError(f"--tile {args.tile} must be a positive integer")
    cfg = packing.PackConfig(k=args.k, d=args.d, loss=args.loss, beta=args.beta, p=args.p, steps=args.steps,
                             lr=args.lr, seed=args.seed, tile=args.tile, device=args.device,
                             threads=args.threads)
    res = packing.optimise(cfg, progress=not args.no_progress)
    out = res.summary(0)
    if args.json:
        json.dump(out, sys.stdout, allow_nan=True)
        sys.stdout.write("\n")
        return 0
    for key in ("k", "d", "loss", "p", "beta", "steps", "lr", "eps_star", "max_angle_deg", "mean_abs",
                "mean_sq", "loss_final", "n_orthogonal", "n_pairs", "seconds", "device"):
        v = out[key]
        if v is not None:
            print(f"{key:16s} {v:.6g}" if isinstance(v, float) else f"{key:16s} {v}")
    for t, c in out["n_above"].items():
        print(f"{'|cos| > ' + t:16s} {c:.0f}")
    return 0
