"""Every engine default is defined once, on the engine's settings dataclass: a chapter holds its
engine settings as one mapping per config (``pack: "pack" = {}``, resolved against the class), holds
no loose engine knob beside it, and no profile restates an engine default as a number of its own
(which would silently drift when the engine's default changes)."""

import dataclasses

import pytest
import yaml

from repcap.base.paths import notebooks_dir
from repcap.book.params import notebook_configs, notebook_parameters
from repcap.engines.settings import CHAPTER_CONFIGS

PROFILES = ("smoke", "quick", "paper")
#: every chapter that runs an engine, and the configs it holds (their kinds)
ENGINE_CHAPTERS = {
    "02_embedding_eps": {"tiled": "tiled"},
    "03_capacity": {"tiled": "tiled"},
    "05_inside_the_model": {"layer": "layers"},
    "06_packing": {"pack": "pack"},
    "07_capacity_laws": {"pack": "pack_grid"},
    "08_two_regimes": {"train": "toy_train"},
    "09_width_scaling": {"train": "toy_train", "other_train": "toy_train"},
    "10_toys_to_llms": {"train": "toy_train"},
    "11_frontier": {"table": "pack_grid", "panel": "pack_grid", "signed_pack": "pack_grid"},
}


def _default(cls, name):
    f = {f.name: f for f in dataclasses.fields(cls)}[name]
    return f.default if f.default is not dataclasses.MISSING else f.default_factory()


def _as_data(value):
    """A value as a profile writes it: YAML has lists only, so a tuple default is compared as a list."""
    return [_as_data(v) for v in value] if isinstance(value, (list, tuple)) else value


@pytest.mark.parametrize("stem", sorted(ENGINE_CHAPTERS))
def test_engine_settings_live_in_one_mapping_per_config(stem):
    path = notebooks_dir() / f"{stem}.py"
    assert notebook_configs(path) == ENGINE_CHAPTERS[stem]
    params = notebook_parameters(path)
    for name, kind in ENGINE_CHAPTERS[stem].items():
        spec = CHAPTER_CONFIGS[kind]
        knobs = {f.name for f in dataclasses.fields(spec.settings_class())} - set(spec.grid)
        loose = [p for p in params if p in knobs and p not in ENGINE_CHAPTERS[stem]]
        assert not loose, f"{stem}: {loose} are {spec.cls} settings outside the mapping {name}"


@pytest.mark.parametrize("profile", PROFILES)
def test_profiles_do_not_restate_engine_defaults_in_a_config(profile):
    data = yaml.safe_load((notebooks_dir() / "params" / f"{profile}.yaml").read_text()) or {}
    for stem, configs in ENGINE_CHAPTERS.items():
        for name, kind in configs.items():
            cls = CHAPTER_CONFIGS[kind].settings_class()
            own = notebook_parameters(notebooks_dir() / f"{stem}.py")[name]  # the chapter's own choice, which
            for key, value in ((data.get(stem) or {}).get(name) or {}).items():  # a profile may set back
                if key in own:
                    continue
                assert _as_data(value) != _as_data(_default(cls, key)), (
                    f"{profile}.yaml {stem}.{name}.{key}: {value!r} is {cls.__name__}.{key}'s default; leave it out"
                )


def test_a_restated_default_would_be_caught():
    from repcap.engines.settings.packing import PackConfig

    assert _as_data(_default(PackConfig, "steps")) == 5000  # what a profile writing `pack: {steps: 5000}` restates
    assert _as_data(_default(CHAPTER_CONFIGS["layers"].settings_class(), "kinds")) == ["mlp_out", "attn_out"]
