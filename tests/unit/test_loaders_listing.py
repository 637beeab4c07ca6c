"""Tensor listings: every reader's ``list_tensors`` (name, shape in (V, d) order, storage type) on
small files built here -- safetensors (safetensors.torch.save_file), GGUF (gguf.GGUFWriter), ONNX
(onnx.helper), npy -- through the same hostile-file checks as reading; the resolver's listing of a
folder, a sharded folder and a hub model; ``repcap stats --list-tensors`` and ``--tensor NAME``."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from _models import save_tiny, write_gguf, write_onnx

from repcap import RepcapError
from repcap.cli import main
from repcap.models.embeddings import list_tensors, load
from repcap.models.matrix import TensorInfo


@pytest.fixture
def st(tmp_path):
    from safetensors.torch import save_file

    t = {
        "model.embed_tokens.weight": torch.randn(12, 8),
        "lm_head.weight": torch.randn(12, 8).half(),
        "model.norm.weight": torch.ones(8, dtype=torch.bfloat16),
        "steps": torch.tensor([3], dtype=torch.int64),
    }
    p = tmp_path / "m.safetensors"
    save_file(t, str(p))
    return p, t


def test_safetensors_listing(st):
    p, _t = st
    got = {i.name: i for i in list_tensors(p)}
    assert got == {
        "model.embed_tokens.weight": TensorInfo("model.embed_tokens.weight", (12, 8), "F32"),
        "lm_head.weight": TensorInfo("lm_head.weight", (12, 8), "F16"),
        "model.norm.weight": TensorInfo("model.norm.weight", (8,), "BF16"),
        "steps": TensorInfo("steps", (1,), "I64"),
    }


def test_gguf_listing_in_v_d_order(tmp_path):
    rng = np.random.default_rng(0)
    p = tmp_path / "m.gguf"
    write_gguf(
        p,
        rng.standard_normal((20, 64)).astype(np.float32),
        "Q8_0",
        head=rng.standard_normal((20, 64)).astype(np.float32),
    )
    assert list_tensors(p) == [
        TensorInfo("token_embd.weight", (20, 64), "Q8_0"),
        TensorInfo("output.weight", (20, 64), "Q8_0"),
    ]
    assert load(p).matrix.shape == (20, 64)  # the listed order is the order load returns


def test_onnx_listing(tmp_path):
    import onnx
    from onnx import helper, numpy_helper

    p = tmp_path / "m.onnx"
    write_onnx(p, np.zeros((10, 4), dtype=np.float32))
    m = onnx.load(str(p))
    m.graph.initializer.append(numpy_helper.from_array(np.zeros(4, dtype=np.float16), "bias"))
    m.graph.initializer.append(helper.make_tensor("flags", onnx.TensorProto.BOOL, [2], [True, False]))
    onnx.save(m, str(p))
    assert list_tensors(p) == [
        TensorInfo("model.0.auto_model.embeddings.word_embeddings.weight", (10, 4), "F32"),
        TensorInfo("bias", (4,), "F16"),
        TensorInfo("flags", (2,), "BOOL"),
    ]


def test_npy_listing(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros((5, 3), dtype=np.float16))
    assert list_tensors(tmp_path / "a.npy") == [TensorInfo(None, (5, 3), "F16")]


def test_listing_goes_through_the_hostile_file_checks(st, tmp_path):
    p, _ = st
    bad = tmp_path / "cut.safetensors"
    bad.write_bytes(p.read_bytes()[:-5])
    with pytest.raises(RepcapError, match="truncated"):
        list_tensors(bad)
    (tmp_path / "x.pt").write_bytes(b"\x80\x04junk")
    with pytest.raises(RepcapError, match="refusing to unpickle"):
        list_tensors(tmp_path / "x.pt")
    (tmp_path / "cut.gguf").write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 30)
    with pytest.raises(RepcapError, match="GGUF"):
        list_tensors(tmp_path / "cut.gguf")


def test_folder_listings(tmp_path):
    from safetensors.torch import load_file

    one, sharded = tmp_path / "one", tmp_path / "sharded"
    save_tiny("llama", False, one)
    save_tiny("llama", False, sharded, shard=True)
    want = {k: tuple(v.shape) for k, v in load_file(str(one / "model.safetensors")).items()}
    assert {i.name: i.shape for i in list_tensors(one)} == want
    index = json.loads((sharded / "model.safetensors.index.json").read_text())
    got = list_tensors(sharded)
    assert {i.name: i.shape for i in got} == want and len(got) == len(index["weight_map"])


def test_stats_list_tensors_and_named_tensor(st, capsys):
    p, t = st
    assert main(["stats", str(p), "--list-tensors"]) == 0
    out = {ln.split()[0]: ln.split()[1:] for ln in capsys.readouterr().out.splitlines()}
    assert out == {
        "model.embed_tokens.weight": ["[12,", "8]", "F32"],
        "lm_head.weight": ["[12,", "8]", "F16"],
        "model.norm.weight": ["[8]", "BF16"],
        "steps": ["[1]", "I64"],
    }
    assert main(["stats", str(p), "--list-tensors", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"name": "lm_head.weight", "shape": [12, 8], "storage": "F16"} in rows and len(rows) == 4
    assert main(["stats", str(p), "--tensor", "lm_head.weight", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    X = t["lm_head.weight"].float().numpy().astype(np.float64)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    c = (U @ U.T)[np.triu_indices(12, 1)]
    assert rec["tensor"] == "lm_head.weight" and rec["quant"] == "F16"
    assert rec["mean"] == pytest.approx(c.mean(), abs=1e-6)
    assert main(["stats", str(p), "--tensor", "model.norm.weight"]) == 2
    assert "has shape (8,), not (V, d)" in capsys.readouterr().err
    assert main(["stats", str(p), "--tensor", "nope"]) == 2
    assert "no tensor named 'nope'" in capsys.readouterr().err


def test_named_tensor_in_gguf_and_onnx(tmp_path):
    rng = np.random.default_rng(1)
    emb, head = (rng.standard_normal((20, 32)).astype(np.float32) for _ in range(2))
    write_gguf(tmp_path / "m.gguf", emb, "F32", head=head)
    np.testing.assert_array_equal(load(tmp_path / "m.gguf", tensor="output.weight").matrix.numpy(), head)
    write_onnx(tmp_path / "m.onnx", emb, name="some.matrix")
    np.testing.assert_array_equal(load(tmp_path / "m.onnx", tensor="some.matrix").matrix.numpy(), emb)
