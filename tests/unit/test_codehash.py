"""Cache keys come from the code a sweep point runs, not from a hand-bumped version."""

from __future__ import annotations

import inspect
import shutil
from pathlib import Path

from repcap import sweep
from repcap.engines import packing
from repcap.sweep import codehash

SRC = Path(codehash.__file__).resolve().parents[1]  # src/repcap (from src/repcap/sweep/codehash.py)


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(SRC, root / "repcap", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _rel(obj) -> Path:
    return Path(inspect.getsourcefile(obj)).resolve().relative_to(SRC)


def test_editing_what_a_point_runs_changes_its_key_and_nothing_else_does(tmp_path):
    root = _copy(tmp_path)
    fn = packing.sweep_packed
    mods = [fn.__module__]
    base = codehash.digest(mods, root)
    assert base == codehash.digest(mods, root)  # stable

    # a function the point runs, in another module of its closure: its body changes -> a new key
    target = root / "repcap" / _rel(packing.optimise)
    assert (
        str(_rel(packing.optimise)).replace("/", ".")[:-3] in " ".join(codehash.closure(mods, root))
        or _rel(packing.optimise).name == "__init__.py"
    )
    text = target.read_text()
    edited = text.replace("def optimise(", "def _unused_helper():\n    return 1\n\n\ndef optimise(", 1)
    target.write_text(edited)
    changed = codehash.digest(mods, root)
    assert changed != base

    # a comment or a docstring does not change it
    target.write_text(
        edited.replace("def _unused_helper():\n", 'def _unused_helper():  # a comment\n    """A docstring."""\n')
    )
    assert codehash.digest(mods, root) == changed

    # a module outside the closure does not change it
    assert "repcap.book.runner" not in codehash.closure(mods, root)
    runner = root / "repcap" / "book" / "runner.py"
    runner.write_text(runner.read_text() + "\n\ndef another():\n    return 2\n")
    assert codehash.digest(mods, root) == changed


def test_the_closure_follows_imports_inside_functions_and_packages():
    mods = codehash.closure([packing.sweep_packed.__module__])
    assert "repcap" in mods and "repcap.base.devices" in mods
    assert not any(m.startswith(("repcap.book.runner", "repcap.book.figures", "repcap.engines.survey")) for m in mods)
    src = "from repcap.engines import toy\nfrom repcap.book import figures\nimport repcap.engines.laws as L\n"
    assert codehash.source_imports(src) == [
        "repcap.book",
        "repcap.book.figures",
        "repcap.engines",
        "repcap.engines.laws",
        "repcap.engines.toy",
    ]


def test_point_keys_carry_the_code_digest():
    cfg = {"k": 10, "d": 3}
    assert sweep.point_key(packing.sweep_packed, cfg) == sweep.point_key(packing.sweep_packed, cfg)
    assert sweep.point_key(packing.sweep_packed, cfg, code="x") != sweep.point_key(packing.sweep_packed, cfg)
