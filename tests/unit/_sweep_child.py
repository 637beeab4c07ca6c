"""Helper for the kill-and-resume tests (not a test module): sweep functions that log every
computation to a side file, and two entry points run as separate processes.

* ``python _sweep_child.py zygote``: imports repcap once, then reads one JSON command per line on
  stdin and runs each in a forked child (so that many trials cost one import).  It prints
  ``{"ready": pid}`` once imported; then for every command
  it prints ``{"pid": ...}`` as soon as the child is forked (the test SIGKILLs that pid at a random
  moment) and ``{"pid": ..., "status": ...}`` when the child has ended.  Commands:

  - ``{"op": "sweep", "cache", "log", "n", "batched", "payload", "summary"}``: sweep ``work`` (or
    ``work_batch``) over ``x = 0..n-1`` into the cache; writes a summary JSON when complete.
  - ``{"op": "figure", "dir", "versions", "rows"}``: save the same figure id and CSV ``versions``
    times with growing data (figures.save, repcap.base.io.write_text / write_json).

* ``python _sweep_child.py dask-client ADDRESS CACHE LOG N SLEEP DETACH``: a Dask client that
  sweeps ``slow`` on the cluster at ADDRESS (the test kills this client mid-sweep).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time


def _log(path: str, x: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{x}\n".encode())  # one small O_APPEND write: never torn, never interleaved
    finally:
        os.close(fd)


def expected(x: int, payload: int) -> dict:
    """The result of point ``x`` (a closed form, so the test can check every value)."""
    return {"x": x, "y": x * x + 0.5, "v": [math.sin(x + i / 7.0) for i in range(payload)]}


def work(c: dict) -> dict:
    _log(c["log"], c["x"])
    return expected(c["x"], c["payload"])


def work_batch(cs: list[dict]) -> list[dict]:
    if len({c["x"] % 2 for c in cs}) != 1:
        raise AssertionError("a batch mixed groups")
    for c in cs:
        _log(c["log"], c["x"])
    return [expected(c["x"], c["payload"]) for c in cs]


def parity(c: dict) -> int:
    return c["x"] % 2


def slow(c: dict) -> dict:
    """A Dask-side point: logs its start, sleeps, returns."""
    _log(c["log"], c["x"])
    time.sleep(c["sleep"])
    return {"x": c["x"], "y": 3 * c["x"]}


def configs(n: int, log: str, payload: int) -> list[dict]:
    return [{"x": x, "log": log, "payload": payload} for x in range(n)]


def results_digest(results: list[dict]) -> str:
    return hashlib.sha256(json.dumps(results, sort_keys=True).encode()).hexdigest()


def _sweep(cmd: dict) -> None:
    from repcap import sweep

    cs = configs(cmd["n"], cmd["log"], cmd["payload"])
    if cmd["batched"]:
        rep = sweep.run(
            work_batch,
            cs,
            cache=sweep.Cache(cmd["cache"]),
            batched=True,
            group_by=parity,
            max_batch=3,
            progress=False,
            code="test-code",
        )
    else:
        rep = sweep.run(work, cs, cache=sweep.Cache(cmd["cache"]), progress=False, code="test-code")
    from repcap.base import io as rio

    rio.write_json(
        cmd["summary"], {"n_cached": rep.n_cached, "n_computed": rep.n_computed, "digest": results_digest(rep.results)}
    )


def figure_frame(v: int, rows: int):
    import pandas as pd

    n = rows * (v + 1)
    return pd.DataFrame({"i": range(n), "v": [v] * n, "y": [math.sin(i / 50.0) for i in range(n)]})


def _figure(cmd: dict) -> None:
    os.environ["REPCAP_FIGURE_DIR"] = cmd["dir"]
    import matplotlib.pyplot as plt

    from repcap.base import io as rio
    from repcap.book import figures

    for v in range(cmd["versions"]):
        df = figure_frame(v, cmd["rows"])
        fig, ax = plt.subplots(figsize=figures.size(3))
        ax.plot(df["i"][::10], df["y"][::10], lw=0.8)
        ax.set_title(f"version {v}")
        figures.save("fig-killtest-trial", fig, df, {"caption": f"version {v}", "device": "cpu", "seed": v}, show=False)
        rio.write_text(os.path.join(cmd["dir"], "table.csv"), df.to_csv(index=False) + f"end,{v},\n")
        rio.write_json(os.path.join(cmd["dir"], "state.json"), {"v": v, "rows": len(df)})


def zygote() -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    import pandas  # noqa: F401 - imported once, before forking

    from repcap import sweep  # noqa: F401

    print(json.dumps({"ready": os.getpid()}), flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "quit":
            break
        pid = os.fork()
        if pid == 0:  # the child: do the work, then leave without running the parent's code
            code = 0
            try:
                (_sweep if cmd["op"] == "sweep" else _figure)(cmd)
            except BaseException as exc:
                sys.stderr.write(f"child failed: {exc!r}\n")
                code = 1
            finally:
                os._exit(code)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(
            json.dumps({"pid": pid, "status": status, "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0}),
            flush=True,
        )


def dask_client(address: str, cache: str, log: str, n: int, sleep: float, detach: bool) -> None:
    from repcap import sweep
    from repcap.sweep.dask import make_executor

    ex = make_executor("dask", address, detach=detach)
    cs = [{"x": x, "log": log, "sleep": sleep} for x in range(n)]
    rep = sweep.run(slow, cs, cache=sweep.Cache(cache), executor=ex, progress=False, code="test-code")
    print(json.dumps({"n_computed": rep.n_computed}), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _sweep_child as mod  # the functions under their module name, not __main__ (stable keys)

    if sys.argv[1] == "zygote":
        mod.zygote()
    elif sys.argv[1] == "dask-client":
        a = sys.argv[2:]
        mod.dask_client(a[0], a[1], a[2], int(a[3]), float(a[4]), a[5] == "1")
