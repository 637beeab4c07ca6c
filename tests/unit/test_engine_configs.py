"""Issue 47 (parts 1-2): a chapter's engine config is one typed mapping (``train: "toy_train" = {}``),
resolved against its settings class before the kernel starts, recorded resolved, and read back in
every figure's sidecar with no ``null`` for a setting that had a value."""

import dataclasses
import json

import matplotlib

matplotlib.use("Agg")

import pytest

from repcap import RepcapError, cli
from repcap.base import config
from repcap.base.paths import notebooks_dir
from repcap.book.params import notebook_configs, notebook_parameters, parse_override, resolve_parameters
from repcap.book.runner import overrides_of
from repcap.engines.settings.toy import TrainConfig

TOY = ("08_two_regimes", "09_width_scaling", "10_toys_to_llms")
CH09 = notebooks_dir() / "09_width_scaling.py"
#: TrainConfig fields a chapter's mapping leaves to the grid or to where a point runs
LEFT_OUT = {"m", "device", "cpu_chunk_elems"}


@pytest.mark.parametrize("stem", TOY)
def test_toy_chapters_hold_one_train_mapping_and_no_engine_none(stem):
    path = notebooks_dir() / f"{stem}.py"
    kinds = notebook_configs(path)
    assert kinds.get("train") == "toy_train"
    params = notebook_parameters(path)
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    for name in params:  # no loose engine knob beside the mapping (n, steps, toy_steps, other_batch ...)
        base = name.split("_", 1)[-1] if name.startswith(("toy_", "other_")) else name
        assert base not in fields - LEFT_OUT or name in kinds, f"{stem}: {name} is a TrainConfig setting outside train"
    text = path.read_text()
    assert "given(" not in text


@pytest.mark.parametrize("profile", ("smoke", "quick", "paper"))
@pytest.mark.parametrize("stem", TOY)
def test_resolved_train_holds_every_setting(stem, profile):
    r = resolve_parameters(notebooks_dir() / f"{stem}.py", profile, {})
    names = [f.name for f in dataclasses.fields(TrainConfig) if f.name not in LEFT_OUT]
    assert list(r["train"]) == names
    TrainConfig(**r["train"])  # the engine accepts it as it is
    json.dumps(r)  # and it travels as JSON


def test_paper_profile_resolves_the_papers_steps():
    r = resolve_parameters(CH09, "paper", {})
    assert r["train"]["steps"] == config.defaults(TrainConfig)["steps"] == 20000
    assert r["other_train"]["steps"] == 40000 and r["other_train"]["lr_rule"] == "liu-exp17"


def test_dotted_override_merges_one_setting():
    name, value = parse_override("train.steps=3000")
    r = resolve_parameters(CH09, "smoke", {name: value})
    assert r["train"]["steps"] == 3000 and r["train"]["n"] == 32  # the profile's n kept
    assert overrides_of(CH09, "smoke", r) == {"train.steps": 3000}


@pytest.mark.parametrize(
    "arg, words",
    [
        ("train.steps=abc", ["train.steps", "must be int", "'abc'"]),
        ("train.stepz=3", ["unknown setting 'stepz'", "did you mean train.steps", "steps (int)"]),
        ("train.m=3", ["grid"]),
        ("train.warmup=500", ["warmup=500"]),
        ("train.betas=[0.9]", ["train.betas", "list of 2 float"]),
    ],
)
def test_bad_settings_are_refused_in_one_line_before_the_kernel(arg, words, capsys):
    assert cli.main(["run", "notebooks/09_width_scaling.py", "--profile", "smoke", "-p", arg]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    for w in words:
        assert w in err[0], (w, err[0])


def test_a_bad_profile_setting_is_refused():
    with pytest.raises(RepcapError, match="unknown setting"):
        resolve_parameters(CH09, "smoke", {"train": {"step": 3}})


def test_list_params_shows_each_setting_with_type_default_and_help(capsys):
    assert cli.main(["run", "notebooks/09_width_scaling.py", "--profile", "smoke", "--list-params"]) == 0
    out = capsys.readouterr().out
    help_ = dataclasses.fields(TrainConfig)[2].metadata["help"]
    assert "train.steps = 100" in out and "int, default 20000" in out and help_ in out
    assert "other_train.n = 32" in out


def test_sizing_reads_the_config():
    from repcap.book.sizing import ESTIMATES

    r = resolve_parameters(CH09, "paper", {})
    whats = [w for _, w in ESTIMATES["09_width_scaling"](r)]
    assert any("train.n = 1,000 features" in w and "batch 2,048" in w for w in whats)
    assert any("other_train.n = 10,240 features" in w and "batch 8,192" in w for w in whats)


def test_a_paper_sidecar_says_the_steps_it_ran(tmp_path, monkeypatch):
    """A figure saved under the paper profile's resolved parameters (at smoke scale: one tiny figure,
    no training): its sidecar names the steps, and no setting of the config is null."""
    import matplotlib.pyplot as plt

    from repcap.book import figures

    params = resolve_parameters(CH09, "paper", {})
    (tmp_path / "params.json").write_text(json.dumps(params))
    (tmp_path / "overrides.json").write_text("{}")
    monkeypatch.setenv("REPCAP_NOTEBOOK", "notebooks/09_width_scaling.py")
    monkeypatch.setenv("REPCAP_PROFILE", "paper")
    monkeypatch.setenv("REPCAP_PARAMS_FILE", str(tmp_path / "params.json"))
    monkeypatch.setenv("REPCAP_OVERRIDES_FILE", str(tmp_path / "overrides.json"))
    monkeypatch.setenv("REPCAP_FIGURE_DIR", str(tmp_path / "figures"))
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2])
    side = figures.save("fig-scaling-test", fig, {"x": [1, 2]}, {"caption": "a test"}, show=False)
    on_disk = json.loads((tmp_path / "figures" / "fig-scaling-test.json").read_text())
    for s in (side, on_disk):
        assert s["parameters"]["train"] == s["drawn_by"]["parameters"]["train"]
        train = s["drawn_by"]["parameters"]["train"]
        assert train["steps"] == 20000
        assert all(v is not None for v in train.values()), train
        assert train["warmup"] == 2000 and train["loss_window"] == 1000 and train["lr"] == 0.01
        assert set(s["drawn_by"]["decided_by_rule"]["train"]) == {"lr", "warmup", "warmup_fraction", "loss_window"}
        other = s["drawn_by"]["parameters"]["other_train"]
        assert other["steps"] == 40000 and other["warmup"] == 2000 and other["loss_window"] == 100

    from repcap.book.figindex import bibtex_entry

    bib = bibtex_entry(on_disk)
    how = bib.split("howpublished", 1)[1].split("\n", 1)[0].replace("\\_", "_")
    train = how.split("; train: ", 1)[1]
    assert "steps=20000" in train and "n=1000" in train and "warmup=2000" in train, how


#: The other engine-using chapters, the mapping each holds and the settings class it resolves against.
OTHERS = (
    ("02_embedding_eps", "tiled", "tiled"),
    ("03_capacity", "tiled", "tiled"),
    ("06_packing", "pack", "pack"),
    ("07_capacity_laws", "pack", "pack_grid"),
    ("05_inside_the_model", "layer", "layers"),
    ("11_frontier", "table", "pack_grid"),
    ("11_frontier", "panel", "pack_grid"),
    ("11_frontier", "signed_pack", "pack_grid"),
)


@pytest.mark.parametrize("profile", ("smoke", "quick", "paper"))
@pytest.mark.parametrize("stem,name,kind", OTHERS)
def test_packing_and_tiled_chapters_hold_one_mapping(stem, name, kind, profile):
    from repcap.book.configs import settings_fields
    from repcap.engines.settings import CHAPTER_CONFIGS

    path = notebooks_dir() / f"{stem}.py"
    assert notebook_configs(path).get(name) == kind
    assert "given(" not in path.read_text()
    spec = CHAPTER_CONFIGS[kind]
    fields = [f.name for f in settings_fields(kind)]
    for loose in set(notebook_parameters(path)) - set(notebook_configs(path)):  # no engine knob left beside the mapping
        assert loose not in fields or loose in spec.grid, f"{stem}: {loose} is a {spec.cls} setting outside {name}"
    r = resolve_parameters(path, profile, {})
    assert list(r[name]) == fields
    spec.settings_class()(**dict(spec.probe), **r[name])  # the engine accepts it as it is
    json.dumps(r)


def test_profiles_reach_the_packing_and_tiled_mappings():
    smoke6 = resolve_parameters(notebooks_dir() / "06_packing.py", "smoke", {})["pack"]
    assert (smoke6["steps"], smoke6["lr"], smoke6["n_bins"], smoke6["beta"]) == (40, 0.01, 50, 20.0)
    paper2 = resolve_parameters(notebooks_dir() / "02_embedding_eps.py", "paper", {})["tiled"]
    assert paper2["sample"] is None and paper2["bins"] == 2000  # every pair; the engine's bins
    quick3 = resolve_parameters(notebooks_dir() / "03_capacity.py", "quick", {})["tiled"]
    assert quick3["sample"] == 16384
    with pytest.raises(RepcapError, match=r"pack: seed is set per point by the chapter's grid"):
        resolve_parameters(notebooks_dir() / "07_capacity_laws.py", "smoke", {"pack.seed": 3})


def _sidecar_of(stem, profile, tmp_path, monkeypatch, decided=None):
    import matplotlib.pyplot as plt

    from repcap.base.context import RunRecord, set_current
    from repcap.book import figures

    params = resolve_parameters(notebooks_dir() / f"{stem}.py", profile, {})
    (tmp_path / "params.json").write_text(json.dumps(params))
    (tmp_path / "overrides.json").write_text("{}")
    monkeypatch.setenv("REPCAP_NOTEBOOK", f"notebooks/{stem}.py")
    monkeypatch.setenv("REPCAP_PROFILE", profile)
    monkeypatch.setenv("REPCAP_PARAMS_FILE", str(tmp_path / "params.json"))
    monkeypatch.setenv("REPCAP_OVERRIDES_FILE", str(tmp_path / "overrides.json"))
    monkeypatch.setenv("REPCAP_FIGURE_DIR", str(tmp_path / "figures"))
    rec = RunRecord(f"notebooks/{stem}.py", profile, params, "cpu (1 thread)", "cpu", "this process")
    set_current(rec)
    try:
        if decided:
            from repcap.book.chapter import decided as decide

            for k, v in decided.items():
                assert decide(k, None, v) == v and decide("given", 3, v) == 3  # a given value is not decided
        fig, ax = plt.subplots()
        ax.plot([1, 2], [1, 2])
        figures.save("fig-test-sidecar", fig, {"x": [1, 2]}, {"caption": "a test"}, show=False)
    finally:
        set_current(None)
    return json.loads((tmp_path / "figures" / "fig-test-sidecar.json").read_text())


def test_a_packing_sidecar_names_its_rules_and_holds_no_null(tmp_path, monkeypatch):
    side = _sidecar_of("06_packing", "paper", tmp_path, monkeypatch)
    pack = side["drawn_by"]["parameters"]["pack"]
    assert pack["steps"] == 5000 and pack["beta"] == 20.0  # Guha's steps, Yoder's beta: the engine's defaults
    assert all(v is not None for v in pack.values()), pack
    assert "Guha's rule" in pack["p"] and "Guha's rule" in pack["lr"]  # decided per point by d (and k)
    assert set(side["drawn_by"]["decided_by_rule"]["pack"]) == {"p", "lr"}


def test_a_value_the_chapter_takes_from_its_source_reaches_the_sidecar(tmp_path, monkeypatch):
    side = _sidecar_of("07_capacity_laws", "quick", tmp_path, monkeypatch, decided={"yoder_d": 12288})
    assert side["parameters"]["yoder_d"] == 12288 and side["drawn_by"]["parameters"]["yoder_d"] == 12288
    assert side["drawn_by"]["decided_by_rule"]["chapter"] == ["yoder_d"]
    assert side["drawn_by"]["parameters"]["pack"]["steps"] == 300  # the quick profile's, beside it
