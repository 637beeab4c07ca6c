"""``repcap book [--profile P] [--force] [--no-build | --html-only]``: run every chapter, then build the
HTML book (``--html-only``: rebuild the HTML from the chapters already executed, what ``make html``
runs, so that a bad data file is one line there too)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("book", help="run all chapters under a profile and build the HTML book", description=__doc__)
    p.add_argument("--profile", default="quick", help="smoke | quick (default) | paper")
    p.add_argument("--force", action="store_true", help="re-execute chapters even when cached")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--no-build", action="store_true", help="run the chapters but skip jupyter-book")
    g.add_argument(
        "--html-only", action="store_true", help="run no chapter: rebuild the HTML from the chapters already executed"
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from repcap.book.build import build_book, jb_build

    if args.html_only:
        jb_build()
        return 0
    build_book(profile=args.profile, force=args.force, build=not args.no_build)
    return 0
