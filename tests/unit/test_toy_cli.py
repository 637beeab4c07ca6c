"""`repcap toy`: JSON keys and values, and one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from repcap.cli import app as cli
from repcap.engines import toy


def test_toy_json_matches_library(capsys):
    argv = [
        "toy",
        "--n",
        "20",
        "--m",
        "4",
        "--alpha",
        "1.0",
        "--gamma",
        "-1",
        "--steps",
        "40",
        "--batch",
        "32",
        "--seed",
        "5",
        "--device",
        "cpu",
        "--json",
        "--no-progress",
    ]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"loss", "phi_half", "mean_sq_overlap", "seconds"} <= set(out)
    ref = toy.train(
        [toy.ModelSpec(alpha=1.0, gamma=-1.0, seed=5)], toy.TrainConfig(n=20, m=4, steps=40, batch=32, device="cpu")
    ).measurements()[0]
    assert out["loss"] == pytest.approx(ref["loss"], rel=1e-6)
    assert out["phi_half"] == pytest.approx(ref["phi_half"])
    assert out["mean_sq_overlap"] == pytest.approx(ref["mean_sq_overlap"], rel=1e-6)
    assert out["config"]["m"] == 4


def test_toy_table_output(capsys):
    assert (
        cli.main(
            [
                "toy",
                "--n",
                "10",
                "--m",
                "3",
                "--alpha",
                "0",
                "--gamma",
                "0.5",
                "--steps",
                "5",
                "--batch",
                "8",
                "--device",
                "cpu",
                "--no-progress",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "phi_half" in out and "mean_sq_overlap" in out


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--n", "0", "--m", "3", "--alpha", "1", "--gamma", "0"], "--n"),
        (["--n", "10", "--m", "3", "--alpha", "-2", "--gamma", "0"], "alpha"),
        (["--n", "10", "--m", "3", "--alpha", "1", "--gamma", "0", "--lr", "0"], "lr"),
        (["--n", "10", "--m", "3", "--alpha", "1", "--gamma", "0", "--device", "tpu9"], "device"),
        (["--n", "10", "--m", "3", "--alpha", "1", "--gamma", "0", "--seed", "-1"], "--seed"),
        (["--n", "10", "--m", "3", "--alpha", "1", "--gamma", "0", "--warmup-fraction", "2"], "--warmup-fraction"),
        (["--n", "10", "--m", "3", "--alpha", "1", "--gamma", "0", "--bias-lr", "0"], "--bias-lr"),
    ],
)
def test_toy_bad_input_is_one_line_exit_2(capsys, args, needle):
    assert cli.main(["toy", *args, "--steps", "2", "--batch", "4", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("repcap toy: error:") and needle in err and "\n" not in err


def _toy_parser():
    import argparse

    from repcap.cli.commands import toy as toy_command

    ap = argparse.ArgumentParser(prog="repcap")
    toy_command.register(ap.add_subparsers(dest="command"))
    return ap


def test_cli_defaults_are_the_dataclasses_defaults():
    import dataclasses

    args = vars(_toy_parser().parse_args(["toy", "--n", "5", "--m", "2", "--alpha", "1", "--gamma", "0"]))
    required = {"n", "m", "alpha", "gamma"}
    seen = set()
    for cls in (toy.TrainConfig, toy.ModelSpec):
        for f in dataclasses.fields(cls):
            if f.name in required or not f.metadata.get("cli", True) or f.name in seen:
                continue
            seen.add(f.name)
            assert args[f.name] == f.default, f.name
    assert args["steps"] == 20000  # one default, the paper's
    assert {"lr", "bias_lr", "lr_rule", "warmup", "warmup_fraction", "loss_window", "device"} <= seen
    assert "cpu_chunk_elems" not in args


def test_toy_negative_gamma_paper_rates_and_strict_json(capsys, monkeypatch):
    argv = [
        "toy",
        "--n",
        "16",
        "--m",
        "4",
        "--alpha",
        "1",
        "--gamma=-1e-3",
        "--steps",
        "20",
        "--batch",
        "8",
        "--lr-rule",
        "liu-exp17",
        "--warmup-fraction",
        "0.05",
        "--bias-lr",
        "0.3",
        "--loss-window",
        "5",
        "--device",
        "cpu",
        "--json",
        "--no-progress",
    ]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"]["gamma"] == -1e-3 and out["config"]["lr_rule"] == "liu-exp17"
    assert out["lr"] == pytest.approx(0.02 * 2**0.25) and out["bias_lr"] == 0.3
    assert out["warmup"] == 1 and out["loss_window"] == 5
    # an undefined measurement is null, never NaN (strict JSON)
    real = toy.TrainResult.measurements

    def with_nan(self, keep_norms=False):
        return [{**d, "mean_sq_overlap_represented": float("nan")} for d in real(self, keep_norms)]

    monkeypatch.setattr(toy.TrainResult, "measurements", with_nan)
    assert cli.main(argv) == 0
    text = capsys.readouterr().out

    def refuse(name):
        raise AssertionError(f"non-standard JSON constant {name}")

    assert json.loads(text, parse_constant=refuse)["mean_sq_overlap_represented"] is None


@pytest.mark.parametrize("gamma", [["--gamma=-1e-3"], ["--gamma", "-1e-3"]])
def test_toy_negative_gamma_in_exponent_form(capsys, gamma):
    argv = [
        "toy",
        "--n",
        "8",
        "--m",
        "2",
        "--alpha",
        "1",
        *gamma,
        "--steps",
        "2",
        "--batch",
        "4",
        "--device",
        "cpu",
        "--json",
        "--no-progress",
    ]
    assert cli.main(argv) == 0
    assert json.loads(capsys.readouterr().out)["config"]["gamma"] == -1e-3


def test_a_model_larger_than_the_machine_is_one_line():
    """`toy --n 1e12` (issue: hold up, round 2): refused by its memory, before any allocation."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "repcap", "toy", "--n", "1000000000000", "--m", "2", "--alpha", "1", "--gamma", "-1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and "GiB, more than this machine's" in out.stderr
