"""The capacity law refitted with the optimiser's slack removed (repcap.evidence.slack) against closed
forms: eps* generated exactly by the adjusted law return its C, and a uniform shrink of eps by a factor
s moves C by s^2 - 1."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from repcap import RepcapError
from repcap.evidence import slack


def _law(C, cells, shrink=1.0):
    return pd.DataFrame([{"k": k, "d": d, "eps": shrink * math.sqrt(C * math.log(k / d) / d)} for k, d in cells])


CELLS = [(2000, 32), (4000, 32), (2000, 64), (4000, 64), (2000, 128), (4000, 128)]


def test_refit_returns_the_constant_and_its_move_under_a_shrink():
    his = _law(0.8, CELLS + [(8000, 32)])  # one cell the others lack: left out of every fit
    ours = pd.concat([_law(0.8, CELLS, 0.9), _law(0.8, CELLS, 0.95)])  # two seeds: the best per cell
    t = slack.refits({"his": his, "ours": ours})
    assert list(t.cells) == [6, 6]
    assert t.C.iloc[0] == pytest.approx(0.8, rel=1e-6) and t.C.iloc[1] == pytest.approx(0.8 * 0.81, rel=1e-6)
    f = slack.finding(t, "his", "ours")["ours-capacity-refit"]
    assert f["value"] == pytest.approx(0.81 - 1, abs=1e-6)
    assert f["low"] <= f["value"] <= f["high"] and f["n"] == 6 and f["interval"] == "fit"


def test_refit_interval_widens_with_scatter():
    rng = np.random.default_rng(0)
    noisy = _law(0.8, CELLS).assign(eps=lambda x: x.eps * (1 + 0.02 * rng.standard_normal(len(x))))
    f = slack.finding(slack.refits({"a": _law(0.8, CELLS), "b": noisy}), "a", "b")["ours-capacity-refit"]
    # 2% scatter in eps is about 4% in C per cell, 1.6% over six: a narrow interval, around a small move
    assert 0.005 < f["high"] - f["low"] < 0.2 and abs(f["value"]) < 0.05


def test_sets_without_a_shared_cell_are_refused():
    with pytest.raises(RepcapError, match="share no"):
        slack.refits({"a": _law(0.8, CELLS[:2]), "b": _law(0.8, CELLS[2:])})


def test_words_give_the_capacity_ratio_of_the_two_laws_at_a_cell():
    t = slack.refits({"his": _law(0.8, CELLS), "ours": _law(0.8, CELLS, 0.9)})
    f = slack.finding(t, "his", "ours")
    eps = math.sqrt(0.8 * math.log(4000 / 128) / 128)
    ratio = math.exp(128 * eps**2 * (1 / (0.8 * 0.81) - 1 / 0.8))  # = (k/d)^(1/0.81 - 1)
    assert ratio == pytest.approx((4000 / 128) ** (1 / 0.81 - 1))
    w = slack.words(t, f, "his", "ours", (4000, 128, eps))
    assert f"allows {ratio:.3g} times" in w and "-19.0%" in w and "C from 0.8000 to 0.6480" in w
