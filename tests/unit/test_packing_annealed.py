"""The decaying-rate packing run (``PackConfig.lr_floor``) against the fixed-rate optimiser and the
cosine's closed form."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from repcap import RepcapError, sweep
from repcap.engines import packing
from repcap.engines.packing import optimiser


def test_annealed_rate_is_the_cosine_from_lr_to_its_floor():
    assert optimiser.annealed_rate(0.01, 0, 100, 0.1) == pytest.approx(0.01)
    assert optimiser.annealed_rate(0.01, 50, 100, 0.1) == pytest.approx(0.01 * (0.1 + 0.9 * 0.5))
    assert optimiser.annealed_rate(0.01, 100, 100, 0.1) == pytest.approx(0.001)
    assert optimiser.annealed_rate(0.01, 25, 100, 0.0) == pytest.approx(0.01 * 0.5 * (1 + math.cos(math.pi / 4)))


def test_a_floor_of_one_is_the_fixed_rate_run_bit_for_bit():
    """lr_floor = 1 is the default: Adam untouched. The annealing wrapper at a floor of 1 sets the
    same rate every step, and gives the same run bit for bit."""
    cfg = packing.PackConfig(k=120, d=8, loss="exp", beta=20.0, steps=40, device="cpu")
    fixed = packing.optimise(cfg, progress=False)
    W = torch.nn.Parameter(torch.zeros(3))
    opt = optimiser._AnnealedAdam([W], 0.02, 10, 1.0)
    opt.step()
    assert opt.adam.param_groups[0]["lr"] == 0.02
    explicit = packing.optimise(dataclasses.replace(cfg, lr_floor=1.0), progress=False)
    assert torch.equal(fixed.V, explicit.V) and np.array_equal(fixed.eps_curve, explicit.eps_curve)
    assert "lr_floor" not in fixed.summary()  # a fixed-rate record is as it always was


def test_the_rate_the_loop_uses_decays_and_the_runs_part():
    cfg = packing.PackConfig(k=120, d=8, loss="exp", beta=20.0, steps=60, device="cpu")
    opt = optimiser._AnnealedAdam([torch.nn.Parameter(torch.zeros(3))], 0.02, 60, 0.0)
    rates = []
    for _ in range(60):
        opt.step()
        rates.append(opt.adam.param_groups[0]["lr"])
    assert rates[0] == pytest.approx(0.02) and rates == sorted(rates, reverse=True) and rates[-1] < 1e-4
    fixed = packing.optimise(cfg, progress=False)
    decayed = packing.optimise(dataclasses.replace(cfg, lr_floor=0.0), progress=False)
    # the same first step (the same rate), then the schedule: the runs part
    assert decayed.eps_curve[0][0] == fixed.eps_curve[0][0] and not torch.equal(decayed.V, fixed.V)
    assert decayed.config["lr_used"] == cfg.learning_rate and decayed.summary()["lr_floor"] == 0.0


def test_sweep_point_key_and_refusals():
    c = {"k": 60, "d": 6, "loss": "exp", "beta": 20.0, "steps": 10, "device": "cpu"}
    (out,) = packing.sweep_packed([c | {"lr_floor": 0.5}])
    assert out["lr_floor"] == 0.5 and len(out["eps_curve"]) == len(out["curve_steps"])
    assert out["max_angle_deg"] == pytest.approx(math.degrees(math.acos(out["eps_star"])))
    k0 = sweep.point_key(packing.sweep_packed, c | {"lr_floor": 0.0})
    assert k0 == sweep.point_key(packing.sweep_packed, c | {"lr_floor": 0, "threads": 1})
    assert k0 != sweep.point_key(packing.sweep_packed, c | {"lr_floor": 0.5})
    # the default (a fixed rate) is left out of the identity: the points computed before the
    # setting existed keep their keys
    assert sweep.point_key(packing.sweep_packed, c) == sweep.point_key(packing.sweep_packed, c | {"lr_floor": 1.0})
    for bad in (-0.1, 1.5, "x", True):
        with pytest.raises(RepcapError, match="lr_floor"):
            packing.sweep_packed([c | {"lr_floor": bad}])
