"""The shared checks of :mod:`repcap.base.config` (seed, count, rate, probability), and the copies the
engines in the shipped results' cache key still carry held equal to them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from repcap import RepcapError
from repcap.base import config


def test_seed_accepts_exactly_the_signed_64_bit_range():
    for v in (0, 1, np.int64(7), 2**63 - 1):
        config.seed("seed", v)
    for v in (-1, 2**63, 1.0, True, "3", None):
        with pytest.raises(RepcapError, match=r"seed=.* must be an integer in 0..2\*\*63-1"):
            config.seed("seed", v)


def test_count_rate_probability_and_each():
    config.count(0)("n", 0)
    config.count(1)("n", None)
    config.count(2)("n", np.int32(2))
    for v in (1, 2.0, True, "2"):
        with pytest.raises(RepcapError, match=r"must be an integer >= 2"):
            config.count(2)("n", v)
    config.rate("lr", 1e-3)
    config.rate("lr", None)
    for v in (0, -1e-3, float("inf"), float("nan"), True):
        with pytest.raises(RepcapError, match=r"must be a finite number > 0"):
            config.rate("lr", v)
    for v in (0, 0.5, 1):
        config.probability("p", v)
    for v in (-0.01, 1.01, float("nan"), True):
        with pytest.raises(RepcapError, match=r"must be a number in \[0, 1\]"):
            config.probability("p", v)
    config.each(config.probability)("q", (0.1, 0.9))
    with pytest.raises(RepcapError, match=r"q\[1\]=2 must be a number"):
        config.each(config.probability)("q", [0.1, 2])
    with pytest.raises(RepcapError, match="must be a list"):
        config.each(config.probability)("q", 0.5)


def test_the_engines_seed_check_is_the_shared_one():
    """The seed check was written three times (its copies were in the cache key of shipped results;
    keys are numerics now): one check, every boundary a torch generator takes.  The largest seed is
    also the packing baseline's seed modulus (a number), so the packing settings keep it, equal."""
    from repcap.engines.settings import packing as pconfig
    from repcap.engines.settings import toy as settings

    assert pconfig.MAX_SEED == config.MAX_SEED == np.iinfo(np.int64).max
    assert pconfig.check_seed is config.seed
    assert {f.name: f.metadata["checks"] for f in dataclasses.fields(settings.ModelSpec)}["seed"] == (config.seed,)
    for v in (0, 2**63 - 1, np.int64(5)):
        config.seed("s", v)
    for v in (-1, 2**63, True, 1.0):
        with pytest.raises(RepcapError):
            config.seed("s", v)


def test_every_engine_config_is_a_setting_dataclass_with_help():
    """Each engine's settings carry help text and run their checks on construction."""
    import dataclasses

    from repcap.engines.cosine import TiledConfig
    from repcap.engines.layers.config import LayerConfig

    for cls in (TiledConfig, LayerConfig):
        for f in dataclasses.fields(cls):
            assert f.metadata.get("help"), f"{cls.__name__}.{f.name} has no help"
    with pytest.raises(RepcapError, match="top_k=-1"):
        TiledConfig(top_k=-1)
    with pytest.raises(RepcapError, match="seed=-1"):
        LayerConfig(seed=-1)
    with pytest.raises(RepcapError, match="kinds"):
        LayerConfig(kinds=("no-such-kind",))
