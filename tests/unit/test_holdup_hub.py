"""Hold up, round 4 (issue 38): the hub's cases, against the loopback hub.

A server that trickles a tensor (each read within the socket timeout) is cut off by the range's
deadline; crafted GGUF headers are refused naming the repository and file (never a temporary path,
never "re-download"); a parse failure inside the bytes already fetched is final; a stated size no
model file has is refused; a captive portal's HTML page is named as such; a full disk names the
slice cache's folder; ``--file`` (or ``owner/name/NAME.gguf``) picks one of several GGUF files; a
header that defines a tensor twice is refused; slice-cache records and blobs are not trusted."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from _hub_fixtures import gguf_repo, matrix, offline, serve_loopback, sharded, single, st_bytes

from repcap import RepcapError, cli
from repcap.models.hub import load_hub, slice_cache_folder

MiB = 1 << 20
CFG = {"model_type": "llama", "tie_word_embeddings": False}


@pytest.fixture
def hub(monkeypatch, tmp_path):
    yield from serve_loopback(monkeypatch, tmp_path)


def one_line(capsys, argv: list[str], *needles: str, absent: tuple[str, ...] = ()) -> str:
    """``repcap ARGV`` fails with status 2 and exactly one stderr line holding every needle."""
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    for n in absent:
        assert n not in lines[0], (n, lines[0])
    return lines[0]


# --------------------------------------------------------------------------------------------
# time: a trickling server


def test_trickling_server_is_cut_off_by_the_range_deadline(hub, capsys, monkeypatch):
    """5 bytes/s held `repcap stats` forever: each read arrived within HF_HUB_DOWNLOAD_TIMEOUT.  The
    range's deadline (HF_HUB_DOWNLOAD_TIMEOUT per MiB, plus four) ends it in one line naming the
    endpoint, the repository, the file and the bytes received."""
    import huggingface_hub.constants as c

    from repcap.models.hub.transport import range_deadline

    emb = matrix(512, 256, 1, "BF16")  # 256 KiB
    hub.add("org/slow", single([("model.embed_tokens.weight", emb)], CFG, dtype="BF16"))
    monkeypatch.setattr(c, "HF_HUB_DOWNLOAD_TIMEOUT", 0.4)
    hub.faults["trickle"] = 4000  # bytes a second: 16 bytes every 4 ms, far inside the 0.4 s timeout
    t0 = time.monotonic()
    line = one_line(
        capsys,
        ["stats", "org/slow"],
        "org/slow",
        "model.safetensors",
        hub.url,
        "too slowly",
        "of 262,144 bytes",
        "HF_HUB_DOWNLOAD_TIMEOUT",
    )
    spent = time.monotonic() - t0
    deadline = range_deadline(256 * 1024, 0.4)
    assert deadline < spent < deadline + 5, (spent, line)
    assert "nothing was kept" in line
    blobs = slice_cache_folder("org/slow") / "blobs"
    assert all(p.stat().st_size < 256 * 1024 for p in blobs.iterdir())  # no partial tensor kept


# --------------------------------------------------------------------------------------------
# GGUF headers served by the hub


def _s(b: bytes) -> bytes:
    return struct.pack("<Q", len(b)) + b


def _gguf(n_tensors: int, kvs: list[bytes], infos: list[bytes] = (), size: int = 300 * 1024) -> bytes:
    """A GGUF v3 file: header, metadata, tensor infos, padded to ``size`` bytes."""
    raw = b"GGUF" + struct.pack("<IQQ", 3, n_tensors, len(kvs)) + b"".join(kvs) + b"".join(infos)
    return raw + b"\0" * (size - len(raw))


def _kv_str(key: str, value: bytes, declared: int | None = None) -> bytes:
    n = len(value) if declared is None else declared
    return _s(key.encode()) + struct.pack("<I", 8) + struct.pack("<Q", n) + value


def _tensor_info(name: str, dims: tuple[int, ...], offset: int) -> bytes:
    return (
        _s(name.encode())
        + struct.pack("<I", len(dims))
        + struct.pack(f"<{len(dims)}Q", *dims)
        + struct.pack("<IQ", 0, offset)
    )


CRAFTED = {
    "2**63 tensors": _gguf(2**63, [_kv_str("general.name", b"x")]),
    "a string of 2**62 bytes": _gguf(1, [_kv_str("general.name", b"x", declared=2**62)]),
    "a negative string length": _gguf(1, [_kv_str("general.name", b"x", declared=2**64 - 1)]),
    "a tensor at offset 2**40": _gguf(
        1, [_kv_str("general.name", b"x")], [_tensor_info("token_embd.weight", (8, 4), 2**40)]
    ),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_crafted_gguf_headers_name_the_repo_and_file_not_a_temporary_path(hub, capsys, case):
    hub.add("org/crafted", {"model-Q8_0.gguf": CRAFTED[case]})
    line = one_line(
        capsys,
        ["stats", "org/crafted"],
        "org/crafted",
        "model-Q8_0.gguf",
        absent=("/tmp", "repcap-gguf", "re-download", "f.gguf"),
    )
    assert "malformed" in line or "no model file" in line, line
    assert hub.bytes_for("org/crafted") <= 300 * 1024


def test_a_table_broken_inside_the_fetched_bytes_is_final(hub, capsys):
    """A value type no GGUF has, at byte 113 of a 4 MiB file: refused after the first read (it
    fetched 1 GiB of a 2 GiB file, taking every parse error for "the table is not whole yet")."""
    bad = _s(b"general.broken") + struct.pack("<I", 99) + b"\x01" * 8
    raw = _gguf(1, [_kv_str("general.name", b"tiny"), _kv_str("general.architecture", b"llama"), bad], size=4 * MiB)
    assert raw.index(b"general.broken") + len(b"general.broken") == 127  # the bad type, 113 bytes of table in
    hub.add("org/broken", {"model.gguf": raw})
    one_line(capsys, ["stats", "org/broken"], "org/broken", "model.gguf", "malformed", absent=("/tmp",))
    from repcap.models.hub.remote import GGUF_PREFIX

    assert hub.bytes_for("org/broken") <= GGUF_PREFIX


def test_a_table_that_goes_on_is_read_in_more_steps(hub, tmp_path):
    """The other side: a real header longer than the first read (a 40,000-token vocabulary) is
    read in more steps, and the tensor is right."""
    emb = np.random.default_rng(1).standard_normal((40000, 32)).astype(np.float32)
    files = gguf_repo(tmp_path / "long-F16.gguf", emb, "F16")
    hub.add("org/long", files)
    from repcap.models.hub.remote import GGUF_PREFIX

    assert (tmp_path / "long-F16.gguf").stat().st_size > GGUF_PREFIX
    e = load_hub("org/long")
    np.testing.assert_allclose(e.matrix.numpy(), emb.astype(np.float16).astype(np.float32))


def test_a_stated_size_no_model_file_has_is_refused(hub, capsys):
    """A file the server calls 2**62 bytes ended in "File too large" (the sparse staging file)."""
    hub.add("org/huge", {"model.gguf": CRAFTED["2**63 tensors"]})
    hub.faults["claim_size"] = 2**62
    one_line(capsys, ["stats", "org/huge"], "org/huge", "model.gguf", "which no model file does", "refused")
    assert hub.bytes_for("org/huge") == 0


def test_two_gguf_files_one_picked_by_file_or_by_path(hub, capsys, tmp_path):
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal((64, 32)).astype(np.float32) for _ in range(2))
    files = {**gguf_repo(tmp_path / "m-F32.gguf", a, "F32"), **gguf_repo(tmp_path / "m-F16.gguf", b, "F16")}
    hub.add("org/two", files)
    line = one_line(capsys, ["stats", "org/two"], "2 .gguf files", "--file")
    assert "repcap stats org/two --file m-F" in line
    assert cli.main(["stats", "org/two", "--file", "m-F16.gguf", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert (rec["vocab_size"], rec["d_model"], rec["quant"]) == (64, 32, "F16")
    assert cli.main(["stats", "org/two/m-F32.gguf", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["quant"] == "F32"
    assert cli.main(["stats", "org/two", "--file", "m-F32.gguf", "--list-tensors"]) == 0
    assert "token_embd.weight" in capsys.readouterr().out
    one_line(capsys, ["stats", "org/two", "--file", "../x.gguf"], "--file", "plain relative name")
    one_line(capsys, ["stats", "org/two", "--file", "nope.gguf"], "has no file 'nope.gguf'")


# --------------------------------------------------------------------------------------------
# HTML, full disk, safetensors offsets and duplicate names


def test_a_captive_portal_page_is_named_as_html(hub, capsys):
    hub.add("org/m", single([("model.embed_tokens.weight", matrix(64, 32, 1, "F32"))], CFG))
    hub.faults["html_info"] = True
    one_line(capsys, ["stats", "org/m"], "org/m", "model info", "HTML page", hub.url, absent=("JSONDecodeError",))


def _header_repo(edit) -> bytes:
    good = st_bytes({"model.embed_tokens.weight": torch.zeros(64, 32), "lm_head.weight": torch.zeros(64, 32)})
    n = int.from_bytes(good[:8], "little")
    raw = edit(good[8 : 8 + n].decode())
    raw = raw.encode() + b" " * (-len(raw) % 8)
    return len(raw).to_bytes(8, "little") + raw + good[8 + n :]


def test_a_header_naming_a_tensor_twice_is_refused_local_and_hub(hub, capsys, tmp_path):
    """Two definitions of the embedding, two shapes: the last silently won."""

    def twice(text: str) -> str:
        hdr = json.loads(text)
        e = hdr["model.embed_tokens.weight"]
        second = dict(e, shape=[32, 64])
        return text.rstrip()[:-1] + ', "model.embed_tokens.weight": ' + json.dumps(second) + "}"

    data = _header_repo(twice)
    hub.add("org/twice", {"model.safetensors": data})
    one_line(capsys, ["stats", "org/twice"], "org/twice", "appears twice", "model.embed_tokens.weight")
    local = tmp_path / "twice.safetensors"
    local.write_bytes(data)
    one_line(capsys, ["stats", str(local)], str(local), "appears twice")
    one_line(capsys, ["stats", str(local), "--list-tensors"], "appears twice")


def test_offsets_past_the_data_are_named_as_offsets(tmp_path, capsys):
    """'131072 bytes but the file holds only 131072': the offsets were the fault, not the size."""

    def past(text: str) -> str:
        hdr = json.loads(text)
        last = max(hdr, key=lambda k: hdr[k]["data_offsets"][1])  # the tensor that ends the data
        b, e = hdr[last]["data_offsets"]
        hdr[last]["data_offsets"] = [b + 8, e + 8]
        return json.dumps(hdr)

    p = tmp_path / "past.safetensors"
    p.write_bytes(_header_repo(past))
    line = one_line(capsys, ["stats", str(p)], "data_offsets [8200, 16392]", "run past the end of the data")
    assert "holds 16384 bytes" in line


def test_a_full_disk_names_the_slice_cache_folder(hub, tmp_path):
    """The slice cache on a full device said "No space left on device" and no folder.  A real
    full file system: a 64 KiB tmpfs mounted in a private mount namespace (skipped where the
    machine does not allow one)."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare here")
    emb = matrix(256, 256, 3, "BF16")  # 128 KiB: more than the file system holds
    hub.add("org/full", single([("model.embed_tokens.weight", emb)], CFG, dtype="BF16"))
    mnt = tmp_path / "full"
    mnt.mkdir()
    import huggingface_hub.constants as c

    script = (
        "import sys, huggingface_hub.constants as c\n"
        f"c.ENDPOINT = {hub.url!r}\n"
        f"c.HUGGINGFACE_CO_URL_TEMPLATE = {hub.url + '/{repo_id}/resolve/{revision}/{filename}'!r}\n"
        f"c.HF_HUB_CACHE = {c.HF_HUB_CACHE!r}\n"
        "from repcap import cli\n"
        "sys.exit(cli.main(['stats', 'org/full']))\n"
    )
    env = {**os.environ, "REPCAP_CACHE": str(mnt / "cache"), "HF_HUB_DISABLE_PROGRESS_BARS": "1", "HF_TOKEN": ""}
    cmd = [
        "unshare",
        "-rm" if os.geteuid() else "-m",
        "sh",
        "-c",
        f'mount -t tmpfs -o size=64k none "{mnt}" || exit 97; exec "$0" -c "$1"',
        sys.executable,
        script,
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode == 97 or "unshare:" in proc.stderr:
        pytest.skip(f"no private tmpfs here: {proc.stderr.strip()[:200]}")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "no space left on the device" in lines[0] and f"{mnt}/cache/hub-slices/org--full" in lines[0], lines[0]
    assert "REPCAP_CACHE" in lines[0]


# --------------------------------------------------------------------------------------------
# the slice cache's own metadata


def _record(root: Path, fname: str) -> Path:
    (rec,) = [p for p in root.glob("*/*.json") if p.name == fname + ".json"]
    return rec


@pytest.mark.parametrize(
    "damage",
    ["ranges hold a number", "end is text", "sha256 is not a digest", "size is text", "a range past the size"],
)
def test_damaged_slice_records_count_as_absent(hub, capsys, monkeypatch, damage):
    """Records whose ranges hold a number, or whose end is text, ended in tracebacks.  Online the
    slices are fetched again and the result is right; offline it is one line."""
    emb = matrix(256, 64, 4, "F32")
    hub.add("org/rec", single([("model.embed_tokens.weight", emb)], CFG))
    e0 = load_hub("org/rec")
    root = slice_cache_folder("org/rec")
    rp = _record(root, "model.safetensors")
    rec = json.loads(rp.read_text())
    if damage == "ranges hold a number":
        rec["ranges"] = 7
    elif damage == "end is text":
        rec["ranges"][0]["end"] = "lots"
    elif damage == "sha256 is not a digest":
        rec["ranges"][0]["sha256"] = "../../../etc/passwd"
    elif damage == "size is text":
        rec["size"] = "big"
    else:
        rec["ranges"][-1]["end"] = rec["size"] + 10
    rp.write_text(json.dumps(rec))
    offline(monkeypatch, hub)
    one_line(capsys, ["stats", "org/rec"], "org/rec", "HF_HUB_OFFLINE")
    import huggingface_hub.constants as c

    monkeypatch.setattr(c, "HF_HUB_OFFLINE", False)
    e1 = load_hub("org/rec")
    assert torch.equal(e0.matrix, e1.matrix)
    assert hub.bytes_for("org/rec") > 0  # fetched again


def test_a_fifo_in_a_blobs_place_does_not_hang_an_offline_run(hub, tmp_path, monkeypatch):
    """A blob replaced by a FIFO hung an offline run (reading it blocks for ever).  The run, in a
    process of its own with a time limit, ends in one line; online it is fetched again."""
    emb = matrix(256, 64, 5, "F32")
    hub.add("org/fifo", single([("model.embed_tokens.weight", emb)], CFG))
    load_hub("org/fifo")
    root = slice_cache_folder("org/fifo")
    blobs = sorted((root / "blobs").iterdir(), key=lambda p: p.stat().st_size)
    big = blobs[-1]  # the tensor's bytes
    big.unlink()
    os.mkfifo(big)
    import huggingface_hub.constants as c

    env = {
        **os.environ,
        "REPCAP_CACHE": os.environ["REPCAP_CACHE"],
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_CACHE": c.HF_HUB_CACHE,
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    }
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "repcap", "stats", "org/fifo"], env=env, capture_output=True, text=True, timeout=120
    )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "org/fifo" in lines[0] and "HF_HUB_OFFLINE" in lines[0] and f"{big} is damaged" in lines[0]
    assert time.monotonic() - t0 < 100
    assert big.is_fifo()  # named for the user to delete, never read (issue 46: damaged, not absent)
    e = load_hub("org/fifo")  # online: fetched again
    np.testing.assert_array_equal(e.matrix.numpy(), emb.numpy())
    assert big.is_file()


def test_a_symlinked_blob_is_not_followed(hub, tmp_path):
    emb = matrix(128, 64, 6, "F32")
    hub.add("org/link", single([("model.embed_tokens.weight", emb)], CFG))
    load_hub("org/link")
    blobs = sorted((slice_cache_folder("org/link") / "blobs").iterdir(), key=lambda p: p.stat().st_size)
    big = blobs[-1]
    outside = tmp_path / "elsewhere"
    outside.write_bytes(big.read_bytes())
    big.unlink()
    big.symlink_to(outside)
    hub.reset_counts()
    e = load_hub("org/link")
    np.testing.assert_array_equal(e.matrix.numpy(), emb.numpy())
    assert hub.bytes_for("org/link") > 0 and not big.is_symlink()


def test_sharded_repo_still_reads_after_the_changes(hub):
    """The ordinary case, unchanged: a sharded bf16 repo reads the embedding's bytes only."""
    emb = matrix(512, 128, 7, "BF16")
    hub.add("org/sh", sharded([("model.embed_tokens.weight", emb)], 3, CFG, fill=MiB))
    e = load_hub("org/sh")
    np.testing.assert_array_equal(e.matrix.numpy(), emb.float().numpy())
    assert hub.bytes_for("org/sh") < 512 * 128 * 2 + 64 * 1024


def test_relabelled_reader_errors_keep_one_line():
    from repcap.models.hub.remote import _relabelled

    p = Path("/tmp/repcap-gguf-abc/f.gguf")
    e = _relabelled(
        RepcapError(f"{p}: malformed GGUF file (x); re-download or re-export it"), p, "hub model 'o/n': m.gguf"
    )
    assert str(e) == "hub model 'o/n': m.gguf: malformed GGUF file (x); the file on the hub is so, nothing was kept"
