"""``repcap`` command line.  Each sub-command lives in :mod:`repcap.commands` as a module with
``register(subparsers)``; the handler it sets with ``set_defaults(func=...)`` returns an exit code.

Errors about the user's input (:class:`repcap.RepcapError`) print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys

from . import RepcapError, __version__
from . import commands as _commands

#: What argparse takes for a negative number, not an option: ``-3``, ``-0.5`` and also ``-1e-3``.
NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="repcap", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"repcap {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(_commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{_commands.__name__}.{info.name}")
        mod.register(sub)
    _accept_negative_numbers(parser)
    return parser


def _accept_negative_numbers(parser: argparse.ArgumentParser) -> None:
    """``repcap toy --gamma -1e-3``: argparse's own pattern misses exponent forms and would read the
    value as an option; widen it on every (sub)parser."""
    parser._negative_number_matcher = NEGATIVE_NUMBER
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _accept_negative_numbers(child)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except RepcapError as exc:
        print(f"repcap {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"repcap {args.command}: interrupted; finished work is kept (re-run to resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
