"""Range reads of one tensor from the hub (issue 19, items 1-3, 6), against the loopback hub
(:mod:`_hubserver`) driven by the real ``huggingface_hub`` client: the bytes fetched, eps against a
float64 reference, the slice cache (second run, offline, a commit sha), and every failure as one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _hub_fixtures import eps64, matrix, offline, serve_loopback, sharded, single

from repcap import RepcapError
from repcap.models.embeddings import list_tensors, load
from repcap.models.hub import load_hub


@pytest.fixture
def hub(monkeypatch, tmp_path):
    yield from serve_loopback(monkeypatch, tmp_path)


MiB = 1 << 20
LLAMA = {"model_type": "llama", "tie_word_embeddings": False, "hidden_size": 256, "vocab_size": 2048}


def _llama(server, repo="org/tiny-llama", dtype="BF16", n_shards=3, fill=8 * MiB, zero_rows=5):
    emb = matrix(2048, 256, 1, dtype, zero_rows=zero_rows, shift=0.3)
    head = matrix(2048, 256, 2, dtype)
    files = sharded(
        [
            ("model.embed_tokens.weight", emb),
            ("model.norm.weight", matrix(1, 256, 3, dtype)[0]),
            ("lm_head.weight", head),
        ],
        n_shards,
        LLAMA,
        fill=fill,
        dtype=dtype,
    )
    server.add(repo, files)
    return files, emb, head


def test_sharded_fetches_only_the_tensor(hub):
    files, emb, _ = _llama(hub)
    index = json.loads(files["model.safetensors.index.json"])
    shard = index["weight_map"]["model.embed_tokens.weight"]
    e = load("org/tiny-llama")
    np.testing.assert_array_equal(e.matrix.numpy(), emb.float().numpy())
    assert (e.tensor_name, e.tied, e.quant, e.source_kind) == ("model.embed_tokens.weight", False, "BF16", "hub")
    tensor_bytes = emb.numel() * 2
    got = hub.bytes_for("org/tiny-llama")
    assert got <= 1.5 * tensor_bytes + MiB, (got, tensor_bytes)
    assert got < len(files[shard]) / 4
    shards_touched = {f for (_, f), n in hub.sent.items() if f.endswith(".safetensors") and n}
    assert shards_touched == {shard}


def test_second_run_downloads_nothing_and_offline_makes_no_request(hub, monkeypatch):
    _llama(hub)
    first = load("org/tiny-llama")
    hub.reset_counts()
    again = load("org/tiny-llama")
    assert sum(hub.sent.values()) == 0  # only the model info is asked (the branch may have moved)
    assert [p for _, p, _ in hub.log if not p.startswith("/api/models/")] == []
    np.testing.assert_array_equal(again.matrix.numpy(), first.matrix.numpy())
    offline(monkeypatch, hub)
    off = load("org/tiny-llama")
    assert hub.log == [] and sum(hub.sent.values()) == 0
    np.testing.assert_array_equal(off.matrix.numpy(), first.matrix.numpy())
    assert off.tied is False and off.tensor_name == "model.embed_tokens.weight"


def test_commit_sha_revision_skips_every_request_once_cached(hub):
    _llama(hub)
    sha = hub.repos["org/tiny-llama"].sha
    a = load_hub("org/tiny-llama", revision=sha)
    assert a.meta["commit"] == sha
    hub.reset_counts()
    b = load_hub("org/tiny-llama", revision=sha)
    assert hub.log == []
    np.testing.assert_array_equal(a.matrix.numpy(), b.matrix.numpy())


def test_head_and_named_tensor(hub):
    _, _, head = _llama(hub)
    h = load_hub("org/tiny-llama", head=True)
    assert h.tensor_name == "lm_head.weight"
    np.testing.assert_array_equal(h.matrix.numpy(), head.float().numpy())
    t = load_hub("org/tiny-llama", tensor="lm_head.weight")
    np.testing.assert_array_equal(t.matrix.numpy(), head.float().numpy())
    with pytest.raises(RepcapError, match="no tensor named 'nope'"):
        load_hub("org/tiny-llama", tensor="nope")


@pytest.mark.parametrize(
    "dtype,n_shards,tied",
    [("BF16", 3, False), ("F16", 8, True), ("F32", 1, True), ("F32", 1, False)],
)
def test_layouts_eps_against_float64(hub, dtype, n_shards, tied):
    emb = matrix(1024, 128, 5, dtype, zero_rows=3, shift=0.5)
    tensors = [("model.embed_tokens.weight", emb)]
    if not tied:
        tensors.append(("lm_head.weight", matrix(1024, 128, 6, dtype)))
    cfg = {"model_type": "llama", "tie_word_embeddings": tied}
    files = (
        sharded(tensors, n_shards, cfg, fill=MiB, dtype=dtype)
        if n_shards > 1
        else single(tensors, cfg, fill=MiB, dtype=dtype)
    )
    hub.add("org/m", files)
    from repcap.engines.survey import describe

    rec = describe("org/m", device="cpu", progress=False)
    ref = eps64(emb)
    assert rec["tied"] is tied and rec["quant"] == dtype and rec["n_zero_rows"] == 3
    assert abs(rec["eps"] - ref["eps"]) < 1e-6 and abs(rec["mean"] - ref["mean"]) < 1e-6
    assert hub.bytes_for("org/m") <= 1.5 * emb.numel() * emb.element_size() + MiB


def test_gpt2_conv1d_names_pick_wte(hub):
    d = 64
    wte = matrix(500, d, 8, "F32", shift=0.2)
    tensors = [
        ("wte.weight", wte),
        ("wpe.weight", matrix(128, d, 9, "F32")),
        ("h.0.attn.c_attn.weight", matrix(d, 3 * d, 10, "F32")),
        ("h.0.mlp.c_fc.weight", matrix(d, 4 * d, 11, "F32")),
    ]
    hub.add("openai-community/gpt2-look", single(tensors, {"model_type": "gpt2", "n_embd": d, "vocab_size": 500}))
    e = load_hub("openai-community/gpt2-look")
    assert (e.tensor_name, e.tied) == ("wte.weight", True)
    np.testing.assert_array_equal(e.matrix.numpy(), wte.numpy())


def test_gguf_only_repo_reads_header_table_and_one_range(hub, tmp_path):
    from _hub_fixtures import gguf_repo

    emb = matrix(2048, 256, 12, "F32", shift=0.2).numpy()
    files = gguf_repo(tmp_path / "tiny-Q8_0.gguf", emb, "Q8_0", fill_rows=12000)
    hub.add("org/tiny-gguf", files)
    e = load_hub("org/tiny-gguf")
    assert e.quant == "Q8_0" and e.tensor_name == "token_embd.weight" and e.tokens[:2] == ["tok0", "tok1"]
    from repcap.models.formats import load_gguf

    local = load_gguf(tmp_path / "tiny-Q8_0.gguf")
    np.testing.assert_array_equal(e.matrix.numpy(), local.matrix.numpy())
    q8_bytes = emb.size // 32 * 34
    got = hub.bytes_for("org/tiny-gguf")
    assert got <= 1.5 * q8_bytes + MiB and got < len(files["tiny-Q8_0.gguf"]) / 3, got
    names = {i.name for i in list_tensors("org/tiny-gguf")}
    assert names == {"token_embd.weight", "blk.0.ffn_up.weight"}


def test_list_tensors_offline_from_the_slice_cache(hub, monkeypatch):
    _llama(hub)
    online = list_tensors("org/tiny-llama")
    assert {i.name for i in online} >= {"model.embed_tokens.weight", "lm_head.weight", "model.norm.weight"}
    offline(monkeypatch, hub)
    assert list_tensors("org/tiny-llama") == online
    assert hub.log == []


def test_list_tensors_offline_from_the_hub_cache(hub, monkeypatch):
    """Shards fetched whole by huggingface_hub (say by transformers) answer --list-tensors offline."""
    import huggingface_hub

    files, _, _ = _llama(hub, fill=0)
    for f in files:
        huggingface_hub.hf_hub_download("org/tiny-llama", f)
    offline(monkeypatch, hub)
    got = list_tensors("org/tiny-llama")
    assert {i.name for i in got} == set(json.loads(files["model.safetensors.index.json"])["weight_map"])
    assert hub.log == []


def test_cache_blob_damaged_is_read_again(hub):
    _llama(hub)
    a = load_hub("org/tiny-llama")
    from repcap.models.hub import slice_cache_folder

    blobs = sorted((slice_cache_folder("org/tiny-llama") / "blobs").iterdir(), key=lambda p: p.stat().st_size)
    big = blobs[-1]
    big.write_bytes(b"x" * big.stat().st_size)
    hub.reset_counts()
    b = load_hub("org/tiny-llama")
    np.testing.assert_array_equal(a.matrix.numpy(), b.matrix.numpy())
    assert sum(hub.sent.values()) >= a.matrix.numel() * 2


def test_listing_reads_headers_only(hub):
    files, _, _ = _llama(hub)
    infos = list_tensors("org/tiny-llama")
    wm = json.loads(files["model.safetensors.index.json"])["weight_map"]
    assert {i.name for i in infos} == set(wm)
    assert ("model.embed_tokens.weight", (2048, 256), "BF16") in [(i.name, i.shape, i.storage) for i in infos]
    shard_bytes = sum(n for (_, f), n in hub.sent.items() if f.endswith(".safetensors"))
    assert shard_bytes < 4096  # three headers, no tensor data


def test_config_that_is_a_list_is_refused(hub):
    files = single([("model.embed_tokens.weight", matrix(64, 16, 1, "F32"))], None)
    files["config.json"] = b'["not", "an", "object"]'
    hub.add("org/badcfg", files)
    with pytest.raises(RepcapError, match="config.json holds a JSON list"):
        load("org/badcfg")


def test_progress_bar_for_a_large_range(hub, capsys, monkeypatch):
    import importlib

    _llama(hub)
    monkeypatch.setattr(importlib.import_module("huggingface_hub.utils.tqdm"), "HF_HUB_DISABLE_PROGRESS_BARS", False)
    load_hub("org/tiny-llama")
    err = capsys.readouterr().err
    assert "model-00002-of-00003.safetensors [model.embed_tokens.weight]" in err and "1.05M" in err


def test_loopback_speaks_tree_paths_info_and_416(hub):
    """The fixture's own protocol, through the client: tree and paths-info list the files (LFS ones
    with their sha256), a range past the end is 416."""
    import huggingface_hub
    from huggingface_hub.utils import get_session

    files, _, _ = _llama(hub)
    api = huggingface_hub.HfApi()
    tree = {f.path: f for f in api.list_repo_tree("org/tiny-llama")}
    assert set(tree) == set(files) and tree["config.json"].size == len(files["config.json"])
    info = api.get_paths_info("org/tiny-llama", ["model-00001-of-00003.safetensors"])
    assert info[0].lfs is not None and info[0].lfs.size == len(files["model-00001-of-00003.safetensors"])
    url = huggingface_hub.hf_hub_url("org/tiny-llama", "config.json")
    n = len(files["config.json"])
    r = get_session().get(url, headers={"Range": f"bytes={n}-{n + 10}"})
    assert r.status_code == 416 and r.headers["Content-Range"] == f"bytes */{n}"
    r = get_session().get(url, headers={"Range": "bytes=2-5"})
    assert r.status_code == 206 and r.content == files["config.json"][2:6]
