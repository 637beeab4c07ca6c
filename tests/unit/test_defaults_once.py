"""Every engine default is defined once, on the engine's settings dataclass: a chapter parameter that
is an engine knob defaults to None (meaning "the engine's"), and no profile restates an engine default
as a number of its own (which would silently drift when the engine's default changes)."""

import dataclasses

import pytest
import yaml

from repcap.base.paths import notebooks_dir
from repcap.book.params import notebook_parameters
from repcap.engines.cosine.tiled import TiledConfig
from repcap.engines.layers import LayerConfig
from repcap.engines.settings.packing import PackConfig
from repcap.engines.toy import TrainConfig

#: chapter -> {notebook parameter: (settings dataclass, field)}
KNOBS = {
    "02_embedding_eps": {"bins": (TiledConfig, "bins"), "top_k": (TiledConfig, "top_k"), "seed": (TiledConfig, "seed")},
    "03_capacity": {"bins": (TiledConfig, "bins"), "top_k": (TiledConfig, "top_k"), "seed": (TiledConfig, "seed")},
    "05_inside_the_model": {"kinds": (LayerConfig, "kinds"), "seed": (LayerConfig, "seed")},
    "06_packing": {
        "beta": (PackConfig, "beta"),
        "steps": (PackConfig, "steps"),
        "seed": (PackConfig, "seed"),
        "n_bins": (PackConfig, "n_bins"),
        "lr": (PackConfig, "lr"),
    },
    "07_capacity_laws": {"steps": (PackConfig, "steps"), "lr": (PackConfig, "lr")},
    "11_frontier": {
        "steps": (PackConfig, "steps"),
        "lr": (PackConfig, "lr"),
        "panel_steps": (PackConfig, "steps"),
        "panel_lr": (PackConfig, "lr"),
        "signed_steps": (PackConfig, "steps"),
    },
}
#: chapters whose engine settings are one mapping per config (``train: "toy_train" = {}``)
CONFIG_CHAPTERS = ("08_two_regimes", "09_width_scaling", "10_toys_to_llms")
PROFILES = ("smoke", "quick", "paper")


def _default(cls, name):
    f = {f.name: f for f in dataclasses.fields(cls)}[name]
    return f.default if f.default is not dataclasses.MISSING else f.default_factory()


def _as_data(value):
    """A value as a profile writes it: YAML has lists only, so a tuple default is compared as a list."""
    return [_as_data(v) for v in value] if isinstance(value, (list, tuple)) else value


@pytest.mark.parametrize("stem", sorted(KNOBS))
def test_engine_knobs_default_to_the_engine(stem):
    params = notebook_parameters(notebooks_dir() / f"{stem}.py")
    for name in KNOBS[stem]:
        assert name in params, f"{stem}: no parameter {name!r}"
        assert params[name] is None, f"{stem}.{name} = {params[name]!r} restates the engine's default; use None"


@pytest.mark.parametrize("profile", PROFILES)
def test_profiles_do_not_restate_engine_defaults(profile):
    data = yaml.safe_load((notebooks_dir() / "params" / f"{profile}.yaml").read_text()) or {}
    for stem, knobs in KNOBS.items():
        for name, (cls, field) in knobs.items():
            if name in (data.get(stem) or {}):
                value = data[stem][name]
                assert _as_data(value) != _as_data(_default(cls, field)), (
                    f"{profile}.yaml {stem}.{name}: {value!r} is {cls.__name__}.{field}'s default; leave it out"
                )


def test_the_table_names_real_fields():
    for knobs in KNOBS.values():
        for cls, field in knobs.values():
            _default(cls, field)


@pytest.mark.parametrize("profile", PROFILES)
def test_profiles_do_not_restate_engine_defaults_in_a_config(profile):
    from repcap.book.params import notebook_configs

    data = yaml.safe_load((notebooks_dir() / "params" / f"{profile}.yaml").read_text()) or {}
    for stem in CONFIG_CHAPTERS:
        for name in notebook_configs(notebooks_dir() / f"{stem}.py"):
            for key, value in ((data.get(stem) or {}).get(name) or {}).items():
                assert _as_data(value) != _as_data(_default(TrainConfig, key)), (
                    f"{profile}.yaml {stem}.{name}.{key}: {value!r} is TrainConfig.{key}'s default; leave it out"
                )
