"""The sources' numbers live in data/reference/ with their citation, and no notebook retypes them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from repcap.base import quotes as quotes_mod
from repcap.evidence import reference

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


# ---------------------------------------------------------------------------------------------
# validation of hand-edited data files (issue 20.6): one line naming the file, the row and the field

GOOD_CLAIM = {
    "id": "guha-jl8-llama",
    "short": "JL (C = 8) capacity",
    "source": "guha2026",
    "kind": "arithmetic",
    "status": "published",
    "claim": "The JL form with C = 8 gives Llama 2 7B about 8.4 directions.",
    "quote": "guha2026.llama2_7b_k_jl8",
    "compare": "rel",
    "tolerance": 0.01,
    "tolerance_why": "two significant figures",
    "ours": "exp(d eps^2 / 8)",
    "checked_by": "all",
    "chapter": "03_capacity",
    "fmt": ".3g",
}


def _write_claims(tmp_path: Path, rows) -> Path:
    import yaml

    p = tmp_path / "claims.yaml"
    p.write_text(rows if isinstance(rows, str) else yaml.safe_dump(rows, allow_unicode=True), encoding="utf-8")
    return p


def _claim_error(tmp_path: Path, **change) -> str:
    row = dict(GOOD_CLAIM)
    for k, v in change.items():
        if v is ...:
            row.pop(k)
        else:
            row[k] = v
    p = _write_claims(tmp_path, [row])
    with pytest.raises(reference.RepcapError) as exc:
        reference.load_claims(p)
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(f"{p}: ")
    return msg


def test_a_good_row_loads(tmp_path):
    c = reference.load_claims(_write_claims(tmp_path, [GOOD_CLAIM]))["guha-jl8-llama"]
    assert c.kind == "arithmetic" and c.tolerance == 0.01 and c.checked_by is None


def test_the_projects_file_is_named_as_in_the_issue(tmp_path, monkeypatch):
    monkeypatch.setattr(quotes_mod, "reference_dir", lambda: tmp_path)
    p = _write_claims(tmp_path, [dict(GOOD_CLAIM, tolerance="abc")])
    with pytest.raises(reference.RepcapError) as exc:
        reference.load_claims(p)
    assert str(exc.value) == "data/reference/claims.yaml: claim 'guha-jl8-llama': tolerance 'abc' is not a number"


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"tolerance": "abc"}, "claim 'guha-jl8-llama': tolerance 'abc' is not a number"),
        ({"tolerance": ...}, "needs tolerance (a number)"),  # a missing tolerance is not 0
        ({"tolerance": -0.1}, "tolerance -0.1 must be at least 0"),
        ({"tolerance": float("inf")}, "tolerance inf is not a finite number"),
        ({"tolerance": True}, "tolerance True is not a number"),
        ({"kind": "guess"}, "kind 'guess' is not one of arithmetic, re-analysis, measurement"),
        ({"kind": ...}, "kind None is not one of"),
        ({"status": ...}, "status None is not one of published, ours"),
        ({"status": "reported"}, "status 'reported' is not one of published, ours"),
        ({"compare": "nearly"}, "compare 'nearly' is not one of abs, rel"),
        ({"source": "smith2024"}, "source 'smith2024' is not one of guha2026"),
        ({"chapter": ...}, "needs chapter"),
        ({"chapter": "03_capacty"}, "chapter '03_capacty' is not a notebook (did you mean '03_capacity'?)"),
        ({"fmt": ".3q"}, "fmt '.3q' cannot print a number"),
        ({"fmt": 3}, "fmt 3 is not a text"),
        ({"quote": "guha2026.nothing"}, "quote 'guha2026.nothing' is not in data/reference"),
        ({"quote": ...}, "needs a quote or a threshold"),
        ({"threshold": 1.0}, "give a quote or a threshold, not both"),
        ({"checked_by": "everyone"}, "checked_by 'everyone' is not a profile"),
        ({"checked_by": ...}, "needs checked_by"),
        ({"checked_by": [1, 2]}, "checked_by [1, 2] is not a name or a list of names"),
        ({"tolerance_why": ""}, "needs tolerance_why"),
        ({"min_n": 2.5}, "min_n 2.5 is not a whole number"),
        ({"context": "yes please"}, "context 'yes please' is not true or false"),
        ({"tolarance": 0.1}, "unknown field 'tolarance' (did you mean 'tolerance'?)"),
        ({"derive": "ratio"}, "derive 'ratio' needs two quotes, has 1"),
    ],
)
def test_each_bad_field_is_one_line(tmp_path, change, expected):
    assert expected in _claim_error(tmp_path, **change)


def test_a_range_quote_needs_a_range_compare(tmp_path):
    msg = _claim_error(tmp_path, quote="guha2026.power_p_text", compare="abs")
    assert "compare 'abs' needs a quote with a value; 'guha2026.power_p_text' is a range" in msg


def test_checked_by_one_profile_as_a_string_is_that_profile(tmp_path):
    """`checked_by: quick` was read as the letters q, u, i, c, k."""
    p = _write_claims(
        tmp_path, "- " + "\n  ".join(f"{k}: {v!r}" for k, v in {**GOOD_CLAIM, "checked_by": "quick"}.items())
    )
    c = reference.load_claims(p)["guha-jl8-llama"]
    assert c.checked_by == ("quick",)


def test_structure_errors(tmp_path):
    for text, expected in [
        ("- id: a\n  kind: [unclosed\n", "line 3: YAML syntax error"),
        ("{a: 1}\n", "must be a list of claim rows"),
        ("- just a string\n", "row 1: is 'just a string', not a mapping of fields"),
        ("- id: x\n  id: y\n", "line 2: YAML syntax error: key 'id' is written twice"),
    ]:
        p = _write_claims(tmp_path, text)
        with pytest.raises(reference.RepcapError, match=re.escape(expected)):
            reference.load_claims(p)
    p = _write_claims(tmp_path, [GOOD_CLAIM, GOOD_CLAIM])
    with pytest.raises(reference.RepcapError, match="claim 'guha-jl8-llama': its id is used by an earlier row"):
        reference.load_claims(p)


@pytest.mark.parametrize(
    "entry, expected",
    [
        ({"value": "abc", "where": "Sec. 1", "status": "published"}, "quote 'guha2026.x': value 'abc' is not a number"),
        ({"value": 1, "status": "published"}, "needs where"),
        ({"value": 1, "where": "Sec. 1", "status": "reported"}, "status 'reported' is not one of published, ours"),
        ({"where": "Sec. 1", "status": "ours"}, "needs a value, or a low and a high"),
        ({"low": 1, "where": "Sec. 1", "status": "ours", "value": 2}, "gives one end of a range"),
        ({"low": 3, "high": 1, "where": "Sec. 1", "status": "ours"}, "low 3 is above high 1"),
        ({"value": 1, "where": "Sec. 1", "status": "ours", "guard": "yes"}, "guard 'yes' is not true or false"),
        ({"value": 1, "where": "Sec. 1", "status": "ours", "noet": "x"}, "unknown field 'noet' (did you mean 'note'?)"),
        ({"value": float("nan"), "where": "Sec. 1", "status": "ours"}, "value nan is not a finite number"),
    ],
)
def test_each_bad_quote_is_one_line(tmp_path, entry, expected):
    import yaml

    p = tmp_path / "quotes.yaml"
    p.write_text(yaml.safe_dump({"guha2026": {"x": entry}}))
    with pytest.raises(reference.RepcapError) as exc:
        reference.load_quotes(p)
    assert expected in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(reference.RepcapError, match="unknown source 'nobody'"):
        p.write_text(yaml.safe_dump({"nobody": {"x": {"value": 1, "where": "a", "status": "ours"}}}))
        reference.load_quotes(p)


def test_every_shipped_fmt_prints_a_number():
    for c in reference.claims().values():
        assert reference.check_fmt(c.fmt) is None, c.id


def test_per_model_rows_under_paper():
    """Issue 19.5: one row per Table 1 model (tolerance from his bf16 rounding) and per Liu head."""
    cs = reference.claims()
    t1 = [c for c in cs.values() if c.id.startswith("guha-table1-eps-")]
    heads = [c for c in cs.values() if c.id.startswith("liu-head-overlap-")]
    assert len(t1) == 45 and len(heads) == 27
    assert all(c.checked_by == ("paper",) and c.kind == "measurement" for c in t1 + heads)
    gemma = cs["guha-table1-eps-gemma-3-270m"]
    assert (
        gemma.source_value()[0] == pytest.approx(0.41554) and gemma.tolerance == 1e-3 and "bf16" in gemma.tolerance_why
    )
    llama = (
        cs["guha-table1-eps-llama-2-70b-hf"]
        if "guha-table1-eps-llama-2-70b-hf" in cs
        else next(c for c in t1 if c.source_value()[0] < 0.1)
    )
    assert llama.tolerance == 3e-4


def test_fig6e_quotes_per_gamma():
    """Fig. 6e has three strong series (gamma -0.778, -0.556, -0.333): one quote per (alpha, gamma)."""
    q = reference.quote
    assert q("liu2025.fig6e_a10_g0778").value == pytest.approx(1.184)
    assert q("liu2025.fig6e_a10_g0556").value == pytest.approx(1.068)
    assert q("liu2025.fig6e_a10_g0333").value == pytest.approx(0.927)
    assert q("liu2025.fig6e_a15_g0333").value == pytest.approx(1.496)
    for key in ("a05", "a10", "a15", "a20"):
        for g in ("g0778", "g0556", "g0333"):
            x = q(f"liu2025.fig6e_{key}_{g}")
            assert x.status == "ours" and x.low < x.value < x.high and "digitised" in x.where
    assert not any("g1000" in k for k in reference.quotes())  # no gamma = -1 series is plotted
    # the weak series (gamma = +0.333) at the two alphas > 1 the reference set trains
    assert q("liu2025.fig6e_weak_a15").value == pytest.approx(0.701)
    assert q("liu2025.fig6e_weak_a20").value == pytest.approx(0.954)
    for key in ("a15", "a20"):
        x = q(f"liu2025.fig6e_weak_{key}")
        assert x.status == "ours" and x.low < x.value < x.high and "+0.333" in x.quantity


#: Library files that may spell a published number, each with its reason.  Everything else under
#: src/ reads the number from data/reference/ (``reference.value``, ``laws.PUBLISHED``).
SRC_ALLOWED: dict[tuple[str, str], str] = {
    (
        "engines/laws.py",
        "3.029",
    ): "the module docstring states each law with Guha's constant; the code reads laws.PUBLISHED",
    ("engines/laws.py", "1.293"): "the module docstring states each law with Guha's constant",
    ("engines/laws.py", "0.45809143"): "the module docstring states the four-constant law",
    ("engines/laws.py", "1.0668005"): "the module docstring states the four-constant law",
    ("engines/laws.py", "1.44738666"): "the module docstring states the four-constant law",
    ("engines/laws.py", "0.97197234"): "the module docstring states the four-constant law",
    ("engines/laws.py", "12288"): "a docstring's worked example of Yoder's rule at GPT-3's width",
    ("engines/random_geometry.py", "3.029"): "the module docstring names the constant Guha fits; no code uses it",
    ("base/quotes.py", "0.41554"): "the docstring's example of how a number is shown",
    ("base/quotes.py", "3.99e+07"): "the docstring's example of a power of ten",
    ("base/quotes.py", "3.99e7"): "the docstring's examples of how a number is typed",
    ("base/quotes.py", "0.0645"): "significant_digits' docstring examples",
    ("base/quotes.py", "8.4"): "significant_digits' docstring examples",
    ("base/quotes.py", "12288"): "the docstrings' examples of how a number is typed",
    ("base/quotes.py", "12,288"): "_spellings' docstring example",
    ("base/quotes.py", "76.5"): "_spellings' docstring example",
    ("base/quotes.py", "-1.005"): "a comment's example of a negative slope's spellings",
    ("base/quotes.py", "1.005"): "a comment's example of a negative slope's spellings",
    ("engines/toy/sparse_model.py", "101"): "a timing in a comment (89-101 ms), not the quoted 101 of Fig. 8a",
}


def _src_hits() -> dict[tuple[str, str], str]:
    lits = reference.guarded_literals()
    out = {}
    for p in sorted((ROOT / "src" / "repcap").rglob("*.py")):
        rel = p.relative_to(ROOT / "src" / "repcap").as_posix()
        for hit in _literal_hits(p.read_text(encoding="utf-8"), lits):
            lit, qid = hit.split(" (", 1)
            out[(rel, lit)] = qid.rstrip(")")
    return out


def test_no_library_module_retypes_a_published_number():
    """The notebooks' guard, over src/: a published number is read from data/reference/, never typed,
    except where SRC_ALLOWED says why (a docstring's example, a file in the shipped results' key)."""
    hits = _src_hits()
    bad = {k: v for k, v in hits.items() if k not in SRC_ALLOWED}
    assert not bad, f"library modules type numbers of data/reference/ instead of reading them: {bad}"
    stale = sorted(set(SRC_ALLOWED) - set(hits))
    assert not stale, f"SRC_ALLOWED names literals no longer there (remove them): {stale}"
    assert all(reason.strip() for reason in SRC_ALLOWED.values())
