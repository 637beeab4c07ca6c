"""The named point sets (repcap.results.runs): the sources' settings, read from data/reference and the
engines' defaults, spelled as the chapters spell their configs; sized by time budgets; computed
through the sweep cache, resumably."""

from __future__ import annotations

import numpy as np
import pytest

from repcap import RepcapError, sweep
from repcap.engines.packing import PackConfig, estimate_cost, guha_exponent, sweep_packed
from repcap.engines.packing.points import minimax_config, pack_config, sweep_minimax
from repcap.engines.toy import TrainConfig, sweep_config, train_points
from repcap.evidence import reference
from repcap.results import runs
from repcap.results.runs import cost, points


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_reference_set_is_yoder_full_size_and_guha_small_cells_at_his_settings():
    s = runs.point_set("reference")
    (y,) = s.experiment("yoder").configs
    assert (y["k"], y["d"], y["loss"], y["beta"]) == (
        int(reference.value("yoder2025.n_vectors")),
        int(reference.value("yoder2025.dim")),
        "exp",
        reference.value("yoder2025.beta"),
    )
    assert (y["k"], y["d"], y["beta"]) == (10000, 100, 20.0)  # the published sizes
    assert y["steps"] * cost.YODER_CPU_SECONDS_PER_STEP <= 2400  # about 30 minutes here
    g = s.experiment("guha-small")
    cells = sorted((c["d"], c["k"]) for c in g.configs)
    assert cells == [(d, k) for d in (32, 64, 128) for k in (2000, 4000, 8000)]
    for c in g.configs:
        cfg = pack_config(c)
        assert c["steps"] == 5000 == int(reference.value("guha2026.packing_steps"))
        assert "p" not in c and "lr" not in c  # his rules: PackConfig's defaults
        assert cfg.loss == "power" and cfg.exponent == guha_exponent(c["k"], c["d"])
        assert cfg.learning_rate == 0.005  # d <= 1024
    assert g.cache == "packing-grid" and s.experiment("yoder").cache == "packing-losses"


def test_reference_seeds_are_split_by_the_rows_they_decide_and_cover_each_seed_once():
    s = runs.point_set("reference")
    names = ("liu-seeds-a1", "liu-seeds-a15", "liu-seeds-weak", "liu-seeds")
    got = {n: [(c["seed"], c["alpha"], c["gamma"], c["m"]) for c in s.experiment(n).configs] for n in names}
    strong, weak = points.LIU_FIG6E_STRONG_GAMMAS, points.LIU_FIG6E_WEAK_GAMMA
    assert {(a, g) for _, a, g, _ in got["liu-seeds-a1"]} == {(1.0, g) for g in strong}
    assert {(a, g) for _, a, g, _ in got["liu-seeds-a15"]} == {(1.5, g) for g in strong}
    assert {(a, g) for _, a, g, _ in got["liu-seeds-weak"]} == {(1.0, weak), (1.5, weak)}
    assert {(a, g) for _, a, g, _ in got["liu-seeds"]} == {(1.0, -1.0), (1.5, -1.0)}
    every = [p for n in names for p in got[n]]
    want = {(sd, a, g, m) for sd in (1, 2) for a in (1.0, 1.5) for g in (*strong, weak, -1.0) for m in points.LIU_MS}
    assert len(every) == len(want) == 2 * 2 * 5 * 6 and set(every) == want
    # the weak exponent row's other alpha (2) gets the same seeds at the weak gamma, every width
    steep = [(c["seed"], c["alpha"], c["gamma"], c["m"]) for c in s.experiment("liu-seeds-weak-a2").configs]
    assert sorted(steep) == sorted((sd, 2.0, weak, m) for sd in (1, 2) for m in points.LIU_MS)
    assert {(c["n"], c["steps"], c["batch"]) for c in s.experiment("liu-seeds-weak-a2").configs} == {
        (1000, 20000, 2048)
    }


def test_paper_gpu_holds_the_main_sweep_fig3_yoder_and_guha_grid():
    s = runs.point_set("paper-gpu")
    assert s.names == ["yoder", "liu-fig3", "liu-main", "guha-grid"]
    main = s.experiment("liu-main").configs
    assert len(main) == 6 * 17 * 10
    np.testing.assert_allclose(sorted({c["gamma"] for c in main}), np.linspace(-1, 1, 10), atol=5e-5)
    assert sorted({c["alpha"] for c in main}) == [0.125 * i for i in range(17)]
    assert sorted({c["m"] for c in main}) == [10, 15, 25, 39, 63, 100]
    d = TrainConfig()
    assert {(c["n"], c["steps"], c["batch"]) for c in main} == {(1000, 20000, 2048)} == {(d.n, d.steps, d.batch)}
    fig3 = s.experiment("liu-fig3").configs
    assert {c["m"] for c in fig3} == {25} and len(fig3) == 170
    code = sweep.code_digest(train_points)
    keys = {sweep.point_key(train_points, c, code) for c in main}
    assert all(sweep.point_key(train_points, c, code) in keys for c in fig3)  # a subset: computed once
    assert s.experiment("liu-fig3").keep_large and not s.experiment("liu-main").keep_large
    grid = s.experiment("guha-grid").configs
    assert len(grid) == 80 and max(c["d"] for c in grid) == 512
    assert sorted({c["k"] for c in grid}) == list(range(2000, 32001, 2000))
    costs = [estimate_cost(c["k"], c["d"], 1, device="cuda").seconds for c in grid]
    assert costs == sorted(costs)  # cheapest cells first: a budgeted run finishes the most
    losses = [c["loss"] for c in s.experiment("yoder").configs]
    assert losses == ["abs-relu", "exp", "power", "exp"]


def test_configs_are_spelled_as_the_chapters_spell_them():
    assert set(points.guha_point(2000, 32)) == {"k", "d", "loss", "steps", "seed", "device"}  # chapter 07
    y = points.yoder_point("power", steps=10)
    assert set(y) == {"k", "d", "loss", "beta", "p", "steps", "lr", "seed", "n_bins", "device"}  # chapter 06
    assert y["lr"] == PackConfig(k=10000, d=100).learning_rate and y["n_bins"] == PackConfig(k=2, d=1).n_bins
    t = points.liu_point(25, 1.0, -1.0)
    assert t == sweep_config(m=25, alpha=1.0, gamma=-1.0, seed=0, keep_norms=True)  # chapters 07/08


def test_every_config_of_every_set_is_valid_at_both_scales():
    for name in runs.SETS:
        for scale in runs.SCALES:
            for e in runs.point_set(name, scale).experiments:
                assert e.configs, (name, scale, e.name)
                code = sweep.code_digest(e.fn)
                for c in e.configs:
                    if e.fn is sweep_packed:
                        pack_config(c)  # PackConfig's settings (lr_floor among them), checked
                    elif e.fn is sweep_minimax:
                        minimax_config(c)  # MinimaxConfig's settings, checked
                    else:
                        assert sweep_config(**c) == c
                    sweep.point_key(e.fn, c, code)  # plain JSON


def test_smoke_variants_are_small():
    for name in runs.SETS:
        s = runs.point_set(name, "smoke")
        assert sum(e.estimate_seconds("cpu") for e in s.experiments) < 5
        assert all(len(e.configs) <= 10 for e in s.experiments)


def test_toy_points_fit_their_budget():
    one = cost.toy_model_seconds(20000, 1000, 2048, 0.035)
    assert one == pytest.approx(700.0)
    assert points.liu_reference_points(0.0) == []
    assert len(points.liu_reference_points(one * 1.5, 0.035)) == 1
    six = points.liu_reference_points(6 * one + 1, 0.035)
    assert [(c["alpha"], c["m"], c["gamma"]) for c in six] == [
        (1.0, 10, -1.0),
        (1.0, 10, 0.3333),
        (1.0, 25, -1.0),
        (1.0, 25, 0.3333),
        (1.0, 63, -1.0),
        (1.0, 63, 0.3333),
    ]
    assert len(points.liu_reference_points(1e9, 0.035)) == 24  # every candidate
    faster = runs.point_set("reference", toy_budget_s=1400, toy_seconds_per_model_step=0.007)
    assert len(faster.experiment("liu-main").configs) == 10  # 140 s a model
    for bad in (-1, float("nan"), True, "1"):
        with pytest.raises(RepcapError, match="budget_s"):
            points.liu_reference_points(bad)
    with pytest.raises(RepcapError, match="seconds_per_model_step"):
        points.liu_reference_points(10, 0.0)


def test_unknown_names_are_refused_in_one_line():
    with pytest.raises(RepcapError, match="unknown point set"):
        runs.point_set("nope")
    with pytest.raises(RepcapError, match="scale"):
        runs.point_set("reference", "huge")
    with pytest.raises(RepcapError, match="no experiment 'nope'"):
        runs.point_set("reference").only(["yoder", "nope"])


def test_point_functions_are_only_repcaps_sweep_functions():
    assert runs.point_function("packing.optimise") is sweep_packed
    assert runs.point_function("toy.train") is train_points
    for bad in (
        "repcap.packing.points:sweep_packed",  # the names bundles of format 1 used: not read any more
        "repcap.toy.points:train_points",
        "os:system",
        "repcap.book.runner:main",
        "repcap.packing.points:optimise",
        "",
        None,
        3,
        "repcap.packing.points:sweep_packed.__globals__",
    ):
        with pytest.raises(RepcapError, match="not one of repcap's registered point functions"):
            runs.point_function(bad)


def test_a_budget_skips_a_batch_expected_to_overrun_and_runs_cheaper_ones(cache, monkeypatch):
    """A batch starts only if its uncached points are expected to end within the budget: an
    expensive batch is left while the cheaper ones after it run, and cached points cost nothing."""
    s = runs.point_set("reference", "smoke")
    yoder = s.experiment("yoder").configs[0]
    # the cost model says Yoder's (smoke) packing takes 1000 s and Guha's cells a millisecond
    monkeypatch.setattr(cost, "point_seconds", lambda fn, c, device="cpu": 1e3 if c == yoder else 1e-3)
    log: list[str] = []
    first = runs.compute(s, only=["yoder", "guha-small"], budget_s=100.0, progress=False, log=log.append)
    assert [(r.name, r.n_computed, r.n_cached, r.n_left) for r in first] == [
        ("yoder", 0, 0, 1),
        ("guha-small", 4, 0, 0),
    ]
    assert any("1 left (not expected to end within the time budget)" in line for line in log)
    # a budget smaller than the elapsed time still serves the cached cells, and leaves Yoder's run
    again = runs.compute(s, only=["yoder", "guha-small"], budget_s=0.0, progress=False, log=log.append)
    assert [(r.name, r.n_computed, r.n_cached, r.n_left) for r in again] == [
        ("yoder", 0, 0, 1),
        ("guha-small", 0, 4, 0),
    ]
    done = runs.compute(s, only=["yoder"], progress=False, log=log.append)
    assert [(r.n_computed, r.n_left) for r in done] == [(1, 0)]


def test_compute_resumes_and_respects_a_time_budget(cache):
    s = runs.point_set("reference", "smoke")
    log: list[str] = []
    none = runs.compute(s, budget_s=0.0, progress=False, log=log.append)
    assert all(r.n_computed == 0 and r.n_left == r.n_points for r in none)
    first = runs.compute(s, only=["guha-small"], progress=False, log=log.append)
    assert [(r.name, r.n_computed, r.n_cached) for r in first] == [("guha-small", 4, 0)]
    again = runs.compute(s, progress=False, log=log.append)

    # every experiment computes its points but those computed before it (guha-small's, and the
    # gamma = -1 and weak models that liu-main shares with liu-gamma-1 and liu-weak); a point is its
    # function and config (liu-overlap retrains liu-strong-a05's configs through another function)
    def point(e, c):
        return (sweep.fn_name(e.fn), sweep.canonical(c))

    g = s.experiment("guha-small")
    seen: set[tuple[str, str]] = {point(g, c) for c in g.configs}
    want = {}
    for e in s.experiments:
        cached = sum(point(e, c) in seen for c in e.configs)
        want[e.name] = (len(e.configs) - cached, cached)
        seen |= {point(e, c) for c in e.configs}
    assert want["guha-small"] == (0, 4) and want["yoder"] == (1, 0) and want["liu-gamma-1"] == (3, 3)
    assert want["liu-overlap"] == (3, 0)
    assert {r.name: (r.n_computed, r.n_cached) for r in again} == want
    assert any("wall time" in line for line in log) and any(line.startswith("== yoder") for line in log)


def test_a_measured_toy_rate_replaces_the_table(monkeypatch):
    table = cost.toy_step_seconds(25, "cuda")
    monkeypatch.setenv(cost.TOY_RATE_ENV, "2e-6,1.5e-7")
    assert cost.toy_step_seconds(25, "cuda") == pytest.approx(2e-6 + 25 * 1.5e-7) != table
    monkeypatch.setenv(cost.TOY_RATE_ENV, "fast")
    with pytest.raises(RepcapError, match="a,b"):
        cost.toy_step_seconds(25, "cuda")
