"""Fuzzing the ONNX reader and the model-folder JSON (config.json, the safetensors index) under
hypothesis, as test_fuzz_readers.py fuzzes the safetensors and GGUF bytes.

ONNX: byte mutations of a valid file, and initialisers built with every element type, random dims,
data of the wrong length and external-data locations that point anywhere.  Folders: config.json
and model.safetensors.index.json replaced by arbitrary JSON, or edited field by field (tie flag,
weight_map entries that are not strings, absolute paths, ``..``, missing shards).  The only
exception allowed out is :class:`repcap.RepcapError` with a one-line message; what still loads
must be a real float32 ``(V, d)`` matrix, and the listing must not fail differently.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch
from _models import save_tiny, write_onnx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_readers import mutated

from repcap import RepcapError
from repcap.models.embeddings import list_tensors, load

N_CASES = 400
RUNS: dict[str, int] = {}
_TMP = Path(tempfile.mkdtemp(prefix="repcap-fuzz-onnx-"))
_settings = settings(
    max_examples=N_CASES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


def _check(name: str, path: Path, head: bool = False) -> None:
    RUNS[name] = RUNS.get(name, 0) + 1
    try:
        e = load(path, head=head)
    except RepcapError as exc:
        assert str(exc) and "\n" not in str(exc), repr(exc)
    else:
        assert e.matrix.dtype == torch.float32 and e.matrix.ndim == 2 and min(e.matrix.shape) >= 1
        assert not e.matrix.is_complex()
    try:
        list_tensors(path)
    except RepcapError as exc:
        assert str(exc) and "\n" not in str(exc), repr(exc)


# --- ONNX --------------------------------------------------------------------------------------
def _seed_onnx() -> bytes:
    p = _TMP / "seed.onnx"
    write_onnx(p, np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32))
    return p.read_bytes()


ONNX_SEED = _seed_onnx()


@_settings
@given(data=mutated(ONNX_SEED, header_bias=len(ONNX_SEED)))
def test_fuzz_onnx_bytes(data):
    p = _TMP / "case.onnx"
    p.write_bytes(data)
    _check("onnx bytes", p)


_DTYPES = list(range(24))  # every TensorProto.DataType value, and a few that are not
_LOCATIONS = [
    "data.bin",
    "../outside.bin",
    "/etc/passwd",
    "sub/../data.bin",
    "x" * 300,
    "",
    "data.bin\x00x",
    "missing.bin",
]


@st.composite
def initialiser(draw):
    from onnx import TensorProto

    t = TensorProto()
    t.name = draw(st.sampled_from(["model.embed_tokens.weight", "word_embeddings.weight", "w", ""]))
    t.data_type = draw(st.sampled_from(_DTYPES))
    t.dims.extend(draw(st.lists(st.sampled_from([0, 1, 2, 3, 8, 16, -1, 2**31, 2**40]), max_size=3)))
    where = draw(st.sampled_from(["raw", "float", "int32", "int64", "double", "external", "none"]))
    if where == "raw":
        t.raw_data = draw(st.binary(max_size=600))
    elif where == "float":
        t.float_data.extend(draw(st.lists(st.floats(width=32), max_size=160)))
    elif where == "int32":
        t.int32_data.extend(draw(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=160)))
    elif where == "int64":
        t.int64_data.extend(draw(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=160)))
    elif where == "double":
        t.double_data.extend(draw(st.lists(st.floats(), max_size=160)))
    elif where == "external":
        t.data_location = TensorProto.EXTERNAL
        for key, val in (
            ("location", draw(st.sampled_from(_LOCATIONS))),
            ("offset", draw(st.sampled_from(["0", "4", "-8", "999999", "x"]))),
            ("length", draw(st.sampled_from(["512", "0", "-1", "100000000", "y"]))),
        ):
            if draw(st.booleans()) or key == "location":
                e = t.external_data.add()
                e.key, e.value = key, val
    return t


@_settings
@given(inits=st.lists(initialiser(), min_size=1, max_size=3), outside=st.booleans())
def test_fuzz_onnx_initialisers(inits, outside):
    from onnx import TensorProto, helper

    folder = _TMP / "onnx-case"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "sub").mkdir(parents=True)
    (folder / "data.bin").write_bytes(np.arange(256, dtype=np.float32).tobytes() * 2)
    if outside:
        (_TMP / "outside.bin").write_bytes(np.ones(256, dtype=np.float32).tobytes())
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [None])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [None])
    graph = helper.make_graph([], "g", [ids], [out], inits)
    p = folder / "model.onnx"
    p.write_bytes(helper.make_model(graph).SerializeToString())
    _check("onnx initialisers", p)
    if outside:  # an external location outside the model folder is never read
        try:
            e = load(p)
        except RepcapError:
            return
        assert not torch.all(e.matrix == 1.0)


# --- model folders: config.json and the safetensors index --------------------------------------
def _seed_folder() -> Path:
    src = _TMP / "seed-folder"
    save_tiny("llama", tied=False, out=src, shard=True)
    return src


SEED_FOLDER = _seed_folder()
SEED_INDEX = json.loads((SEED_FOLDER / "model.safetensors.index.json").read_text())
SEED_CONFIG = json.loads((SEED_FOLDER / "config.json").read_text())
SHARDS = sorted(set(SEED_INDEX["weight_map"].values()))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4),
    max_leaves=12,
)
shard_names = st.sampled_from(
    SHARDS
    + [
        "../" + SHARDS[0],
        "/etc/passwd",
        SHARDS[0] + "/..",
        "nope.safetensors",
        "a" * 300 + ".safetensors",
        "",
        "sub/" + SHARDS[0],
        SHARDS[0].upper(),
    ]
)


@st.composite
def folder_edit(draw):
    cfg, idx = json.loads(json.dumps(SEED_CONFIG)), json.loads(json.dumps(SEED_INDEX))
    what = draw(st.sampled_from(["config-any", "index-any", "tie", "weight-map", "map-value", "raw-bytes"]))
    raw = None
    if what == "config-any":
        cfg = draw(json_values)
    elif what == "index-any":
        idx = draw(json_values)
    elif what == "tie":
        cfg["tie_word_embeddings"] = draw(json_values | st.sampled_from(["false", "TRUE", "no", 1, 0]))
    elif what == "weight-map":
        idx["weight_map"] = draw(json_values)
    elif what == "map-value":
        key = draw(st.sampled_from(sorted(idx["weight_map"])))
        idx["weight_map"][key] = draw(shard_names | json_values)
    else:
        target = draw(st.sampled_from(["config.json", "model.safetensors.index.json"]))
        text = (SEED_FOLDER / target).read_bytes()
        cut = draw(st.integers(0, len(text)))
        raw = (target, text[:cut] + draw(st.binary(max_size=8)))
    return cfg, idx, raw


@_settings
@given(edit=folder_edit(), head=st.booleans())
def test_fuzz_folder_json(edit, head):
    cfg, idx, raw = edit
    folder = _TMP / "folder-case"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(SEED_FOLDER, folder)
    (folder / "config.json").write_text(json.dumps(cfg))
    (folder / "model.safetensors.index.json").write_text(json.dumps(idx))
    if raw is not None:
        (folder / raw[0]).write_bytes(raw[1])
    _check("folder json", folder, head)


def test_fuzz_onnx_index_count():
    """The seeds load, and the cases run so far are printed (run the whole file for the total)."""
    assert load(_TMP / "seed.onnx").matrix.shape == (16, 8)
    assert load(SEED_FOLDER).matrix.ndim == 2
    total = sum(RUNS.values())
    print(
        f"\nfuzz cases run: {total} ({', '.join(f'{k} {v}' for k, v in sorted(RUNS.items()))}); "
        "exceptions other than RepcapError: 0"
    )
    if RUNS:
        assert total >= 3 * N_CASES * 0.9


def test_an_initialiser_name_that_is_not_utf8_is_refused_in_one_line():
    """protobuf hands an invalid UTF-8 name back as bytes (found by the byte fuzzer above)."""
    p = _TMP / "bad-name.onnx"
    p.write_bytes(ONNX_SEED.replace(b"model.0.auto", b"\x80odel.0.auto"))
    for call in (load, list_tensors):
        with pytest.raises(RepcapError, match="not valid UTF-8"):
            call(p)
