"""A sweep key has four parts (``repcap.sweep.keys``): each changes the key when what it stands for
changes, and nothing else does."""

from __future__ import annotations

import ast
import importlib.metadata
import shutil
from pathlib import Path

import pytest

from repcap import RepcapError, codehash, packing, reference, sweep, toy
from repcap.runs.point_functions import POINT_FUNCTIONS
from repcap.sweep import keys

SRC = Path(codehash.__file__).resolve().parent  # src/repcap
TOY, PACK, SURVEY = "repcap.toy.points", "repcap.packing.points", "repcap.survey"


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(SRC, root / "repcap", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


# -- part 2: code ------------------------------------------------------------------------------


@pytest.mark.parametrize("module", [TOY, PACK])
def test_editing_a_numerical_module_changes_the_code_part(tree, module):
    base = codehash.numeric_digest([module], tree)
    assert base == codehash.numeric_digest([module], tree)
    # the cosine engine is used by both (toy overlaps, packing statistics)
    _append(tree / "repcap" / "cosine" / "moments.py", "\n\ndef _new():\n    return 2\n")
    assert codehash.numeric_digest([module], tree) != base


@pytest.mark.parametrize("module", [TOY, PACK])
def test_orchestration_io_paths_config_faces_and_comments_keep_the_code_part(tree, module):
    base = codehash.numeric_digest([module], tree)
    for rel in ("sweep/run.py", "sweep/tasks.py", "sweep/dask.py", "io.py", "paths.py", "codehash.py", "config.py"):
        _append(tree / "repcap" / rel, "\n\ndef _orchestration_only():\n    return 1\n")
    _append(tree / "repcap" / "__init__.py", "\n\ndef _also_inert():\n    return 1\n")
    # a re-export face: one more name exported changes nothing a point computes
    face = tree / "repcap" / "cosine" / "__init__.py"
    face.write_text(face.read_text().replace("from .tiled import", "from .tiled import DEFAULTS as _D2, ", 1))
    # a comment and a docstring in a numerical module
    opt = tree / "repcap" / "packing" / "optimiser.py"
    opt.write_text(opt.read_text().replace("\ndef ", '\ndef _doc():  # a comment\n    """Doc."""\n\n\ndef ', 1))
    after = codehash.numeric_digest([module], tree)
    if module == PACK:
        assert after != base  # _doc is a new function in packing's optimiser: that is code
        opt.write_text(opt.read_text().replace('def _doc():  # a comment\n    """Doc."""\n\n\n', "", 1))
    assert codehash.numeric_digest([module], tree) == base


def test_the_code_part_covers_what_the_old_closure_did_minus_the_inert_modules():
    for module in (TOY, PACK):
        full, numeric = set(codehash.closure([module])), set(codehash.numeric_closure([module]))
        assert numeric < full
        assert not numeric & set(codehash.INERT)
        assert {f"{module}", "repcap.devices", "repcap.cosine.moments"} <= numeric
    assert "repcap.sweep.run" not in codehash.numeric_closure([TOY])


# which names of the inert modules the numerical modules use, and why none can change a number
INERT_USES = {
    "repcap:RepcapError": "the error type: refusing an input is not computing with it",
    "repcap:show_progress": "whether a progress bar is drawn",
    "repcap.config:setting": "field metadata (help, check) of the settings dataclasses",
    "repcap.config:at_least": "an input check",
    "repcap.config:between": "an input check",
    "repcap.config:positive": "an input check",
    "repcap.config:finite": "an input check",
    "repcap.config:check": "runs the checks",
    "repcap.config:defaults": "defaults reach the key through the normalised config (part 1)",
    "repcap.config:from_mapping": "builds the settings that the config part is made of (part 1)",
    "repcap.io:atomic_path": "writes files",
    "repcap.io:write_json": "writes files",
    "repcap.paths:cache_dir": "where files go",
    "repcap.paths:project_root": "where files go",
    "repcap.paths:reference_dir": "where the data files are (their bytes are the data part)",
    "repcap.sweep:run": "runs other points through the cache (their own keys)",
}


def _inert_uses() -> set[str]:
    mods: set[str] = set()
    for module in set(POINT_FUNCTIONS.values()):
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
    assert "repcap.config:setting" in used and "repcap:RepcapError" in used  # the scan sees them
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
        allowed = {"numpy"} if m == "repcap.io" else set()  # io turns numpy scalars into JSON numbers
        assert not names & ({"torch", "numpy", "scipy", "numba"} - allowed), m


# -- part 3: data ------------------------------------------------------------------------------


def test_editing_a_data_file_the_closure_reads_changes_the_data_part(tree, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(reference.reference_dir(), data)
    base = codehash.data_digest([SURVEY], tree, data)
    assert "quotes.yaml" in codehash.data_files([SURVEY], tree)
    _append(data / "quotes.yaml", "\n# an edit\n")
    assert codehash.data_digest([SURVEY], tree, data) != base
    # toy and packing points read no data file: editing one keeps their keys
    assert codehash.data_files([TOY], tree) == codehash.data_files([PACK], tree) == []
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


# -- part 4: environment -----------------------------------------------------------------------


def test_a_package_version_changes_the_key(monkeypatch):
    cfg = {"k": 10, "d": 3}
    base = sweep.point_key(packing.sweep_packed, cfg)
    real = importlib.metadata.version

    monkeypatch.setattr(importlib.metadata, "version", lambda p: "9.9.9" if p == "numpy" else real(p))
    keys.env_part.cache_clear()
    try:
        assert keys.env_part()["numpy"] == "9.9.9"
        assert sweep.point_key(packing.sweep_packed, cfg) != base
    finally:
        monkeypatch.undo()
        keys.env_part.cache_clear()
    assert sweep.point_key(packing.sweep_packed, cfg) == base


def test_the_environment_part_names_the_versions_and_numba():
    env = keys.env_part()
    assert set(env) == {"torch", "numpy", "scipy", "numba", "numba_in_use"}
    assert env["numpy"] == importlib.metadata.version("numpy").split("+")[0]
    assert "+" not in (env["torch"] or "")  # the public version: a CPU and a CUDA build of one release agree


# -- part 1: config ----------------------------------------------------------------------------


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


def test_every_point_function_a_bundle_may_name_has_a_config_form():
    assert set(POINT_FUNCTIONS) <= set(keys.CONFIG_FORMS)
    for path, call, _ in keys.CONFIG_FORMS.values():
        assert call in ("dict", "kwargs") and callable(keys._normaliser(path))


# -- functions outside repcap --------------------------------------------------------------------


def _outside(config):
    return {"y": config["x"]}


def test_a_function_outside_repcap_is_refused_without_a_code_digest(tmp_path):
    with pytest.raises(RepcapError, match="outside repcap"):
        sweep.run(_outside, [{"x": 1}], cache=sweep.Cache(tmp_path), progress=False)
    rep = sweep.run(_outside, [{"x": 1}], cache=sweep.Cache(tmp_path), progress=False, code="v1")
    assert rep.results == [{"y": 1}] and rep.n_computed == 1
    assert sweep.run(_outside, [{"x": 1}], cache=sweep.Cache(tmp_path), progress=False, code="v1").n_cached == 1
    assert sweep.run(_outside, [{"x": 1}], cache=sweep.Cache(tmp_path), progress=False, code="v2").n_computed == 1


def test_the_key_is_the_hash_of_its_parts():
    cfg = {"k": 10, "d": 3}
    parts = keys.key_parts(packing.sweep_packed, cfg)
    assert parts["code"] == keys.code_digest(packing.sweep_packed)
    assert sweep.point_key(packing.sweep_packed, cfg, code="x") != sweep.point_key(packing.sweep_packed, cfg)
    comp = keys.computation_parts(packing.sweep_packed)
    assert comp["code"] == codehash.numeric_digest([PACK]) and comp["data"] == codehash.data_digest([PACK])
