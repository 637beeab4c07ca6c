"""Kill-and-resume trials (issue 6, "interrupted work"): a sweep, and a figure + CSV writer, are
SIGKILLed at random moments over many trials; every re-run must complete with no finished point
recomputed, no corrupt cache entry, no temp file a reader could take for a result, and no
half-written figure or CSV under its final name.

The children are forked from one helper process (``_sweep_child.py zygote``) that imported repcap
once, so a trial costs a fork, not an interpreter start.  The kill moment is uniform over the
first three quarters of an uncut run measured first (the rest is process exit) for sweeps, over
the whole run for figures.  No timing is asserted; the counts are printed (``pytest -s``) and
recorded as test properties (``--junitxml``) for the closing note.
"""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import _sweep_child as child
import pandas as pd
import pytest

from repcap import sweep

HERE = Path(__file__).resolve().parent
SEED = 20261130
N_SWEEP_TRIALS = 24
N_FIGURE_TRIALS = 6
N_POINTS, PAYLOAD = 12, 3000


class Zygote:
    def __init__(self, tmp: Path) -> None:
        env = {
            **os.environ,
            "MPLBACKEND": "Agg",
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "REPCAP_GIT_REV": "test",
            "REPCAP_CACHE": str(tmp / "rc"),
        }
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "_sweep_child.py"), "zygote"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        ready = self.proc.stdout.readline()
        assert ready and "ready" in json.loads(ready), "the zygote did not start"

    def start(self, cmd: dict) -> int:
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["pid"]

    def wait(self) -> dict:
        line = self.proc.stdout.readline()
        assert line, "the zygote died"
        return json.loads(line)

    def run(self, cmd: dict, kill_after: float | None = None) -> tuple[dict, float]:
        t0 = time.perf_counter()
        pid = self.start(cmd)
        if kill_after is not None:
            time.sleep(kill_after)
            try:
                os.kill(pid, signal.SIGKILL)  # no cleanup code runs in the child
            except ProcessLookupError:
                pass
        end = self.wait()
        return end, time.perf_counter() - t0

    def close(self) -> None:
        try:
            self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    z = Zygote(tmp_path_factory.mktemp("zygote"))
    yield z
    z.close()


def _key(x: int, log: str, batched: bool) -> str:
    fn = child.work_batch if batched else child.work
    return sweep.point_key(fn, {"x": x, "log": log, "payload": PAYLOAD}, code="test-code")


def _sweep_cmd(d: Path, batched: bool, log: Path) -> dict:
    return {
        "op": "sweep",
        "cache": str(d / "cache"),
        "log": str(log),
        "n": N_POINTS,
        "batched": batched,
        "payload": PAYLOAD,
        "summary": str(d / "summary.json"),
    }


def test_sweep_kill_and_resume_trials(zygote, tmp_path, record_property):
    rng = random.Random(SEED)
    expected = [child.expected(x, PAYLOAD) for x in range(N_POINTS)]
    # Calibrate: an uncut run of each kind, to spread the kills over a whole sweep.
    durations = {}
    for batched in (False, True):
        d = tmp_path / f"calib{int(batched)}"
        end, dt = zygote.run(_sweep_cmd(d, batched, d / "log"))
        assert end["status"] == 0
        durations[batched] = dt
    counts = {
        "trials": 0,
        "killed_mid_sweep": 0,
        "finished_before_kill": 0,
        "points_lost": 0,
        "recomputed": 0,
        "corrupt_entries": 0,
        "temp_files_after_kill": 0,
        "temp_files_after_rerun": 0,
    }
    for t in range(N_SWEEP_TRIALS):
        batched = t % 2 == 1
        d = tmp_path / f"trial{t:02d}"
        log_kill = d / "log"
        end, _ = zygote.run(_sweep_cmd(d, batched, log_kill), kill_after=rng.uniform(0, 0.75 * durations[batched]))
        counts["trials"] += 1
        store = sweep.Cache(d / "cache")
        good, corrupt = store.verify()
        counts["corrupt_entries"] += len(corrupt)
        counts["temp_files_after_kill"] += len(store.temp_files())
        # every file a reader would take for an entry is a complete, verified one
        assert all(not p.name.startswith(".") for p in store.entries())
        finished = {json.loads(p.read_text())["config"]["x"] for p in store.entries()}
        assert len(finished) == good
        keys = {_key(x, str(log_kill), batched) for x in finished}
        assert keys == {p.stem for p in store.entries()}
        if end["signal"] == signal.SIGKILL and len(finished) < N_POINTS:
            counts["killed_mid_sweep"] += 1
        counts["finished_before_kill"] += len(finished)

        # Re-run to completion (same configs: the log path is part of the config, so reuse it and
        # count the re-run's computations through a fresh log file swapped in place).
        if log_kill.exists():
            log_kill.rename(d / "log_before_kill")
        end2, _ = zygote.run(_sweep_cmd(d, batched, log_kill))
        assert end2["status"] == 0, f"trial {t}: the re-run failed"
        rerun = [int(s) for s in log_kill.read_text().split()] if log_kill.exists() else []
        summary = json.loads((d / "summary.json").read_text())
        lost = set(rerun) & finished
        counts["points_lost"] += len(lost)
        counts["recomputed"] += len(rerun) - len(set(rerun))
        assert not lost, f"trial {t}: finished points {sorted(lost)} were recomputed"
        assert sorted(rerun) == sorted(set(range(N_POINTS)) - finished), f"trial {t}"
        assert (summary["n_cached"], summary["n_computed"]) == (len(finished), N_POINTS - len(finished))
        assert summary["digest"] == child.results_digest(expected)
        good2, corrupt2 = store.verify()
        assert (good2, corrupt2) == (N_POINTS, [])
        counts["temp_files_after_rerun"] += len(store.temp_files())
        assert store.temp_files() == [], f"trial {t}: the re-run left the dead writer's temp files"
    print(f"\nkill-and-resume (sweep): {json.dumps(counts)}")
    for k, v in counts.items():
        record_property(f"sweep_{k}", v)
    assert counts["corrupt_entries"] == 0 and counts["points_lost"] == 0
    assert counts["killed_mid_sweep"] >= 1, "no kill landed mid-sweep: the trials tested nothing"


def _check_png(p: Path) -> None:
    from PIL import Image

    data = p.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82"), p
    with Image.open(p) as im:
        im.load()


def _check_csv(p: Path, rows: int) -> int:
    df = pd.read_csv(p)
    v = int(df["v"].iloc[0])
    assert (df["v"] == v).all() and len(df) == rows * (v + 1) and list(df["i"]) == list(range(len(df))), p
    return v


def test_figure_and_csv_kill_trials(zygote, tmp_path, record_property):
    rng = random.Random(SEED + 1)
    versions, rows = 3, 300
    d0 = tmp_path / "calib"
    end, duration = zygote.run({"op": "figure", "dir": str(d0), "versions": versions, "rows": rows})
    assert end["status"] == 0 and (d0 / "fig-killtest-trial.png").exists()
    counts = {"trials": 0, "killed_mid_write": 0, "half_written": 0, "files_checked": 0, "temp_files_left": 0}
    for t in range(N_FIGURE_TRIALS):
        d = tmp_path / f"fig{t}"
        end, _ = zygote.run(
            {"op": "figure", "dir": str(d), "versions": versions, "rows": rows}, kill_after=rng.uniform(0, duration)
        )
        counts["trials"] += 1
        if end["signal"] == signal.SIGKILL:
            counts["killed_mid_write"] += 1
        if not d.exists():
            continue
        for p in sorted(d.iterdir()):
            if p.name.startswith("."):
                counts["temp_files_left"] += 1  # dot-named temp: never the final name
                continue
            counts["files_checked"] += 1
            try:
                if p.suffix == ".png":
                    _check_png(p)
                elif p.suffix == ".svg":
                    assert p.read_text().rstrip().endswith("</svg>")
                    ET.parse(p)
                elif p.suffix == ".pdf":
                    assert p.read_bytes().rstrip().endswith(b"%%EOF")
                elif p.name == "table.csv":
                    text = p.read_text()
                    last = text.rstrip("\n").splitlines()[-1]
                    v = int(last.split(",")[1])
                    assert last == f"end,{v},"
                    assert len(text.splitlines()) == 1 + rows * (v + 1) + 1
                elif p.suffix == ".csv":
                    _check_csv(p, rows)
                elif p.suffix == ".json":
                    json.loads(p.read_text())
                else:
                    raise AssertionError(f"unexpected file {p.name}")
            except Exception:
                counts["half_written"] += 1
                raise
    print(f"\nkill-and-resume (figures/CSV): {json.dumps(counts)}")
    for k, v in counts.items():
        record_property(f"figure_{k}", v)
    assert counts["half_written"] == 0
    assert counts["killed_mid_write"] >= 1


def test_temp_files_are_never_read_as_entries(tmp_path):
    """A leftover temp (as SIGKILL leaves it) is invisible to readers and removed by the next run
    when its writer is dead; a live writer's temp is left alone."""
    store = sweep.Cache(tmp_path)
    sweep.run(_sq, [{"x": 1}], cache=store, progress=False, code="test-code")
    key = next(store.entries()).stem
    from repcap.sweep.cache import _host_token

    host = _host_token()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    dead_pid = int(dead.stdout)
    sub = store.root / key[:2]
    leftover = sub / f".{key}.json.{host}.{dead_pid}.abc123.tmp"
    live = sub / f".{key}.json.{host}.{os.getpid()}.def456.tmp"
    for p in (leftover, live):
        p.write_text('{"key": "half')
    assert len(store) == 1 and store.verify() == (1, [])
    assert store.clean_temp() == 1
    assert not leftover.exists() and live.exists()
    old = time.time() - 2 * sweep.STALE_TEMP_S
    os.utime(live, (old, old))
    assert store.clean_temp() == 1 and store.temp_files() == []


def _sq(c: dict) -> dict:
    return {"y": c["x"] ** 2, "r": math.sqrt(c["x"])}
