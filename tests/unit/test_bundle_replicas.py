"""One identity, several replicas: a point computed on two machines (another device, other package
versions) is the same point twice.  The first computed is the primary the book shows; the others
are recorded beside it; ``repcap bundle compare`` judges them against the seed scatter."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest

from repcap import RepcapError, cli
from repcap.results import bundle, runs
from repcap.results.bundle.compare import judge
from repcap.sweep import canonical

GPU = {"torch": "2.11.0", "numpy": "2.5.2", "scipy": "1.18.1", "numba": "0.68.0"}


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("REPCAP_GIT_REV", "abc123")
    monkeypatch.setenv("TQDM_DISABLE", "1")

    def use(name: str) -> Path:
        monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / name))
        return tmp_path / name

    use("computed")
    return use


@pytest.fixture
def cpu(env, tmp_path):
    """The reference set at smoke size, computed here (the CPU) and exported."""
    runs.compute(runs.point_set("reference", "smoke"), only=["guha-small", "guha-seeds"], progress=False, log=print)
    bundle.export("reference", tmp_path / "cpu", scale="smoke")
    return tmp_path / "cpu"


def _sha(b: str) -> str:
    return hashlib.sha256(b.encode()).hexdigest()


def _other_machine(src: Path, dst: Path, shifts: dict[int, float], when: str = "2099-01-01T00:00:00Z") -> Path:
    """A copy of ``src`` whose guha-small points ran elsewhere: eps_star times exp(shift) (by the
    cell's position), another device, other versions, a later date; every checksum redone."""
    import shutil

    shutil.copytree(src, dst)
    m = json.loads((dst / "bundle.json").read_text())
    keep = []
    for x in m["experiments"]:
        doc = json.loads((dst / x["file"]).read_text())
        if x["name"] == "guha-small":
            for i, e in enumerate(doc["entries"]):
                # shifted, and kept a possible |cos| (a packing's eps* lies in [0, 1])
                e["result"]["eps_star"] = min(0.999, e["result"]["eps_star"] * math.exp(shifts.get(i, 0.0)))
                e["result"]["max_angle_deg"] = math.degrees(math.acos(min(1.0, e["result"]["eps_star"])))
                e["sha256"] = _sha(canonical(e["result"]))
                e["provenance"].update(device="cuda NVIDIA H200", computed=when)
                e["provenance"]["versions"].update(GPU)
        else:
            doc["entries"] = []
        text = json.dumps(doc)
        (dst / x["file"]).write_text(text)
        x["sha256"], x["n_entries"] = _sha(text), len(doc["entries"])
        keep.append(x)
    m["experiments"] = keep
    m.pop("sha256")
    m["sha256"] = _sha(canonical(m))
    (dst / "bundle.json").write_text(json.dumps(m))
    return dst


def test_other_versions_are_information_not_staleness(cpu, tmp_path):
    gpu = _other_machine(cpu, tmp_path / "gpu", {})
    st = bundle.status(gpu)
    n = st.counts["guha-small"]["fresh"]
    assert n == 4 and st.total("stale") == 0 and st.total("other_versions") == n
    assert any(k.startswith("torch 2.11.0 -> ") and v == n for k, v in st.version_notes.items())
    assert "computed under other versions" in st.describe() and "cuda NVIDIA H200 (4)" in st.describe()


def test_the_first_computed_is_primary_whatever_the_import_order(cpu, tmp_path, env):
    gpu = _other_machine(cpu, tmp_path / "gpu", {0: 0.01, 1: -0.01})
    cpu_result = {
        e["key"]: e["result"]["eps_star"] for e in json.loads((cpu / "guha-small.json").read_text())["entries"]
    }
    for order, name in (((cpu, gpu), "cpu-first"), ((gpu, cpu), "gpu-first")):
        env(name)
        reps = [bundle.import_(b) for b in order]
        assert sum(r.replicas for r in reps) == 4, name
        lk = bundle.lookup("reference", "guha-small", "smoke")
        assert len(lk.found) == 4 and not lk.stale
        for f in lk.found:
            assert f.result["eps_star"] == cpu_result[f.key], name  # the CPU run was computed first
            assert f.provenance["device"].startswith("cpu")
            assert [r["device"] for r in f.replicas] == ["cuda NVIDIA H200"], (name, f.replicas)
        shifted = [f for f in lk.found if f.replicas[0]["metrics"]["eps_star"] != f.result["eps_star"]]
        assert len(shifted) == 2, name  # the two cells the other machine moved
        assert "4 of them also computed on cuda NVIDIA H200 (replicas" in lk.provenance_text("reference")


def test_compare_judges_the_pairs_against_the_seed_scatter(cpu, tmp_path):
    close = _other_machine(cpu, tmp_path / "close", {0: 1e-4, 1: -2e-4, 2: 1e-4, 3: 0.0})
    far = _other_machine(cpu, tmp_path / "far", {0: 0.15, 1: 0.2, 2: 0.18, 3: 0.22})  # eps* still below 1
    a = bundle.compare(cpu, close)
    eps = next(m for m in a.metrics if m.metric == "eps_star")
    assert eps.n == 4 and eps.seed_dof >= 2 and eps.seed_sd is not None and eps.seed_sd > 0
    # the seed scatter: the pooled sd of ln(eps*) over the seeds of each smoke cell, by hand
    entries = [e for x in ("guha-small", "guha-seeds") for e in json.loads((cpu / f"{x}.json").read_text())["entries"]]
    groups: dict = {}
    for e in entries:
        groups.setdefault((e["config"]["k"], e["config"]["d"]), []).append(math.log(e["result"]["eps_star"]))
    ss = sum(sum((v - sum(g) / len(g)) ** 2 for v in g) for g in groups.values() if len(g) > 1)
    dof = sum(len(g) - 1 for g in groups.values() if len(g) > 1)
    assert eps.seed_dof == dof and eps.seed_sd == pytest.approx(math.sqrt(ss / dof), rel=1e-12)
    assert eps.verdict == "agree within seed scatter", eps.reason
    assert eps.mean == pytest.approx(-sum([1e-4, -2e-4, 1e-4, 0.0]) / 4, abs=1e-12)
    b = bundle.compare(cpu, far)
    assert next(m for m in b.metrics if m.metric == "eps_star").verdict == "differs"
    mean_abs = next(m for m in a.metrics if m.metric == "mean_abs")
    assert mean_abs.mean == 0.0 and mean_abs.sd == 0.0  # untouched: the same bits


def test_judge_closed_cases():
    # too few pairs, no scatter, straddling: inconclusive; a shift far outside: differs
    assert judge([0.1, 0.2], 0.1, 5)[3] == "inconclusive"
    assert judge([0.1, 0.2, 0.15], None, 0)[3] == "inconclusive"
    assert judge([0.0, 0.2, -0.2, 0.1], 0.05, 10)[3] == "differs"  # spread beyond two runs' (F test)
    assert judge([1.0, 1.01, 0.99, 1.0], 0.05, 10)[3] == "differs"  # shifted
    assert judge([0.001, -0.001, 0.0005, 0.0], 0.05, 10)[3] == "agree within seed scatter"
    assert judge([0.04, 0.06, 0.05, 0.055], 0.05, 10)[3] == "inconclusive"  # straddles the margin
    mean, sd, (_lo, hi), _, _ = judge([1.0, 2.0, 3.0], 10.0, 10)
    assert (mean, sd) == (2.0, 1.0) and hi - 2.0 == pytest.approx(4.302652729911275 / math.sqrt(3))


def test_an_export_adds_another_machines_result_as_a_replica(cpu, tmp_path, env):
    gpu = _other_machine(cpu, tmp_path / "gpu", {0: 0.01})
    env("gpu-machine")
    bundle.import_(gpu)  # this machine's cache now holds the GPU run of the cells
    before = bundle.status(cpu)
    bundle.export("reference", cpu, scale="smoke")
    after = bundle.status(cpu)
    assert after.total("fresh") == before.total("fresh") and after.total("replicas") == 4
    doc = json.loads((cpu / "guha-small.json").read_text())
    assert sum(e["primary"] for e in doc["entries"]) == 4 and len(doc["entries"]) == 8
    within = bundle.compare(cpu)  # its primaries against its replicas
    assert next(m for m in within.metrics if m.metric == "eps_star").n == 4
    assert cli.main(["bundle", "compare", str(cpu), "--pairs"]) == 0


def test_compare_refuses_bundles_without_a_shared_point(cpu, tmp_path, capsys):
    with pytest.raises(RepcapError, match="no replica"):
        bundle.compare(cpu)
    assert cli.main(["bundle", "compare", str(cpu)]) == 2
    assert "no replica" in capsys.readouterr().err
