"""``repcap`` command line.  Each sub-command lives in :mod:`repcap.cli.commands` as a module with
``register(subparsers)``; the handler it sets with ``set_defaults(func=...)`` returns an exit code.

Errors about the user's input (:class:`repcap.RepcapError`) print one line and exit with status 2.
A reader that stops early (``repcap models | head -1``) ends the command quietly with status 141
(128 + SIGPIPE, what a shell reports for a command killed by a broken pipe), no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import re
import select
import sys

from repcap import RepcapError, __version__

from . import commands as _commands

#: What argparse takes for a negative number, not an option: ``-3``, ``-0.5`` and also ``-1e-3``.
NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class _Listed(Exception):
    """Raised by :class:`_HelpOnly` once a command's sub-parser (name, help) exists."""


class _HelpOnly:
    """A stand-in for the sub-parsers object handed to a command's ``register``: it makes the
    command's sub-parser with its name and help and then stops ``register`` (:class:`_Listed`), so
    the command's flags, and the engines (torch, numba) some of them are read from, are not
    imported.  ``repcap --help`` lists every command this way; only the command on the line is
    registered in full."""

    def __init__(self, sub):
        self.sub = sub

    def add_parser(self, name, **kw):
        self.sub.add_parser(name, **{k: v for k, v in kw.items() if k in ("help", "description", "aliases")})
        raise _Listed


def _command_on_line(argv: list[str] | None) -> str | None:
    """The sub-command named on the command line (its first word that is not an option)."""
    args = sys.argv[1:] if argv is None else argv
    return next((a for a in args if not a.startswith("-")), None)


def build_parser(argv: list[str] | None = None, *, full: bool = True) -> argparse.ArgumentParser:
    """The parser.  ``full=False``: only the command ``argv`` names gets its flags (the others are
    listed by name and help), which keeps torch and the engines out of ``repcap --help`` and of an
    argument error."""
    parser = argparse.ArgumentParser(prog="repcap", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"repcap {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = None if full else _command_on_line(argv)
    for info in sorted(pkgutil.iter_modules(_commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{_commands.__name__}.{info.name}")
        if full or info.name == chosen:
            mod.register(sub)
            continue
        try:
            mod.register(_HelpOnly(sub))
        except _Listed:
            pass
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


#: The exit status after a broken pipe on stdout: 128 + SIGPIPE, as a shell reports ``yes | head``.
BROKEN_PIPE_STATUS = 141


def _stdout_broken() -> bool:
    """Whether stdout is a pipe whose reader has gone (so a BrokenPipeError came from it, not from a
    kernel's or worker's connection).  Without ``poll`` (Windows) stdout is assumed."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a non-file (pytest's capture)
        return False
    if not hasattr(select, "poll"):  # pragma: no cover - Windows
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status (see the module docstring)."""
    try:
        try:
            status = _main(argv)
        except SystemExit:  # --help, --version and argparse's usage errors print, then exit
            sys.stdout.flush()
            raise
        sys.stdout.flush()  # inside the try: a flush at interpreter exit would fail outside it
        return status
    except BrokenPipeError:
        if not _stdout_broken():
            raise
        # The recipe of Python's documentation (signal module, "Note on SIGPIPE"): point stdout at
        # devnull, so that the interpreter's last flush of what is still buffered cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE_STATUS


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it unwinds as after Ctrl-C (locks released,
    half-written runs removed, finished work kept)."""


def _on_sigterm(signum, frame):
    raise Terminated


def _main(argv: list[str] | None) -> int:
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    parser = build_parser(argv, full=False)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        from repcap.base.paths import check_device, check_environment

        check_environment()
        check_device(getattr(args, "device", None))
        return int(args.func(args) or 0)
    except RepcapError as exc:
        print(f"repcap {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # a closed stdout: main() handles it
        raise
    except (MemoryError, RuntimeError, OSError) as exc:
        from repcap.base import memory

        if not memory.allocation_error(exc):
            if isinstance(exc, OSError):
                return _os_error(args.command, exc)
            raise
        print(f"repcap {args.command}: error: {memory.refusal(None, exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        import logging

        # a kernel stopped mid-cell leaves an asyncio task whose "Kernel died" error asyncio and
        # nbclient would print as a traceback at exit: the one line below says what happened
        for name in ("asyncio", "nbclient", "papermill", "traitlets"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        how = "terminated" if isinstance(exc, Terminated) else "interrupted"
        print(f"repcap {args.command}: {how}; finished work is kept (re-run to resume)", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130


def _os_error(command: str, exc: OSError) -> int:
    """The file system said no (full, read-only, a name too long): one line."""
    where = f"{str(exc.filename)[:200]}: " if exc.filename else ""
    print(f"repcap {command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
