"""The candidate overlap definitions against a plain float64 loop, and the retrained model against
the toy's own sweep function."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from repcap.engines import toy
from repcap.engines.toy.overlaps import DEFINITIONS, STRONG_NORM, overlap_candidates, overlap_points


def _loop(W: np.ndarray, p: np.ndarray) -> dict[str, float]:
    norms = np.linalg.norm(W, axis=1)
    U = W / norms[:, None]

    def mean_sq(V, rows):
        idx = [i for i in range(len(V)) if rows[i]]
        vals = [float(V[i] @ V[j]) ** 2 for i, j in itertools.permutations(idx, 2)]
        return sum(vals) / len(vals) if vals else math.nan

    num = sum(p[i] * p[j] * float(U[i] @ U[j]) ** 2 for i, j in itertools.permutations(range(len(W)), 2))
    den = sum(p[i] * p[j] for i, j in itertools.permutations(range(len(W)), 2))
    every = [True] * len(W)
    return {
        "all": mean_sq(U, every),
        "represented": mean_sq(U, norms > 0.5),
        "strong": mean_sq(U, norms > STRONG_NORM),
        "unnormalised": mean_sq(W, every),
        "weighted": num / den,
    }


def test_each_definition_matches_a_float64_loop():
    rng = np.random.default_rng(3)
    W = rng.normal(size=(9, 4)) * rng.uniform(0.2, 1.6, size=(9, 1))  # norms on both sides of 1/2 and 1
    p = rng.uniform(0.1, 1.0, size=9)
    got = overlap_candidates(torch.tensor(W, dtype=torch.float32), torch.tensor(p))
    want = _loop(W.astype(np.float32).astype(np.float64), p)
    assert list(got) == list(DEFINITIONS)
    for k in DEFINITIONS:
        assert got[k] == pytest.approx(want[k], rel=1e-9), k


def test_orthonormal_rows_have_no_overlap_and_one_strong_row_none_defined():
    W = torch.eye(4, dtype=torch.float64) * torch.tensor([[0.3], [0.8], [1.2], [1.0]])
    c = overlap_candidates(W, torch.ones(4))
    assert c["all"] == 0.0 and c["weighted"] == 0.0 and c["represented"] == 0.0
    assert math.isnan(c["strong"])  # one row above norm 1: no pair


def test_overlap_points_retrain_the_sweep_functions_model():
    cfgs = [dict(n=24, m=m, alpha=1.0, gamma=-0.7778, steps=15, batch=16, keep_norms=True) for m in (3,)]
    mine = overlap_points(cfgs)[0]
    theirs = toy.train_points(cfgs)[0]
    assert mine["loss"] == pytest.approx(theirs["loss"], rel=1e-12)
    assert mine["overlap_all"] == pytest.approx(theirs["mean_sq_overlap"], rel=1e-5)  # float64 here, float32 there
    assert mine["phi_half"] == theirs["phi_half"]
    assert mine["phi_one"] == pytest.approx(float(np.mean(np.asarray(theirs["norms"]) > STRONG_NORM)))
