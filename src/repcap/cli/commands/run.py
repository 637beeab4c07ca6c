"""``repcap run NOTEBOOK [--profile P] [-p name=value ...] [--force]``: run one chapter."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="execute one chapter notebook under a profile (cached by content)", description=__doc__
    )
    p.add_argument("notebook", help="notebooks/NN_name.py or a chapter stem such as 01_random_vectors")
    p.add_argument(
        "--profile",
        default="quick",
        help="smoke | quick (default) | paper (the reference results are a bundle: `repcap bundle --help`)",
    )
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override one parameter (value read as YAML: 3, 0.5, [64, 128], text); one setting of an engine "
        "config as CONFIG.SETTING=VALUE (-p train.steps=3000: the toy TrainConfig's steps; --list-params lists "
        "each setting with its type, default and help), checked against the settings class before the kernel starts",
    )
    p.add_argument("--force", action="store_true", help="execute even if the cached output is current")
    p.add_argument(
        "--list-params",
        action="store_true",
        help="print what the chapter runs under --profile (and -p): each parameter's value, where it comes from "
        "and the profile file's comment on it, and each engine config's settings (train.steps ...) with their "
        "type, default and help from the settings class; then exit",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from repcap import RepcapError
    from repcap.book.params import explain_parameters
    from repcap.book.runner import parse_override, resolve_notebook, run

    path = resolve_notebook(args.notebook)
    overrides = {}
    for text in args.param:
        name, value = parse_override(text)
        if name in overrides:
            raise RepcapError(f"parameter {name!r} given twice")
        overrides[name] = value
    if args.list_params:
        rows = explain_parameters(path, args.profile, overrides)
        print(f"# {path.name} under profile {args.profile}" + (" with -p overrides" if overrides else ""))
        for k, v, src, note in rows:
            shown = repr(v) if len(repr(v)) <= 200 else f"{repr(v)[:180]}... ({len(repr(v)):,} characters)"
            print(f"{k} = {shown}    # {src}" + (f": {note}" if note else ""))
        return 0
    run(path, profile=args.profile, overrides=overrides, force=args.force)
    return 0
