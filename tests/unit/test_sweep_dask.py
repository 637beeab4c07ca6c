"""Tests of repcap.sweep.dask on a LocalCluster of 2 single-threaded worker processes: results
identical to the local executor (plain and batched functions); a point a worker finishes is in the
cache even when the client raises or is SIGKILLed; a worker killed mid-sweep (SIGKILL of its
process, or client.restart()) loses no finished point, and a re-run recomputes none of them.
Also the executor factory and the dask-jobqueue config (with a stand-in module: the real one is
not installed)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import _sweep_child as child  # noqa: E402

from repcap import RepcapError, sweep  # noqa: E402
from repcap.sweep.dask import DaskExecutor, JobqueueConfig, make_executor  # noqa: E402

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _restore_workers(client) -> None:
    client.wait_for_workers(2, timeout=60)


# --- sweep functions (module level, so workers import them by name) ------------------------------


def noisy(c: dict) -> dict:
    """A plain point: float64 numbers that must come back bit for bit."""
    g = np.random.default_rng(c["seed"])
    x = g.standard_normal(c["n"])
    return {"mean": float(x.mean()), "sd": float(x.std(ddof=1)), "max": float(x.max()), "n": c["n"]}


def noisy_batch(cs: list[dict]) -> list[dict]:
    """A batched point: all configs of one ``n`` as one (len(cs), n) array."""
    assert len({c["n"] for c in cs}) == 1, "a batch mixed groups"
    X = np.stack([np.random.default_rng(c["seed"]).standard_normal(c["n"]) for c in cs])
    return [{"mean": float(r.mean()), "q90": float(np.quantile(r, 0.9)), "batch": len(cs)} for r in X]


def flaky(c: dict) -> dict:
    child._log(c["log"], c["x"])
    if c["x"] == c["bad"]:
        raise ValueError(f"point {c['x']} fails")
    time.sleep(c["sleep"])
    return {"y": 3 * c["x"]}


def _logged(log: Path) -> list[int]:
    return [int(s) for s in log.read_text().split()] if log.exists() else []


def _finished(cache: Path) -> set[int]:
    store = sweep.Cache(cache)
    _good, bad = store.verify()
    assert bad == [], f"corrupt entries {bad}"
    return {json.loads(p.read_text())["config"]["x"] for p in store.entries()}


def _wait_until(cond, timeout: float = 30.0) -> bool:
    t_end = time.time() + timeout
    while time.time() < t_end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


# --- identical results ---------------------------------------------------------------------------


def test_plain_and_batched_identical_to_local(client, tmp_path):
    configs = [{"n": n, "seed": s} for n in (50, 200) for s in range(6)]
    local = sweep.run(noisy, configs, cache=sweep.Cache(tmp_path / "local"), progress=False, code="test-code")
    ex = make_executor("dask", client.scheduler.address)  # the address path, not the Client object
    assert isinstance(ex, DaskExecutor)
    remote = sweep.run(
        noisy, configs, cache=sweep.Cache(tmp_path / "dask"), executor=ex, progress=False, code="test-code"
    )
    assert remote.results == local.results
    assert (remote.n_cached, remote.n_computed) == (0, len(configs))

    # the workers wrote the same entries, byte for byte
    def entries(root):  # the entries without their provenance (when and where each was computed)
        return {
            p.name: {k: v for k, v in json.loads(p.read_text()).items() if k != "provenance"}
            for p in sweep.Cache(root).entries()
        }

    a, b = entries(tmp_path / "local"), entries(tmp_path / "dask")
    assert a == b and len(a) == len(configs)
    # an independent check of one value (not only local == dask)
    ref = np.random.default_rng(3).standard_normal(200)
    assert remote.results[configs.index({"n": 200, "seed": 3})]["sd"] == float(ref.std(ddof=1))
    again = sweep.run(
        noisy, configs, cache=sweep.Cache(tmp_path / "dask"), executor=ex, progress=False, code="test-code"
    )
    assert (again.n_cached, again.n_computed) == (len(configs), 0)
    ex.close()  # closes only its own client; the module's cluster lives on
    assert client.status == "running"

    kw = dict(batched=True, group_by=lambda c: c["n"], max_batch=4, progress=False)
    local_b = sweep.run(noisy_batch, configs, cache=sweep.Cache(tmp_path / "lb"), **kw, code="test-code")
    with sweep.using(DaskExecutor(client)):  # a Dask executor as the default
        remote_b = sweep.run(noisy_batch, configs, cache=sweep.Cache(tmp_path / "db"), **kw, code="test-code")
    assert remote_b.results == local_b.results
    assert [r["batch"] for r in remote_b.results] == [4, 4, 4, 4, 2, 2] * 2  # max_batch respected on workers
    ref = np.random.default_rng(5).standard_normal(50)
    assert remote_b.results[5]["q90"] == float(np.quantile(ref, 0.9))


# --- the client side fails or dies; the workers' points are kept --------------------------------


def test_points_finished_by_workers_survive_a_task_error(client, tmp_path):
    log, cache = tmp_path / "log", tmp_path / "cache"
    configs = [{"x": x, "bad": 5, "sleep": 0.05, "log": str(log)} for x in range(12)]
    with pytest.raises(ValueError, match="point 5 fails"):
        sweep.run(
            flaky, configs, cache=sweep.Cache(cache), executor=DaskExecutor(client), progress=False, code="test-code"
        )
    started = set(_logged(log))
    # every point that started (except the bad one) finishes on its worker and is written, even
    # though the client has given up on the sweep
    assert _wait_until(lambda: _finished(cache) >= started - {5})
    finished = _finished(cache)
    assert 5 not in finished
    log.rename(tmp_path / "log_first")
    ok = [dict(c, bad=-1) for c in configs]
    rep = sweep.run(
        flaky,
        ok,
        cache=sweep.Cache(tmp_path / "cache2"),
        executor=DaskExecutor(client),
        progress=False,
        code="test-code",
    )
    assert [r["y"] for r in rep.results] == [3 * x for x in range(12)]


@pytest.mark.parametrize("detach", [False, True])
def test_points_finished_by_workers_survive_a_killed_client(client, tmp_path, detach):
    log, cache = tmp_path / "log", tmp_path / "cache"
    n, sleep = 10, 0.3
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            str(HERE / "_sweep_child.py"),
            "dask-client",
            client.scheduler.address,
            str(cache),
            str(log),
            str(n),
            str(sleep),
            "1" if detach else "0",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert _wait_until(lambda: len(_logged(log)) >= 3, timeout=60), proc.stderr.read1().decode()
    finally:
        proc.send_signal(signal.SIGKILL)  # the client dies mid-sweep: no cleanup, no goodbye
        proc.communicate(timeout=30)
    started = set(_logged(log))
    assert len(started) < n
    # the points in flight when the client died are finished and written by the workers anyway;
    # detached, the scheduler finishes the whole sweep
    want = set(range(n)) if detach else started
    assert _wait_until(lambda: _finished(cache) >= want, timeout=30), (_finished(cache), want)
    finished = _finished(cache)
    # resume: only what is missing runs, nothing finished runs again
    log.rename(tmp_path / "log_first")
    same = [{"x": x, "log": str(log), "sleep": sleep} for x in range(n)]  # the client's configs
    rep = sweep.run(
        child.slow, same, cache=sweep.Cache(cache), executor=DaskExecutor(client), progress=False, code="test-code"
    )
    assert set(_logged(log)) == set(range(n)) - finished
    assert rep.n_computed == n - len(finished) and [r["y"] for r in rep.results] == [3 * x for x in range(n)]


# --- a worker dies mid-sweep ---------------------------------------------------------------------


@pytest.mark.parametrize("how", ["kill_worker"])  # "restart" (client.restart()) passes too; 8 s, left out
def test_worker_death_mid_sweep_loses_no_finished_point(client, tmp_path, how):
    _restore_workers(client)
    log, cache = tmp_path / "log", tmp_path / "cache"
    n = 14
    configs = [{"x": x, "log": str(log), "sleep": 0.25} for x in range(n)]
    box: dict = {}

    def target():
        try:
            box["rep"] = sweep.run(
                child.slow,
                configs,
                cache=sweep.Cache(cache),
                executor=DaskExecutor(client),
                progress=False,
                code="test-code",
            )
        except BaseException as exc:
            box["exc"] = exc

    th = threading.Thread(target=target)
    th.start()
    assert _wait_until(lambda: len(_finished(cache)) >= 4, timeout=60)
    if how == "kill_worker":
        pids = client.run(os.getpid)
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        kills = 1
    else:
        client.restart(wait_for_workers=False)
        kills = 2
    th.join(timeout=120)
    assert not th.is_alive()
    first = _logged(log)
    dup = {x for x in first if first.count(x) > 1}
    # only a point that was running on a killed worker may have started twice
    assert len(dup) <= kills, f"points started more than once: {sorted(dup)}"
    if "exc" in box:  # restart cancels the sweep's futures: a clear error, then resume
        assert isinstance(box["exc"], RepcapError) and "run the sweep again" in str(box["exc"])
    else:  # the scheduler re-ran the lost task on the surviving worker
        assert [r["y"] for r in box["rep"].results] == [3 * x for x in range(n)]
    _restore_workers(client)
    _wait_until(lambda: False, timeout=0.5)  # let tasks that outlived the cancel finish their write
    finished = _finished(cache)
    log.rename(tmp_path / "log_first")
    rep = sweep.run(
        child.slow, configs, cache=sweep.Cache(cache), executor=DaskExecutor(client), progress=False, code="test-code"
    )
    again = _logged(log)
    assert not set(again) & finished, "a finished point was recomputed"
    assert sorted(again) == sorted(set(range(n)) - finished)
    assert rep.n_computed == n - len(finished)
    assert [r["y"] for r in rep.results] == [3 * x for x in range(n)]
    assert sweep.Cache(cache).verify() == (n, [])


# --- factory, config, checks (no cluster needed) -------------------------------------------------


def test_make_executor_choices():
    assert make_executor("local") is None and make_executor("LOCAL ", None) is None
    with pytest.raises(RepcapError, match="only used with executor='dask'"):
        make_executor("local", "tcp://10.0.0.1:8786")
    with pytest.raises(RepcapError, match="not one of"):
        make_executor("spark")
    with pytest.raises(RepcapError, match="neither an address"):
        make_executor("dask", "my cluster")
    assert "LocalCluster" in make_executor("dask").describe()
    assert "LocalCluster" in make_executor("dask", "local:2").describe()
    assert make_executor("dask", "tcp://10.1.2.3:8786").describe() == "scheduler tcp://10.1.2.3:8786"
    assert make_executor("dask", "node12:8786").describe() == "scheduler node12:8786"
    import argparse

    from repcap.sweep.dask import add_arguments, from_args

    ap = argparse.ArgumentParser()
    add_arguments(ap)
    assert from_args(ap.parse_args([])) is None
    ex = from_args(ap.parse_args(["--executor", "dask", "--scheduler", "tcp://10.1.2.3:8786"]))
    assert ex.describe() == "scheduler tcp://10.1.2.3:8786"
    with pytest.raises(SystemExit):
        ap.parse_args(["--executor", "ray"])
    with pytest.raises(RepcapError, match="is not one"):
        sweep.run(
            noisy,
            [{"n": 2, "seed": 0}],
            cache=sweep.Cache("/nonexistent/never"),
            executor=42,
            progress=False,
            code="test-code",
        )


def test_unreachable_scheduler_is_a_clear_error():
    ex = make_executor("dask", "tcp://127.0.0.1:9", connect_timeout="1s")
    with pytest.raises(RepcapError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        ex.client  # noqa: B018


def test_jobqueue_config_without_dask_jobqueue(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask_jobqueue", None)  # as if not installed
    cfg = tmp_path / "slurm.yaml"
    cfg.write_text("system: slurm\njobs: 4\ncores: 8\nmemory: 32GB\nwalltime: '02:00:00'\n")
    ex = make_executor("dask", str(cfg))
    assert ex.describe() == "a SLURM cluster via dask-jobqueue"
    with pytest.raises(RepcapError, match="pip install dask-jobqueue"):
        ex.client  # noqa: B018
    bad = tmp_path / "bad.yaml"
    bad.write_text("system: kubernetes\n")
    with pytest.raises(RepcapError, match="'system' must be one of"):
        make_executor("dask", str(bad))
    with pytest.raises(RepcapError, match="does not exist"):
        make_executor("dask", str(tmp_path / "missing.yaml"))
    bad.write_text("system: [slurm\n")
    with pytest.raises(RepcapError, match="not valid YAML"):
        make_executor("dask", str(bad))
    with pytest.raises(RepcapError, match="'jobs' must be"):
        JobqueueConfig.from_mapping({"system": "pbs", "jobs": -1})


def test_jobqueue_config_builds_the_cluster(monkeypatch):
    made = []

    class FakeCluster:
        def __init__(self, **kw):
            if "memory" not in kw:
                raise ValueError("You must specify how much memory to use per job")
            self.kw, self.scaled, self.adapted = kw, None, None
            made.append(self)

        def scale(self, jobs):
            self.scaled = jobs

        def adapt(self, **kw):
            self.adapted = kw

    fake = types.ModuleType("dask_jobqueue")
    fake.SLURMCluster = fake.PBSCluster = FakeCluster
    monkeypatch.setitem(sys.modules, "dask_jobqueue", fake)
    c = JobqueueConfig.from_mapping(
        {"system": "SLURM", "jobs": 4, "cores": 8, "memory": "32GB", "job_extra_directives": ["--gres=gpu:1"]}
    ).build()
    assert c.kw == {"cores": 8, "memory": "32GB", "job_extra_directives": ["--gres=gpu:1"]} and c.scaled == 4
    c = JobqueueConfig.from_mapping(
        {"system": "pbs", "cores": 4, "memory": "8GB", "adapt": {"minimum_jobs": 0, "maximum_jobs": 20}}
    ).build()
    assert c.adapted == {"minimum_jobs": 0, "maximum_jobs": 20} and c.scaled is None
    with pytest.raises(RepcapError, match="refused the pbs config"):
        JobqueueConfig.from_mapping({"system": "pbs", "cores": 4}).build()


def test_task_refuses_a_cache_the_worker_cannot_see(tmp_path):
    task = sweep.PointTask(
        noisy,
        [{"n": 3, "seed": 0}],
        [sweep.point_key(noisy, {"n": 3, "seed": 0}, code="test-code")],
        str(tmp_path / "not-shared"),
    )
    with pytest.raises(RepcapError, match="cannot see the sweep cache folder"):
        task()


def test_task_reads_the_cache_before_computing(tmp_path):
    """What makes a cluster's re-run of a lost task harmless: points already written are read back,
    only the missing ones are computed (and written by the task itself)."""
    store = sweep.Cache(tmp_path)
    store.root.mkdir(parents=True, exist_ok=True)
    store.ensure_marker()
    cs = [{"n": 4, "seed": s} for s in range(3)]
    keys = [sweep.point_key(noisy_batch, c, code="test-code") for c in cs]
    store.put(keys[1], cs[1], {"mean": 0.25, "q90": 1.0, "batch": 9})  # finished earlier, elsewhere
    seen = []

    def spy(batch):
        seen.append([c["seed"] for c in batch])
        return noisy_batch(batch)

    spy.__module__, spy.__qualname__ = noisy_batch.__module__, noisy_batch.__qualname__
    out = sweep.PointTask(spy, cs, keys, str(store.root), batched=True)()
    assert seen == [[0, 2]] and out.computed == [True, False, True]
    assert out.results[1] == {"mean": 0.25, "q90": 1.0, "batch": 9}
    assert out.results[0] == store.get(keys[0]) == noisy_batch([cs[0], cs[2]])[0]
    # run() counts such a late hit (written after run() looked, before the task ran) as cached

    class Planting(sweep.LocalExecutor):
        def run_tasks(self, tasks, on_done):
            t = tasks[0]
            store.put(t.keys[0], t.configs[0], {"mean": -1.0, "q90": 0.0, "batch": 0})
            super().run_tasks(tasks, on_done)

    more = [{"n": 4, "seed": s} for s in range(3, 6)]
    rep = sweep.run(
        noisy_batch,
        cs + more,
        cache=store,
        batched=True,
        group_by=lambda c: c["n"],
        executor=Planting(),
        progress=False,
        code="test-code",
    )
    assert (rep.n_cached, rep.n_computed) == (4, 2)
    assert rep.results[3]["mean"] == -1.0 and rep.results[4] == noisy_batch(more[1:])[0]


def picky(c: dict) -> dict:
    if c["x"] == 6:
        raise OSError("hub unreachable")
    if c["x"] % 3 == 0:
        raise RepcapError(f"model {c['x']} is gated")
    return {"y": c["x"] + 0.25}


def picky_batch(cs: list[dict]) -> list[dict]:
    if any(c["x"] == 4 for c in cs):
        raise RepcapError("batch with 4 fails")
    return [{"y": c["x"] + 0.25} for c in cs]


def test_collected_errors_same_locally_and_on_the_cluster(client, tmp_path):
    """on_error="collect" (the catalog scan: one gated model must not stop the scan): failed points
    are None with their message, are not cached, and are tried again by the next run."""
    cs = [{"x": x} for x in range(7)]
    want_errors = [(0, "model 0 is gated"), (3, "model 3 is gated"), (6, "OSError: hub unreachable")]
    for name, ex in (("local", None), ("dask", DaskExecutor(client))):
        cache = sweep.Cache(tmp_path / name)
        rep = sweep.run(picky, cs, cache=cache, executor=ex, on_error="collect", progress=False, code="test-code")
        assert [(e["index"], e["error"]) for e in rep.errors] == want_errors
        assert rep.results == [None if x % 3 == 0 else {"y": x + 0.25} for x in range(7)]
        assert (rep.n_computed, len(cache)) == (4, 4)
        rep = sweep.run(picky, cs, cache=cache, executor=ex, on_error="collect", progress=False, code="test-code")
        assert (rep.n_cached, rep.n_computed, len(rep.errors)) == (4, 0, 3)
        # Raising: locally the first failing point in order; on the cluster whichever fails first.
        first = "model 0 is gated" if ex is None else r"model [03] is gated|hub unreachable"
        with pytest.raises((RepcapError, OSError), match=first):
            sweep.run(picky, cs, cache=cache, executor=ex, progress=False, code="test-code")
        rep = sweep.run(
            picky_batch,
            cs,
            cache=sweep.Cache(tmp_path / f"b{name}"),
            batched=True,
            max_batch=3,
            executor=ex,
            on_error="collect",
            progress=False,
            code="test-code",
        )
        assert [e["index"] for e in rep.errors] == [3, 4, 5]  # the whole batch [3, 4, 5] failed
        assert rep.results[6] == {"y": 6.25} and rep.results[3] is None
    with pytest.raises(RepcapError, match="'raise' or 'collect'"):
        sweep.run(picky, cs, cache=sweep.Cache(tmp_path / "x"), on_error="ignore", code="test-code")


def test_separate_scheduler_process_without_repcap_and_its_death(tmp_path):
    """A scheduler in its own process, which cannot import the sweep function's module (it only
    sees pickle.loads and bytes), runs the sweep; when it dies mid-sweep the client stops at once
    with a clear error, the points finished so far are in the cache, and a re-run on a new cluster
    computes only the rest."""
    sched_file, log, cache = tmp_path / "scheduler.json", tmp_path / "log", tmp_path / "cache"
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    dask_cli = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    sched = subprocess.Popen(
        dask_cli + ["--port", "0", "--no-dashboard", "--scheduler-file", str(sched_file)],
        cwd=tmp_path,
        env=bare,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = None
    try:
        assert _wait_until(sched_file.exists, timeout=60)
        wenv = {**bare, "PYTHONPATH": str(HERE), "OMP_NUM_THREADS": "1"}
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                "--scheduler-file",
                str(sched_file),
                "--nthreads",
                "1",
                "--no-dashboard",
            ],
            cwd=tmp_path,
            env=wenv,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its nanny's worker process too dies with the group below
        )
        address = json.loads(sched_file.read_text())["address"]
        ex = make_executor("dask", address)
        ex.client.wait_for_workers(1, timeout=60)
        configs = [{"x": x, "log": str(log), "sleep": 0.2} for x in range(12)]
        box: dict = {}

        def target():
            try:
                box["rep"] = sweep.run(
                    child.slow, configs, cache=sweep.Cache(cache), executor=ex, progress=False, code="test-code"
                )
            except BaseException as exc:
                box["exc"] = exc

        th = threading.Thread(target=target)
        th.start()
        assert _wait_until(lambda: len(_finished(cache)) >= 3, timeout=60)
        sched.send_signal(signal.SIGKILL)
        th.join(timeout=60)
        assert not th.is_alive(), "the client hung after the scheduler died"
        assert isinstance(box.get("exc"), RepcapError), box
        assert "lost sweep task" in str(box["exc"]) and "run the sweep again" in str(box["exc"])
        ex.close()
    finally:
        for p in (worker, sched):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(timeout=30)
        if worker is not None:  # the nanny's worker process may outlive the nanny: end the whole group
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(worker.pid, signal.SIGKILL)
            time.sleep(0.5)
    first = _logged(log)
    assert len(first) == len(set(first))
    finished = _finished(cache)
    assert 3 <= len(finished) < len(configs)
    log.rename(tmp_path / "log_first")
    rep = sweep.run(child.slow, configs, cache=sweep.Cache(cache), progress=False, code="test-code")  # resume, here
    assert set(_logged(log)) == set(range(12)) - finished
    assert rep.n_computed == 12 - len(finished) and [r["y"] for r in rep.results] == [3 * x for x in range(12)]
