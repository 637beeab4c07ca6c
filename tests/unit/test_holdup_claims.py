"""Hold up, round 4 (issue 38): claims on points.  A claim from another host, a pid reused after a
reboot, or a claim dated ahead by a clock skew made a run wait silently for up to 6 hours.  Now a
waiting run says whose claim it waits for and how to break it, a claim from another host is trusted
for a bounded time past its last sign of life (its holder touches it), a pid that is not the
claiming process is stale, and ``repcap bundle unclaim`` lists and removes claims."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from repcap import cli, sweep
from repcap.results import runs
from repcap.sweep import claims, tasks

ROOT = Path(__file__).resolve().parents[2]


def _triple(config):
    _triple.calls += 1  # type: ignore[attr-defined]
    return {"y": 3 * config["x"]}


@pytest.fixture
def fast_claims(monkeypatch):
    """Claims polled every 50 ms, and a fresh heartbeat (its own thread, at the patched period)."""
    monkeypatch.setattr(tasks, "CLAIM_POLL_S", 0.05)
    monkeypatch.setattr(claims, "_HEART", claims._Heartbeat())
    monkeypatch.setattr(claims, "_WATCHED", {})
    monkeypatch.setenv("REPCAP_CLAIM_TIMEOUT", "600")
    _triple.calls = 0  # type: ignore[attr-defined]


def _foreign(store, key: str, *, when: float | None = None, mtime: float | None = None, pid: int = 4242) -> Path:
    p = store.claim_path(key)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"host": "gpu-node-7", "pid": pid, "time": time.time() if when is None else when}))
    if mtime is not None:
        os.utime(p, (mtime, mtime))
    return p


# --------------------------------------------------------------------------------------------
# claims


def test_a_dead_claim_from_another_host_is_said_and_bounded(tmp_path, fast_claims, monkeypatch, capfd):
    """A claim left by a dead run on another host made a run wait silently for up to 6 hours.  Now
    it says whose claim it waits for and how to break it, and takes the point over once the claim
    has shown no sign of life for the claim timeout (1 s here)."""
    monkeypatch.setenv("REPCAP_CLAIM_TIMEOUT", "1")
    store = sweep.Cache(tmp_path / "c")
    key = sweep.point_key(_triple, {"x": 2}, code="t")
    claim = _foreign(store, key)
    t0 = time.monotonic()
    rep = sweep.run(_triple, [{"x": 2}], cache=store, progress=False, code="t")
    spent = time.monotonic() - t0
    assert rep.results == [{"y": 6}] and _triple.calls == 1
    assert 1.0 <= spent < 10, spent
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    line = err[0]
    for needle in (key[:12], "host gpu-node-7", "pid 4242", "claimed", "no sign of life for 1 s", "--claim-timeout"):
        assert needle in line, (needle, line)
    assert f"repcap bundle unclaim {claim}" in line
    assert not claim.exists()  # taken over under this run's own claim, released when done


def test_clock_skew_cannot_extend_a_claim(tmp_path, fast_claims, monkeypatch):
    """A claim dated an hour ahead (its host's clock is wrong) is trusted no longer than any other:
    dated past the timeout it is stale at once; a file dated ahead within it is trusted for the
    timeout of this run's own clock, not until its date comes round."""
    store = sweep.Cache(tmp_path / "c")
    key = "ab" * 32
    _foreign(store, key, when=time.time() + 3600)
    info = store.claim_info(key)
    assert info is not None and "clock skew" in (info.stale or "") and "in the future" in info.describe()
    monkeypatch.setenv("REPCAP_CLAIM_TIMEOUT", "1")
    _foreign(store, key, when=time.time(), mtime=time.time() + 0.9)  # its last sign of life "in the future"
    assert store.claimed(key)
    time.sleep(1.3)
    info = store.claim_info(key)
    assert info is not None and info.stale is not None and "while this run waited" in info.stale, info


def test_a_live_claim_from_another_host_is_kept_while_its_heartbeat_goes_on(tmp_path, fast_claims, monkeypatch):
    """The other side: a run on another host that is alive touches its claim, and a waiting run
    reads its result instead of computing the point too, however long it takes."""
    monkeypatch.setenv("REPCAP_CLAIM_TIMEOUT", "0.5")
    store = sweep.Cache(tmp_path / "c")
    key = sweep.point_key(_triple, {"x": 2}, code="t")
    claim = _foreign(store, key)
    stop = threading.Event()

    def other_run():  # alive for 2 s (four timeouts), touching its claim, then done
        t_end = time.monotonic() + 2.0
        while time.monotonic() < t_end:
            os.utime(claim)
            time.sleep(0.1)
        store.put(key, {"x": 2}, {"y": 6, "by": "other"})
        claim.unlink()
        stop.set()

    t = threading.Thread(target=other_run)
    t.start()
    rep = sweep.run(_triple, [{"x": 2}], cache=store, progress=False, code="t")
    t.join()
    assert rep.results == [{"y": 6, "by": "other"}] and _triple.calls == 0


def test_this_process_touches_its_claims(tmp_path, monkeypatch):
    monkeypatch.setattr(claims, "HEARTBEAT_S", 0.1)
    monkeypatch.setattr(claims, "_HEART", claims._Heartbeat())
    store = sweep.Cache(tmp_path / "c")
    key = "cd" * 32
    assert store.claim(key)
    p = store.claim_path(key)
    os.utime(p, (1e9, 1e9))
    time.sleep(0.5)
    assert p.stat().st_mtime > time.time() - 5
    info = json.loads(p.read_text())
    assert info["pid"] == os.getpid() and info.get("start") == claims._proc_start(os.getpid())
    store.release(key)
    assert not p.exists()


def test_same_host_claims_of_reused_pids_are_stale(tmp_path):
    """A pid alive but not a repcap run, one that started after the claim (the pid was reused),
    or a claim from before this machine restarted: stale.  A live repcap process's claim holds."""
    store = sweep.Cache(tmp_path / "c")
    key = "ef" * 32
    p = store.claim_path(key)
    p.parent.mkdir(parents=True)
    sleeper = subprocess.Popen(["sleep", "30"])
    runner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        me = claims._host_token()
        cases = {
            "not a repcap run": {"host": me, "pid": sleeper.pid, "time": time.time()},  # no start: by command
            "now another process": {**claims.claim_record(runner.pid), "start": "1"},
            "restarted": {**claims.claim_record(runner.pid), "boot": "another-boot"},
        }
        if claims._boot_id() is None or claims._proc_start(runner.pid) is None:
            pytest.skip("no /proc here")
        for why, rec in cases.items():
            p.write_text(json.dumps(rec))
            info = store.claim_info(key)
            assert info is not None and info.stale is not None and why in info.stale, (why, info)
        p.write_text(json.dumps(claims.claim_record(runner.pid)))
        info = store.claim_info(key)
        assert info is not None and info.stale is None and info.local
        assert store.claimed(key) and not store.claim(key)
    finally:
        for proc in (sleeper, runner):
            proc.kill()
            proc.wait()
    assert not store.claimed(key)  # its process is gone


def test_bundle_unclaim_lists_and_removes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    store = sweep.Cache.named("packing-grid")
    foreign = _foreign(store, "12" * 32)
    live = store.claim_path("34" * 32)
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        live.parent.mkdir(parents=True, exist_ok=True)
        live.write_text(json.dumps(claims.claim_record(proc.pid)))
        assert cli.main(["bundle", "unclaim"]) == 0
        out = capsys.readouterr().out
        assert str(foreign) in out and "host gpu-node-7, pid 4242" in out and "2 claims" in out
        assert cli.main(["bundle", "unclaim", str(foreign)]) == 0
        assert not foreign.exists() and "removed" in capsys.readouterr().out
        assert cli.main(["bundle", "unclaim", "34" * 32]) == 2  # live, on this host
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"pid {proc.pid} on this host still runs" in err[0] and "--force" in err[0]
        assert live.exists()
        assert cli.main(["bundle", "unclaim", "--force", "34" * 32]) == 0 and not live.exists()
        victim = tmp_path / "notes.txt"
        victim.write_text("mine")
        assert cli.main(["bundle", "unclaim", str(victim)]) == 2 and victim.exists()
        assert "not a claim file" in capsys.readouterr().err
    finally:
        proc.kill()
        proc.wait()


def test_bundle_compute_breaks_a_dead_claim_after_its_timeout(tmp_path, monkeypatch, capfd):
    """`bundle compute` with a dead run's claim on one of its points, from another host: it says so
    and computes the point once `--claim-timeout` has passed with no sign of life."""
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("REPCAP_CLAIM_TIMEOUT", "600")  # restored after the test; the flag sets it
    monkeypatch.setattr(tasks, "CLAIM_POLL_S", 0.05)
    monkeypatch.setattr(claims, "_WATCHED", {})
    e = runs.point_set("paper-gpu", "smoke").experiment("guha-grid")
    store = sweep.Cache.named(e.cache)
    claim = _foreign(store, sweep.point_key(e.fn, e.configs[0]))
    argv = ["bundle", "compute", "paper-gpu", "--scale", "smoke", "--only", "guha-grid", "--no-progress"]
    assert cli.main([*argv, "--claim-timeout", "-1"]) == 2
    assert "--claim-timeout" in capfd.readouterr().err
    t0 = time.monotonic()
    assert cli.main([*argv, "--claim-timeout", "1"]) == 0
    assert time.monotonic() - t0 < 60
    cap = capfd.readouterr()
    assert "4 points computed" in cap.out
    waits = [x for x in cap.err.splitlines() if "being computed by another run" in x]
    assert len(waits) == 1 and "host gpu-node-7" in waits[0] and str(claim) in waits[0]
