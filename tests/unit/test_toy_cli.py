"""`repcap toy`: JSON keys and values, and one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from repcap import cli, toy


def test_toy_json_matches_library(capsys):
    argv = ["toy", "--n", "20", "--m", "4", "--alpha", "1.0", "--gamma", "-1", "--steps", "40",
            "--batch", "32", "--seed", "5", "--device", "cpu", "--json", "--no-progress"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"loss", "phi_half", "mean_sq_overlap", "seconds"} <= set(out)
    ref = toy.train([toy.ModelSpec(alpha=1.0, gamma=-1.0, seed=5)],
                    toy.TrainConfig(n=20, m=4, steps=40, batch=32, device="cpu")).measurements()[0]
    assert out["loss"] == pytest.approx(ref["loss"], rel=1e-6)
    assert out["phi_half"] == pytest.approx(ref["phi_half"])
    assert out["mean_sq_overlap"] == pytest.approx(ref["mean_sq_overlap"], rel=1e-6)
    assert out["config"]["m"] == 4


def test_toy_table_output(capsys):
    assert cli.main(["toy", "--n", "10", "--m", "3", "--alpha", "0", "--gamma", "0.5", "--steps", "5",
                     "--batch", "8", "--device", "cpu", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "phi_half" in out and "mean_sq_overlap" in out


@pytest.mark.parametrize("args, needle", [
    (["--n", "0", "--m", "3", "--alpha", "1", "--gamma", "0"], "--n"),
    (["--n", "10", "--m", "3", "--alpha", "-2", "--gamma", "0"], "alpha"),
    (["--n", "10", "--m", "3", "--alpha", "1", "--gamma", "0", "--lr", "0"], "lr"),
    (["--n", "10", "--m", "3", "--alpha", "1", "--gamma", "0", "--device", "tpu9"], "device"),
])
def test_toy_bad_input_is_one_line_exit_2(capsys, args, needle):
    assert cli.main(["toy", *args, "--steps", "2", "--batch", "4", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("repcap toy: error:") and needle in err and "\n" not in err
