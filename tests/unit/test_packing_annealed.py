"""The decaying-rate packing run against the fixed-rate optimiser and the cosine's closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from repcap import RepcapError, packing, sweep
from repcap.packing import annealed


def test_annealed_rate_is_the_cosine_from_lr_to_its_floor():
    assert annealed.annealed_rate(0.01, 0, 100, 0.1) == pytest.approx(0.01)
    assert annealed.annealed_rate(0.01, 50, 100, 0.1) == pytest.approx(0.01 * (0.1 + 0.9 * 0.5))
    assert annealed.annealed_rate(0.01, 100, 100, 0.1) == pytest.approx(0.001)
    assert annealed.annealed_rate(0.01, 25, 100, 0.0) == pytest.approx(0.01 * 0.5 * (1 + math.cos(math.pi / 4)))


def test_a_floor_of_one_is_the_fixed_rate_run_bit_for_bit():
    cfg = packing.PackConfig(k=120, d=8, loss="exp", beta=20.0, steps=40, device="cpu")
    fixed = packing.optimise(cfg, progress=False)
    same = annealed.optimise_annealed(cfg, lr_floor=1.0, progress=False)
    assert torch.equal(fixed.V, same.V) and np.array_equal(fixed.eps_curve, same.eps_curve)


def test_the_rate_the_loop_uses_decays_and_the_runs_part():
    cfg = packing.PackConfig(k=120, d=8, loss="exp", beta=20.0, steps=60, device="cpu")
    opt = annealed._AnnealedAdam([torch.nn.Parameter(torch.zeros(3))], 0.02, 60, 0.0)
    rates = []
    for _ in range(60):
        opt.step()
        rates.append(opt.adam.param_groups[0]["lr"])
    assert rates[0] == pytest.approx(0.02) and rates == sorted(rates, reverse=True) and rates[-1] < 1e-4
    fixed = packing.optimise(cfg, progress=False)
    decayed = annealed.optimise_annealed(cfg, lr_floor=0.0, progress=False)
    # the same first step (the same rate), then the schedule: the runs part
    assert decayed.eps_curve[0][0] == fixed.eps_curve[0][0] and not torch.equal(decayed.V, fixed.V)
    assert decayed.config["lr_used"] == cfg.learning_rate


def test_sweep_point_key_and_refusals():
    c = {"k": 60, "d": 6, "loss": "exp", "beta": 20.0, "steps": 10, "device": "cpu"}
    out = annealed.sweep_annealed(c | {"lr_floor": 0.5})
    assert out["lr_floor"] == 0.5 and len(out["eps_curve"]) == len(out["curve_steps"])
    assert out["max_angle_deg"] == pytest.approx(math.degrees(math.acos(out["eps_star"])))
    k0 = sweep.point_key(annealed.sweep_annealed, c)
    assert k0 == sweep.point_key(annealed.sweep_annealed, c | {"lr_floor": 0.0, "threads": 1})
    assert k0 != sweep.point_key(annealed.sweep_annealed, c | {"lr_floor": 0.5})
    assert k0 != sweep.point_key(packing.sweep_packed, c)
    for bad in (-0.1, 1.5, "x", True):
        with pytest.raises(RepcapError, match="lr_floor"):
            annealed.sweep_annealed(c | {"lr_floor": bad})
