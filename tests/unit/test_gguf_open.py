"""``repcap.models.formats.gguf.open_gguf``: one GGUF file opened once, its tensors listed and read with the
same result and the same refusals as ``load_gguf(path, tensor=name)``."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from _models import V, write_gguf, write_gguf_raw

from repcap import RepcapError
from repcap.models.formats import gguf as rgguf
from repcap.models.formats import list_tensors, load_gguf, open_gguf

D = 64  # a multiple of the Q8_0 block (32)


@pytest.fixture(params=["F32", "F16", "Q8_0"])
def model(request, tmp_path):
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((V, D)).astype(np.float32)
    head = rng.standard_normal((V, D)).astype(np.float32)
    p = tmp_path / f"m-{request.param}.gguf"
    write_gguf(p, emb, request.param, head=head, tokens=["Ġa", "<s>"] + [f"t{i}" for i in range(V - 2)])
    return p


def _same(a, b) -> None:
    assert torch.equal(a.matrix, b.matrix)
    assert a.matrix.dtype == b.matrix.dtype == torch.float32
    for field in ("name", "source_kind", "tensor_name", "tied", "quant", "tokens", "meta"):
        assert getattr(a, field) == getattr(b, field), field


def test_listing_is_the_files(model):
    f = open_gguf(model)
    assert f.path == model
    assert f.list_tensors() == rgguf.list_tensors(model) == list_tensors(model)
    assert {i.name for i in f.list_tensors()} == {"token_embd.weight", "output.weight"}
    assert all(i.shape == (V, D) for i in f.list_tensors())


def test_read_is_load_gguf(model):
    f = open_gguf(model)
    for info in f.list_tensors():
        _same(f.read(info.name), load_gguf(model, tensor=info.name))
        _same(f.read(info.name, with_tokens=False), load_gguf(model, tensor=info.name, with_tokens=False))
    _same(f.read(), load_gguf(model))
    _same(f.read(head=True), load_gguf(model, head=True))
    assert f.read().tensor_name == "token_embd.weight" and f.read(head=True).tensor_name == "output.weight"
    assert f.read(with_tokens=False).tokens is None
    assert f.read().tokens[:2] == [" a", "<s>"]  # byte-level tokens decoded, as load_gguf does


def test_the_file_is_opened_once(model, monkeypatch):
    opened = []
    real = rgguf._gguf_reader

    def counting(path):
        opened.append(path)
        return real(path)

    monkeypatch.setattr(rgguf, "_gguf_reader", counting)
    f = open_gguf(model)
    f.list_tensors()
    for name in ("token_embd.weight", "output.weight", "token_embd.weight"):
        f.read(name)
    f.read(head=True)
    assert opened == [model]


def _refusal(fn) -> str:
    with pytest.raises(RepcapError) as exc:
        fn()
    return str(exc.value)


def test_unknown_tensor_is_refused_as_load_gguf_does(model):
    f = open_gguf(model)
    msg = _refusal(lambda: f.read("blk.0.ffn_down.weight"))
    assert msg == _refusal(lambda: load_gguf(model, tensor="blk.0.ffn_down.weight"))
    assert "blk.0.ffn_down.weight" in msg


def test_unreadable_type_is_refused_as_load_gguf_does(tmp_path):
    p = tmp_path / "q81.gguf"
    write_gguf_raw(p, "Q8_1", (V, 64), 2 * 40)  # Q8_1: 40 bytes per block of 32
    f = open_gguf(p)  # opening and listing read no tensor data
    assert [i.storage for i in f.list_tensors()] == ["Q8_1"]
    msg = _refusal(lambda: f.read("token_embd.weight"))
    assert msg == _refusal(lambda: load_gguf(p, tensor="token_embd.weight"))
    assert re.search(r"Q8_1.*cannot", msg)


@pytest.mark.parametrize("content", [b"GGUF", b"not a gguf file at all, just text", b"\x80\x04\x95" + b"\0" * 40])
def test_bad_files_are_refused_on_open(tmp_path, content):
    p = tmp_path / "bad.gguf"
    p.write_bytes(content)
    msg = _refusal(lambda: open_gguf(p))
    assert msg == _refusal(lambda: load_gguf(p)) == _refusal(lambda: rgguf.list_tensors(p))
    assert str(p) in msg


def test_missing_file_is_one_line(tmp_path):
    msg = _refusal(lambda: open_gguf(tmp_path / "absent.gguf"))
    assert "absent.gguf" in msg and "\n" not in msg
