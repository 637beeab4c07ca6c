"""``repcap toy``: train one superposition toy model (Liu, Liu & Gore 2025) and print its loss,
represented fraction and mean square overlap.

    repcap toy --n 1000 --m 20 --alpha 1.0 --gamma -1 --steps 2000 --json
"""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "toy", help="train one superposition toy model y = ReLU(x W Wᵀ + b)",
        description="Train one toy model (Liu, Liu & Gore 2025) with the signed weight-decay AdamW and "
                    "print the final loss (summed over features), phi_1/2 and the mean square overlap.")
    p.add_argument("--n", type=int, required=True, help="number of features (paper: 1000)")
    p.add_argument("--m", type=int, required=True, help="hidden width (paper: 10..100)")
    p.add_argument("--alpha", type=float, required=True, help="power-law exponent of feature frequencies p_i ∝ i^-alpha")
    p.add_argument("--gamma", type=float, required=True, help="signed weight decay: < 0 strong, >= 0 weak superposition")
    p.add_argument("--steps", type=int, default=2000, help="optimiser steps (paper: 20000; default 2000)")
    p.add_argument("--batch", type=int, default=2048, help="samples per step (paper: 2048)")
    p.add_argument("--lr", type=float, default=1e-2, help="peak learning rate (paper: 1e-2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the initialisation and the data stream")
    p.add_argument("--distribution", default="power", choices=["power", "exp", "linear", "density"],
                   help="feature-frequency distribution (default: power)")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda[:N]")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import RepcapError, toy

    for name in ("n", "m", "steps", "batch"):
        if getattr(args, name) < 1:
            raise RepcapError(f"--{name} {getattr(args, name)} must be a positive integer")
    if not args.lr > 0:
        raise RepcapError(f"--lr {args.lr} must be > 0")
    cfg = toy.TrainConfig(n=args.n, m=args.m, steps=args.steps, batch=args.batch, lr=args.lr, device=args.device)
    spec = toy.ModelSpec(alpha=args.alpha, gamma=args.gamma, seed=args.seed, distribution=args.distribution)
    res = toy.train([spec], cfg, progress=not args.no_progress)
    meas = res.measurements()[0]
    out = {"loss": meas["loss"], "phi_half": meas["phi_half"], "n_represented": int(meas["n_represented"]),
           "mean_sq_overlap": meas["mean_sq_overlap"],
           "mean_sq_overlap_represented": meas["mean_sq_overlap_represented"],
           "one_over_m": 1.0 / args.m, "seconds": round(res.seconds, 3), "device": res.device,
           "config": {"n": args.n, "m": args.m, "alpha": args.alpha, "gamma": args.gamma, "steps": args.steps,
                      "batch": args.batch, "lr": args.lr, "seed": args.seed, "distribution": args.distribution}}
    if args.json:
        json.dump(out, sys.stdout, allow_nan=True)
        sys.stdout.write("\n")
    else:
        for k in ("loss", "phi_half", "n_represented", "mean_sq_overlap", "mean_sq_overlap_represented",
                  "one_over_m", "seconds", "device"):
            v = out[k]
            print(f"{k:30s} {v:.6g}" if isinstance(v, float) else f"{k:30s} {v}")
    return 0
