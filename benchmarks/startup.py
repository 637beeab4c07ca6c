"""Start-up time of the ``repcap`` command line (issue 19, item 7), next to ``python -c pass``.

    python benchmarks/startup.py [--quick] [--runs N]

Times, each in a fresh interpreter (subprocess; best and median of N runs):

* ``python -c pass`` -- the interpreter alone, the floor;
* ``python -c "import repcap.cli"`` -- the package and the parser's modules;
* ``repcap --help`` and ``repcap nosuch`` (an argument error) -- the goal: well under 0.3 s, because
  the parser imports only the command on the line (torch and the engines stay out);
* ``repcap models --bogus`` -- an argument error of a command whose flags are plain;
* ``repcap COMMAND --help`` for every command -- ``stats``, ``pack`` and ``toy`` take their flags
  from an engine's settings, read from :mod:`repcap.engines.settings` (no numpy, no torch);
* side by side, the alternative they replaced: importing the engine package the flags once came
  from (``import repcap.engines.cosine``: numba and torch), what each of those ``--help`` paid.

Prints each time and its ratio to ``python -c pass``; exits 1 if any ``--help`` or the argument
error takes 0.3 s or more (best of N).  There is no matmul in a start-up, so no ceiling is printed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

GOAL_S = 0.3
#: Every sub-command (``repcap.cli.commands``); a test holds this list to the parser's.
COMMANDS = ("book", "bundle", "models", "pack", "run", "stats", "toy")


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
    for cmd in COMMANDS:
        rows.append((f"repcap {cmd} --help", [py, "-m", "repcap", cmd, "--help"]))
    if not args.quick:
        rows.append(("import repcap.engines.cosine (the old path)", [py, "-c", "import repcap.engines.cosine"]))
    results = {label: time_command(argv, runs) for label, argv in rows}
    floor = results["python -c pass"][0]
    print(f"{'command':44s} {'best s':>8s} {'median s':>9s} {'x pass':>7s}   ({runs} runs each)")
    for label, (best, med) in results.items():
        print(f"{label:44s} {best:8.3f} {med:9.3f} {best / floor:7.1f}")
    held = ["repcap --help", "repcap nosuch (argument error)", *(f"repcap {c} --help" for c in COMMANDS)]
    slow = [k for k in held if results[k][0] >= GOAL_S]
    if slow:
        print(f"goal missed (>= {GOAL_S} s): {', '.join(slow)}")
        return 1
    print(f"goal met: every --help and an argument error under {GOAL_S} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
