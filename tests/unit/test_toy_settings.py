"""The toy model's settings: one definition per default (the dataclasses), checks that name the
bad value in one line, and sweep configs derived from the same fields."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from repcap import RepcapError
from repcap.engines import toy
from repcap.engines.settings.toy import EXECUTION_SETTINGS


def test_sweep_config_defaults_are_the_dataclasses_defaults():
    expected = {"keep_norms": False}
    for cls in (toy.ModelSpec, toy.TrainConfig):
        for f in dataclasses.fields(cls):
            if f.name not in EXECUTION_SETTINGS:
                assert expected.get(f.name, f.default) == f.default, f.name  # a name in both agrees
                expected[f.name] = f.default
    assert toy.sweep_config() == expected
    assert expected == toy.SWEEP_DEFAULTS
    # the paper's main sweep
    assert (expected["n"], expected["m"], expected["steps"], expected["batch"]) == (1000, 10, 20000, 2048)
    assert toy.TrainConfig().resolved_warmup() == 2000 and toy.TrainConfig().final_lr_frac == 0.05


def test_every_setting_has_help_text():
    for cls in (toy.ModelSpec, toy.TrainConfig):
        for f in dataclasses.fields(cls):
            assert f.metadata.get("help"), f"{cls.__name__}.{f.name}"


@pytest.mark.parametrize(
    "kw, needle",
    [
        (dict(n=0), "n=0 must be a positive integer"),
        (dict(m=2.5), "m=2.5 must be a positive integer"),
        (dict(steps=True), "steps=True must be a positive integer"),
        (dict(batch=-3), "batch=-3 must be a positive integer"),
        (dict(lr=0.0), "lr=0.0 must be a finite number > 0"),
        (dict(lr=float("nan")), "lr=nan must be a finite number > 0"),
        (dict(steps=10, warmup=11), "warmup=11 must lie in 0..steps"),
        (dict(warmup=-1), "warmup=-1 must be an integer >= 0"),
        (dict(warmup_fraction=1.5), "warmup_fraction=1.5 must lie in [0, 1]"),
        (dict(warmup=5, warmup_fraction=0.05), "give one of them"),
        (dict(lr_rule="sqrt"), "lr_rule='sqrt': use one of constant, liu-exp17"),
        (dict(betas=(0.9,)), "betas=(0.9,) must be two numbers in [0, 1)"),
        (dict(betas=(0.9, 1.0)), "must be two numbers in [0, 1)"),
        (dict(loss_window=0), "loss_window=0 must be a positive integer"),
        (dict(final_lr_frac=2.0), "final_lr_frac=2.0 must lie in [0, 1]"),
    ],
)
def test_train_config_checks(kw, needle):
    with pytest.raises(RepcapError) as exc:
        toy.TrainConfig(**kw)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize(
    "kw, needle",
    [
        (dict(seed=-1), "seed=-1 must be an integer in 0..2**63-1"),
        (dict(seed=2**63), "must be an integer in 0..2**63-1"),
        (dict(seed=1.5), "seed=1.5 must be an integer"),
        (dict(alpha=-2.0), "alpha=-2.0 must be >= 0"),
        (dict(gamma=float("inf")), "gamma=inf must be a finite number"),
        (dict(lr=-1e-3), "lr=-0.001 must be a finite number > 0"),
        (dict(bias_lr=0), "bias_lr=0 must be a finite number > 0"),
        (dict(distribution="zipf"), "distribution='zipf': use one of power, exp, linear, density"),
        (dict(tau=0.0), "tau=0.0 must be > 0"),
        (dict(density=-1.0), "density=-1.0 must be > 0"),
    ],
)
def test_model_spec_checks(kw, needle):
    with pytest.raises(RepcapError) as exc:
        toy.ModelSpec(**kw)
    assert needle in str(exc.value)


def test_good_values_pass_and_numpy_integers_count():
    toy.ModelSpec(seed=2**63 - 1, gamma=-1e-3)
    cfg = toy.TrainConfig(n=np.int64(16), m=np.int64(4), steps=10, warmup=0, betas=[0.0, 0.5])
    assert cfg.betas == (0.0, 0.5)
    cfg.steps = 0  # changed after construction: train() checks again
    with pytest.raises(RepcapError, match="steps=0"):
        toy.train([toy.ModelSpec()], cfg)


def test_train_refuses_unknown_model_keys_and_changed_specs():
    cfg = toy.TrainConfig(n=8, m=2, steps=1, batch=4, device="cpu")
    with pytest.raises(RepcapError, match="width"):
        toy.train([{"alpha": 1.0, "width": 3}], cfg)
    spec = toy.ModelSpec()
    spec.gamma = float("nan")
    with pytest.raises(RepcapError, match="gamma"):
        toy.train([spec], cfg)


def test_sweep_config_spelling_and_early_checks():
    a = toy.sweep_config(alpha=1, m=np.int64(4), steps=30.0, betas=[0.9, 0.999], lr=np.float32(0.5))
    assert a["alpha"] == 1.0 and isinstance(a["alpha"], float)
    assert a["m"] == 4 and type(a["m"]) is int and type(a["steps"]) is int
    assert a["betas"] == (0.9, 0.999) and type(a["lr"]) is float
    with pytest.raises(RepcapError, match="seed"):
        toy.sweep_config(seed=-2)  # refused when the config is made, not when its batch runs
    with pytest.raises(RepcapError, match="unknown toy sweep keys"):
        toy.sweep_config(device="cpu")  # where it runs is not part of a point
