"""Start-up (issue 19, item 7): ``repcap --help`` and argument errors import neither torch nor the
engines, and the lazy parser still lists and parses every command as the full one does."""

from __future__ import annotations

import subprocess
import sys

from repcap.cli import app as cli

PROBE = """
import sys
from repcap.cli import app as cli
try:
    cli.main({argv!r})
except SystemExit:
    pass
print(sorted(m for m in ("torch", "numba", "numpy", "repcap.engines.packing", "repcap.engines.toy", "repcap.engines.cosine") if m in sys.modules))
"""


def _imported(argv: list[str]) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, check=True
    ).stdout
    return eval(out.strip().splitlines()[-1])  # a list literal printed by the probe


def test_help_and_argument_errors_import_no_engine():
    assert _imported(["--help"]) == []
    assert _imported(["nosuch"]) == []
    assert _imported(["models", "--bogus"]) == []


def test_the_command_on_the_line_gets_its_flags():
    """``pack`` named: its flags come from PackConfig (so repcap.engines.packing is imported, and torch)."""
    assert "repcap.engines.packing" in _imported(["pack", "--help"])


def test_lazy_parser_lists_the_same_commands_and_help():
    full, lazy = cli.build_parser(), cli.build_parser(["models"], full=False)

    def commands(p):
        sub = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
        return {c.dest: c.help for c in sub._choices_actions}

    assert commands(lazy) == commands(full)
    assert len(commands(full)) >= 7
    a = lazy.parse_args(["models", "--all", "--json"])
    assert (a.command, a.all, a.json) == ("models", True, True)
    b = cli.build_parser(["pack", "--k", "5", "--d", "3"], full=False).parse_args(["pack", "--k", "5", "--d", "3"])
    assert (b.k, b.d) == (5, 3)
