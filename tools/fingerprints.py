"""The engines' fingerprints (``tests/fingerprints/``): show them, rewrite a table after a bump of an
engine's numerics version, measure how far they move between arithmetic paths, or check an older
checkout against them.

    python tools/fingerprints.py                       # each engine: numerics version, cases, agreement
    python tools/fingerprints.py --update toy          # after bumping repcap.engines.toy.numerics.NUMERICS
    python tools/fingerprints.py --extend toy          # add new cases to the table (values unchanged)
    python tools/fingerprints.py --create ENGINE RTOL ATOL COUNT_ATOL REASON   # a new engine's first table
    python tools/fingerprints.py --spread              # the spread over arithmetic paths (tolerances)
    python tools/fingerprints.py --legacy-src DIR      # the point cases of an older checkout's src/

``--update`` refuses to write values that moved without a new numerics version, and a new numerics
version whose values did not move (``book/architecture.md``).  ``--legacy-src`` runs the point
cases through the functions' legacy ``module:qualname`` in that checkout (a subprocess with
``PYTHONPATH`` set to it) and compares them with the table: what the removed ``tools/rekey_bundle.py`` (git history) ran to
show that a bundle computed there was computed by today's numerics.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fingerprints"))

import harness  # noqa: E402

#: The arithmetic paths ``--spread`` runs the cases under: the CPU kernels torch dispatches to
#: (no vector units, AVX2, AVX-512), one thread against the default, MKL's reproducible mode, and
#: numba's JIT off: the cosine pass's fused kernel then runs as Python, where numpy's promotion
#: rules sum |cos| in float32 rather than float64 (the path ``make fingerprint-coverage`` runs the
#: suite on, so that coverage.py traces the kernel).  The torch path of the kernel is not an
#: environment: the cosine cases run it themselves (``cases_cosine.py``).
PATHS = (
    {},
    {"ATEN_CPU_CAPABILITY": "default"},
    {"ATEN_CPU_CAPABILITY": "avx2"},
    {"ATEN_CPU_CAPABILITY": "avx512"},
    {"OMP_NUM_THREADS": "1"},
    {"MKL_CBWR": "COMPATIBLE"},
    {"NUMBA_DISABLE_JIT": "1"},
)


def worker(
    engines: list[str], env: dict[str, str] | None = None, src: Path | None = None, legacy: bool = False
) -> dict:
    """The cases' values from a fresh interpreter (with ``env``; ``src`` on ``PYTHONPATH``)."""
    e = {**os.environ, **(env or {})}
    if src is not None:
        e["PYTHONPATH"] = str(src)
    cmd = [sys.executable, str(ROOT / "tests" / "fingerprints" / "harness.py"), "--worker", *engines]
    if legacy:
        cmd.append("--legacy")
    out = subprocess.run(cmd, env=e, capture_output=True, text=True, cwd=ROOT, timeout=3600)
    if out.returncode != 0:
        sys.exit(f"fingerprint worker failed ({env or src}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def show(engines: list[str]) -> int:
    bad = 0
    now = worker(engines)
    for e in engines:
        t = harness.Table.load(e)
        diff = harness.differences(now[e], t.latest["values"], t.tolerance)
        ok = t.latest["numerics"] == harness.numerics(e) and not diff
        bad += not ok
        print(
            f"{e:9s} {harness.numerics(e):12s} table {t.latest['numerics']:12s} {len(now[e]):3d} cases "
            f"{sum(map(len, now[e].values())):6d} values: {'agree' if ok else f'{len(diff)} moved'}"
        )
        for line in diff[:20]:
            print("    " + line)
    return 1 if bad else 0


def update(engine: str, extend: bool) -> int:
    t = harness.Table.load(engine)
    version = harness.numerics(engine)
    now = worker([engine])[engine]
    defaults = harness_defaults(engine)
    latest = t.latest
    moved = harness.differences(now, latest["values"], t.tolerance, missing=False) + harness.defaults_moved(
        defaults, latest.get("defaults")
    )
    if extend:
        if moved:
            sys.exit(
                f"{engine}: {len(moved)} fingerprints moved ({moved[0]}): bump its numerics version, then --update"
            )
        new = {k: v for k, v in now.items() if k not in latest["values"]}
        latest["values"].update(new)
        latest["defaults"] = {**(latest.get("defaults") or {}), **defaults}
        t.save()
        print(f"{engine}: {len(new)} new cases added to {latest['numerics']} ({', '.join(new) or 'none'})")
        return 0
    if version == latest["numerics"]:
        if moved:
            sys.exit(
                f"{engine}: {len(moved)} fingerprints moved ({moved[0]}) under the same numerics version "
                f"{version}: bump it (the engine's NUMERICS) in the same commit, then --update"
            )
        sys.exit(f"{engine}: the fingerprints agree with {version}; nothing to update")
    if not moved:
        sys.exit(
            f"{engine}: numerics version {version} but the fingerprints did not move from {latest['numerics']}: "
            "a bump needs a change of numbers; undo it"
        )
    t.history.append({"numerics": version, "defaults": defaults, "values": now})
    t.save()
    print(f"{engine}: {version} written ({len(moved)} fingerprints moved from {latest['numerics']})")
    return 0


def create(engine: str, rtol: str, atol: str, count_atol: str, reason: str) -> int:
    """The first table of ``engine``: its values now, under its declared numerics version."""
    if (harness.HERE / f"{engine}.json").exists():
        sys.exit(f"{engine}: tests/fingerprints/{engine}.json exists; use --update or --extend")
    if engine not in harness.ENGINES:
        sys.exit(f"{engine}: add it to harness.ENGINES (where it declares NUMERICS) first")
    tol = harness.Tolerance(float(rtol), float(atol), float(count_atol), reason)
    values = worker([engine])[engine]
    t = harness.Table(
        engine, tol, [{"numerics": harness.numerics(engine), "defaults": harness_defaults(engine), "values": values}]
    )
    t.save()
    print(f"{engine}: {harness.numerics(engine)} written ({len(values)} cases)")
    return 0


def harness_defaults(engine: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", f"import json, harness; print(json.dumps(harness.defaults({engine!r})))"],
        cwd=ROOT / "tests" / "fingerprints",
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def spread(engines: list[str]) -> int:
    """The largest relative and absolute spread of each engine's values over :data:`PATHS`."""
    runs = [worker(engines, env) for env in PATHS]
    for e in engines:
        t = harness.Table.load(e)
        worst_rel, worst_abs, where = 0.0, 0.0, ""
        flips = 0
        for case in runs[0][e]:
            for k in runs[0][e][case]:
                vals = [r[e][case][k] for r in runs]
                if any(math.isnan(v) for v in vals):
                    continue
                s = max(vals) - min(vals)
                if harness.is_count(k):
                    flips = max(flips, int(s))
                    continue
                rel = s / max(abs(v) for v in vals) if s else 0.0
                if rel > worst_rel:
                    worst_rel, where = rel, f"{case}.{k}"
                worst_abs = max(worst_abs, s)
        print(
            f"{e:9s} largest relative spread {worst_rel:.3g} ({where}), absolute {worst_abs:.3g}, counts {flips}; "
            f"tolerance rtol {t.tolerance.rtol:g} atol {t.tolerance.atol:g} counts {t.tolerance.count_atol:g}"
        )
    return 0


def legacy(src: Path, engines: list[str]) -> int:
    """The point cases of the checkout at ``src`` against the tables' latest values."""
    then = worker(engines, src=src, legacy=True)
    bad = 0
    for e in engines:
        t = harness.Table.load(e)
        ref = {k: v for k, v in t.latest["values"].items() if k in then[e]}
        diff = harness.differences(then[e], ref, t.tolerance)
        exact = all(then[e][c] == ref[c] for c in ref)
        bad += bool(diff)
        print(
            f"{e:9s} {len(then[e])} point cases of {src}: "
            + ("identical to" if exact else "within tolerance of" if not diff else f"{len(diff)} moved from")
            + f" {t.latest['numerics']}"
        )
        for line in diff[:20]:
            print("    " + line)
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engines", nargs="*", help=f"engines (default all: {', '.join(harness.ENGINES)})")
    ap.add_argument("--update", metavar="ENGINE", help="write the new version's values after a bump")
    ap.add_argument("--extend", metavar="ENGINE", help="add cases new to the table (nothing may move)")
    ap.add_argument(
        "--create",
        nargs=5,
        metavar=("ENGINE", "RTOL", "ATOL", "COUNT_ATOL", "REASON"),
        help="write the first table of a new engine (its NUMERICS ending in /1) with its tolerance and the reason",
    )
    ap.add_argument("--spread", action="store_true", help="the spread over arithmetic paths")
    ap.add_argument("--legacy-src", type=Path, metavar="DIR", help="an older checkout's src/ folder")
    args = ap.parse_args()
    engines = args.engines or list(harness.ENGINES)
    if args.create:
        return create(*args.create)
    if args.update or args.extend:
        return update(args.update or args.extend, extend=bool(args.extend))
    if args.spread:
        return spread(engines)
    if args.legacy_src:
        return legacy(args.legacy_src.resolve(), [e for e in engines if e in ("toy", "packing", "survey")])
    return show(engines)


if __name__ == "__main__":
    raise SystemExit(main())
