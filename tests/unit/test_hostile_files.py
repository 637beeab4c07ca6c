"""Hostile and broken model files (issue 6, "Hold up"): each is refused with one RepcapError that names
the file and says what to do, without allocating what the file claims and without touching existing
results (the offline ``.npy`` cache, the sweep cache and the figure folder are byte-for-byte unchanged).

The files are built here in tmp_path; each case of the issue has its own test."""

from __future__ import annotations

import json
import os
import pickle
import struct
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import torch
from _models import V, write_gguf, write_onnx

from repcap import RepcapError
from repcap.models.embeddings import load
from repcap.models.formats import check_safetensors
from repcap.models.hub import load_hub, safe_relative, validate_hub_id


@pytest.fixture
def results(tmp_path, monkeypatch):
    """Existing results in a private cache and figure folder; yields a check that they are unchanged."""
    cache, figs = tmp_path / "cache", tmp_path / "figures"
    monkeypatch.setenv("REPCAP_CACHE", str(cache))
    monkeypatch.setenv("REPCAP_FIGURE_DIR", str(figs))
    files = {
        cache / "models" / "gemma-3-270m" / "model.embed_tokens.weight.npy": None,
        cache / "models" / "gemma-3-270m" / "model.embed_tokens.weight.json": b'{"key": "gemma-3-270m"}',
        cache / "sweeps" / "toy" / "ab12cd.json": b'{"eps": 0.25}',
        figs / "fig-x-y.png": b"\x89PNG\r\n\x1a\nnot really",
    }
    for p, data in files.items():
        p.parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            np.save(p, np.arange(12, dtype=np.float32).reshape(3, 4))
        else:
            p.write_bytes(data)

    def snapshot():
        return {
            str(p): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(tmp_path.rglob("*"))
            if p.is_file() and (cache in p.parents or figs in p.parents)
        }

    before = snapshot()
    yield
    assert snapshot() == before, "a refused file changed existing results"


def refused(source, match: str, *, max_alloc: int = 16 << 20, **kw) -> str:
    """Load ``source``; it must raise RepcapError matching ``match`` (and naming the file when it is one),
    with at most ``max_alloc`` bytes of Python/numpy allocations at peak.  Returns the message."""
    tracemalloc.start()
    try:
        with pytest.raises(RepcapError, match=match) as ei:
            load(source, **kw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    msg = str(ei.value)
    assert "\n" not in msg, "one line"
    if isinstance(source, Path):
        assert str(source) in msg, "the message names the file"
    assert peak < max_alloc, f"allocated {peak} bytes while refusing"
    return msg


def st_bytes(header: dict, data: bytes = b"", pad_header_len: int | None = None) -> bytes:
    h = json.dumps(header).encode()
    n = len(h) if pad_header_len is None else pad_header_len
    return struct.pack("<Q", n) + h + data


def good_safetensors(path: Path) -> bytes:
    from safetensors.torch import save_file

    save_file({"model.embed_tokens.weight": torch.arange(V * 8, dtype=torch.float32).reshape(V, 8)}, str(path))
    return path.read_bytes()


# --- safetensors ------------------------------------------------------------------------------------


def test_valid_safetensors_still_loads(tmp_path, results):
    p = tmp_path / "ok.safetensors"
    good_safetensors(p)
    e = load(p)
    np.testing.assert_array_equal(e.matrix.numpy(), np.arange(V * 8, dtype=np.float32).reshape(V, 8))
    assert check_safetensors(p)["model.embed_tokens.weight"]["shape"] == [V, 8]


def test_truncated_safetensors(tmp_path, results):
    good = good_safetensors(tmp_path / "ok.safetensors")
    for cut in (0, 5, 8, 20, len(good) - 7):
        p = tmp_path / f"cut{cut}.safetensors"
        p.write_bytes(good[:cut])
        refused(p, "truncated|malformed")


def test_malformed_safetensors_header(tmp_path, results):
    cases = {
        "notjson": struct.pack("<Q", 10) + b"{not json}" + b"\0" * 16,
        "list": st_bytes([1, 2, 3]),  # type: ignore[arg-type]
        "dtype": st_bytes({"w": {"dtype": "Q9", "shape": [2, 2], "data_offsets": [0, 16]}}, b"\0" * 16),
        "shape": st_bytes({"w": {"dtype": "F32", "shape": [2, -2], "data_offsets": [0, 16]}}, b"\0" * 16),
        "offsets": st_bytes({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 12]}}, b"\0" * 16),
        "overlap": st_bytes(
            {
                "a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
                "b": {"dtype": "F32", "shape": [2, 2], "data_offsets": [8, 24]},
            },
            b"\0" * 24,
        ),
        "hugelen": struct.pack("<Q", 2**63) + b"{}",
        "utf8": struct.pack("<Q", 4) + b"\xff\xfe\xfd\xfc",
    }
    for name, data in cases.items():
        p = tmp_path / f"{name}.safetensors"
        p.write_bytes(data)
        refused(p, "malformed|truncated")


def test_safetensors_declaring_1e12_elements(tmp_path, results):
    """1e12 float32 elements would be 4 TB: refused from the header, before anything is read or allocated."""
    n = 10**6
    hdr = {"model.embed_tokens.weight": {"dtype": "F32", "shape": [n, n], "data_offsets": [0, 4 * n * n]}}
    p = tmp_path / "huge.safetensors"
    p.write_bytes(st_bytes(hdr, b"\0" * 64))
    msg = refused(p, r"declares shape \[1000000, 1000000\] F32 \(1e\+12 elements", max_alloc=1 << 20)
    assert "refused without reading" in msg
    # the same lie with offsets that match the data but a shape that does not
    hdr = {"model.embed_tokens.weight": {"dtype": "F32", "shape": [n, n], "data_offsets": [0, 64]}}
    p.write_bytes(st_bytes(hdr, b"\0" * 64))
    refused(p, "1e\\+12 elements", max_alloc=1 << 20)


def test_pickle_disguised_as_safetensors(tmp_path, results):
    p = tmp_path / "model.safetensors"
    torch.save({"model.embed_tokens.weight": torch.zeros(4, 4)}, p)  # a zip holding a pickle
    refused(p, "really a pickle")
    p.write_bytes(pickle.dumps({"w": np.zeros((4, 4))}, protocol=4))  # a plain pickle
    refused(p, "really a pickle.*never unpickles")


def test_index_shard_name_escaping_the_folder(tmp_path, results):
    d = tmp_path / "model"
    d.mkdir()
    good_safetensors(tmp_path / "outside.safetensors")
    (d / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {"model.embed_tokens.weight": "../outside.safetensors"}})
    )
    refused(d, "escapes the model folder")
    for bad in ("/etc/passwd", "a/../../b", "", "C:/x", "~/x", "./x"):
        with pytest.raises(RepcapError, match="escapes"):
            safe_relative(bad, "m")
    assert safe_relative("model-00001-of-00002.safetensors", "m") == "model-00001-of-00002.safetensors"


# --- GGUF -------------------------------------------------------------------------------------------


def gguf_file(tmp_path: Path) -> bytes:
    p = tmp_path / "ok.gguf"
    write_gguf(p, np.random.default_rng(0).standard_normal((V, 32)).astype(np.float32), "F32")
    return p.read_bytes()


def test_truncated_gguf(tmp_path, results):
    good = gguf_file(tmp_path)
    assert load(tmp_path / "ok.gguf").matrix.shape == (V, 32)
    for cut in (0, 3, 10, 30, len(good) // 2, len(good) - 4):
        p = tmp_path / f"cut{cut}.gguf"
        p.write_bytes(good[:cut])
        refused(p, "GGUF")


def test_gguf_unknown_tensor_type(tmp_path, results):
    good = bytearray(gguf_file(tmp_path))
    name = b"token_embd.weight"
    at = good.index(name) + len(name)  # then n_dims (u32), dims (u64 each), type (u32), offset (u64)
    n_dims = struct.unpack_from("<I", good, at)[0]
    assert n_dims == 2
    struct.pack_into("<I", good, at + 4 + 8 * n_dims, 9999)
    p = tmp_path / "unknown.gguf"
    p.write_bytes(bytes(good))
    refused(p, "unknown GGUF tensor type.*9999")


def test_gguf_declaring_huge_tensor(tmp_path, results):
    good = bytearray(gguf_file(tmp_path))
    at = good.index(b"token_embd.weight") + len(b"token_embd.weight")
    struct.pack_into("<Q", good, at + 4, 10**6)  # d: 32 -> 1e6
    struct.pack_into("<Q", good, at + 4 + 8, 10**6)  # V: -> 1e6, i.e. 1e12 elements
    p = tmp_path / "huge.gguf"
    p.write_bytes(bytes(good))
    refused(p, "GGUF", max_alloc=1 << 20)


# --- ONNX, npy --------------------------------------------------------------------------------------


def test_onnx_without_the_named_initialiser(tmp_path, results):
    p = tmp_path / "m.onnx"
    write_onnx(p, np.zeros((V, 8), dtype=np.float32), name="some.other.weight")
    refused(
        p,
        "no initialiser named 'embeddings.word_embeddings.weight'.*some.other.weight",
        tensor="embeddings.word_embeddings.weight",
    )
    write_onnx(p, np.zeros((3, 4, 5), dtype=np.float32), name="a3d")  # nothing 2-D to guess from
    refused(p, "no embedding tensor found")


def test_npy_that_needs_pickle(tmp_path, results):
    p = tmp_path / "o.npy"
    np.save(p, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    refused(p, "holds Python objects.*np.save")
    np.save(p, np.zeros(3, dtype=[("a", "f4"), ("b", "O")]), allow_pickle=True)  # object inside a record
    refused(p, "holds Python objects")


def test_npy_declaring_more_than_it_holds(tmp_path, results):
    p = tmp_path / "big.npy"
    np.save(p, np.zeros((4, 4), dtype=np.float32))
    raw = p.read_bytes()  # header: magic, version, length, a padded dict ending in "\n"
    hdr = raw[: raw.index(b"\n") + 1].decode("latin1")
    new = hdr.replace("(4, 4)", "(1000000, 1000000)")
    new = new[:-1].rstrip(" ")
    new = new + " " * (len(hdr) - 1 - len(new)) + "\n"
    assert len(new) == len(hdr)
    p.write_bytes(new.encode("latin1") + raw[len(hdr) :])
    refused(p, "declares shape \\(1000000, 1000000\\).*refused without reading", max_alloc=1 << 20)


# --- ids that would escape the cache ----------------------------------------------------------------


ESCAPES = [
    "../../etc/passwd",
    "/etc/passwd-not-a-model",
    "org/..",
    "../org",
    "org/../../x",
    "./model",
    "a/b/c",
    "org/.hidden",
    "org\\..\\x",
    "~/model",
    "..",
    "org/na..me",
    "-org/name",
]


@pytest.mark.parametrize("bad", ESCAPES)
def test_hub_id_grammar(bad):
    with pytest.raises(RepcapError, match="not a hub id"):
        validate_hub_id(bad)


def test_ids_escaping_the_cache(tmp_path, results, monkeypatch):
    """No such id reaches the filesystem or the network: the hub download is never called."""
    import huggingface_hub

    calls = []
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda *a, **k: calls.append(a) or "/nonexistent")
    monkeypatch.chdir(tmp_path)  # so that ../../etc/passwd does not exist relative to the cwd
    for bad in ESCAPES:
        if Path(bad).expanduser().exists():
            continue  # an existing path is a local file the user named, not an id
        with pytest.raises(RepcapError, match="hub id|unknown model source|no such file"):
            load(bad)
        with pytest.raises(RepcapError, match="not a hub id"):
            load_hub(bad)
    assert calls == []
    for valid in ("google/gemma-3-270m", "org/name.v1-2_x"):
        assert validate_hub_id(valid) == valid


def test_offline_key_escaping_the_cache(results):
    from repcap.models import offline

    for bad in ("../../etc/passwd", "../gemma-3-270m", "/tmp/x", "gemma-3-270m/../../x"):
        with pytest.raises(RepcapError, match="unknown offline model"):
            offline.load(bad, auto_install=False)
        with pytest.raises(RepcapError, match="unknown offline model"):
            offline.key_dir(bad)
    assert offline.key_dir("gemma-3-270m") == offline.models_dir() / "gemma-3-270m"
    assert os.environ["REPCAP_CACHE"] in str(offline.models_dir())


def test_gguf_metadata_array_claiming_2_63_items(tmp_path, results):
    """The stock gguf reader returns empty views past the end of the file, so an array declaring 2**63
    one-byte items looped (almost) forever; the strict reader refuses it at the end of the file."""
    import gguf

    w = gguf.GGUFWriter(str(tmp_path / "a.gguf"), "llama")
    w.add_array("x.arr", [1, 2, 3])  # an array of 3 x int (type INT32 in the writer)
    w.add_tensor("token_embd.weight", np.zeros((4, 32), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    raw = bytearray((tmp_path / "a.gguf").read_bytes())
    at = raw.index(b"x.arr") + len(b"x.arr") + 4 + 4  # after the value type (ARRAY) and the item type
    assert struct.unpack_from("<Q", raw, at)[0] == 3
    struct.pack_into("<Q", raw, at, 2**63)
    p = tmp_path / "loop.gguf"
    p.write_bytes(bytes(raw))
    refused(p, "runs past the end of the file")
