"""The slice cache's layout on disk is a file format: a cache written before the hub transport
moved onto ``huggingface_hub`` (issue 43) is read after it.  The cache here is written by hand, as
repcap wrote it then (``refs/<revision>``, ``<commit>/manifest.json``, ``<commit>/<file>.json``
with ``indent=1`` and ``blobs/<sha256>``), and read offline with no request; an online run writes
the same layout."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from _hub_fixtures import matrix, offline, serve_loopback, single

from repcap.models.embeddings import list_tensors
from repcap.models.hub import load_hub, slice_cache_folder

COMMIT = "0123456789abcdef0123456789abcdef01234567"
CFG = {"model_type": "llama", "tie_word_embeddings": True}


@pytest.fixture
def hub(monkeypatch, tmp_path):
    yield from serve_loopback(monkeypatch, tmp_path)


def _write_old_cache(root: Path, data: bytes, name: str) -> None:
    """The slice cache of ``org/old`` at ``COMMIT`` holding the header and tensor ``name``."""
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + n])
    b, e = header[name]["data_offsets"]
    parts = {"__header__": (0, 8 + n), name: (8 + n + b, 8 + n + e)}
    ranges = []
    for tensor, (start, end) in parts.items():
        blob = data[start:end]
        sha = hashlib.sha256(blob).hexdigest()
        (root / "blobs").mkdir(parents=True, exist_ok=True)
        (root / "blobs" / sha).write_bytes(blob)
        ranges.append({"tensor": tensor, "start": start, "end": end, "sha256": sha})
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(COMMIT)
    (root / COMMIT).mkdir()
    (root / COMMIT / "manifest.json").write_text(json.dumps({"files": ["model.safetensors"]}))
    rec = {
        "repo": "org/old",
        "commit": COMMIT,
        "file": "model.safetensors",
        "etag": hashlib.sha256(data).hexdigest(),
        "size": len(data),
        "ranges": ranges,
    }
    (root / COMMIT / "model.safetensors.json").write_text(json.dumps(rec, indent=1))


def test_a_cache_written_before_the_move_is_read_offline_with_no_request(hub, monkeypatch):
    emb = matrix(96, 16, 3, "F32")
    files = single([("model.embed_tokens.weight", emb)], None)
    _write_old_cache(slice_cache_folder("org/old"), files["model.safetensors"], "model.embed_tokens.weight")
    offline(monkeypatch, hub)
    e = load_hub("org/old")
    np.testing.assert_array_equal(e.matrix.numpy(), emb.numpy())
    assert (e.tensor_name, e.meta["commit"]) == ("model.embed_tokens.weight", COMMIT)
    assert [i.name for i in list_tensors("org/old")] == ["model.embed_tokens.weight"]
    assert hub.log == []


def test_an_online_run_writes_that_layout(hub):
    emb = matrix(96, 16, 4, "F32")
    files = single([("model.embed_tokens.weight", emb)], CFG)
    sha = hub.add("org/new", files)
    load_hub("org/new")
    root = slice_cache_folder("org/new")
    assert (root / "refs" / "main").read_text() == sha
    assert json.loads((root / sha / "manifest.json").read_text()) == {"files": ["config.json", "model.safetensors"]}
    rec = json.loads((root / sha / "model.safetensors.json").read_text())
    data = files["model.safetensors"]
    assert (rec["repo"], rec["commit"], rec["file"], rec["size"]) == ("org/new", sha, "model.safetensors", len(data))
    assert rec["etag"] == hashlib.sha256(data).hexdigest()
    assert [r["tensor"] for r in rec["ranges"]] == ["__header__", "model.embed_tokens.weight"]
    for r in rec["ranges"]:
        blob = (root / "blobs" / r["sha256"]).read_bytes()
        assert blob == data[r["start"] : r["end"]] and hashlib.sha256(blob).hexdigest() == r["sha256"]
