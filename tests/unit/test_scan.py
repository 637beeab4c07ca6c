"""survey.scan: one sweep over many models; a failing model is recorded and the scan goes on."""

import numpy as np
import pytest

from repcap.engines import survey


def test_scan_records_good_models_and_failures(tmp_path, monkeypatch):
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((57, 9)).astype(np.float32)
    good = tmp_path / "good.npy"
    np.save(good, x)
    configs = [{"source": str(good), "label": "good"}, {"source": str(tmp_path / "missing.npy"), "label": "bad"}]
    records, failures = survey.scan(configs, progress=False)
    assert [r["label"] for r in records] == ["good"]
    assert [f["label"] for f in failures] == ["bad"] and failures[0]["error"]
    u = x.astype(np.float64)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    c = (u @ u.T)[np.triu_indices(57, 1)]
    assert records[0]["mean"] == pytest.approx(c.mean(), abs=1e-9)
    assert records[0]["std"] == pytest.approx(c.std(), rel=1e-6)
    # a re-run reads the good model from the cache and tries the failed one again
    records2, failures2 = survey.scan(configs, progress=False)
    assert records2[0]["mean"] == records[0]["mean"] and len(failures2) == 1
    # an edited file at the same path is read again, not served stale from the cache
    np.save(good, np.abs(x))
    records3, _ = survey.scan(configs, progress=False)
    assert records3[0]["mean"] > records[0]["mean"] + 0.1
