"""The scorecard's verdicts are computed from the two numbers and the stated tolerance."""

from __future__ import annotations

import json

import pytest

from repcap import reference, scorecard
from repcap.scorecard import verdict


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


def test_missing_numbers_are_not_checked_and_name_the_profile():
    v = verdict(None, "abs", value=76.5, checked_by=("reference", "paper"))
    assert v.kind == "not checked in this profile"
    assert v.text == "not checked in this profile (checked by `reference`, `paper`)"
    assert verdict(float("nan"), "abs", value=1.0, checked_by=()).text.endswith("(no profile can check it)")


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
    assert scorecard.evaluate(c, [far]).verdict.text.startswith("differs: the angle still improves")
    # a finding's own note replaces the row's reason
    assert scorecard.evaluate(c, [dict(far, note="stopped early")]).verdict.text == "differs: stopped early"


def test_pages_from_findings_on_disk(tmp_path):
    (tmp_path / "findings").mkdir()
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "fig-eps-vs-d.json").write_text("{}")
    recs = [
        {
            "claim": "guha-eps-gemma",
            "value": 0.4153,
            "profile": "quick",
            "chapter": "02_embedding_eps",
            "figure": "fig-eps-vs-d",
            "note": "",
            "provenance": "",
        },
        {
            "claim": "guha-empty-band",
            "value": 2,
            "profile": "quick",
            "chapter": "02_embedding_eps",
            "figure": "fig-eps-vs-d",
            "note": "two encoders",
            "provenance": "",
        },
    ]
    (tmp_path / "findings" / "02_embedding_eps.json").write_text(json.dumps({"findings": recs}))
    scorecard.write_pages(tmp_path)
    page = (tmp_path / "scorecard.md").read_text()
    assert page.count("\n* - ") == len(reference.claims()) + 3  # every claim, and a header row per source
    assert "reproduced within 0.00024" in page and "{numref}`fig-eps-vs-d`" in page
    assert "{numref}`fig-packing-parallel`" not in page  # no link to a figure this build lacks
    summary = (tmp_path / "scorecard_summary.md").read_text()
    assert "**1**" in summary and "two encoders" in summary  # reproduced count; the one that differs
    assert "76.5° at 10,000 × 100" in summary and "checked by `reference`, `paper`" in summary
    assert "| guha-eps-gemma | abs | 0.001 |" in (tmp_path / "scorecard_tolerances.md").read_text()


def test_cells_that_start_like_markdown_blocks_are_escaped():
    """'> 0.2' (an 'above' claim's source) and '-1.36' (a negative value) stay text in a cell."""
    from repcap.scorecard import _cell

    assert _cell("> 0.2") == "\\> 0.2" and _cell("-1.363") == "\\-1.363"
    assert _cell("0.2 | 0.3\nx") == "0.2 \\| 0.3 x"
