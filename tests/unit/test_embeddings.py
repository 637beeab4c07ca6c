"""Loaders (repcap.models.embeddings -> repcap.models.hub / repcap.models.formats) on files the tests create: tiny transformers checkpoints for each
architecture family (tied and untied, single file and sharded, with a language_model. prefix), GGUF
in F16 and Q8_0, ONNX, .npy; and one clear error per bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from _models import D, V, prefix_language_model, save_tiny, write_gguf, write_gguf_raw, write_onnx

from repcap import RepcapError
from repcap.models.embeddings import load
from repcap.models.formats import pick_tensor

# (arch, tied, expected embedding tensor name, expected head tensor name when untied)
ARCHS = [
    ("gpt2", True, "transformer.wte.weight", None),
    ("neox", False, "gpt_neox.embed_in.weight", "embed_out.weight"),
    ("opt", True, "model.decoder.embed_tokens.weight", None),
    ("llama", True, "model.embed_tokens.weight", None),
    ("llama", False, "model.embed_tokens.weight", "lm_head.weight"),
    ("mistral", False, "model.embed_tokens.weight", "lm_head.weight"),
    ("qwen2", True, "model.embed_tokens.weight", None),
    ("gemma", True, "model.embed_tokens.weight", None),
    ("phi", False, "model.embed_tokens.weight", "lm_head.weight"),
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """All tiny checkpoints, written once: {(arch, tied): (dir, emb, head)}."""
    root = tmp_path_factory.mktemp("tiny")
    out = {}
    for arch, tied, _, _ in ARCHS:
        d = root / f"{arch}-{'tied' if tied else 'untied'}"
        out[(arch, tied)] = (d, *save_tiny(arch, tied, d))
    d = root / "llama-untied-sharded"
    out["sharded"] = (d, *save_tiny("llama", False, d, shard=True))
    d = root / "mm"
    prefix_language_model(out[("llama", False)][0], d)
    out["mm"] = (d, *out[("llama", False)][1:])
    return out


@pytest.mark.parametrize("arch,tied,emb_name,head_name", ARCHS)
def test_transformers_layout(tiny, arch, tied, emb_name, head_name):
    d, emb, head = tiny[(arch, tied)]
    e = load(d)
    assert e.source_kind == "dir" and e.tensor_name == emb_name
    assert e.matrix.shape == (V, D) and e.matrix.dtype == torch.float32
    np.testing.assert_array_equal(e.matrix.numpy(), emb)
    h = load(d, head=True)
    assert h.tied is tied
    if tied:
        np.testing.assert_array_equal(h.matrix.numpy(), emb)  # the head is the embedding
        assert h.tensor_name == emb_name
    else:
        assert h.tensor_name == head_name
        np.testing.assert_array_equal(h.matrix.numpy(), head)
        assert not np.array_equal(head, emb)


def test_sharded_index_reads_one_shard(tiny):
    d, emb, head = tiny["sharded"]
    assert (d / "model.safetensors.index.json").is_file()
    np.testing.assert_array_equal(load(d).matrix.numpy(), emb)
    np.testing.assert_array_equal(load(d, head=True).matrix.numpy(), head)


def test_language_model_prefix(tiny):
    d, emb, head = tiny["mm"]
    e = load(d)
    assert e.tensor_name == "language_model.model.embed_tokens.weight"
    np.testing.assert_array_equal(e.matrix.numpy(), emb)
    h = load(d, head=True)
    assert h.tied is False and h.tensor_name == "language_model.lm_head.weight"  # tie flag read from text_config
    np.testing.assert_array_equal(h.matrix.numpy(), head)


def test_single_safetensors_file(tiny):
    d, emb, _ = tiny[("gpt2", True)]
    e = load(d / "model.safetensors")
    assert e.source_kind == "safetensors" and e.tied is True
    np.testing.assert_array_equal(e.matrix.numpy(), emb)


def test_gguf_f16_and_q8_0(tmp_path):
    rng = np.random.default_rng(1)
    emb = rng.standard_normal((V, 64)).astype(np.float32)  # Q8_0 blocks are 32 wide
    head = rng.standard_normal((V, 64)).astype(np.float32)
    toks = [f"t{i}" for i in range(V)]
    p16, p8 = tmp_path / "m16.gguf", tmp_path / "m8.gguf"
    write_gguf(p16, emb, "F16", tokens=toks)
    write_gguf(p8, emb, "Q8_0", head=head, tokens=toks)
    e16 = load(p16)
    assert e16.quant == "F16" and e16.source_kind == "gguf" and e16.matrix.shape == (V, 64)
    np.testing.assert_array_equal(e16.matrix.numpy(), emb.astype(np.float16).astype(np.float32))
    assert e16.tokens == toks and e16.tied is True  # no output.weight stored
    e8 = load(p8)
    assert e8.quant == "Q8_0"
    # Q8_0: per block of 32, q = round(x / s) with s = max|x| / 127 stored as f16, so
    # |x - q s| <= s / 2 + |x| * 2^-11 (the f16 rounding of s, carried by q)
    blocks = np.abs(emb.reshape(V, 2, 32)).max(axis=2, keepdims=True) / 127
    err = np.abs(e8.matrix.numpy().reshape(V, 2, 32) - emb.reshape(V, 2, 32))
    assert np.all(err <= blocks * 0.5 + np.abs(emb.reshape(V, 2, 32)) * 2.0**-11 + 1e-7)
    assert err.max() > 0  # it really was quantised
    h8 = load(p8, head=True)
    assert h8.tensor_name == "output.weight" and h8.tied is False
    np.testing.assert_allclose(h8.matrix.numpy(), head, atol=float(np.abs(head).max() / 127))


def test_onnx_initialiser(tmp_path):
    emb = np.random.default_rng(2).standard_normal((V, D)).astype(np.float32)
    p = tmp_path / "m.onnx"
    write_onnx(p, emb)
    e = load(p)
    assert e.source_kind == "onnx" and e.quant == "F32"
    assert e.tensor_name == "model.0.auto_model.embeddings.word_embeddings.weight"
    np.testing.assert_array_equal(e.matrix.numpy(), emb)


def test_npy(tmp_path):
    x = np.arange(12, dtype=np.float64).reshape(4, 3)
    np.save(tmp_path / "x.npy", x)
    e = load(tmp_path / "x.npy")
    assert e.source_kind == "npy" and e.matrix.dtype == torch.float32
    np.testing.assert_array_equal(e.matrix.numpy(), x.astype(np.float32))


def test_pick_tensor_prefers_language_model_over_vision():
    emb, hd, tied = pick_tensor(
        [
            "vision_tower.embed_tokens.weight",
            "language_model.model.embed_tokens.weight",
            "language_model.lm_head.weight",
        ],
        head=True,
    )
    assert emb == "language_model.model.embed_tokens.weight" and hd == "language_model.lm_head.weight"
    assert tied is False


# ----------------------------------------------------------------------------- bad inputs


def test_unknown_id():
    with pytest.raises(RepcapError, match="unknown model source 'no-such-model-xyz'"):
        load("no-such-model-xyz")


def test_missing_tensor(tiny, tmp_path):
    d, _, _ = tiny[("llama", True)]
    with pytest.raises(RepcapError, match="no tensor named 'nope'"):
        load(d / "model.safetensors", tensor="nope")
    from safetensors.torch import save_file

    save_file({"foo.weight": torch.zeros(3, 4), "bar.weight": torch.zeros(4, 3)}, str(tmp_path / "x.safetensors"))
    with pytest.raises(RepcapError, match="no embedding tensor found"):
        load(tmp_path / "x.safetensors")


def test_untied_config_without_head(tiny, tmp_path):
    from safetensors.torch import load_file, save_file

    d, _, _ = tiny[("llama", False)]
    t = {k: v for k, v in load_file(str(d / "model.safetensors")).items() if k != "lm_head.weight"}
    out = tmp_path / "nohead"
    out.mkdir()
    save_file(t, str(out / "model.safetensors"))
    (out / "config.json").write_text((d / "config.json").read_text())
    with pytest.raises(RepcapError, match="untied but no head tensor"):
        load(out, head=True)


def test_unsupported_quantisation(tmp_path):
    p = tmp_path / "q81.gguf"
    write_gguf_raw(p, "Q8_1", (V, 64), 2 * 40)  # Q8_1: 40 bytes per block of 32
    with pytest.raises(RepcapError, match="stored as Q8_1, a quantisation type repcap cannot dequantise"):
        load(p)


@pytest.mark.parametrize("suffix", [".bin", ".pt", ".pkl"])
def test_pickle_refused(tmp_path, suffix):
    p = tmp_path / f"model{suffix}"
    torch.save({"w": torch.zeros(2, 2)}, p)
    with pytest.raises(RepcapError, match="refusing to unpickle"):
        load(p)


def test_pickle_without_suffix_refused(tmp_path):
    p = tmp_path / "weights.dat"
    p.write_bytes(pickle.dumps({"w": [1, 2]}))
    with pytest.raises(RepcapError, match="refusing to unpickle"):
        load(p)


def test_pickled_npy_refused(tmp_path):
    np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(RepcapError, match="holds Python objects"):
        load(tmp_path / "o.npy")


def test_folder_with_only_pickles(tmp_path):
    torch.save({"w": torch.zeros(2)}, tmp_path / "pytorch_model.bin")
    with pytest.raises(RepcapError, match="never unpickles"):
        load(tmp_path)


def test_empty_matrix(tmp_path):
    np.save(tmp_path / "e.npy", np.zeros((0, 8), dtype=np.float32))
    with pytest.raises(RepcapError, match="empty"):
        load(tmp_path / "e.npy")


def test_bytelevel_tokens_are_decoded(tmp_path):
    from repcap.models.formats import bytelevel_decode

    # GPT-2's byte-to-unicode alphabet: 'Ġ' is the space byte, 'à¸Ń' spells the Thai letter U+0E2D
    assert bytelevel_decode("Ġhello") == " hello"
    assert bytelevel_decode("à¸Ń") == "\u0e2d"
    assert bytelevel_decode("<|endoftext|>") == "<|endoftext|>" and bytelevel_decode("[PAD151855]") == "[PAD151855]"
    emb = np.random.default_rng(3).standard_normal((3, 32)).astype(np.float32)
    write_gguf(tmp_path / "b.gguf", emb, "F32", tokens=["Ġa", "b", "<s>"])
    assert load(tmp_path / "b.gguf").tokens == [" a", "b", "<s>"]
