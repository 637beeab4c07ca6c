"""``repcap stats owner/name`` end to end in a fresh process, the real ``huggingface_hub`` client
pointed at the loopback hub by ``HF_ENDPOINT`` (issue 19, "Done when"): a sharded repo costs at most
1.5 x the tensor's bytes + 1 MiB, eps equals a float64 reference to 1e-6, a second run downloads
nothing, an offline run (``HF_HUB_OFFLINE=1``) makes no request and prints the same numbers, and
``--list-tensors`` works offline from the headers an online listing cached."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from _hub_fixtures import eps64, matrix, sharded
from _hubserver import HubServer

MiB = 1 << 20


def _run(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "repcap", "stats", *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_stats_of_a_sharded_hub_repo_through_hf_endpoint(tmp_path):
    server = HubServer()
    try:
        emb = matrix(4096, 256, 21, "BF16", zero_rows=7, shift=0.4)  # 2 MiB
        tensors = [("model.embed_tokens.weight", emb), ("lm_head.weight", matrix(4096, 256, 22, "BF16"))]
        files = sharded(tensors, 3, {"model_type": "llama", "tie_word_embeddings": False}, fill=8 * MiB)
        server.add("org/tiny-llama", files)
        env = {
            **os.environ,
            "HF_ENDPOINT": server.url,
            "HF_HOME": str(tmp_path / "hf"),
            "REPCAP_CACHE": str(tmp_path / "repcap"),
            "HF_HUB_DISABLE_TELEMETRY": "1",
        }
        env.pop("HF_HUB_OFFLINE", None)
        first = _run(env, "org/tiny-llama", "--json", "--device", "cpu")
        assert first.returncode == 0, first.stderr
        rec = json.loads(first.stdout)
        ref = eps64(emb)
        assert abs(rec["eps"] - ref["eps"]) < 1e-6 and abs(rec["std"] - ref["std"]) < 1e-6
        assert rec["n_zero_rows"] == 7 and rec["tied"] is False and rec["tensor"] == "model.embed_tokens.weight"
        tensor_bytes = emb.numel() * 2
        fetched = server.bytes_for("org/tiny-llama")
        shard = json.loads(files["model.safetensors.index.json"])["weight_map"]["model.embed_tokens.weight"]
        assert fetched <= 1.5 * tensor_bytes + MiB and fetched < len(files[shard]) / 4, fetched

        server.reset_counts()
        second = _run(env, "org/tiny-llama", "--json", "--device", "cpu")
        assert second.returncode == 0 and sum(server.sent.values()) == 0, second.stderr
        assert json.loads(second.stdout)["eps"] == rec["eps"]

        listed = _run(env, "org/tiny-llama", "--list-tensors")  # every shard's header: a few KiB
        assert listed.returncode == 0, listed.stderr
        server.reset_counts()
        off = {**env, "HF_HUB_OFFLINE": "1"}
        third = _run(off, "org/tiny-llama", "--json", "--device", "cpu")
        assert third.returncode == 0, third.stderr
        assert server.log == [] and json.loads(third.stdout)["eps"] == rec["eps"]
        listing = _run(off, "org/tiny-llama", "--list-tensors")
        assert listing.returncode == 0 and listing.stdout == listed.stdout and server.log == []
        assert "model.embed_tokens.weight" in listing.stdout
    finally:
        server.close()
