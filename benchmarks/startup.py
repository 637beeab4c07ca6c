"""Start-up time of the ``repcap`` command line (issue 19, item 7), next to ``python -c pass``.

    python benchmarks/startup.py [--quick] [--runs N]

Times, each in a fresh interpreter (subprocess; best and median of N runs):

* ``python -c pass`` -- the interpreter alone, the floor;
* ``python -c "import repcap.cli"`` -- the package and the parser's modules;
* ``repcap --help`` and ``repcap nosuch`` (an argument error) -- the goal: well under 0.3 s, because
  the parser imports only the command on the line (torch and the engines stay out);
* ``repcap models --bogus`` -- an argument error of a command whose flags are plain;
* ``repcap stats --help`` -- a command whose flags come from an engine's dataclass (``TiledConfig``
  in :mod:`repcap.engines.cosine`, which imports numba and torch): it pays that import, shown for honesty.

Prints each time and its ratio to ``python -c pass``; exits 1 if ``--help`` or the argument error
takes 0.3 s or more (best of N).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

GOAL_S = 0.3


def time_command(argv: list[str], runs: int) -> tuple[float, float]:
    """(best, median) wall seconds of ``argv`` over ``runs`` fresh processes (output discarded)."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 runs each, skip the engine-import row")
    ap.add_argument("--runs", type=int, default=None, help="runs per command (default 7, --quick 3)")
    args = ap.parse_args()
    runs = args.runs or (3 if args.quick else 7)
    py = sys.executable
    rows = [
        ("python -c pass", [py, "-c", "pass"]),
        ("import repcap.cli", [py, "-c", "import repcap.cli"]),
        ("repcap --help", [py, "-m", "repcap", "--help"]),
        ("repcap nosuch (argument error)", [py, "-m", "repcap", "nosuch"]),
        ("repcap models --bogus (argument error)", [py, "-m", "repcap", "models", "--bogus"]),
    ]
    if not args.quick:
        rows.append(("repcap stats --help (imports the engine)", [py, "-m", "repcap", "stats", "--help"]))
    results = {label: time_command(argv, runs) for label, argv in rows}
    floor = results["python -c pass"][0]
    print(f"{'command':42s} {'best s':>8s} {'median s':>9s} {'x pass':>7s}   ({runs} runs each)")
    for label, (best, med) in results.items():
        print(f"{label:42s} {best:8.3f} {med:9.3f} {best / floor:7.1f}")
    slow = [k for k in ("repcap --help", "repcap nosuch (argument error)") if results[k][0] >= GOAL_S]
    if slow:
        print(f"goal missed (>= {GOAL_S} s): {', '.join(slow)}")
        return 1
    print(f"goal met: --help and an argument error under {GOAL_S} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
