"""Hold up, round 4 (issue 38): the time budget counts a damaged entry as uncached, and a cache
entry forged with a valid checksum is refused by the rigorous bounds (repcap.engines.feasible) on every
read."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from repcap import sweep
from repcap.results import runs

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------------
# the time budget and a forged entry


def _pack_set(name: str = "t") -> runs.PointSet:
    from repcap.engines.packing import packed_group, sweep_packed

    e = runs.Experiment(
        "small",
        sweep_packed,
        ({"k": 10, "d": 3, "steps": 20, "seed": 0},),
        "packing-holdup",
        "",
        batched=True,
        group_by=packed_group,
    )
    return runs.PointSet(name, "smoke", (e,))


def test_the_budget_counts_a_damaged_entry_as_uncached(tmp_path, monkeypatch):
    """`--budget 30` started a 38-minute point whose cache path held a damaged entry: the budget
    asked whether the file exists, and the sweep then found it corrupt and computed the point."""
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    pset = _pack_set()
    e = pset.experiments[0]
    path = sweep.Cache.named(e.cache).path(sweep.point_key(e.fn, e.configs[0]))
    path.parent.mkdir(parents=True)
    path.write_text('{"key": "half a wri')
    (done,) = runs.compute(pset, budget_s=0.0, progress=False, log=lambda s: None)
    assert (done.n_left, done.n_computed, done.n_cached) == (1, 0, 0)
    (done,) = runs.compute(pset, progress=False, log=lambda s: None)  # no budget: computed
    assert done.n_computed == 1
    (done,) = runs.compute(pset, budget_s=0.0, progress=False, log=lambda s: None)  # now cached
    assert (done.n_left, done.n_cached) == (0, 1)


def _forge(store: sweep.Cache, key: str, **change) -> None:
    p = store.path(key)
    entry = json.loads(p.read_text())
    entry["result"].update(change)
    entry["sha256"] = hashlib.sha256(sweep.canonical(entry["result"]).encode()).hexdigest()
    p.write_text(json.dumps(entry))


def test_a_forged_entry_is_refused_by_the_bounds(tmp_path, monkeypatch, capfd):
    """A cache entry forged with a valid checksum (eps* = 0.0001 for 10 vectors in R^3) was served.
    The Welch/Levenshtein bound says no packing has it: refused on every read, and computed again."""
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    pset = _pack_set()
    e = pset.experiments[0]
    (done,) = runs.compute(pset, progress=False, log=lambda s: None)
    store = sweep.Cache.named(e.cache)
    key = sweep.point_key(e.fn, e.configs[0])
    real = store.get(key)
    assert real is not None and real["eps_star"] > 0.6  # Welch/Levenshtein: at least 0.6547
    _forge(store, key, eps_star=0.0001)
    assert store.get(key)["eps_star"] == 0.0001  # the checksum vouches for it
    capfd.readouterr()
    (done,) = runs.compute(pset, budget_s=0.0, progress=False, log=lambda s: None)
    assert done.n_left == 1  # the budget does not count it as cached either
    rep = sweep.run(e.fn, list(e.configs), cache=e.cache, batched=True, group_by=e.group_by, progress=False)
    assert rep.n_computed == 1 and rep.results[0]["eps_star"] == pytest.approx(real["eps_star"], rel=1e-5)
    err = capfd.readouterr().err
    assert err.count("impossible result") == 1  # once, however often the sweep reads it
    assert (
        "below the Welch/Levenshtein bound" in err
        and "impossible result, not used" in err
        and str(store.path(key)) in err
    )
    _forge(store, key, mean_abs=1.5)
    assert (
        sweep.run(e.fn, list(e.configs), cache=e.cache, batched=True, group_by=e.group_by, progress=False).n_computed
        == 1
    )


def test_the_bound_check_passes_every_shipped_packing_and_refuses_the_impossible():
    from repcap.engines.bounds import coherence_lower_bound
    from repcap.engines.feasible import packing_result, packing_violation

    n = 0
    for f in sorted((ROOT / "data" / "runs").glob("*/*.json")):
        doc = json.loads(f.read_text())
        for entry in doc.get("entries", []) if isinstance(doc, dict) else []:
            if "packing" in entry["fn"]:
                n += 1
                assert packing_result(entry["config"], entry["result"]) is None, (f.name, entry["config"])
    assert n > 50
    simplex = 1 / 3  # k = d + 1 = 4 in R^3: Welch met with equality
    assert packing_violation(4, 3, simplex) is None and packing_violation(4, 3, simplex * (1 - 1e-7)) is None
    assert "below the Welch/Levenshtein bound" in packing_violation(4, 3, simplex * 0.99)
    assert packing_violation(10, 3, 0.0001) and coherence_lower_bound(10, 3) > 0.65
    assert "outside [0, 1]" in packing_violation(10, 3, 0.9, mean_abs=-0.2)
    assert "outside [0, 1]" in packing_violation(10, 3, 1.5)
    assert "above the largest" in packing_violation(10, 3, 0.7, mean_abs=0.8)
    assert "frame bound" in packing_violation(100, 3, 0.99, mean_abs=0.5, mean_sq=0.01)
    assert "its config says" in packing_result({"k": 10, "d": 3}, {"k": 11, "d": 3, "eps_star": 0.9})
    assert packing_result({"k": 10, "d": 3}, {"eps_star": None}) is None


def test_every_bounded_point_function_has_its_check():
    from repcap.engines.feasible import packing_result
    from repcap.results.runs.point_functions import POINT_FUNCTIONS
    from repcap.sweep import registry

    checked = {n for n in POINT_FUNCTIONS if registry.get(n).check is not None}
    assert checked == {"packing.minimax", "packing.optimise", "packing.random"}
    assert all(registry.get(n).check is packing_result for n in checked)
