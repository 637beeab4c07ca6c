"""``repcap book [--profile P] [--force] [--no-build]``: run every chapter, then build the HTML book."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("book", help="run all chapters under a profile and build the HTML book", description=__doc__)
    p.add_argument("--profile", default="quick", help="smoke | quick (default) | paper")
    p.add_argument("--force", action="store_true", help="re-execute chapters even when cached")
    p.add_argument("--no-build", action="store_true", help="run the chapters but skip jupyter-book")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from ..build import build_book

    build_book(profile=args.profile, force=args.force, build=not args.no_build)
    return 0
