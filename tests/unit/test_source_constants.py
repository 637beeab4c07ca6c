"""Each source constant an engine carries equals its quote in data/reference/ (or, where the source
gives no number we quote, every other copy of it in the code).

The engines in the shipped results' cache key (``toy/``, ``packing/``) keep their literal defaults,
since rewriting them would make hours of results stale; everything else reads them from the engine's
dataclass or from ``data/reference/``, and this file holds the two equal.  Before this file eight
values were typed twice or more (tau = 400, beta = 20, 5000 steps, 200 bins, the final fraction 0.05,
the class bounds 0.1 / 0.2, the 1/2 threshold, the largest seed)."""

from __future__ import annotations

import inspect

from repcap.base import config
from repcap.evidence import reference


def default_of(fn, name):
    return inspect.signature(fn).parameters[name].default


def test_tau_is_liu_exp17s_400():
    from repcap.engines.settings.toy import ModelSpec
    from repcap.engines.toy import data

    tau = reference.value("liu2025.exp17_tau")
    assert tau == 400
    assert ModelSpec.__dataclass_fields__["tau"].default == tau
    assert default_of(data.frequencies, "tau") == tau


def test_beta_is_yoders_20():
    from repcap.engines.packing import PackConfig, losses

    beta = reference.value("yoder2025.beta")
    assert beta == 20
    assert PackConfig.__dataclass_fields__["beta"].default == beta
    assert default_of(losses.loss_and_grad, "beta") == default_of(losses.dense_loss, "beta") == beta


def test_steps_are_guhas_5000_and_the_bins_are_one_number():
    from repcap.engines.packing import PackConfig
    from repcap.engines.packing import stats as pstats

    assert PackConfig.__dataclass_fields__["steps"].default == reference.value("guha2026.packing_steps") == 5000
    # 200 bins of the final |cos| histogram: the config's and the statistics function's default
    assert default_of(pstats.pair_stats, "n_bins") == PackConfig.__dataclass_fields__["n_bins"].default == 200


def test_the_final_learning_rate_fraction_is_one_number():
    from repcap.engines.settings.toy import TrainConfig
    from repcap.engines.toy import schedule

    frac = TrainConfig.__dataclass_fields__["final_lr_frac"].default
    assert frac == 0.05
    assert default_of(schedule.lr_schedule, "final_frac") == default_of(schedule.schedule, "final_frac") == frac


def test_the_class_bounds_are_read_from_the_quotes():
    from repcap.cli.commands.stats import _human
    from repcap.engines import laws

    c1, c2 = reference.value("guha2026.class1_eps_above"), reference.value("guha2026.class2_eps_below")
    assert (c1, c2) == (0.2, 0.1)
    assert laws.classify(c1 + 1e-9) == 1 and laws.classify(c2 - 1e-9) == 2 and laws.classify((c1 + c2) / 2) is None
    rec = {"class": None, "capacity_note": "x", "source": "s", "source_kind": "npy", "tensor": None, "quant": None}
    rec |= {"tied": None, "vocab_size": 3, "n_zero_rows": 0, "d_model": 2, "mean": 0.0, "std": 0.0, "mean_sq": 0.0}
    rec |= {"inv_d": 0.5, "eps": 0.15, "eps3": 0.2}
    assert "class none (0.1 <= eps <= 0.2)" in "\n".join(_human(rec))


def test_the_represented_norm_is_one_number():
    from repcap.book.figdata import toy as ftoy
    from repcap.engines.toy.measurements import REPRESENTED_NORM

    assert REPRESENTED_NORM == 0.5  # phi_1/2 (Liu, Liu & Gore 2025): ||W_i|| > 1/2
    assert default_of(ftoy.left_out_loss, "threshold") is None  # None: read REPRESENTED_NORM


def test_the_largest_seed_is_one_number():
    from repcap.engines.settings import packing as pconfig

    assert pconfig.MAX_SEED == config.MAX_SEED == 2**63 - 1


def test_the_toy_defaults_are_the_main_sweeps():
    from repcap.engines.settings.toy import TrainConfig

    fields = TrainConfig.__dataclass_fields__
    assert fields["steps"].default == reference.value("liu2025.main_steps") == 20000
    assert fields["n"].default == reference.value("liu2025.main_n") == 1000
