"""Every failure of the hub ends in one line (issue 19, items 3 and 6): gated, missing, an unknown
revision, a dropped connection (resumed: the right tensor, or one line, never a short one), a body
shorter than its Content-Length, an etag that changes between header and body, a slow server, no
network, offline with nothing cached, and a header whose offsets lie outside the file."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from _hub_fixtures import matrix, offline, serve_loopback, sharded, st_bytes

from repcap import RepcapError, cli
from repcap.models.hub import load_hub

MiB = 1 << 20
CFG = {"model_type": "llama", "tie_word_embeddings": False}


@pytest.fixture
def hub(monkeypatch, tmp_path):
    yield from serve_loopback(monkeypatch, tmp_path)


def _repo(server, repo="org/m", **kw):
    emb = matrix(1024, 256, 1, "BF16", shift=0.3)  # 512 KiB
    files = sharded(
        [("model.embed_tokens.weight", emb), ("lm_head.weight", matrix(1024, 256, 2, "BF16"))], 2, CFG, fill=MiB
    )
    server.add(repo, files, **kw)
    return emb


def one_line(capsys, argv: list[str], *needles: str) -> str:
    """``repcap ARGV`` fails with status 2 and exactly one stderr line holding every needle."""
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def test_gated_names_hf_auth_login(hub, capsys):
    _repo(hub, gated=True)
    one_line(capsys, ["stats", "org/m"], "gated", "hf auth login", "org/m")


def test_missing_repo(hub, capsys):
    one_line(capsys, ["stats", "org/nothing-here"], "no such repo", "hf auth login")


def test_unknown_revision(hub):
    _repo(hub)
    with pytest.raises(RepcapError, match="no such revision") as e:
        load_hub("org/m", revision="v9-nope")
    assert "\n" not in str(e.value)


def test_dropped_connection_is_resumed(hub):
    emb = _repo(hub)
    hub.faults["drop_once"] = True
    e = load_hub("org/m")
    np.testing.assert_array_equal(e.matrix.numpy(), emb.float().numpy())
    ranges = [r for m, p, r in hub.log if r and p.startswith("/lfs/")]
    assert any(r.split("=")[1].split("-")[0] not in ("0", "8") and not r.startswith("bytes=0-") for r in ranges)
    assert hub.bytes_for("org/m") <= 1.5 * emb.numel() * 2 + MiB


def test_short_body_is_refused_not_used(hub, capsys):
    _repo(hub)
    hub.faults["short"] = True
    one_line(capsys, ["stats", "org/m"], "arrived incomplete", "nothing was used", "HF_HUB_OFFLINE=1")
    from repcap.models.hub import slice_cache_folder

    blobs = slice_cache_folder("org/m") / "blobs"
    assert all(p.stat().st_size < 512 * 1024 for p in blobs.iterdir())  # no partial tensor was kept


def test_etag_change_between_header_and_body_is_refused(hub, capsys):
    _repo(hub)
    hub.faults["etag_flip"] = True
    one_line(capsys, ["stats", "org/m"], "changed on the hub", "refused")


def test_slow_server_times_out_in_one_line(hub, capsys, monkeypatch):
    import huggingface_hub.constants as c

    _repo(hub)
    monkeypatch.setattr(c, "HF_HUB_DOWNLOAD_TIMEOUT", 0.3)
    hub.faults["slow"] = 1.5
    one_line(capsys, ["stats", "org/m"], "did not answer in time", "HF_HUB_DOWNLOAD_TIMEOUT")


def test_no_network_names_the_endpoint_and_the_way_out(hub, capsys, monkeypatch):
    import socket

    import huggingface_hub.constants as c

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    s.close()  # nothing listens there now
    monkeypatch.setattr(c, "ENDPOINT", dead)
    monkeypatch.setattr(c, "HUGGINGFACE_CO_URL_TEMPLATE", dead + "/{repo_id}/resolve/{revision}/{filename}")
    one_line(capsys, ["stats", "org/m"], dead, "HF_HUB_OFFLINE=1", "local file")


def test_offline_with_nothing_cached(hub, capsys, monkeypatch):
    _repo(hub)
    offline(monkeypatch, hub)
    one_line(capsys, ["stats", "org/m"], "HF_HUB_OFFLINE is set", "run once with the network")
    one_line(capsys, ["stats", "org/m", "--list-tensors"], "HF_HUB_OFFLINE is set")
    assert hub.log == []


def test_header_offsets_outside_the_file_are_refused_before_reading(hub, capsys):
    good = st_bytes({"model.embed_tokens.weight": torch.zeros(64, 32)})
    n = int.from_bytes(good[:8], "little")
    hdr = json.loads(good[8 : 8 + n])
    hdr["model.embed_tokens.weight"]["shape"] = [640000, 32]  # 80 MB declared in an 8 KiB file
    hdr["model.embed_tokens.weight"]["data_offsets"] = [0, 640000 * 32 * 4]
    raw = json.dumps(hdr).encode()
    raw += b" " * (-len(raw) % 8)
    hub.add("org/hostile", {"model.safetensors": len(raw).to_bytes(8, "little") + raw + good[8 + n :]})
    one_line(capsys, ["stats", "org/hostile"], "refused without reading it")
    assert [r for _, p, r in hub.log if p.startswith("/lfs/")] == ["bytes=0-7", f"bytes=8-{8 + len(raw) - 1}"]
