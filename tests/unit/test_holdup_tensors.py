"""Any-tensor access (issue 20, item 8): an ONNX external file that is a folder, tensor names with
control bytes, --head with --tensor, plain F64 GGUF tensors, a NaN row named by its tensor, a
one-pair tensor's sigma (0 exactly, checked against float64), and the environment checks."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
import torch
from _models import write_gguf_tensors

from repcap import RepcapError, cli
from repcap.cli.commands.stats import printable
from repcap.engines.cosine.moments import moments
from repcap.models.embeddings import load


def _onnx_ext(tmp_path, location: str):
    import onnx
    from onnx import TensorProto, helper

    t = TensorProto(name="emb", data_type=TensorProto.FLOAT, dims=[4, 4])
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", "64")):
        e = t.external_data.add()
        e.key, e.value = k, v
    path = tmp_path / "ext.onnx"
    onnx.save(helper.make_model(helper.make_graph([], "g", [], [], [t])), str(path))
    return path


def test_an_onnx_external_file_that_is_a_folder_is_one_line(tmp_path):
    (tmp_path / "sub").mkdir()
    with pytest.raises(RepcapError, match=r"sub: cannot read the external data of 'emb' \(Is a directory\)"):
        load(_onnx_ext(tmp_path, "sub"))


def test_tensor_names_with_control_bytes_are_escaped(tmp_path, capsys):
    name = "w\x1b]0;pwned\x07\x1b[2J\u202eevil"
    p = write_gguf_tensors(tmp_path / "m.gguf", {name: np.ones((4, 8), np.float32)})
    assert cli.main(["stats", str(p), "--list-tensors"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "w\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil" in out
    assert printable("a\\b\nc") == "a\\\\b\\x0ac" and printable("é 漢") == "é 漢"


def test_head_with_tensor_is_refused(tmp_path, capsys):
    p = write_gguf_tensors(tmp_path / "m.gguf", {"token_embd.weight": np.eye(8, dtype=np.float32)})
    assert cli.main(["stats", str(p), "--head", "--tensor", "token_embd.weight"]) == 2
    assert "--head and --tensor exclude each other" in capsys.readouterr().err


def test_a_plain_f64_gguf_tensor_is_read(tmp_path):
    import gguf

    x = np.random.default_rng(1).standard_normal((16, 8))
    w = gguf.GGUFWriter(str(tmp_path / "f64.gguf"), "llama")
    w.add_tensor("token_embd.weight", x.astype(np.float64))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    e = load(tmp_path / "f64.gguf")
    assert e.quant == "F64"
    np.testing.assert_allclose(e.matrix.numpy(), x, rtol=1e-6)  # to float32 rounding


def test_a_nan_row_is_named_by_its_tensor(tmp_path):
    from repcap.engines.layers.tensors import matrices

    rng = np.random.default_rng(2)
    bad = rng.standard_normal((8, 8)).astype(np.float32)
    bad[3, 1] = np.nan
    p = write_gguf_tensors(
        tmp_path / "m.gguf",
        {"token_embd.weight": rng.standard_normal((40, 8)).astype(np.float32), "blk.0.attn_output.weight": bad},
    )
    with pytest.raises(RepcapError, match=r"tensor 'blk.0.attn_output.weight' \(.*layer 0\): 1 row\(s\) hold NaN"):
        list(matrices(str(p), device="cpu"))


@pytest.mark.parametrize("n", [2, 3, 50])
def test_few_row_moments_agree_with_float64(tmp_path, n):
    from repcap.engines.survey import describe

    rng = np.random.default_rng(n)
    x = (rng.standard_normal((n, 24)) * rng.uniform(0.1, 1e3, (n, 1))).astype(np.float32)
    x[0] *= 0  # a zero row: dropped, as by the Gram identity
    rec = describe(
        str(write_gguf_tensors(tmp_path / "m.gguf", {"token_embd.weight": np.vstack([x, x[:1] + 1])})),
        device="cpu",
        progress=False,
    )
    u = np.vstack([x, x[:1] + 1]).astype(np.float64)[1:]
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    c = (u @ u.T)[~np.eye(len(u), dtype=bool)]
    assert rec["n_zero_rows"] == 1
    assert rec["mean"] == pytest.approx(c.mean(), abs=1e-12)
    assert rec["std"] == pytest.approx(c.std(), abs=1e-12)  # one pair: exactly 0, not 4e-4
    if n == 2:
        assert rec["std"] == 0.0 and rec["eps"] == pytest.approx(c[0], abs=1e-12)


def test_large_matrices_keep_the_gram_identity():
    from repcap.engines.cosine.moments import EXACT_MAX_ROWS, dense_moments

    x = torch.randn(EXACT_MAX_ROWS + 10, 8, generator=torch.Generator().manual_seed(0))
    m = moments(x, device="cpu")
    assert m != dense_moments(x)  # float32 Gram sums, not the dense float64 matrix
    u = x.double() / x.double().norm(dim=1, keepdim=True)
    c = (u @ u.T)[~torch.eye(len(u), dtype=torch.bool)]
    assert m.std == pytest.approx(float(c.std(unbiased=False)), rel=1e-6)
    x[5:] = 0  # mostly zero rows: the few non-zero ones take the dense path
    m = moments(x, device="cpu")
    assert m == dense_moments(x) and (m.n_rows, m.n_zero_rows) == (5, EXACT_MAX_ROWS + 5)


@pytest.mark.parametrize("value", ["abc", "nan", "inf", "-5"])
def test_a_bad_memory_budget_is_one_line(monkeypatch, capsys, tmp_path, value):
    monkeypatch.setenv("REPCAP_MEMORY_BUDGET", value)
    p = write_gguf_tensors(tmp_path / "m.gguf", {"token_embd.weight": np.eye(8, dtype=np.float32)})
    assert cli.main(["stats", str(p)]) == 2
    err = capsys.readouterr().err
    assert f"REPCAP_MEMORY_BUDGET={value!r} is not a number of bytes" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("cmd", [["stats", "x.gguf"], ["pack", "--k", "10", "--d", "4"]])
def test_device_meta_is_refused(capsys, cmd):
    assert cli.main([*cmd, "--device", "meta"]) == 2
    assert "--device 'meta': use auto, cpu or cuda[:N]" in capsys.readouterr().err


def test_bins_beyond_the_memory_budget_are_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("REPCAP_MEMORY_BUDGET", str(1 << 30))
    p = write_gguf_tensors(tmp_path / "m.gguf", {"token_embd.weight": np.eye(8, dtype=np.float32)})
    assert cli.main(["stats", str(p), "--tiled", "--bins", "400000000", "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert "--bins 400000000: the histograms need about 11.9 GiB, more than the memory budget (1.0 GiB" in err


def test_dask_shutdown_cancellations_are_dropped_from_the_log(caplog):
    import asyncio

    from repcap.sweep.dask import _DROP, quiet_cancellations

    quiet_cancellations()
    lg = logging.getLogger("distributed.client")
    try:
        raise asyncio.CancelledError
    except asyncio.CancelledError:
        rec = lg.makeRecord(
            "distributed.client", logging.ERROR, __file__, 1, "reconnect failed", (), __import__("sys").exc_info()
        )
    assert not _DROP.filter(rec)
    keep = lg.makeRecord("distributed.client", logging.ERROR, __file__, 1, "a real error", (), None)
    assert _DROP.filter(keep)
    assert _DROP in logging.getLogger("distributed").filters and math.isfinite(1.0)
