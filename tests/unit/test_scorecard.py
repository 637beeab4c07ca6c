"""The scorecard's verdicts are computed from the two numbers, their intervals and the stated
tolerance; rows have a kind, and the pages count by kind."""

from __future__ import annotations

import json

import pytest

from repcap import RepcapError
from repcap.evidence import reference, scorecard
from repcap.evidence.scorecard import verdict


def test_point_values_within_and_outside_the_tolerance():
    v = verdict(0.41530, "abs", value=0.41554, tolerance=1e-3, fmt=".5f")
    assert v.kind == "reproduced within" and v.text == "reproduced within 0.00024"
    v = verdict(0.4140, "abs", value=0.41554, tolerance=1e-3, reason="requantised")
    assert v.kind == "differs" and v.text == "differs: requantised"
    assert verdict(8.45, "rel", value=8.4, tolerance=0.01).text == "reproduced within 0.60%"
    assert verdict(8.6, "rel", value=8.4, tolerance=0.01).kind == "differs"
    # the tolerance is inclusive
    assert verdict(1.1, "abs", value=1.0, tolerance=0.1 + 1e-12).ok


def test_ranges_bounds_and_counts():
    assert verdict(33.9, "range", low=5, high=100).text == "reproduced"
    assert verdict(124.5, "range", low=5, high=100).kind == "differs"
    assert verdict(1.44, "range", low=1.1, high=1.4, tolerance=0.05).ok
    assert not verdict(1.46, "range", low=1.1, high=1.4, tolerance=0.05).ok
    assert verdict(0.2, "above", value=0.2).kind == "differs"  # strictly above a class boundary
    assert verdict(0.2001, "above", value=0.2).ok
    assert verdict(0.005, "below", value=0.005).ok  # "at most"
    assert verdict(0, "equal", value=0).ok and not verdict(1, "equal", value=0).ok


def test_an_interval_across_the_boundary_is_inconclusive():
    # Guha's Class-2 correlation: rho = -0.217 with an interval across 0, for a claim "below 0"
    v = verdict(-0.217, "below", value=0.0, ours_low=-0.538, ours_high=0.160, decide="more Class-2 models")
    assert v.kind == "inconclusive" and v.text.endswith("decided by more Class-2 models")
    # the same point with an interval on one side decides
    assert verdict(-0.217, "below", value=0.0, ours_low=-0.4, ours_high=-0.05).ok
    assert verdict(0.3, "below", value=0.0, ours_low=0.1, ours_high=0.5).kind == "differs"
    # the four-constant a = 1.067 [1.047, 1.086] against 1 +- 0.05: across 1.05
    assert verdict(1.067, "abs", value=1.0, tolerance=0.05, ours_low=1.047, ours_high=1.086).kind == "inconclusive"
    # c = 0.972 [0.964, 0.980] lies inside
    assert verdict(0.972, "abs", value=1.0, tolerance=0.05, ours_low=0.964, ours_high=0.980).ok
    # a range claim: a wide interval reaching out of the source's error bar
    assert verdict(1.0, "range", low=1.09, high=1.278, ours_low=-1.55, ours_high=3.80).kind == "inconclusive"
    assert verdict(0.62, "range", low=1.09, high=1.278, ours_low=0.5, ours_high=0.7).kind == "differs"


def test_a_source_interval_counts_too():
    # the source gives 1.184 with an error bar 1.09..1.278; ours exact at 1.2 with tolerance 0.05:
    # within 0.05 of some source values, not of all
    v = verdict(1.2, "abs", value=1.184, low=1.09, high=1.278, tolerance=0.05)
    assert v.kind == "inconclusive" and "source's interval" in v.text
    assert verdict(1.6, "abs", value=1.184, low=1.09, high=1.278, tolerance=0.05).kind == "differs"
    assert verdict(1.19, "abs", value=1.184, low=1.17, high=1.2, tolerance=0.05).ok


def test_a_fit_on_too_few_points_never_decides():
    # a slope on 3 widths is inconclusive even when its point estimate sits in the band
    v = verdict(1.1, "range", low=1.09, high=1.278, n=3, n_of="widths", min_n=4, decide="more widths")
    assert v.kind == "inconclusive" and "3 widths" in v.text and "at least 4" in v.text
    assert verdict(0.5, "range", low=1.09, high=1.278, n=3, min_n=4).kind == "inconclusive"  # nor fails
    assert verdict(1.1, "range", low=1.09, high=1.278, n=6, min_n=4).ok


def test_explained_gaps_and_undecided_runs():
    v = verdict(0.056, "abs", value=0.0, tolerance=0.01, explained="his k = 2000 cells used M = 60")
    assert v.kind == "differs (explained)" and v.text == "differs (explained: his k = 2000 cells used M = 60)"
    # an explanation never turns a pass into a difference
    assert verdict(0.005, "abs", value=0.0, tolerance=0.01, explained="x").ok
    v = verdict(0.84, "abs", value=0.9, tolerance=0.1, undecided="the peak is not reached", decide="a longer grid")
    assert v.kind == "inconclusive" and v.text == "inconclusive: the peak is not reached; decided by a longer grid"


def test_missing_numbers_are_not_checked_and_name_the_profile():
    v = verdict(None, "abs", value=76.5, checked_by=("reference", "paper"))
    assert v.kind == "not checked in this profile"
    assert v.text == "not checked in this profile (checked by `reference`, `paper`)"
    assert verdict(float("nan"), "abs", value=1.0, checked_by=()).text.endswith("(no profile can check it)")
    v = verdict(None, "abs", value=1.0, checked_by=("paper",), decide="needs an untied Class-2 model (`paper`)")
    assert v.text == "not checked in this profile (checked by `paper`): needs an untied Class-2 model (`paper`)"


def test_bad_rows_are_clear_errors():
    with pytest.raises(Exception, match="needs value"):
        verdict(1.0, "abs")
    with pytest.raises(Exception, match="unknown compare"):
        verdict(1.0, "nearly", value=1.0)


def test_the_profile_that_checks_a_claim_decides():
    c = reference.claim("yoder-76-degrees")  # checked by reference and paper only
    quick = {"claim": c.id, "value": 70.0, "profile": "quick", "chapter": "06_packing"}
    row = scorecard.evaluate(c, [quick])
    assert row.verdict.kind == "not checked in this profile" and row.ours_text == "70.00"
    ref = {"claim": c.id, "value": 76.2, "profile": "reference", "chapter": "06_packing"}
    row = scorecard.evaluate(c, [quick, ref])
    assert row.verdict.text == "reproduced within 0.3" and row.finding is ref
    far = dict(ref, value=72.0)
    assert scorecard.evaluate(c, [far]).verdict.text.startswith("differs: neither a fixed nor a decaying rate brings")
    # a finding's own note replaces the row's reason
    assert scorecard.evaluate(c, [dict(far, note="stopped early")]).verdict.text == "differs: stopped early"


def test_the_strong_rows_compare_per_gamma_and_need_widths():
    """Liu's Fig. 6e rows: ours against the plotted series' point, its bar read as ±1 standard error
    and combined with ours; a fit on 3 widths never decides."""
    c = reference.claim("liu-strong-a10")
    value, low, high = c.source_value()
    assert value == pytest.approx(1.184) and (low, high) == (pytest.approx(1.090), pytest.approx(1.278))
    assert c.compare == "combined" and c.source_se() == pytest.approx(0.094)
    assert "no γ = −1 series" in c.claim
    f = {
        "claim": c.id,
        "value": 1.12,
        "low": -1.55,
        "high": 3.80,
        "se": 1.2,
        "interval": "t",
        "n": 3,
        "n_of": "widths",
        "profile": "reference",
    }
    row = scorecard.evaluate(c, [f])
    assert row.verdict.kind == "inconclusive" and "3 widths" in row.verdict.text
    assert row.evidence == "95% interval (t, 3 widths) [-1.550, 3.800], standard error 1.200"
    assert scorecard.evaluate(c, [dict(f, n=6, low=1.1, high=1.2, se=0.03)]).verdict.ok


def test_the_combined_rule_on_the_issues_numbers():
    """The numbers of issue 36: the weak point at alpha = 1.5 agrees (0.7006 against 0.701), alpha = 1.5
    at gamma = -0.778 is 3.6 combined standard errors off, and a seed-0 fit with a wider standard error
    than the bar is consistent but cannot decide."""
    weak = reference.claim("liu-weak-a15")
    v = verdict(0.7006, "combined", value=0.701, source_se=weak.source_se(), se=0.023, fmt=".3f")
    assert v.kind == "reproduced within" and "combined SEs" in v.text and v.ok
    strong = reference.claim("liu-strong-a15")
    v = verdict(1.454, "combined", value=1.249, source_se=strong.source_se(), se=0.012, reason="r")
    assert v.kind == "differs" and v.text.startswith("differs: 3.6 combined SEs apart")
    v = verdict(0.942, "combined", value=0.896, source_se=0.0935, se=0.126, fmt=".3f")
    assert v.kind == "consistent, not decisive" and not v.ok and "0.126" in v.text
    # the boundary is two combined standard errors, and an explanation still names itself
    assert verdict(1.0 + 2 * 0.05, "combined", value=1.0, source_se=0.04, se=0.03).ok
    assert verdict(1.0 + 2.01 * 0.05, "combined", value=1.0, source_se=0.04, se=0.03).kind == "differs"
    assert verdict(2.0, "combined", value=1.0, source_se=0.1, se=0.1, explained="x").kind == "differs (explained)"
    # without our standard error there is nothing to combine
    assert verdict(1.0, "combined", value=1.0, source_se=0.1).kind == "inconclusive"
    # a threshold row (liu-strong-robust): no error of its own; decisive only below tolerance / Z
    c = reference.claim("liu-strong-robust")
    assert c.source_se() == 0.0 and c.source_value()[0] == 0.0
    assert (
        verdict(-0.003, "combined", value=0.0, source_se=0.0, se=0.055, tolerance=0.1).kind
        == "consistent, not decisive"
    )
    assert verdict(-0.003, "combined", value=0.0, source_se=0.0, se=0.04, tolerance=0.1).ok
    assert verdict(-0.3, "combined", value=0.0, source_se=0.0, se=0.04, tolerance=0.1).kind == "differs"


def test_one_currency_and_the_widest_window_that_decides():
    """Issue 46.3: a mean over seeds is set against the source's single replicate, whose variance is
    its bar's plus our seed sd²; and a pass window wider than the row's stated width never decides."""
    c = reference.claim("liu-strong-a15")
    value = c.source_value()[0]
    assert c.window == 0.25 and c.source_se() == pytest.approx(0.0555)
    seeds = {"claim": c.id, "value": value + 0.16, "se": 0.02, "n": 6, "interval": "t", "profile": "reference"}
    # seed-to-seed SE against the bar alone: 0.16 / hypot(0.02, 0.0555) = 2.7 SEs, "differs" ...
    assert scorecard.evaluate(c, [seeds]).verdict.kind == "differs"
    # ... but their one replicate scatters by our seed sd too: with sd 0.06 it is 1.9 SEs, window ±0.17
    one = scorecard.evaluate(c, [dict(seeds, replicate_sd=0.06)]).verdict
    assert one.kind == "reproduced within" and "1.9 combined SEs" in one.text
    # a seed-0 regression SE that opens the window past ±0.25 cannot decide (issue 46: ±0.52, ±0.71)
    wide = scorecard.evaluate(c, [dict(seeds, value=value + 0.1, se=0.1)]).verdict
    assert wide.kind == "consistent, not decisive" and "exceeds the source's" in wide.text
    # our SE below theirs, yet a seed sd of 0.12 opens the window to 2 × 0.141 = ±0.28: not decisive
    wide = scorecard.evaluate(c, [dict(seeds, value=value + 0.1, se=0.05, replicate_sd=0.12)]).verdict
    assert wide.kind == "consistent, not decisive" and "±0.28" in wide.text and "±0.25" in wide.text
    assert scorecard.evaluate(c, [dict(seeds, value=value + 0.1, se=0.05, replicate_sd=0.08)]).verdict.ok
    # liu-weak-a20's own bar (0.261) opens the window past ±0.52 whatever ours is
    weak = reference.claim("liu-weak-a20")
    assert (
        scorecard.evaluate(weak, [dict(seeds, claim=weak.id, value=0.954)]).verdict.kind == "consistent, not decisive"
    )
    # the rule as a function: no window, no limit
    assert verdict(1.0, "combined", value=1.1, source_se=0.2, se=0.05).kind == "reproduced within"


def test_every_row_states_its_status_and_the_listed_rows_are_ours(tmp_path):
    """Issue 46.4: a status on every row, and a row cannot be published on a quote of ours."""
    import yaml

    rows = yaml.safe_load((reference.reference_dir() / "claims.yaml").read_text())
    assert all(r.get("status") in ("published", "ours") for r in rows)
    for cid in (
        "liu-phi1-width",
        "guha-class1-mostly-tied",
        "yoder-gradient-trap",
        "yoder-rule-bound",
        "liu-strong-robust",
        "liu-power-in-out",
        "guha-layers-latent",
        "yoder-rule-C",
        "yoder-C-falls",
    ):
        assert reference.claim(cid).status() == "ours", cid
    assert reference.quote("yoder2025.rule_C").status == "ours" and reference.claim("yoder-rule-C").context
    assert reference.claim("guha-jl8-llama").status() == "published"
    row = next(r for r in rows if r["id"] == "liu-phi1-width")
    bad = tmp_path / "claims.yaml"
    bad.write_text(yaml.safe_dump([{**row, "status": "published", "threshold": None, "quote": "yoder2025.rule_C"}]))
    with pytest.raises(RepcapError, match="status 'published' on quote 'yoder2025.rule_C', which is ours"):
        reference.load_claims(bad)
    bad.write_text(yaml.safe_dump([{k: v for k, v in row.items() if k != "status"}]))
    with pytest.raises(RepcapError, match="status"):
        reference.load_claims(bad)


def test_a_result_beyond_a_claimed_improvement_is_no_difference():
    """Yoder's Hadamard projections reach C of about 2.5-4, an improvement on the textbook's 4-8: a
    lower C supports the claim; only a C above his 4 (plus the quarter unit of 'about') differs."""
    c = reference.claim("yoder-C-hadamard")
    assert c.compare == "below" and c.source_value()[0] == 4
    f = {"claim": c.id, "value": 1.48, "low": 0.88, "high": 2.03, "interval": "range", "n": 12, "profile": "paper"}
    assert scorecard.evaluate(c, [f]).verdict.ok
    assert scorecard.evaluate(c, [dict(f, value=5.0, low=4.6, high=5.5)]).verdict.kind == "differs"
    quick = dict(f, profile="quick", undecided="this profile's projections are smaller than the paper profile's")
    assert scorecard.evaluate(c, [quick]).verdict.kind == "inconclusive"


def test_evidence_names_its_uncertainty():
    e = scorecard.evidence_text
    assert e({"value": 1.0, "interval": "t", "low": 0.9, "high": 1.1, "n": 6, "n_of": "widths"}, ".2f") == (
        "95% interval (t, 6 widths) [0.90, 1.10]"
    )
    assert e({"value": 1.0, "interval": "range", "low": 0.5, "high": 2.0, "n": 9, "n_of": "cells"}, ".1f") == (
        "range over 9 cells [0.5, 2.0]"
    )
    assert e({"value": 1.0, "interval": "one run"}) == "one run"
    assert e({"value": 1.0, "interval": "closed form"}) == "exact (closed form)"
    assert e({"value": 1.0, "exact": True, "n": 6, "n_of": "decoders"}) == "exact (no sampling, 6 decoders)"
    assert e({"value": 1.0, "interval": "fisher", "low": -0.5, "high": 0.2, "n": 31, "n_of": "models"}, ".1f") == (
        "95% interval (Fisher z, 31 models) [-0.5, 0.2]"
    )
    # a record that does not say what its numbers are is shown as such, never as a 95% interval
    assert e({"value": 1.0, "low": 0.5, "high": 2.0}, ".1f") == "interval of unstated kind [0.5, 2.0]"
    assert e({"value": 1.0}) == "uncertainty not stated"


def test_each_provenance_is_stated_once():
    """Two rows computed from the same bundle experiment link to one sentence (issue 36: 187 repeated
    provenance sentences made the page a wall)."""
    a, b = reference.claim("liu-strong-a10"), reference.claim("liu-strong-a15")
    exps = {"liu-strong-a1": "6 points of the `reference` set (liu-strong-a1), from the bundle: computed on cpu"}
    rows = [
        scorecard.evaluate(
            c,
            [
                {
                    "claim": c.id,
                    "value": 1.1,
                    "se": 0.05,
                    "interval": "t",
                    "n": 6,
                    "profile": "reference",
                    "chapter": "09_width_scaling",
                    "experiments": exps,
                }
            ],
        )
        for c in (a, b)
    ]
    page = scorecard.scorecard_markdown(rows, set())
    assert page.count("from the bundle: computed on cpu") == 1 and "(prov-liu-strong-a1)=" in page
    assert page.count("{ref}`liu-strong-a1 <prov-liu-strong-a1>`") == 2


def test_guha_cells_differ_for_the_stated_reason():
    c = reference.claim("guha-cells")
    row = scorecard.evaluate(c, [{"claim": c.id, "value": 0.056, "profile": "reference", "n": 7}])
    assert row.verdict.kind == "differs (explained)" and "M = 60" in row.verdict.text


def _rec(cid, value, **kw):
    return {"claim": cid, "value": value, "profile": "quick", "chapter": reference.claim(cid).chapter, **kw}


def test_pages_from_findings_on_disk(tmp_path):
    (tmp_path / "findings").mkdir()
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "fig-eps-vs-d.json").write_text("{}")
    recs = [
        _rec("guha-eps-gemma", 0.4153, interval="deterministic", figure="fig-eps-vs-d"),
        _rec("guha-empty-band", 2, note="two decoders in the band", n=5, n_of="decoders", interval="deterministic"),
        _rec("guha-jl8-llama", 8.415, interval="closed form"),
        _rec("liu-lmhead-level", 33.9, n=3, n_of="heads", interval="range", low=20, high=40),  # a context note
    ]
    (tmp_path / "findings" / "02_embedding_eps.json").write_text(json.dumps({"findings": recs}))
    scorecard.write_pages(tmp_path)
    page = (tmp_path / "scorecard.md").read_text()
    main = [c for c in reference.claims().values() if not c.id.startswith(("guha-table1-eps-", "liu-head-overlap-"))]
    assert page.count("\n* - ") == len(main) + page.count(":header-rows: 1")  # every claim, a header per table
    assert "reproduced within 0.00024" in page and "{numref}`fig-eps-vs-d`" in page
    assert "{numref}`fig-packing-parallel`" not in page  # no link to a figure this build lacks
    assert "## Context notes" in page and "33.9" in page and "range over 3 heads [20.0, 40.0]" in page
    assert "exact (no sampling)" in page and "exact (closed form)" in page  # the evidence, by name
    # counts by kind: the measurements lead; the context note is not counted
    n_meas = sum(c.kind == "measurement" and not c.context and c.source != reference.OURS for c in main)
    assert f"**measurements**: 1 reproduced, 1 differ, 0 inconclusive, {n_meas - 2} not checked" in page
    # this book's own findings are counted apart and have their own section, labelled as ours
    n_ours = sum(c.source == reference.OURS for c in main)
    assert n_ours >= 6
    assert (
        f"own findings (measurements no source claims, counted apart): 0 reproduced, 0 differ, 0 inconclusive, {n_ours} not checked"
        in page
    )
    assert "### This book (our finding)" in page
    assert "**arithmetic** 1 reproduced" in page
    # the 72 per-model rows without a number are one sentence, not 72 rows
    assert "None has a number in this build." in page and "head overlap of gpt2" not in page
    # each row links its own definition on the methods page, which states the claim and what ours is
    assert "{ref}`ε of Gemma 3 270M <sc-guha-eps-gemma>`" in page and "(sc-guha-eps-gemma)=" not in page
    rows = (tmp_path / "scorecard_rows.md").read_text()
    assert "(sc-guha-eps-gemma)=" in rows and "Gemma 3 270M has ε = μ + 2σ = 0.41554" in rows
    assert "**guha-eps-gemma** (measurement; abs, tolerance 0.001; checked by `quick`, `reference`, `paper`)" in rows
    assert "*This build:* two decoders in the band." in rows and "(sc-liu-lmhead-level)=" in rows
    summary = (tmp_path / "scorecard_summary.md").read_text()
    lines = summary.strip().splitlines()
    assert len(lines) == 5 and lines[0].startswith("1. **What is checked.**")
    assert f"Its own findings, which no source claims, are {n_ours} further rows: 0 hold, 0 do not." in lines[4]
    assert "the empty 0.1–0.2 band" in lines[2] and "1 of the" in lines[1]
    assert "an interval and a point count behind every measured verdict" not in summary
    assert "**liu-lmhead-level** (measurement, context; range" in rows


def test_cells_that_start_like_markdown_blocks_are_escaped():
    """'> 0.2' (an 'above' claim's source) and '-1.36' (a negative value) stay text in a cell."""
    from repcap.evidence.cells import _cell

    assert _cell("> 0.2") == "\\> 0.2" and _cell("-1.363") == "\\-1.363"
    assert _cell("0.2 | 0.3\nx") == "0.2 \\| 0.3 x"


def test_counts_by_kind_leave_context_notes_out():
    rows = scorecard.evaluate_all([])
    by = scorecard.counts_by_kind(rows)
    n_claims = sum(not c.context and c.checked_by != () for c in reference.claims().values())
    assert sum(sum(v.values()) for v in by.values()) == n_claims
    assert sum(by["per-model"].values()) == 45 + 27


def test_record_carries_interval_n_and_exactness(tmp_path, monkeypatch):
    from repcap.evidence import findings

    monkeypatch.setenv("REPCAP_FINDINGS_DIR", str(tmp_path))
    monkeypatch.setenv("REPCAP_OUTPUT_NAME", "t_chapter")
    monkeypatch.setattr(findings, "_RECORDS", {})
    findings.record(
        "liu-strong-a10", 1.12, low=-1.55, high=3.8, se=1.2, interval="t", n=3, n_of="widths", profile="reference"
    )
    findings.record("guha-jl8-llama", 8.415, exact=True, profile="quick")
    findings.record("yoder-C-peak", 0.84, interval="one run", undecided="the peak is not reached", profile="reference")
    findings.record_all({"guha-jl-llama": {"value": 277.0, "interval": "closed form"}}, profile="quick")
    recs = {r["claim"]: r for r in json.loads((tmp_path / "t_chapter.json").read_text())["findings"]}
    assert recs["liu-strong-a10"]["low"] == -1.55 and recs["liu-strong-a10"]["n"] == 3
    assert recs["liu-strong-a10"]["se"] == 1.2 and recs["liu-strong-a10"]["interval"] == "t"
    assert recs["guha-jl8-llama"]["exact"] is True and recs["guha-jl8-llama"]["interval"] == "deterministic"
    assert recs["guha-jl8-llama"]["low"] is None and recs["guha-jl-llama"]["interval"] == "closed form"
    row = scorecard.evaluate(reference.claim("yoder-C-peak"), [recs["yoder-C-peak"]])
    assert row.verdict.kind == "inconclusive" and "peak is not reached" in row.verdict.text
    with pytest.raises(Exception, match="n 2.5 is not a count"):
        findings.record("guha-jl8-llama", 1.0, n=2.5)
    with pytest.raises(Exception, match="low 'x' is not a number"):
        findings.record("guha-jl8-llama", 1.0, low="x")
    with pytest.raises(Exception, match="a 'one run' value has no interval"):
        findings.record("guha-jl8-llama", 1.0, low=0.5, high=2.0, interval="one run")
    with pytest.raises(Exception, match="interval 'ci' is not one of"):
        findings.record("guha-jl8-llama", 1.0, interval="ci")
    with pytest.raises(Exception, match="se -1 is negative"):
        findings.record("guha-jl8-llama", 1.0, se=-1)


def test_spearman_and_interval_against_closed_forms():
    import math

    from scipy import stats

    from repcap.evidence import findings

    x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    y = [2, 1, 4, 3, 6, 5, 8, 7, 10, 9]
    r = findings.spearman(x, y)
    rho = 1 - 6 * sum((a - b) ** 2 for a, b in zip(x, y, strict=True)) / (10 * (100 - 1))  # no ties: closed form
    assert r["value"] == pytest.approx(rho) and r["n"] == 10
    se = math.sqrt(1.06 / 7)
    assert r["low"] == pytest.approx(math.tanh(math.atanh(rho) - 1.959963985 * se))
    assert r["high"] == pytest.approx(math.tanh(math.atanh(rho) + 1.959963985 * se))
    iv = findings.interval(1.0, 0.1, dof=5)
    assert iv["high"] - 1.0 == pytest.approx(0.1 * stats.t.ppf(0.975, 5))
    # Guha's Table 1, Class 2 (his 31 rows below 0.1): rho about -0.22 with an interval across 0
    from repcap.models import catalog

    c2 = [e for e in catalog.guha_models() if e.eps_reported is not None and e.eps_reported < 0.1]
    g = findings.spearman([e.d_model for e in c2], [e.eps_reported for e in c2])
    assert g["n"] == 31 and g["value"] == pytest.approx(-0.2172, abs=1e-3) and g["low"] < 0 < g["high"]


def test_strings_from_findings_reach_the_page_as_text():
    """A note or provenance from a findings file (or a forged bundle) never becomes HTML or a role."""
    c = reference.claim("yoder-76-degrees")
    f = {
        "claim": c.id,
        "value": 60.0,
        "profile": "reference<x>",
        "chapter": "06_packing`}{raw}",
        "note": "<img src=x onerror=alert(1)> and {ref}`x`",
        "provenance": "<script>alert(1)</script>",
    }
    rows = [scorecard.evaluate(c, [f])]
    page = scorecard.scorecard_markdown(rows, set()) + scorecard.rows_markdown(rows)
    assert "<img" not in page and "<script" not in page and "&lt;img" in page and "&lt;script" in page
    assert "{ref}`x`" not in page and "{doc}`06_packingraw`" in page and "`referencex`" in page


def test_a_provenance_or_note_that_ends_a_sentence_gets_one_full_stop():
    c = reference.claim("yoder-76-degrees")
    f = {"claim": c.id, "value": 60.0, "profile": "reference", "chapter": "06_packing"}
    page = scorecard.scorecard_markdown(
        [scorecard.evaluate(c, [{**f, "provenance": "1 point, in 56 min of computing.", "note": "it flattens"}])], set()
    )
    assert "**P1**: 1 point, in 56 min of computing.\n" in page and ".." not in page.split("## Where the")[1]
    rows = scorecard.rows_markdown([scorecard.evaluate(c, [{**f, "note": "it flattens."}])])
    assert "*This build:* it flattens." in rows and "flattens.." not in rows


def test_the_provenance_list_states_the_set_and_bundle_once():
    from repcap.evidence.cells import Provenance

    p = Provenance()
    a = (
        "9 points of the `reference` set (guha-small), from the bundle data/runs/reference: computed on cpu (1 thread), "
        "cpu (2 threads) at commit 46ec354915f7, 7d104e0eaa52, 2026-12-01 to 2026-12-04, in 119 min of computing; 6 of "
        "them also computed on cuda NVIDIA H200 (replicas, shown here as their first computed result; the "
        "Reproducibility page compares them)."
    )
    b = "1 point of the `reference` set (yoder), from the bundle data/runs/reference: computed on cpu, 2026-12-01, in 56 min of computing."
    p.add({"experiments": {"guha-small": a}})
    p.add({"experiments": {"yoder": b}})
    md = "\n".join(p.markdown())
    assert md.count("data/runs/reference") == 1 and md.count("'reference' set") == 1
    assert (
        "**guha-small**: 9 points; cpu (1 thread), cpu (2 threads); commits 46ec354915f7, 7d104e0eaa52; "
        "2026-12-01 to 2026-12-04; 119 min; 6 replicas on cuda NVIDIA H200." in md
    )
    assert "**yoder**: 1 point; cpu; 2026-12-01; 56 min." in md
    # a sentence of another shape, or two bundles, keep their whole sentences
    p.add({"experiments": {"other": "computed somewhere else"}})
    assert "**other**: computed somewhere else." in "\n".join(p.markdown())
    q = Provenance()
    q.add({"experiments": {"guha-small": a, "elsewhere": b.replace("data/runs/reference", "data/runs/paper-gpu")}})
    assert "**guha-small**: " + a.replace("`", "'") in "\n".join(q.markdown())
