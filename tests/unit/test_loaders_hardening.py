"""Loader hardening: every refusal below is one RepcapError line (never a traceback) naming the input.

JSON that is not an object (config.json, the safetensors index and its weight_map), tie flags
written as strings, ONNX initialisers whose type or data length do not fit their dims, names no
file system can hold, unreadable folders, shards that are symlinks out of their folder, and
element types that are not real numbers (bool, complex, timedelta)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from _models import D, V, save_tiny

from repcap import RepcapError
from repcap.cli import main
from repcap.models.embeddings import list_tensors, load


def one_line_error(match: str, fn, *args, **kw) -> str:
    with pytest.raises(RepcapError, match=match) as ei:
        fn(*args, **kw)
    msg = str(ei.value)
    assert msg and "\n" not in msg
    return msg


@pytest.fixture(scope="module")
def untied(tmp_path_factory):
    """A tiny untied llama checkpoint: (folder, embedding, head)."""
    d = tmp_path_factory.mktemp("untied") / "llama"
    emb, head = save_tiny("llama", False, d)
    return d, emb, head


def copy_model(src: Path, dst: Path, config: object | None = None) -> Path:
    dst.mkdir(parents=True)
    (dst / "model.safetensors").write_bytes((src / "model.safetensors").read_bytes())
    cfg = json.loads((src / "config.json").read_text()) if config is None else config
    (dst / "config.json").write_text(json.dumps(cfg))
    return dst


def st_file(path: Path, tensors: dict | None = None) -> Path:
    from safetensors.torch import save_file

    save_file(
        tensors or {"model.embed_tokens.weight": torch.arange(V * 8, dtype=torch.float32).reshape(V, 8)}, str(path)
    )
    return path


# --- JSON that is not an object ---------------------------------------------------------------------


def test_config_json_list_is_refused(untied, tmp_path):
    d = copy_model(untied[0], tmp_path / "m", config=[1, 2, 3])
    msg = one_line_error("config.json holds a JSON list, not an object", load, d)
    assert str(d) in msg


def test_index_and_weight_map_must_be_objects(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    st_file(d / "model-00001-of-00001.safetensors")
    (d / "model.safetensors.index.json").write_text(json.dumps(["model-00001-of-00001.safetensors"]))
    one_line_error("safetensors index holds a JSON list, not an object", load, d)
    (d / "model.safetensors.index.json").write_text(json.dumps({"weight_map": [["a", "b"]]}))
    one_line_error("weight_map is not an object of tensor name -> file name", load, d)
    (d / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"model.embed_tokens.weight": 7}}))
    one_line_error("weight_map is not an object", load, d)
    (d / "model.safetensors.index.json").write_text("{not json")
    one_line_error("not readable JSON", load, d)


# --- tie flags written as strings -------------------------------------------------------------------


@pytest.mark.parametrize(
    "flag,tied", [(False, False), ("false", False), ("False", False), (True, True), ("true", True), (" TRUE ", True)]
)
def test_tie_flag_strings_are_read_for_what_they_say(untied, tmp_path, flag, tied):
    src, _emb, head = untied
    cfg = {**json.loads((src / "config.json").read_text()), "tie_word_embeddings": flag}
    h = load(copy_model(src, tmp_path / "m", config=cfg), head=True)
    assert h.tied is tied
    # the head tensor is stored either way: a tied config reads the embedding's tie, not another matrix
    np.testing.assert_array_equal(h.matrix.numpy(), head)


def test_tie_flag_in_text_config_as_string(untied, tmp_path):
    src, _, _head = untied
    cfg = {"model_type": "multi", "text_config": {"tie_word_embeddings": "false"}}
    h = load(copy_model(src, tmp_path / "m", config=cfg), head=True)
    assert h.tied is False and h.tensor_name == "lm_head.weight"


@pytest.mark.parametrize("flag", ["no", 1, 0, [True], "0"])
def test_tie_flag_of_another_kind_is_refused(untied, tmp_path, flag):
    src, _, _ = untied
    cfg = {**json.loads((src / "config.json").read_text()), "tie_word_embeddings": flag}
    d = copy_model(src, tmp_path / "m", config=cfg)
    msg = one_line_error("tie_word_embeddings is .* expected true or false", load, d, head=True)
    assert str(d) in msg


# --- ONNX initialisers ------------------------------------------------------------------------------


def onnx_file(path: Path, *inits) -> Path:
    import onnx
    from onnx import helper

    graph = helper.make_graph([], "g", [], [], list(inits))
    onnx.save(helper.make_model(graph), str(path))
    return path


def raw_tensor(name: str, dtype: int, dims, raw: bytes | None = None, **fields):
    from onnx import TensorProto

    t = TensorProto(name=name, data_type=dtype, dims=list(dims))
    if raw is not None:
        t.raw_data = raw
    for k, v in fields.items():
        getattr(t, k).extend(v)
    return t


def test_onnx_data_shorter_than_dims(tmp_path):
    from onnx import TensorProto

    p = tmp_path / "short.onnx"
    onnx_file(p, raw_tensor("emb", TensorProto.FLOAT, (V, D), b"\0" * (V * D * 4 - 4)))
    msg = one_line_error(r"declares dims \(50, 16\) FLOAT \(3200 bytes\) but holds 3196", load, p)
    assert str(p) in msg
    onnx_file(p, raw_tensor("emb", TensorProto.FLOAT, (V, D), float_data=[0.0] * (V * D - 1)))
    one_line_error("but holds 799", load, p)
    onnx_file(p, raw_tensor("emb", TensorProto.FLOAT16, (V, D)))  # dims, no data at all
    one_line_error("but holds 0", load, p)


@pytest.mark.parametrize(
    "dtype,what",
    [
        ("STRING", "string"),
        ("UNDEFINED", "undefined"),
        ("BOOL", "boolean"),
        ("COMPLEX64", "complex"),
        ("COMPLEX128", "complex"),
    ],
)
def test_onnx_types_that_are_not_real_numbers(tmp_path, dtype, what):
    from onnx import TensorProto

    code = getattr(TensorProto, dtype)
    t = (
        raw_tensor("emb", code, (2, 2), string_data=[b"a", b"b", b"c", b"d"])
        if dtype == "STRING"
        else raw_tensor("emb", code, (2, 2), b"\0" * 4 * {"BOOL": 1, "COMPLEX64": 8, "COMPLEX128": 16}.get(dtype, 4))
    )
    p = onnx_file(tmp_path / "t.onnx", t)
    one_line_error(f"tensor 'emb' is stored as {dtype} \\({what} values\\), not real numbers", load, p)


def test_onnx_named_tensor_must_be_2d(tmp_path):
    from onnx import TensorProto

    p = onnx_file(
        tmp_path / "t.onnx",
        raw_tensor("emb", TensorProto.FLOAT, (V, D), b"\0" * V * D * 4),
        raw_tensor("bias", TensorProto.FLOAT, (D,), b"\0" * D * 4),
    )
    one_line_error(r"initialiser 'bias' has dims \(16,\), not \(V, d\)", load, p, tensor="bias")
    assert load(p).matrix.shape == (V, D)


def test_onnx_external_data(tmp_path):
    from onnx import TensorProto

    x = np.random.default_rng(0).standard_normal((V, D)).astype(np.float32)
    (tmp_path / "emb.bin").write_bytes(b"\0" * 16 + x.tobytes())

    def ext(location, offset=16, length=V * D * 4):
        t = raw_tensor("emb", TensorProto.FLOAT, (V, D))
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        return onnx_file(tmp_path / "ext.onnx", t)

    np.testing.assert_array_equal(load(ext("emb.bin")).matrix.numpy(), x)
    one_line_error("names the external file '../emb.bin', which escapes the model folder", load, ext("../emb.bin"))
    one_line_error("names the external file '/etc/passwd'", load, ext("/etc/passwd"))
    one_line_error("truncated or malformed", load, ext("emb.bin", length=V * D * 4 - 4))
    one_line_error("truncated or malformed", load, ext("emb.bin", offset=32))
    (tmp_path / "link.bin").symlink_to(tmp_path.parent)
    one_line_error("escapes the model folder", load, ext("link.bin"))


# --- names no file system holds, unreadable folders -------------------------------------------------


def test_path_component_over_255_bytes(tmp_path, capsys):
    long = "x" * 300
    one_line_error("a path component is 300 bytes, over the 255-byte limit", load, long)
    one_line_error("304 bytes, over the 255-byte limit", load, str(tmp_path / (long + ".npy")))
    one_line_error("over the 255-byte limit", load, tmp_path / ("é" * 130))  # 260 bytes in UTF-8
    one_line_error("over the 255-byte limit", list_tensors, str(tmp_path / long / "model.safetensors"))
    one_line_error("is not a hub id", list_tensors, f"org/{long}")  # no such folder "org": a (bad) hub id
    assert main(["stats", str(tmp_path / long)]) == 2
    err = capsys.readouterr().err
    assert "255-byte limit" in err and err.count("\n") == 1


def test_unreadable_folder(tmp_path, monkeypatch):
    d = tmp_path / "locked"
    d.mkdir()
    st_file(d / "model.safetensors")
    if os.geteuid() == 0:  # root reads any folder: make listing it fail as it does for a user
        real = os.scandir

        def scandir(path=".", *a):
            if Path(path) == d:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *a)

        monkeypatch.setattr(os, "scandir", scandir)
        msg = one_line_error("cannot read the folder \\(Permission denied\\)", load, d)
    else:
        d.chmod(0)
        try:
            msg = one_line_error("cannot read the folder \\(Permission denied\\)", load, d)
        finally:
            d.chmod(0o755)
    assert str(d) in msg


# --- symlinks out of the model folder ---------------------------------------------------------------


def test_shard_symlink_out_of_the_folder_is_refused(tmp_path):
    outside = st_file(tmp_path / "outside.safetensors")
    d = tmp_path / "m"
    d.mkdir()
    (d / "model.safetensors").symlink_to(outside)
    msg = one_line_error("model.safetensors is a symlink .* leading out of the model folder", load, d)
    assert str(d) in msg
    # a sharded folder whose index names a shard that links out
    s = tmp_path / "sharded"
    s.mkdir()
    (s / "model-00001-of-00001.safetensors").symlink_to(outside)
    (s / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {"model.embed_tokens.weight": "model-00001-of-00001.safetensors"}})
    )
    one_line_error("leading out of the model folder", load, s)
    one_line_error("leading out of the model folder", list_tensors, s)


def test_symlinks_inside_the_folder_and_the_hub_cache_layout_load(tmp_path):
    d = tmp_path / "m"
    (d / "real").mkdir(parents=True)
    st_file(d / "real" / "weights.data")
    (d / "model.safetensors").symlink_to("real/weights.data")  # a link that stays in the folder
    assert load(d).matrix.shape == (V, 8)
    # huggingface_hub's cache: snapshots/<rev>/<file> -> ../../blobs/<hash>
    repo = tmp_path / "models--org--tiny"
    (repo / "blobs").mkdir(parents=True)
    st_file(repo / "blobs" / "0123abcd")
    snap = repo / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "model.safetensors").symlink_to("../../blobs/0123abcd")
    np.testing.assert_array_equal(load(snap).matrix.numpy(), np.arange(V * 8, dtype=np.float32).reshape(V, 8))


# --- element types that are not real numbers --------------------------------------------------------


def test_safetensors_bool_and_complex_are_refused(tmp_path):
    p = st_file(
        tmp_path / "t.safetensors",
        {
            "model.embed_tokens.weight": torch.zeros(3, 4),
            "mask": torch.zeros(3, 4, dtype=torch.bool),
            "phase": torch.zeros(3, 4, dtype=torch.complex64),
        },
    )
    msg = one_line_error(
        r"tensor 'mask' is stored as BOOL \(boolean values\), not real numbers", load, p, tensor="mask"
    )
    assert str(p) in msg
    one_line_error(r"tensor 'phase' is stored as C64 \(complex values\)", load, p, tensor="phase")
    assert load(p).matrix.shape == (3, 4)


@pytest.mark.parametrize(
    "arr,what",
    [
        (np.zeros((3, 4), dtype=bool), "boolean"),
        (np.zeros((3, 4), dtype=np.complex64), "complex"),
        (np.zeros((3, 4), dtype="timedelta64[s]"), "timedelta"),
        (np.zeros((3, 4), dtype="datetime64[s]"), "datetime"),
        (np.zeros((3, 4), dtype="U3"), "string"),
    ],
)
def test_npy_types_that_are_not_real_numbers(tmp_path, arr, what):
    p = tmp_path / "a.npy"
    np.save(p, arr)
    msg = one_line_error(f"the array is stored as .* \\({what} values\\), not real numbers", load, p)
    assert str(p) in msg
    one_line_error(f"{what} values", list_tensors, p)


@pytest.mark.parametrize("n", [128, 384, 0x4B50])
def test_safetensors_whose_header_length_looks_like_pickle_magic_loads(tmp_path, n):
    """A header of 128 bytes starts the file with 0x80 (pickle's magic), one of 0x4B50 with 'PK': both
    are real safetensors files (a shard of the sharded tiny llama hit the first)."""
    import struct

    src = st_file(tmp_path / "src.safetensors", {"model.embed_tokens.weight": torch.arange(12.0).reshape(3, 4)})
    raw = src.read_bytes()
    m = struct.unpack("<Q", raw[:8])[0]
    header = raw[8 : 8 + m].rstrip(b" ")
    assert len(header) <= n
    p = tmp_path / "padded.safetensors"
    p.write_bytes(struct.pack("<Q", n) + header + b" " * (n - len(header)) + raw[8 + m :])
    assert p.read_bytes()[:1] == b"\x80" or p.read_bytes()[:2] == b"PK"
    np.testing.assert_array_equal(load(p).matrix.numpy(), np.arange(12.0, dtype=np.float32).reshape(3, 4))


@pytest.mark.parametrize("scale", [1e-300, 1e-40, 1.0, 1e300])
@pytest.mark.parametrize("fmt", ["npy", "safetensors"])
def test_float64_rows_outside_float32s_range_keep_their_statistics(tmp_path, scale, fmt):
    """Rows of tiny or huge float64 values (below float32's range, or past it) have the statistics of
    the stored values: a dense float64 computation on the unscaled rows."""
    from repcap.engines.cosine import moments
    from repcap.models.embeddings import load

    rng = np.random.default_rng(3)
    x = rng.standard_normal((40, 6))
    x[::7] *= 1e5  # rows of different scales in one matrix
    path = tmp_path / f"m.{fmt}"
    if fmt == "npy":
        np.save(path, x * scale)
    else:
        from safetensors.numpy import save_file

        save_file({"embed_tokens.weight": x * scale}, str(path))
    m = moments(load(str(path)).matrix)
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    c = (u @ u.T)[np.triu_indices(len(x), 1)]
    assert m.n_zero_rows == 0
    np.testing.assert_allclose([m.mean, m.std], [c.mean(), c.std()], rtol=0, atol=2e-7)
