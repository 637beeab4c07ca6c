"""The published capacity laws (repcap.engines.laws, Guha 2026) reproduce Table 1 and the worked examples.

Published values: Guha 2026 (arXiv:2606.02765), Table 1 (data/reference/guha2026_table1.csv) and the
text: Llama 2 7B (d = 4096, eps = 0.0645) gives 8.4 (JL, C = 8), 277 (JL, C = 3.029), 3.99e7
(four-constant) and 2.2e9 (adjusted, C = 1.293); at d = 8192, eps 0.05 -> 0.09 moves the capacity
2.4e8 -> 2.0e14; at eps = 0.09, d 2048 -> 3072 moves it 2.0e7 -> 6.0e8.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from repcap.engines import laws

REF = Path(__file__).resolve().parents[2] / "data" / "reference"


def table1():
    with open(REF / "guha2026_table1.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_all_31_finite_capacities_within_1_percent():
    rows = [r for r in table1() if r["capacity_reported"]]
    assert len(rows) == 31
    for r in rows:
        got = laws.capacity_table_value(float(r["eps_reported"]), int(r["d_model"]))
        want = float(r["capacity_reported"])
        assert got == pytest.approx(want, rel=0.01), r["model"]
        assert laws.classify(float(r["eps_reported"])) == 2


def test_classes_of_table1():
    for r in table1():
        assert laws.classify(float(r["eps_reported"])) == int(r["class_reported"]), r["model"]


def test_llama2_7b_worked_example():
    d, eps = 4096, 0.0645
    assert laws.capacity(eps, d, "jl8") == pytest.approx(8.4, abs=0.05)
    assert laws.capacity(eps, d, "jl") == pytest.approx(277, abs=1)
    assert laws.capacity(eps, d, "four") == pytest.approx(3.99e7, rel=0.005)
    assert laws.capacity(eps, d, "adjusted") == pytest.approx(2.2e9, rel=0.03)


def test_d8192_jump_of_six_orders():
    lo, hi = laws.capacity(0.05, 8192, "four"), laws.capacity(0.09, 8192, "four")
    assert lo == pytest.approx(2.4e8, rel=0.03) and hi == pytest.approx(2.0e14, rel=0.03)
    assert 5.5 < laws.log10_capacity(0.09, 8192) - laws.log10_capacity(0.05, 8192) < 6.5
    assert laws.capacity(0.09, 2048) == pytest.approx(2.0e7, rel=0.03)
    assert laws.capacity(0.09, 3072) == pytest.approx(6.0e8, rel=0.03)


def test_laws_invert_each_other():
    for name, law in laws.PUBLISHED.items():
        k = law.capacity(0.08, 4096)
        assert float(law.eps(k, 4096)) == pytest.approx(0.08, rel=1e-9), name
