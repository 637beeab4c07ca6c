"""The engines' fingerprints against their committed tables (see ``harness.py``): a change that moves
one fails here unless its engine's numerics version was bumped and its table rewritten in the same
commit; a bump whose fingerprints did not move fails too; and the execution-only settings (device,
threads, tile, CPU chunking) that a point's identity leaves out must not move a number."""

from __future__ import annotations

import harness
import pytest

ENGINES = sorted(harness.ENGINES)


@pytest.fixture(scope="module")
def computed() -> dict[str, dict]:
    return {}


def _values(computed: dict, engine: str) -> dict:
    if engine not in computed:
        computed[engine] = harness.compute(engine)
    return computed[engine]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_table_is_this_numerics_version(engine):
    t = harness.Table.load(engine)
    assert t.latest["numerics"] == harness.numerics(engine), (
        f"{engine}: the engine declares {harness.numerics(engine)} but tests/fingerprints/{engine}.json was written "
        f"for {t.latest['numerics']}: run `python tools/fingerprints.py --update {engine}` in the same commit"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_the_fingerprints_have_not_moved(engine, computed):
    t = harness.Table.load(engine)
    moved = harness.differences(_values(computed, engine), t.latest["values"], t.tolerance)
    assert not moved, (
        f"{engine}: {len(moved)} fingerprints moved beyond the tolerance ({t.tolerance.reason[:80]}...); a change of "
        f"numbers needs a bump of the engine's NUMERICS ({'.'.join(harness.ENGINES[engine])}) and "
        f"`python tools/fingerprints.py --update {engine}`:\n" + "\n".join(moved[:30])
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_the_defaults_are_the_tables(engine):
    t = harness.Table.load(engine)
    moved = harness.defaults_moved(harness.defaults(engine), t.latest["defaults"])
    assert not moved, (
        f"{engine}: a point function's default changed (a default is a number a point computes with): bump "
        f"{engine}'s NUMERICS and run `python tools/fingerprints.py --update {engine}`: " + "; ".join(moved)
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_each_bump_moved_a_fingerprint(engine):
    t = harness.Table.load(engine)
    versions = [h["numerics"] for h in t.history]
    assert len(set(versions)) == len(versions), f"{engine}: a numerics version appears twice: {versions}"
    for before, after in zip(t.history, t.history[1:]):
        moved = harness.differences(after["values"], before["values"], t.tolerance, missing=False)
        assert moved or harness.defaults_moved(after.get("defaults"), before.get("defaults")), (
            f"{engine}: {after['numerics']} has the same fingerprints as {before['numerics']}: a bump needs a change "
            "of numbers"
        )


@pytest.mark.parametrize("engine", ENGINES)
def test_every_case_is_in_the_table_and_cases_cover_the_registered_functions(engine, computed):
    t = harness.Table.load(engine)
    now = _values(computed, engine)
    assert set(now) == set(t.latest["values"]), (
        f"{engine}: cases {sorted(set(now) ^ set(t.latest['values']))} differ from the table's "
        f"(add new ones with `python tools/fingerprints.py --extend {engine}`)"
    )
    from repcap.sweep.registry import all_registered

    run = {c.point["fn"] for c in harness._load_cases(engine) if c.point}
    mine = {pf.name for pf in all_registered() if pf.engine == engine}
    assert mine <= run, f"{engine}: point functions without a fingerprint case: {sorted(mine - run)}"


# -- execution-only settings do not move a number ---------------------------------------------------

EXECUTION = [
    ("packing", "power", {"tile": 16, "threads": 2}),
    ("packing", "abs-relu", {"tile": 24, "threads": 1, "device": "cpu"}),
]


@pytest.mark.parametrize("engine, case, execution", EXECUTION)
def test_execution_settings_do_not_move_a_number(engine, case, execution):
    """A point's identity leaves out where it ran (device, threads, tiles, chunks): running it
    another way must give the table's numbers, at the engine's tolerance."""
    import dataclasses

    t = harness.Table.load(engine)
    c = next(c for c in harness._load_cases(engine) if c.name == case)
    assert c.point is not None
    point = dict(c.point, configs=[{**cfg, **execution} for cfg in c.point["configs"]])
    vals = harness.run_case(dataclasses.replace(c, point=point))
    assert vals is not None
    moved = harness.differences({case: vals}, {case: t.latest["values"][case]}, t.tolerance)
    assert not moved, f"{case} with {execution}: " + "; ".join(moved[:10])


@pytest.mark.parametrize("case, chunk", [("train-dense", 64 * 32), ("train-sparse", None), ("train-exp17", 1 << 20)])
def test_the_toy_trainers_chunking_does_not_move_a_number(case, chunk):
    """``cpu_chunk_elems`` (models trained in groups of at most that many batch x n entries: one
    model per group, all at once, ...) is an execution setting: the table's numbers either way."""
    from repcap.engines.settings.toy import TrainConfig
    from repcap.engines.toy import points, train

    t = harness.Table.load("toy")
    c = next(c for c in harness._load_cases("toy") if c.name == case)
    assert c.point is not None
    cs = [points.sweep_config(**cfg) for cfg in c.point["configs"]]
    cfg = TrainConfig(**{k: cs[0][k] for k in points.SHARED}, device="cpu", cpu_chunk_elems=chunk)
    res = train([points._model(x) for x in cs], cfg, progress=False)
    meas = res.measurements(keep_norms=True)
    for x, d in zip(cs, meas):
        if not x["keep_norms"]:
            d.pop("norms")
    moved = harness.differences({case: harness.flatten(meas)}, {case: t.latest["values"][case]}, t.tolerance)
    assert not moved, f"{case} with cpu_chunk_elems={chunk}: " + "; ".join(moved[:10])
