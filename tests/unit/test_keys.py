"""A sweep point's identity (``repcap.sweep.keys``): its registered name, its engine's numerics
version, its normalised config and its data.  Each part changes the key when what it stands for
changes, and nothing else does: not an edit of the code, not a package version, not the machine."""

from __future__ import annotations

import ast
import dataclasses
import importlib.metadata
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from repcap import RepcapError, sweep
from repcap.engines import packing, toy
from repcap.evidence import reference
from repcap.results.runs.point_functions import POINT_FUNCTIONS
from repcap.sweep import codehash, keys, provenance, registry

SRC = Path(codehash.__file__).resolve().parents[1]  # src/repcap
TOY, PACK, SURVEY = "repcap.engines.toy.points", "repcap.engines.packing.points", "repcap.engines.survey"


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(SRC, root / "repcap", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


# -- no code in the key ------------------------------------------------------------------------

_KEYS = """
import json
from repcap import sweep
from repcap.engines import packing, toy
print(json.dumps([sweep.point_key(toy.train_points, {"m": 10, "steps": 5}),
                  sweep.point_key(packing.sweep_packed, {"k": 50, "d": 4}),
                  sweep.provenance.source_digest(toy.train_points)]))
"""


def _keys_in(tree: Path) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", _KEYS],
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_editing_an_engine_keeps_every_key_and_shows_in_provenance(tree):
    """A refactor, a help text, a cost estimate: the keys stay; the provenance's source digest says
    the engine was edited.  Only the numerics version moves a key."""
    toy_key, pack_key, toy_src = _keys_in(tree)
    _append(tree / "repcap" / "engines" / "toy" / "optim.py", "\n\ndef _refactored():\n    return 2\n")
    _append(tree / "repcap" / "engines" / "packing" / "cost.py", "\n\nTHROUGHPUT_GUESS = 3.0\n")
    st = tree / "repcap" / "engines" / "settings" / "toy.py"
    st.write_text(st.read_text().replace("power-law exponent of the feature frequencies", "exponent of p_i", 1))
    after = _keys_in(tree)
    assert after[:2] == [toy_key, pack_key] and after[2] != toy_src
    num = tree / "repcap" / "engines" / "toy" / "numerics.py"
    num.write_text(num.read_text().replace('NUMERICS = "toy/1"', 'NUMERICS = "toy/2"'))
    bumped = _keys_in(tree)
    assert bumped[0] != toy_key and bumped[1] == pack_key  # exactly the toy engine's points move


def test_the_numerics_version_is_in_the_key(monkeypatch):
    cfg = {"k": 10, "d": 3}
    base = sweep.point_key(packing.sweep_packed, cfg)
    pf = registry.get("packing.optimise")
    monkeypatch.setitem(registry._REGISTRY, "packing.optimise", dataclasses.replace(pf, numerics="packing/99"))
    assert sweep.point_key(packing.sweep_packed, cfg) != base


# which names of the inert modules the numerical modules use, and why none can change a number
INERT_USES = {
    "repcap:RepcapError": "the error type: refusing an input is not computing with it",
    "repcap:show_progress": "whether a progress bar is drawn",
    "repcap.base.config:setting": "field metadata (help, check) of the settings dataclasses",
    "repcap.base.config:at_least": "an input check",
    "repcap.base.config:between": "an input check",
    "repcap.base.config:count": "an input check",
    "repcap.base.config:each": "an input check",
    "repcap.base.config:probability": "an input check",
    "repcap.base.config:seed": "an input check",
    "repcap.base.config:positive": "an input check",
    "repcap.base.config:finite": "an input check",
    "repcap.base.config:check": "runs the checks",
    "repcap.base.config:defaults": "defaults reach the key through the normalised config (part 1)",
    "repcap.base.config:from_mapping": "builds the settings that the config part is made of (part 1)",
    "repcap.base.io:atomic_path": "writes files",
    "repcap.base.io:write_json": "writes files",
    "repcap.base.io:NotRegularFile": "the refusal of a path that is not a regular file (a FIFO, a folder)",
    "repcap.base.io:open_regular": "opens a file only if it is a regular one: the same bytes a plain open reads",
    "repcap.base.io:read_regular_bytes": "reads a regular file: the same bytes a plain read returns",
    "repcap.base.io:read_regular_text": "reads a regular file: the same text a plain read returns",
    "repcap.base.io:regular_file": "whether a path is a regular file",
    "repcap.base.paths:cache_dir": "where files go",
    "repcap.base.paths:project_root": "where files go",
    "repcap.base.paths:reference_dir": "where the data files are (their bytes are the data part)",
    "repcap.sweep:run": "runs other points through the cache (their own keys)",
    "repcap.sweep.registry:point_function": "registers a point function under its name and numerics version",
}


def _inert_uses() -> set[str]:
    mods: set[str] = set()
    for module in {fn.__module__ for fn in POINT_FUNCTIONS.values()}:
        mods |= set(codehash.numeric_closure([module]))
    used: set[str] = set()
    for m in sorted(mods):
        path = codehash.module_path(m)
        assert path is not None
        tree, is_pkg, alias = ast.parse(path.read_text()), path.name == "__init__.py", {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = codehash._resolve("." * node.level + (node.module or ""), m, is_pkg)
                for a in node.names if base else ():
                    full = f"{base}.{a.name}"
                    if full in codehash.INERT:
                        alias[a.asname or a.name] = full
                    elif base in codehash.INERT and codehash.module_path(full) is None:
                        used.add(f"{base}:{a.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in alias:
                used.add(f"{alias[node.value.id]}:{node.attr}")
    return used


def test_the_numerical_modules_use_only_inert_names_that_cannot_change_a_number():
    used = _inert_uses()
    assert "repcap.base.config:setting" in used and "repcap:RepcapError" in used  # the scan sees them
    assert used <= set(INERT_USES), f"new uses of inert modules, each needs a reason: {sorted(used - set(INERT_USES))}"


def test_inert_modules_import_no_numerical_library():
    for m in codehash.INERT:
        path = codehash.module_path(m)
        assert path is not None
        names = {
            a.name.split(".")[0]
            for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Import)
            for a in n.names
        }
        names |= {
            (n.module or "").split(".")[0]
            for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.ImportFrom) and n.level == 0
        }
        allowed = {"numpy"} if m == "repcap.base.io" else set()  # io turns numpy scalars into JSON numbers
        assert not names & ({"torch", "numpy", "scipy", "numba"} - allowed), m


# -- part 3: data ------------------------------------------------------------------------------


def test_editing_a_data_file_the_closure_reads_changes_the_data_part(tree, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(reference.reference_dir(), data)
    base = codehash.data_digest([SURVEY], tree, data)
    assert "quotes.yaml" in codehash.data_files([SURVEY], tree)
    _append(data / "quotes.yaml", "\n# an edit\n")
    assert codehash.data_digest([SURVEY], tree, data) != base
    # toy points read no data file: editing one keeps their keys (packing declares it reads none:
    # test_a_function_declares_the_data_its_numbers_read)
    assert codehash.data_files([TOY], tree) == []
    toy_base = codehash.data_digest([TOY], tree, data)
    _append(data / "guha2026_table1.csv", "\n")
    assert codehash.data_digest([TOY], tree, data) == toy_base


def test_every_data_file_a_module_names_is_declared():
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text()
        if "reference_dir()" not in text:
            continue
        tree = ast.parse(text)
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr)
        }
        named = {
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant)
            and isinstance(n.value, str)
            and id(n) not in docs
            and n.value.endswith((".csv", ".yaml"))
            and " " not in n.value
            and "/" not in n.value
        }
        st = path.stat()
        declared = codehash._shape(str(path), st.st_mtime_ns, st.st_size)[1]
        missing = {n for n in named if not any(d.endswith(n) for d in declared)}
        assert not missing, f"{path.relative_to(SRC)} reads {sorted(missing)} without DATA_FILES"


# -- the environment is provenance -------------------------------------------------------------


def test_a_package_version_changes_provenance_not_the_key(monkeypatch):
    cfg = {"k": 10, "d": 3}
    base = sweep.point_key(packing.sweep_packed, cfg)
    real = importlib.metadata.version

    monkeypatch.setattr(importlib.metadata, "version", lambda p: "9.9.9" if p == "numpy" else real(p))
    provenance.env_versions.cache_clear()
    try:
        assert provenance.env_versions()["numpy"] == "9.9.9"
        assert sweep.point_key(packing.sweep_packed, cfg) == base
        rec = provenance.record(packing.sweep_packed, {"device": "cpu", "seconds": 1.0})
        assert rec["versions"]["numpy"] == "9.9.9"
        assert provenance.other_versions(rec["versions"], {**rec["versions"], "numpy": "2.0.0"}) == [
            "numpy 9.9.9 -> 2.0.0"
        ]
    finally:
        monkeypatch.undo()
        provenance.env_versions.cache_clear()


def test_the_provenance_names_the_versions_numba_and_the_engine_source():
    env = provenance.env_versions()
    assert set(env) == {"torch", "numpy", "scipy", "numba", "numba_in_use"}
    assert env["numpy"] == importlib.metadata.version("numpy").split("+")[0]
    assert "+" not in (env["torch"] or "")  # the public version: a CPU and a CUDA build of one release agree
    rec = provenance.record(toy.train_points, {"device": "cpu (2 threads)", "seconds": 3.5})
    assert rec["device"] == "cpu (2 threads)" and rec["seconds"] == 3.5
    assert rec["code"] == codehash.file_digest([TOY]) and len(rec["computed"]) == 20
    assert set(rec["versions"]) == {"repcap", "torch", "numpy", "scipy", "numba", "numba_in_use"}


def test_the_provenance_source_digest_is_the_same_under_every_python(tree):
    """Bytes, not ``ast.dump`` (which 3.11 and 3.12 spell differently: the H200 image's Python made
    every shipped point stale under the old keys)."""
    digest = codehash.file_digest([TOY], tree)
    assert digest == codehash.file_digest([TOY])
    assert digest == hashlib_of_files(tree, codehash.numeric_closure([TOY], tree))


def hashlib_of_files(root: Path, names: list[str]) -> str:
    import hashlib

    h = hashlib.sha256()
    for n in names:
        p = codehash.module_path(n, root)
        assert p is not None
        h.update(n.encode() + b"\0" + hashlib.sha256(p.read_bytes()).hexdigest().encode())
    return h.hexdigest()


# -- config ------------------------------------------------------------------------------------


def test_the_spelling_of_a_toy_config_does_not_change_its_key():
    a = {"m": 10, "n": 1000, "alpha": 1, "gamma": -1, "steps": 20000}
    b = {"m": 10.0, "n": 1000, "alpha": 1.0, "gamma": -1.0, "steps": 20000, "device": "cpu"}
    c = {**toy.points.sweep_config(**a)}  # every default spelled out
    ka = sweep.point_key(toy.train_points, a)
    assert ka == sweep.point_key(toy.train_points, b) == sweep.point_key(toy.train_points, c)
    assert ka != sweep.point_key(toy.train_points, {**a, "m": 15})
    assert ka != sweep.point_key(toy.train_points, {**a, "tau": 300.0})


def test_execution_fields_of_a_packing_config_do_not_change_its_key():
    a = {"k": 200, "d": 8}
    b = {"k": 200, "d": 8, "device": "cpu", "threads": 1, "tile": 64, "steps": 5000, "beta": 20}
    assert sweep.point_key(packing.sweep_packed, a) == sweep.point_key(packing.sweep_packed, b)
    assert sweep.point_key(packing.sweep_packed, a) != sweep.point_key(packing.sweep_packed, {**a, "seed": 1})
    with pytest.raises(RepcapError):
        sweep.point_key(packing.sweep_packed, {**a, "colour": "red"})  # refused by the engine's own settings


def test_settings_at_their_defaults_are_left_out_so_a_new_setting_moves_no_key(monkeypatch):
    """The identity holds the settings that differ from their defaults: a setting added with a
    default that keeps the old behaviour (PackConfig.lr_floor = 1, a fixed rate) moves no key."""
    cfg = {"k": 200, "d": 8, "loss": "power", "seed": 0}
    part = keys.config_part(packing.sweep_packed, cfg)
    assert part == {"k": 200, "d": 8}
    assert keys.config_part(packing.sweep_packed, {**cfg, "lr_floor": 0.0}) == {"k": 200, "d": 8, "lr_floor": 0.0}
    pf = registry.get("packing.optimise")
    without = dataclasses.replace(pf, defaults={k: v for k, v in pf.defaults.items() if k != "lr_floor"})
    monkeypatch.setitem(registry._REGISTRY, "packing.optimise", without)
    keys._DEFAULTS.pop("packing.optimise", None)
    try:
        assert "lr_floor" in keys.config_part(packing.sweep_packed, cfg)  # spelled out when not a default
    finally:
        keys._DEFAULTS.pop("packing.optimise", None)


def test_every_point_function_is_registered_with_a_numerics_version_and_metrics():
    assert set(POINT_FUNCTIONS) == set(registry.names())
    for pf in registry.all_registered():
        assert pf.engine in ("toy", "packing", "minimax", "survey"), pf.name
        assert registry.registered(pf.fn) is pf and keys.fn_name(pf.fn) == pf.name
    for name in ("toy.train", "toy.overlaps", "packing.optimise", "survey.describe"):
        assert registry.get(name).metrics, name
    # the names bundles of format 1 used resolve no more (format 1 is not read): refused like any other
    for name in ("repcap.toy.points:train_points", "repcap.packing.annealed:sweep_annealed", "os:system"):
        with pytest.raises(RepcapError, match="not one of"):
            registry.get(name)


def test_a_name_cannot_be_registered_twice_by_two_functions():
    @registry.point_function("test.once", numerics="test/1")
    def once(c):
        return c

    with pytest.raises(RepcapError, match="registered twice"):

        @registry.point_function("test.once", numerics="test/1")
        def other(c):
            return c

    registry._REGISTRY.pop("test.once")
    for bad in ("Toy", "toy", "toy.Train"):
        with pytest.raises(RepcapError, match="dotted"):
            registry.point_function(bad, numerics="toy/1")
    with pytest.raises(RepcapError, match="engine/N"):
        registry.point_function("toy.x", numerics="toy")


# -- functions that are not registered -----------------------------------------------------------


def _outside(config):
    return {"y": config["x"]}


def test_a_function_that_is_not_registered_is_refused_without_a_code_digest(tmp_path):
    with pytest.raises(RepcapError, match="not a registered point function"):
        sweep.run(_outside, [{"x": 1}], cache=sweep.Cache(tmp_path), progress=False)
    rep = sweep.run(_outside, [{"x": 1}], cache=sweep.Cache(tmp_path), progress=False, code="v1")
    assert rep.results == [{"y": 1}] and rep.n_computed == 1
    assert sweep.run(_outside, [{"x": 1}], cache=sweep.Cache(tmp_path), progress=False, code="v1").n_cached == 1
    assert sweep.run(_outside, [{"x": 1}], cache=sweep.Cache(tmp_path), progress=False, code="v2").n_computed == 1


def test_the_key_is_the_hash_of_its_parts():
    import hashlib

    cfg = {"k": 10, "d": 3}
    parts = keys.key_parts(packing.sweep_packed, cfg)
    comp = keys.computation_parts(packing.sweep_packed)
    assert comp == {"numerics": "packing/1", "data": codehash.files_digest([])}
    assert parts == {
        "fn": "packing.optimise",
        "config": sweep.canonical({"k": 10, "d": 3}),
        "computation": keys.computation_digest(comp["numerics"], comp["data"]),
    }
    assert sweep.point_key(packing.sweep_packed, cfg) == hashlib.sha256(sweep.canonical(parts).encode()).hexdigest()


def test_a_computed_point_records_its_provenance_in_the_cache(tmp_path):
    cache = sweep.Cache(tmp_path)
    cfg = {"k": 30, "d": 3, "steps": 3}
    sweep.run(packing.sweep_packed, [cfg], cache=cache, batched=True, progress=False)
    key = sweep.point_key(packing.sweep_packed, cfg)
    prov = cache.provenance(key)
    assert prov is not None and prov["device"].startswith("cpu") and prov["versions"]["torch"]
    assert prov["code"] == codehash.file_digest([PACK]) and prov["seconds"] == cache.get(key)["seconds"]


def test_a_function_declares_the_data_its_numbers_read():
    """The toy and packing engines read no data file: editing quotes.yaml (which the bound checks of
    packing results read) moves none of their keys.  A declared file must be one that a module of
    the function's closure reads."""
    for pf in registry.all_registered():
        closure_files = set(codehash.data_files([pf.fn.__module__]))
        if pf.data is not None:
            assert set(pf.data) <= closure_files, pf.name
    for name in ("toy.train", "toy.overlaps", "packing.optimise", "packing.random", "packing.projection"):
        assert registry.get(name).data == (), name
    assert "quotes.yaml" in codehash.data_files([PACK])  # read by the bound checks, not by the numbers
    assert keys.data_part(packing.sweep_packed) == codehash.files_digest([])
    assert keys.data_part(registry.get("survey.describe").fn) == codehash.data_digest([SURVEY])
