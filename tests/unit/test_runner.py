"""The notebook runner: parameter validation before execution, content cache, atomic outputs,
clear errors naming the notebook and cell."""

from __future__ import annotations

import json
import textwrap

import pytest

from repcap import RepcapError
from repcap.book import runcache, runner

NB = textwrap.dedent("""\
    # %% [markdown]
    # # A test chapter

    # %% tags=["parameters"]
    n = 3  # an int
    scale = 0.5  # a float
    label = "x"  # a string
    sizes = [1, 2]  # a list of ints
    fail = False  # make a cell raise

    # %%
    import matplotlib.pyplot as plt
    import pandas as pd
    from repcap.book import figures

    # %%
    fig, ax = plt.subplots()
    ax.plot(range(n), [scale * i for i in range(n)])
    figures.save("fig-test-line", fig, pd.DataFrame({"i": range(n), "y": [scale * i for i in range(n)]}),
                 {"caption": f"A line of {n} points with slope {scale}.", "seed": 0})

    # %%
    if fail:
        raise ValueError("the cell failed on purpose")
    """)


@pytest.fixture()
def project(make_project):
    return make_project("10_test", NB, smoke="10_test:\n  n: 4\n")


def test_parameters_cell_is_read_as_literals(project):
    assert runner.notebook_parameters(project / "notebooks" / "10_test.py") == {
        "n": 3,
        "scale": 0.5,
        "label": "x",
        "sizes": [1, 2],
        "fail": False,
    }


def test_profile_and_overrides_layer_and_coerce(project):
    nb = project / "notebooks" / "10_test.py"
    got = runner.resolve_parameters(nb, "smoke", {"scale": 2, "sizes": [5]})
    assert got == {"n": 4, "scale": 2.0, "label": "x", "sizes": [5], "fail": False}
    assert isinstance(got["scale"], float)


@pytest.mark.parametrize(
    "override, message",
    [
        ({"nn": 1}, "unknown parameter 'nn'"),
        ({"n": "three"}, "parameter 'n' must be int"),
        ({"n": 2.5}, "parameter 'n' must be int"),
        ({"fail": 1}, "parameter 'fail' must be bool"),
        ({"sizes": [1, "a"]}, "parameter 'sizes[1]' must be int"),
        ({"label": list(range(50_000))}, r"must be str .*\.\.\. \(\d+,\d+ characters\)$"),  # cut to one short line
    ],
)
def test_bad_parameters_are_refused_before_execution(project, override, message):
    with pytest.raises(RepcapError, match=message.replace("[", r"\[").replace("]", r"\]")) as err:
        runner.run("10_test", profile="smoke", overrides=override)
    if "unknown" in message:
        assert "valid parameters: n (int), scale (float), label (str), sizes (list), fail (bool)" in str(err.value)
    assert not (project / "book" / "generated" / "10_test.ipynb").exists()


def test_bad_profile_entry_is_refused(project):
    (project / "notebooks" / "params" / "quick.yaml").write_text("10_test:\n  scale: fast\n")
    with pytest.raises(RepcapError, match=r"quick.yaml \[10_test\]: parameter 'scale' must be float"):
        runner.run("10_test", profile="quick")
    with pytest.raises(RepcapError, match="unknown profile 'fast'"):
        runner.run("10_test", profile="fast")


def test_parse_override_reads_yaml_values():
    assert runner.parse_override("x=3") == ("x", 3)
    assert runner.parse_override("x=[64, 128]") == ("x", [64, 128])
    assert runner.parse_override("x=0.5") == ("x", 0.5)
    assert runner.parse_override("x=abc") == ("x", "abc")
    # exponent form without a dot is a number (YAML 1.1 would read a string)
    assert runner.parse_override("lr=1e-3") == ("lr", 1e-3)
    assert runner.parse_override("x=[-2E+5, 1e3]") == ("x", [-2e5, 1e3])
    assert runner.parse_override("x=1e") == ("x", "1e")
    with pytest.raises(RepcapError, match="name=value"):
        runner.parse_override("x")


def test_run_cache_parameters_and_failure_keep_previous_outputs(project):
    gen = project / "book" / "generated"
    logs: list[str] = []
    first = runner.run("10_test", profile="smoke", log=logs.append)
    assert first.status == "executed" and first.figures == ["fig-test-line"]
    side = json.loads((gen / "figures" / "fig-test-line.json").read_text())
    assert side["parameters"]["n"] == 4 and side["profile"] == "smoke"
    assert side["notebook"] == "notebooks/10_test.py"
    for ext in ("png", "svg", "pdf", "csv"):
        assert (gen / "figures" / f"fig-test-line.{ext}").stat().st_size > 0
    assert len((gen / "figures" / "fig-test-line.csv").read_text().splitlines()) == 1 + 4

    # Unchanged: a cache hit, nothing executed.
    again = runner.run("10_test", profile="smoke", log=logs.append)
    assert again.status == "cached" and "cache hit, nothing executed" in logs[-1]

    # A parameter change re-executes and is recorded in the sidecar.
    third = runner.run("10_test", profile="smoke", overrides={"n": 6})
    assert third.status == "executed"
    side = json.loads((gen / "figures" / "fig-test-line.json").read_text())
    assert side["parameters"]["n"] == 6
    good_nb = (gen / "10_test.ipynb").read_bytes()
    good_csv = (gen / "figures" / "fig-test-line.csv").read_bytes()

    # A raising cell: one clear error naming notebook and cell; earlier outputs intact.
    with pytest.raises(RepcapError) as err:
        runner.run("10_test", profile="smoke", overrides={"n": 9, "fail": True})
    msg = str(err.value)
    assert "notebooks/10_test.py: cell" in msg and "ValueError: the cell failed on purpose" in msg
    assert (gen / "10_test.ipynb").read_bytes() == good_nb
    assert (gen / "figures" / "fig-test-line.csv").read_bytes() == good_csv
    assert (gen / ".failed" / "10_test.ipynb").exists()

    # Editing the source invalidates the cache.
    src = project / "notebooks" / "10_test.py"
    src.write_text(src.read_text() + "\n# %%\nprint('edited')\n")
    assert runner.run("10_test", profile="smoke", overrides={"n": 6}).status == "executed"


def test_unknown_notebook_lists_chapters(project):
    with pytest.raises(RepcapError, match="chapters: 10_test"):
        runner.resolve_notebook("nope")


def test_parameters_cell_must_hold_literals(project):
    bad = project / "notebooks" / "11_bad.py"
    bad.write_text('# %% tags=["parameters"]\nimport os\n')
    with pytest.raises(RepcapError, match="only hold `name = literal`"):
        runner.notebook_parameters(bad)
    bad.write_text('# %% tags=["parameters"]\nx = os.getcwd()\n')
    with pytest.raises(RepcapError, match="'x' must be a literal"):
        runner.notebook_parameters(bad)


def test_cli_refuses_bad_parameter_with_one_line(project, capsys):
    from repcap.cli import main

    assert main(["run", "10_test", "--profile", "smoke", "-p", "nope=1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("repcap run: error: command line: unknown parameter 'nope'")
    assert main(["run", "10_test", "--list-params"]) == 0
    assert "scale = 0.5" in capsys.readouterr().out


def test_a_chapter_reading_a_reference_set_reruns_when_its_points_arrive(make_project, monkeypatch, tmp_path):
    """The chapter key sees the points of its ``reference_set`` in the cache: computing one more
    (as `repcap bundle compute` or `repcap bundle import` does) changes it; a chapter without a
    reference set keeps its key."""
    from repcap.results import bundle, runs

    src = NB.replace(
        "fail = False  # make a cell raise",
        'fail = False  # make a cell raise\nreference_set = "reference"  # a set\nreference_scale = "smoke"  # its scale',
    )
    root = make_project("10_test", src)
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    nb = root / "notebooks" / "10_test.py"
    params = runner.resolve_parameters(nb, "smoke", {})
    before = runner.cache_key(nb, "smoke", params)
    assert runner.cache_key(nb, "smoke", params) == before  # stable while nothing arrives
    ps = runs.point_set("reference", "smoke")
    runs.compute(ps, only=["yoder-annealed"], progress=False, log=lambda s: None)
    assert bundle.lookup("reference", "yoder-annealed", scale="smoke").found
    assert runner.cache_key(nb, "smoke", params) != before
    no_set = dict(params, reference_set="")
    assert runcache._reference_digest(no_set) is None
