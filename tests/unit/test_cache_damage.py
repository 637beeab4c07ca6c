"""Damage is not absence, and no cache read blocks on a FIFO (issue 46).

Offline, a slice-cache entry that is there but damaged (a blob replaced by a FIFO, a record whose
``end`` is text, a manifest that is a FIFO) is named as damaged, with its path and what to do, not
reported as "never read"; online it is fetched again.  In each of repcap's caches (the sweep cache
and its claims and import index, the slice cache, a bundle's files and an export's staging marker,
the offline models' ``.npy`` sidecars and ``.verified`` markers) a FIFO where a file belongs ends in a
clean outcome: every operation runs in a thread with a time limit, so a read that blocks fails the
test instead of hanging it (and the FIFO is then opened for writing, to let the blocked reader go).
"""

from __future__ import annotations

import errno
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from _hub_fixtures import matrix, offline, serve_loopback, single

from repcap import RepcapError, cli
from repcap.base import io as rio
from repcap.models.hub import load_hub, slice_cache_folder

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")

CFG = {"model_type": "llama", "tie_word_embeddings": False}
LIMIT_S = 20.0
KEY = "ab" + "0" * 62


def _release(fifo: Path) -> None:
    """Let a reader blocked on ``fifo`` go: open it for writing (non-blocking) and close it."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:  # no reader (ENXIO), or it is gone
        if exc.errno not in (errno.ENXIO, errno.ENOENT):
            raise
        return
    os.close(fd)


def within(fn: Callable[[], Any], *fifos: Path, seconds: float = LIMIT_S) -> Any:
    """``fn()`` run in a thread; fails the test if it is still running after ``seconds`` (blocked
    on one of ``fifos``, which are then released); re-raises what ``fn`` raised."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        for f in fifos:
            _release(f)
        t.join(5)
        pytest.fail(f"still running after {seconds:.0f} s: blocked reading a FIFO ({', '.join(map(str, fifos))})")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def fifo_at(path: Path) -> Path:
    if os.path.lexists(path):
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def one_line(capsys, argv: list[str], *fifos: Path) -> str:
    """``repcap ARGV`` (within the time limit) fails with status 2 and one stderr line."""
    assert within(lambda: cli.main(argv), *fifos) == 2
    err = capsys.readouterr().err.strip()
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# --------------------------------------------------------------------------------------------
# the shared helper


def test_read_regular_bytes_names_what_is_there(tmp_path):
    f = fifo_at(tmp_path / "pipe")
    with pytest.raises(rio.NotRegularFile, match=r"pipe: a FIFO \(named pipe\), not a regular file$"):
        within(lambda: rio.read_regular_bytes(f), f)
    with pytest.raises(rio.NotRegularFile, match="a folder"):
        rio.read_regular_bytes(tmp_path)
    with pytest.raises(FileNotFoundError):
        rio.read_regular_bytes(tmp_path / "none")
    (tmp_path / "r").write_bytes(b"abc")
    (tmp_path / "link").symlink_to(tmp_path / "r")
    assert rio.read_regular_bytes(tmp_path / "link") == b"abc"
    with pytest.raises(rio.NotRegularFile, match="a symbolic link"):
        rio.read_regular_bytes(tmp_path / "link", follow_links=False)
    with pytest.raises(rio.NotRegularFile, match="more than the 2 bytes"):
        rio.read_regular_bytes(tmp_path / "r", 2)
    assert rio.regular_file(tmp_path / "r") and not rio.regular_file(f) and not rio.regular_file(tmp_path / "none")


# --------------------------------------------------------------------------------------------
# the slice cache: damaged is not absent


@pytest.fixture
def hub(monkeypatch, tmp_path):
    yield from serve_loopback(monkeypatch, tmp_path)


def _cached(hub, repo: str, seed: int) -> tuple[torch.Tensor, Path]:
    emb = matrix(256, 64, seed, "F32")
    hub.add(repo, single([("model.embed_tokens.weight", emb)], CFG))
    load_hub(repo)
    return emb, slice_cache_folder(repo)


def _online(monkeypatch) -> None:
    import huggingface_hub.constants as c

    monkeypatch.setattr(c, "HF_HUB_OFFLINE", False)


def _says_damaged(line: str, repo: str, path: Path) -> None:
    assert repo in line and "is damaged" in line and str(path) in line, line
    assert "HF_HUB_OFFLINE" in line and "run once with the network" in line and f"delete {path}" in line, line
    assert "never read" not in line and "is not in repcap's slice cache" not in line, line


def test_a_fifo_blob_offline_is_damaged_not_absent(hub, capsys, monkeypatch):
    emb, root = _cached(hub, "org/fifo", 5)
    big = max((root / "blobs").iterdir(), key=lambda p: p.stat().st_size)  # the tensor's bytes
    fifo_at(big)
    offline(monkeypatch, hub)
    line = one_line(capsys, ["stats", "org/fifo"], big)
    _says_damaged(line, "org/fifo", big)
    assert "a FIFO (named pipe)" in line
    assert big.is_fifo()  # named for the user to delete, not silently dropped
    _online(monkeypatch)
    e = within(lambda: load_hub("org/fifo"), big)  # online: fetched again
    np.testing.assert_array_equal(e.matrix.numpy(), emb.numpy())
    assert big.is_file() and hub.bytes_for("org/fifo") > 0
    assert "fetching it again" in capsys.readouterr().err


def test_a_record_whose_end_is_text_offline_is_damaged_not_absent(hub, capsys, monkeypatch):
    emb, root = _cached(hub, "org/rec", 4)
    (rp,) = [p for p in root.glob("*/*.json") if p.name == "model.safetensors.json"]
    rec = json.loads(rp.read_text())
    rec["ranges"][0]["end"] = "lots"
    rp.write_text(json.dumps(rec))
    offline(monkeypatch, hub)
    line = one_line(capsys, ["stats", "org/rec"])
    _says_damaged(line, "org/rec", rp)
    assert "'lots'" in line
    _online(monkeypatch)
    e = load_hub("org/rec")
    assert torch.equal(e.matrix, emb) and hub.bytes_for("org/rec") > 0  # fetched again
    assert isinstance(json.loads(rp.read_text())["ranges"][0]["end"], int)


def test_a_fifo_manifest_offline_is_damaged_and_online_asked_again(hub, capsys, monkeypatch):
    emb, root = _cached(hub, "org/man", 6)
    (manifest,) = root.glob("*/manifest.json")
    fifo_at(manifest)
    offline(monkeypatch, hub)
    line = one_line(capsys, ["stats", "org/man"], manifest)
    _says_damaged(line, "org/man", manifest)
    _online(monkeypatch)
    e = within(lambda: load_hub("org/man"), manifest)
    assert torch.equal(e.matrix, emb) and manifest.is_file()


def test_an_absent_entry_offline_is_still_never_read(hub, capsys, monkeypatch):
    _, root = _cached(hub, "org/gone", 7)
    big = max((root / "blobs").iterdir(), key=lambda p: p.stat().st_size)
    (rp,) = [p for p in root.glob("*/*.json") if p.name == "model.safetensors.json"]
    rp.unlink()
    big.unlink()
    offline(monkeypatch, hub)
    line = one_line(capsys, ["stats", "org/gone"])
    assert "never read" in line and "damaged" not in line, line


# --------------------------------------------------------------------------------------------
# the sweep cache: a FIFO entry is a damaged entry (dropped and recomputed), claims and the index


def test_a_fifo_sweep_entry_is_dropped_and_recomputed(tmp_path, capsys):
    from repcap.sweep import Cache

    c = Cache(tmp_path / "c")
    c.put(KEY, {}, {"x": 1.0})
    p = fifo_at(c.path(KEY))
    assert within(lambda: c.verify(), p) == (0, [p])
    assert within(lambda: c.provenance(KEY), p) is None
    assert within(lambda: c.get(KEY), p) is None
    assert not os.path.lexists(p)  # dropped like a corrupt entry
    assert "a FIFO (named pipe)" in capsys.readouterr().err
    c.put(KEY, {}, {"x": 1.0})  # the point recomputed
    assert c.get(KEY) == {"x": 1.0}


def _square(config: dict) -> dict:
    _CALLS.append(config["n"])
    return {"y": config["n"] ** 2}


_CALLS: list[int] = []


def test_a_fifo_sweep_entry_is_recomputed_by_a_run(tmp_path):
    from repcap import sweep

    store = sweep.Cache(tmp_path / "c")
    _CALLS.clear()
    first = sweep.run(_square, [{"n": 3}], cache=store, progress=False, code="test-code")
    (entry,) = list(store.entries())
    fifo_at(entry)
    again = within(lambda: sweep.run(_square, [{"n": 3}], cache=store, progress=False, code="test-code"), entry)
    assert again.results == first.results and again.n_computed == 1 and _CALLS == [3, 3] and entry.is_file()


def test_a_fifo_claim_is_stale_not_a_hang(tmp_path):
    from repcap.sweep import Cache

    c = Cache(tmp_path / "c")
    claim = fifo_at(c.claim_path(KEY))
    info = within(lambda: c.claim_info(KEY), claim)
    assert info is not None and info.stale == "not a regular file"
    assert within(lambda: c.claim(KEY), claim) is True
    c.release(KEY)


def test_a_fifo_import_record_is_damaged(tmp_path):
    from repcap.results.bundle import index
    from repcap.sweep import Cache

    c = Cache(tmp_path / "c")
    pid = index.point_id("f", {"n": 1})
    index._write_record(c, pid, {"a": 1})
    assert index._record_state(c, pid) == {"a": 1}
    rec = fifo_at(index._record_path(c, pid))
    assert within(lambda: index._record_state(c, pid), rec) == index.DAMAGED


# --------------------------------------------------------------------------------------------
# bundles


def test_a_fifo_in_a_bundle_is_refused_in_one_line(tmp_path):
    from repcap.results import bundle

    d = tmp_path / "b"
    d.mkdir()
    m = fifo_at(d / "bundle.json")
    with pytest.raises(RepcapError, match=r"bundle\.json: a FIFO \(named pipe\), not a regular file of the bundle"):
        within(lambda: bundle.status(d), m)
    with pytest.raises(RepcapError, match="not a regular file of the bundle"):
        within(lambda: bundle.import_(d), m)


def test_a_fifo_staging_marker_is_not_an_exports(tmp_path):
    from repcap.results.bundle import folder as bundle_folder

    folder = tmp_path / ".b.new-x"
    marker = fifo_at(folder / bundle_folder.STAGING_MARKER)
    assert within(lambda: bundle_folder._left_by_dead_export(folder), marker) is False


# --------------------------------------------------------------------------------------------
# the offline matrices


def test_a_fifo_sidecar_or_marker_of_an_offline_model_is_rebuilt(tmp_path, monkeypatch):
    from test_offline import cached_model

    from repcap.models import offline as offline_models

    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    spec, ref, _, npy, side = cached_model(tmp_path, tmp_path / "cache", monkeypatch)
    fifo_at(side)
    e = within(lambda: offline_models.load(spec.key), side)
    assert e.meta["cached"] is False and side.is_file()  # rebuilt, the FIFO replaced
    np.testing.assert_array_equal(e.matrix.numpy(), ref)
    path = offline_models.model_file(spec.key, auto_install=False)
    marker = fifo_at(path.with_name(path.name + ".verified"))
    assert within(lambda: offline_models.model_file(spec.key, auto_install=False), marker) == path
    assert marker.is_file()  # rechecked and written again
    npy_fifo = fifo_at(npy)
    assert within(lambda: offline_models.load(spec.key), npy_fifo).meta["cached"] is False
