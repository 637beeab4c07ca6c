"""Chapter 7's tables and findings (repcap.book.figdata.laws) against direct calls of the fits, bounds and
quotes they are built from, and against small hand-made frames whose answers are known."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from repcap.book.figdata import laws as lawdata
from repcap.engines import bounds, fits, laws
from repcap.evidence import findings, reference


@pytest.fixture(scope="module")
def guha():
    g_rand, g_opt = reference.guha_packings("random"), reference.guha_packings("optimized")
    return g_rand, g_opt, lawdata.guha_refits(g_rand, g_opt)


# --- Guha's data, refitted ---------------------------------------------------------------------
def test_refits_are_fit_law_on_his_data(guha):
    g_rand, g_opt, refits = guha
    assert list(refits) == ["JL form, random", "JL form, optimised", "adjusted, optimised", "four-constant, optimised"]
    direct = {
        "JL form, random": fits.fit_law("jl", g_rand.k, g_rand.d, g_rand.eps_star),
        "adjusted, optimised": fits.fit_law("adjusted", g_opt.k, g_opt.d, g_opt.eps_star),
        "four-constant, optimised": fits.fit_law("four", g_opt.k, g_opt.d, g_opt.eps_star),
    }
    table = lawdata.guha_refit_table(refits).set_index("fit")
    for name, f in direct.items():
        assert dict(refits[name].constants) == dict(f.constants)
        row = table.loc[name]
        assert row["points"] == f.n == (len(g_rand) if "random" in name else len(g_opt))
        assert row["R², our refit"] == f.r2 and row["MAPE %, our refit"] == f.mape
        assert row["constants, our refit"] == ", ".join(f"{n}={v:.4g}" for n, v in f.constants.items())
    # his published constants and metrics beside ours; the JL form on optimised packings has only a MAPE
    assert table.loc["adjusted, optimised", "constants, reported"] == "C=1.293"
    assert table.loc["adjusted, optimised", "R², reported"] == reference.value("guha2026.laws.adjusted.R2")
    assert table.loc["JL form, optimised", "constants, reported"] == "not published"
    assert math.isnan(table.loc["JL form, optimised", "R², reported"])
    assert table.loc["JL form, optimised", "MAPE %, reported"] == reference.value("guha2026.jl_mape_optimised")
    # the refits return his constants (the chapter's first claim)
    assert refits["JL form, random"].constants["C"] == pytest.approx(laws.PUBLISHED["jl"].constants["C"], abs=6e-4)
    assert refits["adjusted, optimised"].constants["C"] == pytest.approx(1.293, abs=6e-4)


def test_numbers_and_findings_of_the_refits(guha):
    _, g_opt, refits = guha
    kd = (g_opt.k > g_opt.d).to_numpy()
    k, d, e = (g_opt[c].to_numpy(dtype=float)[kd] for c in ("k", "d", "eps_star"))
    jl, adj, f4 = refits["JL form, optimised"], refits["adjusted, optimised"], refits["four-constant, optimised"]
    mape_jl = 100 * np.mean(np.abs(e - jl.law.eps(k, d)) / e)
    mape_adj = 100 * np.mean(np.abs(e - adj.law.eps(k, d)) / e)
    above = lawdata.mape_above_width(g_opt, refits)
    assert above["JL form, optimised"] == pytest.approx(mape_jl, rel=1e-12)
    assert above["adjusted, optimised"] == pytest.approx(mape_adj, rel=1e-12)

    nums = lawdata.guha_numbers(g_opt, refits)
    assert nums["n_small_k"] == int((~kd).sum()) and isinstance(nums["n_small_k"], int) and nums["n_small_k"] > 0
    assert nums["C_jl_opt"] == jl.constants["C"] and nums["r2_jl_opt"] == jl.r2 and nums["mape_jl_opt"] == jl.mape
    assert nums["C_adj"] == adj.constants["C"] and nums["C_rand"] == refits["JL form, random"].constants["C"]
    assert nums["mape_published"] == reference.value("guha2026.jl_mape_optimised")
    assert mape_adj < nums["jl_mape_kd"] < nums["mape_jl_opt"]  # his MAPE comes from the cells with k <= d

    found = lawdata.guha_findings(g_opt, refits)
    assert list(found) == [
        "guha-jl-random-refit",
        "guha-adjusted-refit",
        "guha-four-a",
        "guha-four-c",
        "guha-jl-mape",
        "guha-four-refit",
        "guha-two-orders",
        "guha-two-orders-kd",
    ]
    assert found["guha-adjusted-refit"] == {
        "value": adj.constants["C"],
        "interval": "deterministic",
        "n": adj.n,
        "n_of": "of his cells",
    }
    want_a = findings.interval(f4.constants["a"], f4.stderr["a"], dof=f4.n - 4, kind="fit")
    assert found["guha-four-a"] == {**want_a, "n": f4.n, "n_of": "of his cells"}
    assert found["guha-two-orders"]["value"] == pytest.approx(math.log10(jl.mape / adj.mape), rel=1e-12)
    kd_f = found["guha-two-orders-kd"]
    assert kd_f["value"] == pytest.approx(math.log10(mape_jl / mape_adj), rel=1e-12) and kd_f["n"] == int(kd.sum())
    assert kd_f["note"] == f"MAPE on k > d: JL form {mape_jl:.1f}%, adjusted law {mape_adj:.1f}%"
    for kw in found.values():  # each is what findings.record takes
        assert set(kw) <= {"value", "low", "high", "se", "interval", "n", "n_of", "note"}


# --- the reference run -------------------------------------------------------------------------
def _cells(rows):
    return pd.DataFrame(rows, columns=["k", "d", "steps", "p", "ε* (ours)", "ε* (Guha's data)", "relative gap"])


def test_reference_cell_summaries_and_findings():
    cells = _cells(
        [
            (2000, 32, 5000, 18, 0.11, 0.10, 0.10),
            (8000, 32, 5000, 18, 0.19, 0.20, -0.05),
            (4000, 64, 5000, 14, 0.2, np.nan, np.nan),
        ]
    )
    m60 = _cells([(2000, 32, 5000, 18, 0.101, 0.10, 0.01)])
    assert lawdata.reference_summary(cells) == (
        "over the 2 cells ours lies from -5.0% to +10.0% of his, the largest gap at k = 2,000, d = 32."
    )
    assert lawdata.reference_summary(cells.iloc[2:]) == (
        "none of its 1 cells is among those Guha stores, so there is nothing to compare."
    )
    assert lawdata.reference_summary(_cells([])) == "not shown in this build, which has no reference run."
    text = lawdata.m60_summary(cells, m60, "PROV.")
    assert "up to 10.0% from his stored values over 1 cells" in text and "within 1.0% over 1 cells" in text
    assert text.endswith("follow M = 60. PROV.")
    assert (
        lawdata.m60_summary(cells, _cells([]), "PROV.") == "The k ≤ 4000 cells at M = 60 are not in this build: PROV."
    )

    got = lawdata.cell_gap_finding("guha-cells", cells, figure="fig-x", experiments={"e": "s"})
    assert got == {
        "guha-cells": {
            "value": pytest.approx(0.10),
            "figure": "fig-x",
            "experiments": {"e": "s"},
            "interval": "one run",
            "n": 2,
            "n_of": "cells",
        }
    }
    assert lawdata.cell_gap_finding("guha-cells-m60", m60, 4000)["guha-cells-m60"]["value"] == pytest.approx(0.01)
    assert lawdata.cell_gap_finding("guha-cells", cells.iloc[2:]) == {}


# --- the simulated grid ------------------------------------------------------------------------
def test_grid_cells_and_table():
    assert lawdata.grid_cells([16, 500], [250, 1000], [2000], [1000, 4000]) == [
        (250, 16),
        (1000, 16),
        (1000, 500),
        (4000, 2000),
    ]
    opt = [
        {"k": 100, "d": 8, "seed": s, "eps_star": e, "p": 19, "seconds": 1.5, "extra": 0}
        for s, e in ((0, 0.3), (1, 0.5))
    ] + [{"k": 200, "d": 8, "seed": 0, "eps_star": 0.6, "p": 19, "seconds": 2.0}]
    rnd = [{"k": 100, "d": 8, "eps_star": 0.9}, {"k": 200, "d": 8, "eps_star": 0.95}]
    grid = lawdata.grid_table(opt, rnd)
    assert list(grid.columns) == ["k", "d", "eps_star", "p", "seconds", "eps_random", "bound"]
    assert grid.eps_star.tolist() == pytest.approx([0.4, 0.6]) and grid.seconds.tolist() == [3.0, 2.0]
    assert grid.eps_random.tolist() == [0.9, 0.95]
    assert grid.bound.tolist() == pytest.approx(bounds.coherence_lower_bound(np.array([100, 200]), np.array([8, 8])))


def _synthetic_grid():
    k = np.array([512, 1024, 2048, 4096] * 3)
    d = np.repeat([64, 128, 256], 4)
    eps = laws.PUBLISHED["adjusted"].eps(k, d) * 1.1
    eps_random = laws.PUBLISHED["jl"].eps(k, d)
    return pd.DataFrame({"k": k, "d": d, "eps_star": eps, "eps_random": eps_random})


def test_grid_fits_numbers_and_published_laws():
    grid = _synthetic_grid()
    opt = fits.fit_all(grid.k, grid.d, grid.eps_star)
    rnd = fits.fit_law("jl", grid.k, grid.d, grid.eps_random)
    table = lawdata.grid_fit_table(opt, rnd, dict.fromkeys(lawdata.GUHA_REFITS, opt["jl"])).set_index(["law", "data"])
    row = table.loc[("adjusted", "optimised")]
    assert row["Guha's constants"] == "C=1.293 (reported)"
    assert row["constants, our grid"] == f"C={opt['adjusted'].constants['C']:.4g}"
    assert (row["R², our grid"], row["MAPE %, our grid"], row["NRMSE, our grid"]) == (
        opt["adjusted"].r2,
        opt["adjusted"].mape,
        opt["adjusted"].nrmse,
    )
    assert table.loc[("JL form", "optimised"), "Guha's constants"].endswith("(our refit of his data)")
    assert table.loc[("JL form", "random"), "MAPE %, our grid"] == rnd.mape

    nums = lawdata.grid_numbers(grid, opt, rnd)
    assert nums["C_adjusted"] == pytest.approx(1.1**2 * 1.293, rel=1e-6)  # eps 10% up: C up by 1.1²
    assert nums["C_adjusted_ratio_pct"] == pytest.approx(100 * (1.1**2 - 1), rel=1e-5)
    assert nums["small_d"] == 64 and nums["eps_random_small_d"] == grid[grid.d == 64].eps_random.max()
    assert nums["random_trials_guha"] == 1000

    assert lawdata.adjusted_verdict(opt).startswith("more than 10% above it")
    near = fits.fit_law("adjusted", grid.k, grid.d, grid.eps_star / 1.1)
    assert lawdata.adjusted_verdict({"adjusted": near}).startswith("within 10% of the published value")
    low = fits.fit_law("adjusted", grid.k, grid.d, grid.eps_star / 1.3)
    assert lawdata.adjusted_verdict({"adjusted": low}).startswith("more than 10% below it")

    found = lawdata.random_fit_finding(rnd, figure="fig-laws-grid")["guha-jl-random-ours"]
    assert found["value"] == rnd.constants["C"] and found["figure"] == "fig-laws-grid" and found["n"] == 12
    assert found == {
        **findings.interval(rnd.constants["C"], rnd.stderr["C"], dof=11, kind="fit"),
        "figure": "fig-laws-grid",
        "n": 12,
        "n_of": "cells",
    }

    pub = lawdata.published_on_grid(grid)
    assert list(pub.law) == [laws.PUBLISHED[n].label for n in laws.PUBLISHED if n != "jl8"]
    four = fits.evaluate("four", grid.k, grid.d, grid.eps_star)
    assert lawdata.published_mape(pub, "four") == four["mape"]
    assert pub.set_index("law").loc[laws.PUBLISHED["jl"].label, "R²"] == pytest.approx(1.0)  # jl on its own eps
    assert lawdata.published_mape(pub, "adjusted") == pytest.approx(100 * 0.1 / 1.1, rel=1e-9)


# --- Yoder's constant and rule -----------------------------------------------------------------
def test_projections_and_yoder_constant_numbers():
    cfg = lawdata.projection_configs([16, 64], [16, 32], [0, 1])
    assert len(cfg) == 1 * 2 * 3 * 2 and {c["N"] for c in cfg} == {64}  # k < N only
    res = [{"N": 64, "k": 16, "kind": "srht", "seed": s, "eps": 0.1 * (s + 1), "C": 1.0 + s} for s in (0, 1)]
    assert lawdata.projection_means(res).to_dict("records") == [
        {"N": 64, "k": 16, "kind": "srht", "eps": pytest.approx(0.15), "C": 1.5}
    ]
    ratio = np.array([2.0, 4.0, 8.0])
    cdf = pd.DataFrame(
        {"source": ["optimised packing"] * 3 + ["random vectors"], "ratio": [*ratio, 100.0], "C": [*(ratio**0.5), 9.0]}
    )
    nums = lawdata.yoder_C_numbers(cdf)
    assert nums["C_slope"] == pytest.approx(0.5, rel=1e-12)
    assert (nums["C_opt_min"], nums["C_opt_max"], nums["ratio_min"], nums["ratio_max"]) == pytest.approx(
        (2**0.5, 8**0.5, 2.0, 8.0)
    )
    assert math.isnan(lawdata.yoder_C_numbers(cdf.iloc[[0, 3]])["C_slope"])

    q = lawdata.yoder_quoted()
    assert q["yoder_C"] == laws.yoder_C() and q["yoder_C_peak"] == reference.value("yoder2025.C_optimised_peak")
    assert q["yoder_C_textbook_lo"] == reference.quote("yoder2025.C_textbook").low
    assert q["yoder_C_random_hi"] == reference.quote("yoder2025.C_random").high
    lines = lawdata.yoder_C_lines()
    assert [c for c, _ in lines] == [8.0, laws.yoder_C(), q["yoder_C_peak"]]
    assert lines[1][1] == f"Yoder's rule, C = {laws.yoder_C():.2f}"


def test_rule_gap_against_his_quoted_values():
    pts = lawdata.yoder_rule_points()
    assert list(pts) == [1, 2, 3, 5] and pts[1] == reference.value("yoder2025.rule_log10_F1")
    d = reference.value("yoder2025.rule_d")
    at = {F: float(laws.yoder_log10_capacity(d, F)) for F in pts}
    want = max([abs(at[F] - pts[F]) for F in (1, 2, 3)] + [max(0.0, pts[5] - at[5])])
    assert lawdata.yoder_rule_gap() == want


# --- the bounds --------------------------------------------------------------------------------
def test_violations_against_bound_violations():
    ds, eps = lawdata.scan_grid(12288)
    assert ds[-1] == 12288 and len(eps) == 50 and (eps[0], eps[-1]) == (0.01, 0.5)
    law_set = {"Yoder's rule": laws.YODER, "adjusted (Guha)": laws.PUBLISHED["adjusted"]}
    viol = lawdata.violations(law_set, [16, 64], eps)
    assert list(viol.columns) == lawdata.VIOLATION_COLUMNS
    D, E = np.meshgrid([16, 64], eps)
    direct = bounds.bound_violations(laws.YODER, D.ravel(), E.ravel())
    direct = direct[direct.violates]
    rule = viol[viol.law == "Yoder's rule"]
    assert rule.points.sum() == len(direct) > 0
    for r in rule.itertuples():
        g = direct[(direct.bound == r.bound) & (direct.d == r.d)]
        assert (r._5, r._6, r.points) == (g.eps.min(), g.eps.max(), len(g))
        assert r._8 == pytest.approx(float((g.log10_k_law - g.log10_k_bound).max()))

    rig = lawdata.rigorous_table(viol)
    assert "rigorous" not in rig.columns and len(rig) == int(viol.rigorous.sum())
    assert lawdata.violators(viol, rigorous=True) == "; ".join(sorted(viol[viol.rigorous].law.unique()))
    kl = lawdata.asymptotic_table(viol)
    assert kl.points.sum() == viol[~viol.rigorous].points.sum()
    f = lawdata.rule_bound_finding(viol, D.size)["yoder-rule-bound"]
    rr = rule[rule.rigorous]
    assert f["n"] == 100 and f["value"] == (rr["max excess (log10 k)"].max() if len(rr) else 0.0)

    empty = pd.DataFrame(columns=lawdata.VIOLATION_COLUMNS)
    assert lawdata.violators(empty, rigorous=True) == "none" and lawdata.violators(empty, rigorous=False) == "none"
    assert int(lawdata.rigorous_table(empty).points.sum()) == 0 and len(lawdata.asymptotic_table(empty)) == 0
    assert lawdata.rule_bound_finding(empty, 4)["yoder-rule-bound"] == {
        "value": 0.0,
        "interval": "closed form",
        "n": 4,
        "n_of": "(d, ε) points",
        "note": "the rule stays below the rigorous bounds over the scan",
    }

    refit = {n: SimpleNamespace(law=laws.PUBLISHED[n]) for n in ("adjusted", "four")}
    scanned = lawdata.scanned_laws(refit)
    assert list(scanned)[-1] == "Yoder's rule" and scanned["four-constant, refit"] is laws.PUBLISHED["four"]
