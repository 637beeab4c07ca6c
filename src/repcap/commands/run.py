"""``repcap run NOTEBOOK [--profile P] [-p name=value ...] [--force]``: run one chapter."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="execute one chapter notebook under a profile (cached by content)", description=__doc__
    )
    p.add_argument("notebook", help="notebooks/NN_name.py or a chapter stem such as 01_random_vectors")
    p.add_argument("--profile", default="quick", help="smoke | quick (default) | paper")
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override one parameter (value read as YAML: 3, 0.5, [64, 128], text)",
    )
    p.add_argument("--force", action="store_true", help="execute even if the cached output is current")
    p.add_argument("--list-params", action="store_true", help="print the notebook's parameters and exit")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from .. import RepcapError
    from ..runner import notebook_parameters, parse_override, resolve_notebook, run

    path = resolve_notebook(args.notebook)
    if args.list_params:
        for k, v in notebook_parameters(path).items():
            print(f"{k} = {v!r}")
        return 0
    overrides = {}
    for text in args.param:
        name, value = parse_override(text)
        if name in overrides:
            raise RepcapError(f"parameter {name!r} given twice")
        overrides[name] = value
    run(path, profile=args.profile, overrides=overrides, force=args.force)
    return 0
