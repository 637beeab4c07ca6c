"""The sources' numbers live in data/reference/ with their citation, and no notebook retypes them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from repcap import reference

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


def test_every_quote_has_a_citation_and_a_status():
    qs = reference.quotes()
    assert len(qs) > 60
    for q in qs.values():
        assert q.source in reference.SOURCES and q.where and q.status in reference.STATUSES, q.id
    # numbers read off a figure or recomputed by us are never "published"
    assert reference.quote("liu2025.fig8a_m_overlap").status == "ours"
    assert reference.quote("guha2026.llama2_7b_k_adjusted").status == "ours"
    assert reference.quote("guha2026.llama2_7b_k_four").status == "published"


def test_table_and_law_quotes_come_from_their_tables():
    assert reference.value("guha2026.table1.gemma-3-270m.eps") == pytest.approx(0.41554)
    assert reference.value("guha2026.laws.adjusted.C") == pytest.approx(1.293)
    assert reference.quote("guha2026.laws.four.MAPE_pct").where.startswith("Sec. 3.3")


def test_every_claim_resolves():
    cs = reference.claims()
    assert len(cs) >= 20
    for c in cs.values():
        value, low, high = c.source_value()
        assert value is not None or (low is not None and high is not None), c.id
        assert c.chapter and (ROOT / "notebooks" / f"{c.chapter}.py").exists(), c.id
        assert c.tolerance_why, c.id
    # a derived source value: Fig. 6d's two points give a slope of about -1
    assert reference.claim("liu-toy-overlap").source_value()[0] == pytest.approx(-1.0458, abs=1e-3)
    assert reference.claim("guha-sensitivity-d").source_value()[0] == pytest.approx(30.0)


@pytest.mark.parametrize(
    "x, digits", [(0.0645, 3), (8.4, 2), (1500, 2), (12288, 5), (3.99e7, 3), (2e20, 1), (0.009, 1), (-1.005, 4)]
)
def test_significant_digits(x, digits):
    assert reference.significant_digits(x) == digits


def _literal_hits(text: str, literals: dict[str, str]) -> list[str]:
    hits = []
    for lit, qid in literals.items():
        if re.search(rf"(?<![\w.]){re.escape(lit)}(?![\w]|\.\d)", text):
            hits.append(f"{lit} ({qid})")
    return hits


def test_the_guard_sees_a_retyped_number():
    lits = reference.guarded_literals()
    assert _literal_hits("yoder_angle_deg = 76.5  # Yoder", lits)
    assert _literal_hits("paper 1.005 and", lits)
    assert _literal_hits("ax.plot([0.1, 0.01], [0.1, 0.009])", lits)
    assert not _literal_hits("x = 176.55; y = 0.0091", lits)


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_notebook_retypes_a_published_number(nb):
    hits = _literal_hits(nb.read_text(encoding="utf-8"), reference.guarded_literals())
    assert not hits, f"{nb.name} types numbers of data/reference/ instead of reading them: {hits}"
