"""Tests of repcap.sweep: content-addressed caching, resume after an exception or a SIGKILL with
no finished point recomputed, corrupt entries recomputed, batching by group."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from repcap import RepcapError, sweep


def _square(config):
    return {"y": config["x"] ** 2}


def test_cache_accepts_str_root(tmp_path):
    rep = sweep.run(_square, [{"x": 3}], cache=sweep.Cache(str(tmp_path)), progress=False, code="test-code")
    assert rep.results == [{"y": 9}] and len(sweep.Cache(str(tmp_path))) == 1


def test_cache_hit_returns_same_results_in_order(tmp_path):
    calls = []

    def f(c):
        calls.append(c["x"])
        return {"y": c["x"] * 10}

    configs = sweep.grid(x=[3, 1, 2])
    rep = sweep.run(f, configs, cache=sweep.Cache(tmp_path), progress=False, code="test-code")
    assert [r["y"] for r in rep.results] == [30, 10, 20]
    assert (rep.n_cached, rep.n_computed) == (0, 3)
    rep2 = sweep.run(f, list(reversed(configs)), cache=sweep.Cache(tmp_path), progress=False, code="test-code")
    assert [r["y"] for r in rep2.results] == [20, 10, 30]
    assert (rep2.n_cached, rep2.n_computed) == (3, 0)
    assert calls == [3, 1, 2]  # nothing recomputed
    assert len(sweep.Cache(tmp_path)) == 3


def test_key_depends_on_config_function_and_code():
    k = sweep.point_key(_square, {"x": 1, "y": 2}, code="test-code")
    assert k == sweep.point_key(_square, {"y": 2, "x": 1}, code="test-code")  # key order does not matter
    assert k != sweep.point_key(_square, {"x": 1, "y": 3}, code="test-code")

    def other(c):
        return {}

    assert k != sweep.point_key(other, {"x": 1, "y": 2}, code="test-code")
    assert sweep.point_key(other, {"x": 1}, code="a") != sweep.point_key(other, {"x": 1}, code="b")
    with pytest.raises(RepcapError, match="finite JSON"):
        sweep.point_key(_square, {"x": float("nan")}, code="test-code")


def test_resume_after_exception_recomputes_nothing_finished(tmp_path):
    configs = sweep.grid(x=range(8))
    seen = []

    def flaky(c):
        if len(seen) == 5:
            raise RuntimeError("interrupted")
        seen.append(c["x"])
        return {"y": c["x"] + 0.5}

    with pytest.raises(RuntimeError):
        sweep.run(flaky, configs, cache=sweep.Cache(tmp_path), progress=False, code="test-code")
    assert seen == [0, 1, 2, 3, 4]
    again = []

    def resumed(c):
        again.append(c["x"])
        return {"y": c["x"] + 0.5}

    resumed.__qualname__ = flaky.__qualname__  # same function identity -> same keys
    rep = sweep.run(resumed, configs, cache=sweep.Cache(tmp_path), progress=False, code="test-code")
    assert again == [5, 6, 7]
    assert rep.n_cached == 5 and rep.n_computed == 3
    assert [r["y"] for r in rep.results] == [x + 0.5 for x in range(8)]


JOB = """
import json, os, sys, time
from repcap import sweep

def work(c):
    with open(os.environ["SWEEP_LOG"], "a") as fh:
        fh.write(json.dumps(c["x"]) + "\\n")
    time.sleep(float(os.environ.get("SWEEP_SLEEP", "0")))
    return {"y": c["x"] * 3}

if __name__ == "__main__":
    rep = sweep.run(work, sweep.grid(x=range(int(sys.argv[1]))), cache=sweep.Cache(sys.argv[2]), progress=False, code="test-code")
    print(json.dumps({"cached": rep.n_cached, "computed": rep.n_computed}))
"""


def test_resume_after_sigkill_recomputes_no_finished_point(tmp_path):
    (tmp_path / "sweepjob.py").write_text(textwrap.dedent(JOB))
    cache = tmp_path / "cache"
    log = tmp_path / "log.txt"
    env = {
        **os.environ,
        "SWEEP_LOG": str(log),
        "SWEEP_SLEEP": "0.15",
        "PYTHONPATH": str(tmp_path),
        "OMP_NUM_THREADS": "1",
    }
    n = 30
    proc = subprocess.Popen(
        [sys.executable, "-m", "sweepjob", str(n), str(cache)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        if log.exists() and len(log.read_text().splitlines()) >= 6:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)  # hard kill mid-sweep: no cleanup code runs
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, err.decode()
    finished = len(sweep.Cache(cache))
    started = [json.loads(s) for s in log.read_text().splitlines()]
    assert 5 <= finished < n, "the kill must land mid-sweep"
    # no temp file was left looking like an entry, and every entry reads back
    entries = sorted(cache.glob("??/*.json"))
    assert len(entries) == finished
    assert all(json.loads(p.read_text())["result"]["y"] % 3 == 0 for p in entries)

    log.write_text("")
    env["SWEEP_SLEEP"] = "0"
    out = subprocess.run(
        [sys.executable, "-m", "sweepjob", str(n), str(cache)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary == {"cached": finished, "computed": n - finished}
    recomputed = [json.loads(s) for s in log.read_text().splitlines()]
    assert len(recomputed) == n - finished  # each missing point exactly once
    assert set(recomputed) | set(started[:finished]) == set(range(n))
    assert not set(recomputed) & set(started[:finished])  # no finished point recomputed
    assert len(sweep.Cache(cache)) == n


@pytest.mark.parametrize("damage", ["truncate", "tamper", "garbage", "wrong_key"])
def test_corrupt_entry_is_recomputed(tmp_path, damage):
    configs = sweep.grid(x=range(4))
    sweep.run(_square, configs, cache=sweep.Cache(tmp_path), progress=False, code="test-code")
    store = sweep.Cache(tmp_path)
    victim = store.path(sweep.point_key(_square, configs[2], code="test-code"))
    text = victim.read_text()
    if damage == "truncate":
        victim.write_text(text[: len(text) // 2])
    elif damage == "tamper":
        entry = json.loads(text)
        entry["result"]["y"] = 999  # checksum no longer matches
        victim.write_text(json.dumps(entry))
    elif damage == "garbage":
        victim.write_bytes(b"\xff\xfe\x00 not json")
    else:
        entry = json.loads(text)
        entry["key"] = "0" * 64
        victim.write_text(json.dumps(entry))
    calls = []

    def counted(c):
        calls.append(c["x"])
        return _square(c)

    counted.__module__, counted.__qualname__ = _square.__module__, _square.__qualname__
    rep = sweep.run(counted, configs, cache=sweep.Cache(tmp_path), progress=False, code="test-code")
    assert calls == [2]
    assert [r["y"] for r in rep.results] == [0, 1, 4, 9]


def test_batched_runs_by_group_and_max_batch(tmp_path):
    configs = [{"shape": s, "i": i} for s in ("a", "b") for i in range(5)]
    batches = []

    def fb(cs):
        batches.append([(c["shape"], c["i"]) for c in cs])
        assert len({c["shape"] for c in cs}) == 1
        return [{"v": c["i"] * (2 if c["shape"] == "b" else 1)} for c in cs]

    rep = sweep.run(
        fb,
        configs,
        cache=sweep.Cache(tmp_path),
        batched=True,
        group_by=lambda c: c["shape"],
        max_batch=3,
        progress=False,
        code="test-code",
    )
    assert [len(b) for b in batches] == [3, 2, 3, 2]
    assert [r["v"] for r in rep.results] == [0, 1, 2, 3, 4, 0, 2, 4, 6, 8]
    batches.clear()
    configs.append({"shape": "a", "i": 7})
    rep = sweep.run(
        fb,
        configs,
        cache=sweep.Cache(tmp_path),
        batched=True,
        group_by=lambda c: c["shape"],
        progress=False,
        code="test-code",
    )
    assert batches == [[("a", 7)]]  # only the new point is trained
    assert rep.results[-1] == {"v": 7}


def test_duplicates_computed_once_and_bad_returns_refused(tmp_path):
    calls = []

    def f(c):
        calls.append(c["x"])
        return {"y": c["x"]}

    rep = sweep.run(f, [{"x": 1}, {"x": 1}, {"x": 2}], cache=sweep.Cache(tmp_path), progress=False, code="test-code")
    assert calls == [1, 2] and [r["y"] for r in rep.results] == [1, 1, 2]

    def bad(c):
        return [c["x"]]

    with pytest.raises(RepcapError, match="must return a dict"):
        sweep.run(bad, [{"x": 1}], cache=sweep.Cache(tmp_path / "b"), progress=False, code="test-code")

    def short(cs):
        return [{"y": 0}]

    with pytest.raises(RepcapError, match="returned 1 results for 2"):
        sweep.run(
            short,
            [{"x": 1}, {"x": 2}],
            cache=sweep.Cache(tmp_path / "c"),
            batched=True,
            progress=False,
            code="test-code",
        )
    with pytest.raises(RepcapError, match="plain folder name"):
        sweep.Cache.named("../escape")


def _triple(config):
    _triple.calls += 1  # type: ignore[attr-defined]
    return {"y": 3 * config["x"]}


def test_a_point_another_live_run_claimed_is_read_not_computed(tmp_path, monkeypatch):
    """Two runs of one sweep share the work: a point whose claim a live process holds is left to
    it, and its result is read once the claim is gone."""
    import json as _json
    import socket
    import threading

    from repcap.sweep import cache as cache_mod
    from repcap.sweep import tasks

    monkeypatch.setattr(tasks, "CLAIM_POLL_S", 0.05)
    _triple.calls = 0  # type: ignore[attr-defined]
    store = sweep.Cache(tmp_path)
    store.root.mkdir(parents=True, exist_ok=True)
    key = sweep.point_key(_triple, {"x": 2}, code="t")
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        claim = store.claim_path(key)
        claim.parent.mkdir(parents=True, exist_ok=True)
        claim.write_text(_json.dumps({"host": cache_mod._host_token(), "pid": other.pid, "time": time.time()}))
        assert store.claimed(key) and socket.gethostname()

        def finish():  # the other run writes its result, then drops its claim
            time.sleep(0.5)
            store.put(key, {"x": 2}, {"y": 6, "by": "other"})
            claim.unlink()

        t = threading.Thread(target=finish)
        t.start()
        rep = sweep.run(_triple, [{"x": 1}, {"x": 2}], cache=store, progress=False, code="t")
        t.join()
    finally:
        other.kill()
        other.wait()
    assert rep.results == [{"y": 3}, {"y": 6, "by": "other"}]
    assert _triple.calls == 1  # only the unclaimed point was computed here
    assert not store.claim_path(sweep.point_key(_triple, {"x": 1}, code="t")).exists()  # ours released
