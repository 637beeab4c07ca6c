"""``repcap stats`` and ``repcap models``: the JSON record against a float64 reference, the keys the
issue asks for, and one-line errors (exit 2)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from repcap.cli import main
from repcap.engines import laws


@pytest.fixture
def npy(tmp_path):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((400, 24)).astype(np.float32) + 0.05
    X[10] = 0
    p = tmp_path / "emb.npy"
    np.save(p, X)
    return p, X


def reference(X):
    X = X.astype(np.float64)
    U = X[np.linalg.norm(X, axis=1) > 0]
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    v = (U @ U.T)[np.triu_indices(len(U), 1)]
    return v


def run_json(capsys, *argv):
    assert main(["stats", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_keys_and_values(npy, capsys):
    p, X = npy
    rec = run_json(capsys, str(p))
    v = reference(X)
    for key in (
        "vocab_size",
        "d_model",
        "n_zero_rows",
        "mean",
        "std",
        "eps",
        "eps3",
        "mean_sq",
        "class",
        "tied",
        "capacity",
    ):
        assert key in rec
    assert (rec["vocab_size"], rec["d_model"], rec["n_zero_rows"]) == (400, 24, 1)
    assert rec["mean"] == pytest.approx(v.mean(), abs=1e-7) and rec["std"] == pytest.approx(v.std(), abs=1e-6)
    assert rec["eps"] == pytest.approx(v.mean() + 2 * v.std(), abs=2e-6)
    assert rec["eps3"] == pytest.approx(v.mean() + 3 * v.std(), abs=3e-6)
    assert rec["mean_sq"] == pytest.approx((v**2).mean(), abs=1e-7)
    assert rec["class"] == laws.classify(rec["eps"]) and rec["tied"] is None
    assert set(rec["capacity"]) == set(laws.PUBLISHED)
    assert rec["capacity"]["four"] == pytest.approx(laws.capacity(rec["eps"], 24, "four"), rel=1e-12)
    assert "max_abs" not in rec


def test_json_tiled(npy, capsys):
    p, X = npy
    rec = run_json(capsys, str(p), "--tiled", "--top-k", "3")
    v = reference(X)
    assert rec["max_abs"] == pytest.approx(np.abs(v).max(), abs=1e-6)
    assert set(rec["quantiles"]) >= {"0.5", "0.99"} and rec["quantile_error"] == pytest.approx(0.001)
    assert [t["cos"] for t in rec["top_pairs"]] == pytest.approx(np.sort(v)[::-1][:3], abs=1e-6)
    rec = run_json(capsys, str(p), "--sample", "200")
    assert rec["sampled"] and rec["rows_used"] == 200 and rec["sampling_error"]["mean"] > 0


def test_class_boundaries():
    # Guha 2026: class 1 if eps > 0.2, class 2 if eps < 0.1, none in between
    assert [laws.classify(e) for e in (0.41554, 0.2001, 0.2, 0.15, 0.1, 0.0999)] == [1, 1, None, None, None, 2]


def test_human_output(npy, capsys):
    p, _ = npy
    assert main(["stats", str(p), "--tiled"]) == 0
    out = capsys.readouterr().out
    assert "eps = mean + 2 std" in out and "max |cos|" in out


@pytest.mark.parametrize(
    "argv,msg",
    [
        (["stats", "no-such-model-xyz"], "unknown model source 'no-such-model-xyz'"),
        (["models", "install", "nope"], "unknown offline model 'nope'"),
        (["models", "install"], "give offline keys or --profile"),
    ],
)
def test_errors_are_one_line(argv, msg, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1


def test_head_of_npy_is_an_error(npy, capsys):
    p, _ = npy
    assert main(["stats", str(p), "--head"]) == 2
    assert "no separate head" in capsys.readouterr().err


def test_nan_row_is_an_error(tmp_path, capsys):
    X = np.ones((5, 3), dtype=np.float32)
    X[2, 0] = np.nan
    np.save(tmp_path / "n.npy", X)
    assert main(["stats", str(tmp_path / "n.npy")]) == 2
    assert "NaN or inf (rows 2)" in capsys.readouterr().err


def test_profile_models_read_from_params(tmp_path, monkeypatch):
    from repcap.cli.commands.models import profile_models

    nbs = tmp_path / "notebooks"
    (nbs / "params").mkdir(parents=True)
    (nbs / "02_embedding_eps.py").write_text('# %% tags=["parameters"]\nmodels = ["smollm2-135m"]  # default\n')
    (nbs / "09_other.py").write_text(
        '# %% tags=["parameters"]\nmodels = ["qwen2.5-coder-1.5b", "org/hub-model"]\nx = 1\n'
    )
    (nbs / "params" / "quick.yaml").write_text(
        "02_embedding_eps:\n  models: [gemma-3-270m, all-minilm-l6-v2]\n09_other: {x: 2}\n"
    )
    (nbs / "params" / "smoke.yaml").write_text("09_other: {models: []}\n")
    monkeypatch.setenv("REPCAP_ROOT", str(tmp_path))
    # the union over chapters, profile values over defaults, hub ids skipped
    assert profile_models("quick") == ["gemma-3-270m", "all-minilm-l6-v2", "qwen2.5-coder-1.5b"]
    assert profile_models("smoke") == ["smollm2-135m"]  # 02 falls back to the notebook's default


def test_models_lists_offline(capsys):
    assert main(["models", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["key"] for r in rows} == {
        "smollm2-135m",
        "gemma-3-270m",
        "qwen2.5-coder-0.5b",
        "qwen2.5-coder-1.5b",
        "all-minilm-l6-v2",
        "paraphrase-minilm-l3-v2",
        "all-mpnet-base-v2",
    }
    assert all("installed" in r for r in rows)


def test_scan_records_failures_and_goes_on(tmp_path, monkeypatch):
    from repcap.engines.survey import scan

    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    X = np.random.default_rng(1).standard_normal((50, 6)).astype(np.float32)
    np.save(tmp_path / "a.npy", X)
    bad = tmp_path / "bad.npy"
    np.save(bad, np.full((4, 3), np.nan, dtype=np.float32))
    cfgs = [dict(source="no-such-model-xyz"), dict(source=str(bad), label="nan"), dict(source=str(tmp_path / "a.npy"))]
    recs, fails = scan(cfgs, progress=False)
    assert [f["label"] for f in fails] == ["no-such-model-xyz", "nan"]
    assert "NaN or inf" in fails[1]["error"]
    assert len(recs) == 1 and recs[0]["vocab_size"] == 50 and recs[0]["label"] == str(tmp_path / "a.npy")
    np.save(bad, X)  # fixed: failures were not cached, so the next scan computes it
    recs, fails = scan(cfgs[1:], progress=False)
    assert not fails and recs[0]["label"] == "nan"


def test_statistics_flags_default_to_tiled_config():
    """One set of defaults: the stats flags and survey.describe take TiledConfig's (top_k was 10 here);
    describe takes the config object, not its fields one by one."""
    import dataclasses
    import inspect

    from repcap.cli.app import build_parser
    from repcap.engines.cosine import TiledConfig
    from repcap.engines.survey import describe

    args = build_parser().parse_args(["stats", "some-source"])
    params = inspect.signature(describe).parameters
    assert params["cfg"].default is None and not {f.name for f in dataclasses.fields(TiledConfig)} & set(params)
    for f in dataclasses.fields(TiledConfig):
        assert getattr(args, f.name) == f.default, f.name
    args = build_parser().parse_args(["stats", "x", "--top-k", "3", "--quantiles", "0.5", "0.75", "--bins", "100"])
    assert (args.top_k, args.quantiles, args.bins) == (3, [0.5, 0.75], 100)


def test_quantile_and_threshold_flags_reach_the_record(npy, capsys):
    p, X = npy
    rec = run_json(capsys, str(p), "--tiled", "--quantiles", "0.25", "0.75", "--thresholds", "0.05")
    v = reference(X)
    assert set(rec["quantiles"]) == {"0.25", "0.75"} and set(rec["exceed"]) == {"0.05"}
    assert rec["quantiles"]["0.75"] == pytest.approx(np.quantile(v, 0.75), abs=1e-3)  # one bin of 0.001
    assert rec["exceed"]["0.05"] == pytest.approx((v > 0.05).mean(), abs=2e-3)


def simplex(d: int) -> np.ndarray:
    """k = d + 1 unit vectors in R^d with every pairwise cosine -1/d (a regular simplex)."""
    k = d + 1
    C = np.eye(k) - 1.0 / k  # centred standard basis of R^k: rank d
    U, S, _ = np.linalg.svd(C)
    X = U[:, :d] * np.sqrt(S[:d])  # rows with X X^T = C (up to the common norm)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_negative_eps_means_the_laws_do_not_apply(tmp_path, capsys):
    d = 8
    X = simplex(d)
    c = (X @ X.T)[np.triu_indices(d + 1, 1)]
    assert np.allclose(c, -1.0 / d)  # the geometry the record must describe
    np.save(tmp_path / "simplex.npy", X.astype(np.float32))
    rec = run_json(capsys, str(tmp_path / "simplex.npy"), "--tiled")
    assert rec["mean"] == pytest.approx(-1.0 / d, abs=1e-6) and rec["std"] == pytest.approx(0.0, abs=1e-3)
    assert rec["eps"] < 0 and rec["eps"] == pytest.approx(rec["mean"] + 2 * rec["std"])
    assert all(v is None for v in rec["capacity"].values()) and all(v is None for v in rec["log10_capacity"].values())
    assert all(v is None for v in rec["capacity_eps3"].values())
    assert "do not apply" in rec["capacity_note"] and rec["max_abs"] == pytest.approx(1.0 / d, abs=1e-6)
    assert main(["stats", str(tmp_path / "simplex.npy")]) == 0
    assert "capacity: none (eps = " in capsys.readouterr().out
    # an ordinary matrix says nothing of the kind
    rng = np.random.default_rng(0)
    np.save(tmp_path / "g.npy", rng.standard_normal((50, d)).astype(np.float32))
    assert run_json(capsys, str(tmp_path / "g.npy"))["capacity_note"] is None


def test_a_top_k_beyond_the_pairs_lists_the_pairs_there_are_as_strict_json(tmp_path):
    """--top-k larger than the pairs of a small sample: only real pairs, and JSON without -inf."""
    import json as _json
    import subprocess
    import sys

    import numpy as np

    p = tmp_path / "x.npy"
    np.save(p, np.random.default_rng(0).standard_normal((40, 8)).astype(np.float32))
    out = subprocess.run(
        [sys.executable, "-m", "repcap", "stats", str(p), "--tiled", "--sample", "5", "--top-k", "50", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    rec = _json.loads(out.stdout, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert len(rec["top_pairs"]) == 5 * 4 // 2
    assert all(-1.0 <= q["cos"] <= 1.0 for q in rec["top_pairs"])


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--sample", "10", "--seed", str(2**64)], "seed=18446744073709551616 must be an integer in 0..2**63-1"),
        (["--seed", "-1"], "seed=-1 must be an integer in 0..2**63-1"),
        (["--top-k", "-1"], "top_k=-1 must be an integer >= 0"),
        (["--sample", "1"], "sample=1 must be an integer >= 2"),
        (["--bins", "7"], "bins=7: use an even number >= 2"),
        (["--quantiles", "0.5", "2"], "quantiles[1]=2.0 must be a number in [0, 1]"),
        (["--rows", "0"], "--rows must be at least 2"),
    ],
)
def test_out_of_range_settings_are_one_line(tmp_path, capsys, flags, message):
    p = tmp_path / "m.npy"
    np.save(p, np.random.default_rng(0).standard_normal((20, 4)).astype(np.float32))
    assert main(["stats", str(p), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
