"""``repcap pack``: JSON keys, values against the library, one-line errors for bad input, strict
JSON, and a question before an hours-long run."""

import json

import pytest

from repcap import RepcapError
from repcap.cli import main
from repcap.engines import packing


def test_pack_json(capsys):
    rc = main(
        [
            "pack",
            "--k",
            "40",
            "--d",
            "5",
            "--loss",
            "exp",
            "--steps",
            "30",
            "--lr",
            "0.02",
            "--seed",
            "3",
            "--json",
            "--no-progress",
        ]
    )
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("eps_star", "max_angle_deg", "mean_abs", "loss_final", "seconds"):
        assert key in out
    ref = packing.optimise(packing.PackConfig(k=40, d=5, loss="exp", steps=30, lr=0.02, seed=3), progress=False)
    assert out["eps_star"] == pytest.approx(float(ref.eps_star[0]), rel=1e-5)
    assert out["loss_final"] == pytest.approx(float(ref.loss_final[0]), rel=1e-5)


def test_pack_defaults_are_guhas(capsys):
    assert main(["pack", "--k", "20", "--d", "4", "--steps", "1", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["loss"] == "power" and out["lr"] == 0.005 and out["p"] == 20


@pytest.mark.parametrize(
    "args,match",
    [
        (["--k", "1", "--d", "4"], "k=1"),
        (["--k", "10", "--d", "0"], "d=0"),
        (["--k", "10", "--d", "4", "--loss", "cosine"], "unknown loss 'cosine'"),
        (["--k", "10", "--d", "4", "--lr", "nan"], "--lr nan"),
        (["--k", "10", "--d", "4", "--lr", "inf"], "--lr inf"),
    ],
)
def test_pack_bad_input_one_line(capsys, args, match):
    assert main(["pack", *args, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and err.count("\n") == 0 and err.startswith("repcap pack: error:")


@pytest.mark.parametrize(
    "args,match",
    [
        (["--k", "50", "--d", "1", "--loss", "exp", "--beta", "80"], "lower beta to at most 79.07"),
        (["--k", "10", "--d", "4", "--lr", "1e300"], "--lr 1e+300"),
        (["--k", "10", "--d", "4", "--seed", str(2**64)], "0..2**63-1"),
        (["--k", "10", "--d", "4", "--threads", "100000"], "--threads 100000"),
        (["--k", "10", "--d", "4", "--n-bins", "0"], "--n-bins 0"),
    ],
)
def test_pack_bounds_one_line(capsys, args, match):
    assert main(["pack", *args, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and err.count("\n") == 0 and err.startswith("repcap pack: error:")


def test_pack_refuses_an_hours_long_job_without_yes(capsys):
    # stdin is not a terminal under pytest: refuse, with the estimate and how to go on
    assert main(["pack", "--k", "3000000", "--d", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "years" in err and "--yes" in err and "flops" in err


def test_pack_asks_on_a_terminal_and_yes_skips_the_question(monkeypatch, capsys):
    import io

    from repcap.cli.commands import pack
    from repcap.engines.packing import cost

    class Tty(io.StringIO):
        def isatty(self):
            return True

    cfg = packing.PackConfig(k=20, d=3, steps=1)
    monkeypatch.setattr(cost, "CONFIRM_SECONDS", 0.0)
    with pytest.raises(RepcapError, match="not started"):
        pack.confirm_cost(cfg, False, stdin=Tty("n\n"), stderr=io.StringIO())
    asked = io.StringIO()
    pack.confirm_cost(cfg, False, stdin=Tty("y\n"), stderr=asked)
    assert "Start it? [y/N]" in asked.getvalue()
    assert main(["pack", "--k", "20", "--d", "3", "--steps", "1", "--yes", "--json", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "starting (--yes)" in captured.err and json.loads(captured.out)["k"] == 20


def test_pack_json_is_strict(monkeypatch, capsys):
    real = packing.optimise

    def nan_run(cfg, **kw):
        res = real(cfg, **kw)
        res.mean_sq[:] = float("nan")
        res.loss_final[:] = float("inf")
        res.n_above[:] = float("nan")
        return res

    monkeypatch.setattr(packing, "optimise", nan_run)
    assert main(["pack", "--k", "20", "--d", "3", "--steps", "2", "--json", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "NaN" not in text and "Infinity" not in text
    out = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert out["mean_sq"] is None and out["loss_final"] is None and set(out["n_above"].values()) == {None}
    assert out["eps_star"] > 0
