"""The runner under awkward conditions: two runs of one chapter at once, a damaged stamp, a
profile with a YAML typo, a killed kernel, a full disk, a deleted figure file, a notebook with a
chapter's stem from elsewhere, and parameter values too large to pass."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from repcap import RepcapError
from repcap.book import runner

NB = textwrap.dedent("""\
    # %% tags=["parameters"]
    n = 3  # points
    delay = 0.0  # seconds to wait before saving the figure
    die = False  # kill the kernel

    # %%
    import os
    import signal
    import time

    import matplotlib.pyplot as plt
    import pandas as pd
    from repcap.book import figures

    # %%
    if die:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(delay)
    fig, ax = plt.subplots()
    ax.plot(range(n))
    figures.save("fig-hard-line", fig, pd.DataFrame({"i": range(n)}), {"caption": f"{n} points."})
    """)


@pytest.fixture()
def project(make_project):
    return make_project("20_hard", NB)


def _rows(project) -> int:
    return len((project / "book" / "generated" / "figures" / "fig-hard-line.csv").read_text().splitlines()) - 1


def test_two_runs_at_once_leave_one_consistent_chapter(project):
    env = dict(os.environ, REPCAP_ROOT=str(project))
    cmd = [sys.executable, "-m", "repcap", "run", "20_hard", "--profile", "smoke", "--force"]
    first = subprocess.Popen(
        cmd + ["-p", "n=11", "-p", "delay=4"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    time.sleep(2.0)
    second = subprocess.run(cmd + ["-p", "n=22"], env=env, capture_output=True, text=True, timeout=300)
    out1 = first.communicate(timeout=300)[0]
    assert first.returncode == 0, out1
    assert second.returncode == 0, second.stderr
    assert "waiting for pid" in second.stdout  # the second run says who holds the chapter
    stamp = json.loads((project / "book" / "generated" / ".runs" / "20_hard.json").read_text())
    side = json.loads((project / "book" / "generated" / "figures" / "fig-hard-line.json").read_text())
    assert stamp["params"]["n"] == side["parameters"]["n"] == _rows(project) == 22  # all from the last commit
    # the first run's parameters are not vouched for by the cache
    res = runner.run("20_hard", profile="smoke", overrides={"n": 11, "delay": 4.0}, log=lambda s: None)
    assert res.status == "executed" and _rows(project) == 11
    assert not list((project / "book" / "generated" / ".staging").glob("*"))  # no staging left behind


def test_a_damaged_stamp_or_a_deleted_figure_file_means_run_again(project):
    assert runner.run("20_hard", profile="smoke", log=lambda s: None).status == "executed"
    stamp = project / "book" / "generated" / ".runs" / "20_hard.json"
    stamp.write_text(stamp.read_text()[:17])  # truncated
    assert runner.run("20_hard", profile="smoke", log=lambda s: None).status == "executed"
    assert runner.run("20_hard", profile="smoke", log=lambda s: None).status == "cached"
    (project / "book" / "generated" / "figures" / "fig-hard-line.pdf").unlink()
    assert runner.run("20_hard", profile="smoke", log=lambda s: None).status == "executed"


def test_a_profile_with_a_yaml_typo_names_its_file_and_line(project):
    (project / "notebooks" / "params" / "smoke.yaml").write_text("20_hard:\n  n: 4\n  delay: [0\n")
    with pytest.raises(RepcapError, match=r"smoke\.yaml:\d+: not valid YAML"):
        runner.run("20_hard", profile="smoke", log=lambda s: None)


def test_a_killed_kernel_is_one_line_and_earlier_outputs_stay(project):
    runner.run("20_hard", profile="smoke", overrides={"n": 5}, log=lambda s: None)
    before = (project / "book" / "generated" / "figures" / "fig-hard-line.csv").read_bytes()
    with pytest.raises(RepcapError) as err:
        runner.run("20_hard", profile="smoke", overrides={"n": 7, "die": True}, log=lambda s: None)
    assert "notebooks/20_hard.py: execution stopped with DeadKernelError (the kernel died" in str(err.value)
    assert (project / "book" / "generated" / "figures" / "fig-hard-line.csv").read_bytes() == before


def test_a_full_disk_at_commit_is_one_line_and_earlier_outputs_stay(project, monkeypatch):
    runner.run("20_hard", profile="smoke", overrides={"n": 5}, log=lambda s: None)
    gen = project / "book" / "generated"
    before = (gen / "20_hard.ipynb").read_bytes()
    real = os.replace

    def full(src, dst):
        if str(dst).endswith(".ipynb"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(runner.os, "replace", full)
    with pytest.raises(RepcapError, match="cannot commit the run's outputs \\(the disk is full\\)"):
        runner.run("20_hard", profile="smoke", overrides={"n": 8}, log=lambda s: None)
    monkeypatch.setattr(runner.os, "replace", real)
    assert (gen / "20_hard.ipynb").read_bytes() == before


def test_a_notebook_from_elsewhere_never_replaces_a_chapter(project, tmp_path):
    runner.run("20_hard", profile="smoke", overrides={"n": 5}, log=lambda s: None)
    other = tmp_path / "elsewhere" / "20_hard.py"
    other.parent.mkdir()
    other.write_text(NB)  # the same stem and the same figure id as the chapter
    res = runner.run(str(other), profile="smoke", overrides={"n": 9}, log=lambda s: None)
    assert res.output.name.startswith("ext-") and res.output.name.endswith("-20_hard.ipynb")
    ext = project / "book" / "generated" / res.output.stem / "figures" / "fig-hard-line.csv"
    assert len(ext.read_text().splitlines()) - 1 == 9  # its figure went to a folder of its own
    stamp = json.loads((project / "book" / "generated" / ".runs" / "20_hard.json").read_text())
    assert stamp["figures"] == ["fig-hard-line"] and _rows(project) == 5
    # the chapter's cache check still vouches only for the chapter's own files
    again = runner.run("20_hard", profile="smoke", overrides={"n": 5}, log=lambda s: None)
    assert again.status == "cached" and _rows(project) == 5
    side = json.loads((project / "book" / "generated" / "figures" / "fig-hard-line.json").read_text())
    assert side["parameters"]["n"] == 5


def _alias_bomb(levels: int = 8) -> str:
    """A YAML value of 9**levels items written in a few hundred characters (aliases)."""
    parts = ["&l0 [" + ", ".join(["x"] * 9) + "]"]
    parts += [f"&l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "[" + ", ".join(parts) + "]"


def test_parameter_values_are_bounded_and_travel_in_a_file(project):
    with pytest.raises(RepcapError, match="holds more than 100,000 values; refused"):
        runner.parse_override("n=" + _alias_bomb(8))
    assert len(runner.parse_override("n=" + _alias_bomb(2))[1]) == 2  # small: accepted
    # a long list value works: it is passed to the kernel in a file, not in the environment
    (project / "notebooks" / "21_big.py").write_text(
        textwrap.dedent("""\
        # %% tags=["parameters"]
        xs = [0]  # many numbers

        # %%
        assert len(xs) == 40000
        """)
    )
    res = runner.run("21_big", profile="smoke", overrides={"xs": list(range(40000))}, log=lambda s: None)
    assert res.status == "executed"


def test_sigterm_mid_run_is_one_line_and_leaves_nothing_half_done(project):
    """`kill PID` (what a scheduler or `timeout` sends) unwinds like Ctrl-C: exit 143, one line, no
    staging folder, earlier outputs intact, and the chapter's lock released for the next run."""
    runner.run("20_hard", profile="smoke", overrides={"n": 5}, log=lambda s: None)
    env = dict(os.environ, REPCAP_ROOT=str(project))
    cmd = [sys.executable, "-m", "repcap", "run", "20_hard", "--profile", "smoke", "-p", "n=7", "-p", "delay=30"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    staging = project / "book" / "generated" / ".staging"
    deadline = time.time() + 120
    while time.time() < deadline and not list(staging.glob("20_hard-*")):
        time.sleep(0.2)
    time.sleep(3.0)  # the kernel is up and sleeping in the chapter's cell
    proc.terminate()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "repcap run: terminated; finished work is kept" in err and "Traceback" not in err
    assert not list(staging.glob("*"))
    assert _rows(project) == 5
    res = runner.run("20_hard", profile="smoke", overrides={"n": 5}, log=lambda s: None)
    assert res.status == "cached"


def test_a_notebook_name_too_long_for_the_file_system_is_one_line(project, tmp_path):
    with pytest.raises(RepcapError, match="File name too long"):
        runner.run(str(tmp_path / ("a" * 300 + ".py")), profile="smoke", log=lambda s: None)
