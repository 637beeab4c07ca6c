"""Every catalog entry through the loopback hub (issue 19, item 4): each of the catalog's models
(Guha 2026 Table 1, Liu 2025's heads, the offline models' upstream repos) gets a small look-alike
repo with its family's real layout (tensor names, index or single file, tie flag, dtype, padding
rows, config keys; :func:`_hub_fixtures.lookalike`), and ``describe(key)`` -- what the ``paper``
profile's model scan calls -- resolves the catalog key, picks the tensor and gives eps equal to a
float64 dense reference to 1e-6."""

from __future__ import annotations

import pytest
from _hub_fixtures import eps64, lookalike, serve_loopback

from repcap.engines.survey import describe
from repcap.models import catalog


@pytest.fixture
def hub(monkeypatch, tmp_path):
    yield from serve_loopback(monkeypatch, tmp_path)


def test_every_catalog_entry_resolves_through_the_hub(hub, monkeypatch):
    monkeypatch.setattr("repcap.models.embeddings._offline_copy", lambda entry: None)  # the hub, not PyPI copies
    entries = catalog.all_models()
    assert len(catalog.guha_models()) == 45 and len(catalog.liu_models()) == 27
    looks = {}
    for e in entries:
        looks[e.key] = lookalike(e)
        hub.add(e.hub_id, looks[e.key]["files"])
    layouts = {(lk["shards"] > 1, lk["dtype"], lk["tied"]) for lk in looks.values()}
    assert len(layouts) >= 6  # sharded and single, three dtypes, tied and untied and encoders
    bad = []
    for e in entries:
        lk = looks[e.key]
        rec = describe(e.hub_id, device="cpu", progress=False)  # the id finds the catalog entry
        ref = eps64(lk["emb"])
        checks = {
            "tensor": rec["tensor"] == lk["tensor"],
            "quant": rec["quant"] == lk["dtype"],
            "tied": lk["tied"] is None or rec["tied"] is lk["tied"],
            "rows": rec["vocab_size"] - rec["n_zero_rows"] == ref["rows"],
            "eps": abs(rec["eps"] - ref["eps"]) < 1e-6,
            "mean": abs(rec["mean"] - ref["mean"]) < 1e-6,
        }
        if not all(checks.values()):
            bad.append((e.key, [k for k, ok in checks.items() if not ok], rec["tensor"], rec["tied"]))
    assert bad == [], bad
    assert len(looks) == len(entries) == 75
