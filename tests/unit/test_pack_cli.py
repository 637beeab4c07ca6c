"""``repcap pack``: JSON keys, values against the library, and one-line errors for bad input."""

import json

import pytest

from repcap import packing
from repcap.cli import main


def test_pack_json(capsys):
    rc = main(["pack", "--k", "40", "--d", "5", "--loss", "exp", "--steps", "30", "--lr", "0.02",
               "--seed", "3", "--json", "--no-progress"])
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


@pytest.mark.parametrize("args,match", [
    (["--k", "1", "--d", "4"], "k=1"),
    (["--k", "10", "--d", "0"], "d=0"),
    (["--k", "10", "--d", "4", "--loss", "cosine"], "unknown loss 'cosine'"),
    (["--k", "10", "--d", "4", "--lr", "nan"], "--lr nan"),
    (["--k", "10", "--d", "4", "--lr", "inf"], "--lr inf"),
])
def test_pack_bad_input_one_line(capsys, args, match):
    assert main(["pack", *args, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and err.count("\n") == 0 and err.startswith("repcap pack: error:")
