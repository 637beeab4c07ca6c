"""Start-up (issue 19, item 7; issue 43, item 4): ``repcap --help``, every ``repcap COMMAND --help``
and argument errors import neither torch nor numpy nor an engine (the flags that come from an
engine's settings are read from :mod:`repcap.engines.settings`), and the lazy parser still lists and
parses every command as the full one does."""

from __future__ import annotations

import dataclasses
import importlib.util
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from repcap.cli import app as cli
from repcap.cli import commands

PROBE = """
import sys
from repcap.cli import app as cli
try:
    cli.main({argv!r})
except SystemExit:
    pass
heavy = ("torch", "numba", "numpy", "scipy", "pandas", "repcap.engines.packing", "repcap.engines.toy",
         "repcap.engines.cosine", "repcap.engines.survey", "repcap.results.runs.point_functions")
print(sorted(m for m in heavy if m in sys.modules))
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


COMMANDS = sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))


def test_the_startup_benchmark_times_every_command():
    spec = importlib.util.spec_from_file_location("startup", Path(__file__).parents[2] / "benchmarks" / "startup.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert list(mod.COMMANDS) == COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_every_commands_help_imports_no_engine(command):
    """Each command's flags, the engines' settings among them (``pack``: PackConfig's), without
    torch: ``repcap pack --help`` took 2.0 s, ``bundle --help`` 2.9 s, when they loaded the engines."""
    assert _imported([command, "--help"]) == []


def test_the_command_on_the_line_gets_its_flags_from_the_engines_settings():
    from repcap.engines.settings.packing import PackConfig

    b = cli.build_parser(["pack"], full=False)
    sub = next(a for a in b._actions if a.__class__.__name__ == "_SubParsersAction")
    flags = {a.dest for a in sub.choices["pack"]._actions}
    assert {f.name for f in dataclasses.fields(PackConfig)} <= flags


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
