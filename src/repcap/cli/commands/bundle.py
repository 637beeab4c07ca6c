"""``repcap bundle``: compute a named point set, and ship its finished points as a results bundle.

    repcap bundle compute paper-gpu --out data/runs/paper-gpu     # run the set, then export it
    repcap bundle compute reference --only yoder --budget 1800    # part of a set, within a time
    repcap bundle export reference data/runs/reference
    repcap bundle import data/runs/reference                      # seed the sweep caches
    repcap bundle status data/runs/reference                      # fresh / stale / missing / not yet / replicas
    repcap bundle compare data/runs/reference data/runs/paper-gpu # the same points on two machines
    repcap bundle unclaim                                         # claims on points; remove a dead run's

The sets are :mod:`repcap.results.runs`'; the bundle format, its checks and provenance are
:mod:`repcap.results.bundle`'s.  ``compute`` is resumable: finished points are cached as they finish.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "bundle",
        help="compute a named point set; export, import and check results bundles",
        description="Named point sets (repcap.results.runs) and results bundles (repcap.results.bundle).",
    )
    from repcap.results.runs.names import SCALES, SETS  # after add_parser: `repcap --help` stops there

    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    _register_compute(sub, SETS, SCALES)
    _register_export(sub, SETS, SCALES)
    _register_rest(sub)


def _action(sub: argparse._SubParsersAction, name: str, func, text: str, **kw) -> argparse.ArgumentParser:
    """One action's sub-parser: its ``help`` (and ``description``, if given) and its handler."""
    parser = sub.add_parser(name, help=text, **kw)
    parser.set_defaults(func=func)
    return parser


def _add_set(p: argparse.ArgumentParser, sets: dict[str, str], scales: tuple[str, ...], scale_help: str) -> None:
    """The positional SET (one of the named point sets) and ``--scale``."""
    p.add_argument("set", choices=list(sets), metavar="SET", help=f"one of {', '.join(sets)}")
    p.add_argument("--scale", choices=list(scales), default="full", help=scale_help or None)


def _add_flag(p: argparse.ArgumentParser, flag: str, text: str) -> None:
    """An on/off switch."""
    p.add_argument(flag, action="store_true", help=text)


def _add_seconds(p: argparse.ArgumentParser, flag: str, text: str) -> None:
    """An optional number of seconds."""
    p.add_argument(flag, type=float, metavar="SECONDS", help=text)


def _register_compute(sub: argparse._SubParsersAction, sets: dict[str, str], scales: tuple[str, ...]) -> None:
    from repcap.sweep.dask import add_arguments

    described = ", ".join(f"{k} ({v})" for k, v in sets.items())
    c = _action(
        sub,
        "compute",
        run_compute,
        "run a set's points (resumable), then optionally export them",
        description=f"Run the points of a set through the sweep cache. Sets: {described}.",
    )
    _add_set(c, sets, scales, "smoke: every size shrunk (seconds on a CPU)")
    c.add_argument(
        "--out",
        metavar="DIR",
        help="export the set's finished points to this bundle folder at the end, merged with the bundle already "
        "there (checked before anything is computed)",
    )
    _add_flag(c, "--replace", "with --out: allow the new bundle to hold fewer points than the old")
    c.add_argument("--only", nargs="+", metavar="EXPERIMENT", help="run only these experiments of the set")
    _add_seconds(
        c,
        "--budget",
        "start only the batches that the cost model expects to end within this many seconds of the start (the "
        "rest is left for the next run)",
    )
    _add_flag(c, "--no-progress", "hide the progress bars")
    _add_seconds(
        c,
        "--claim-timeout",
        "trust another host's claim on a point this long past its last sign of life before computing the point "
        "here (default 600, or REPCAP_CLAIM_TIMEOUT)",
    )
    add_arguments(c)


def _register_export(sub: argparse._SubParsersAction, sets: dict[str, str], scales: tuple[str, ...]) -> None:
    e = _action(sub, "export", run_export, "write a set's finished points and their provenance to a folder")
    _add_set(e, sets, scales, "")
    e.add_argument("dir", metavar="DIR", help="the bundle folder (created)")
    _add_flag(e, "--keep-large", "keep the toy models' norms in every entry")
    _add_flag(
        e,
        "--replace",
        "write the bundle even if it holds fewer points than the one in DIR (by default they are merged, and a "
        "loss is refused)",
    )


def _register_rest(sub: argparse._SubParsersAction) -> None:
    """``import``, ``status``, ``unclaim`` and ``compare``."""
    folder = "the bundle folder"
    _action(sub, "import", run_import, "seed the sweep caches with a bundle's entries that match the current code")
    sub.choices["import"].add_argument("dir", metavar="DIR", help=folder)
    s = _action(
        sub,
        "status",
        run_status,
        "count a bundle's fresh, stale, missing and replicated points, and the set's experiments not in it yet "
        "(added since the export), with their cost to compute",
    )
    s.add_argument("dir", metavar="DIR", help=folder)
    u = _action(
        sub,
        "unclaim",
        run_unclaim,
        "list the claims on points being computed, or remove one a run left behind",
        description="A run claims each point before it computes it, so that another run waits instead of computing it "
        "too. A run that died on another host leaves its claim until it shows no sign of life for the claim timeout; "
        "this removes it now. Without CLAIM: list every claim of the sweep caches.",
    )
    u.add_argument("claim", nargs="*", metavar="CLAIM", help="a claim file (as a waiting run prints it) or a point key")
    _add_flag(u, "--stale", "remove every stale claim")
    _add_flag(u, "--force", "also remove a claim whose process still runs on this host")
    k = _action(
        sub,
        "compare",
        run_compare,
        "compare two bundles over the points both hold (or one bundle's points with their replicas)",
        description="Paired differences ln(a/b) of each function's metrics over the shared points, against the "
        "seed scatter of the bundles, with a 95%% interval and a verdict (repcap.results.bundle.compare).",
    )
    k.add_argument("a", metavar="A", help="a bundle folder")
    k.add_argument("b", metavar="B", nargs="?", help="another bundle folder (none: A's primaries against its replicas)")
    _add_flag(k, "--pairs", "also list every pair")


def _check_budget(budget: float | None) -> None:
    import math

    from repcap import RepcapError

    if budget is not None and not (math.isfinite(budget) and budget >= 0):
        raise RepcapError(f"--budget {budget!r} must be a number of seconds >= 0")


def run_compute(args: argparse.Namespace) -> int:
    from repcap.results import bundle, runs
    from repcap.sweep.dask import from_args

    _check_budget(args.budget)
    _set_claim_timeout(args.claim_timeout)
    pset = runs.point_set(args.set, args.scale)
    pset.only(args.only)  # an unknown experiment is refused before anything runs
    if args.out:  # a folder that cannot take the bundle is refused before the set is computed
        for note in bundle.check_out(args.out, args.set, args.scale, replace=args.replace).notes:
            print(note, flush=True)
    executor = from_args(args)
    t0 = time.perf_counter()
    try:
        done = runs.compute(
            pset,
            only=args.only,
            executor=executor,
            budget_s=args.budget,
            progress=not args.no_progress,
            log=lambda s: print(s, flush=True),
        )
    finally:
        if executor is not None:
            executor.close()
    left = sum(r.n_left for r in done)
    print(
        f"set {args.set} ({args.scale}): {sum(r.n_computed for r in done)} points computed, "
        f"{sum(r.n_cached for r in done)} cached, {left} left; wall time {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    if args.out:
        rep: list = []
        m = bundle.export(args.set, args.out, scale=args.scale, replace=args.replace, report=rep)
        for note in rep[0].notes:
            print(note)
        print(f"{rep[0].describe(args.out)}; {sum(x['n_missing'] for x in m['experiments'])} missing")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from repcap.results import bundle

    rep: list = []
    m = bundle.export(
        args.set,
        args.dir,
        scale=args.scale,
        keep_large=True if args.keep_large else None,
        replace=args.replace,
        report=rep,
    )
    for note in rep[0].notes:
        print(note)
    for x in m["experiments"]:
        print(f"{x['name']:14s} {x['n_entries']:6d} points {x['n_missing']:6d} missing  {x['wall_s']:9.1f} s")
    print(f"bundle {args.dir}: set {m['set']} ({m['scale']}), commit {m['provenance']['commit']}")
    print(rep[0].describe(args.dir))
    return 0


def run_import(args: argparse.Namespace) -> int:
    from repcap.results import bundle

    rep = bundle.import_(args.dir)
    print(rep.describe())
    for exp, cfg in rep.stale[:20]:
        print(f"  stale: {exp} {_short(cfg)}", file=sys.stderr)
    if len(rep.stale) > 20:
        print(f"  ... and {len(rep.stale) - 20} more stale points", file=sys.stderr)
    return 0


def run_status(args: argparse.Namespace) -> int:
    from repcap.results import bundle

    print(bundle.status(args.dir).describe())
    return 0


def run_compare(args: argparse.Namespace) -> int:
    from repcap.results import bundle

    cmp = bundle.compare(args.a, args.b)
    print(cmp.describe())
    if args.pairs:
        for p in cmp.pairs:
            print(
                f"  {p.experiment:14s} {_short(p.config):40s} {p.metric:16s} a={p.a:.6g} ({p.device_a}) "
                f"b={p.b:.6g} ({p.device_b}) ln(a/b)={p.log_ratio:+.4f}"
            )
    return 0


def _set_claim_timeout(seconds: float | None) -> None:
    """``--claim-timeout``: for this run and the processes it starts (workers of a local cluster)."""
    import math
    import os

    from repcap import RepcapError

    if seconds is None:
        return
    if not (math.isfinite(seconds) and 0 <= seconds < 1e9):
        raise RepcapError(f"--claim-timeout {seconds!r} must be a number of seconds >= 0")
    os.environ["REPCAP_CLAIM_TIMEOUT"] = repr(float(seconds))
    print(f"another host's claim on a point is trusted {seconds:g} s past its last sign of life", flush=True)


def run_unclaim(args: argparse.Namespace) -> int:
    """List the claims of the sweep caches, or remove the ones named (a live one on this host only
    with --force)."""
    import re
    from pathlib import Path

    from repcap import RepcapError
    from repcap.base.paths import cache_dir
    from repcap.sweep.cache import Cache, read_claim

    caches = [Cache(p) for p in sorted((cache_dir() / "sweeps").glob("*")) if p.is_dir()]
    if args.stale:
        targets = [p for c in caches for p in c.claims() if (i := read_claim(p)) is not None and i.stale]
    else:
        targets = []
    for name in args.claim:
        p = Path(name)
        if re.fullmatch(r"[0-9a-f]{16,128}", name):
            found = [c.claim_path(name) for c in caches if os.path.lexists(c.claim_path(name))]
            if not found:
                raise RepcapError(f"no claim on point {name} in the sweep caches under {cache_dir() / 'sweeps'}")
            targets += found
        elif re.fullmatch(r"\.[0-9a-f]{16,128}\.claim", p.name) and os.path.lexists(p):
            targets.append(p)
        else:
            raise RepcapError(
                f"{name[:200]!r} is not a claim file (.KEY.claim, as a waiting run prints it) or a point key that "
                "holds a claim; `repcap bundle unclaim` lists them"
            )
    if not args.claim and not args.stale:
        shown = [(p, read_claim(p)) for c in caches for p in c.claims()]
        for p, info in shown:
            if info is not None:
                state = f"stale: {info.stale}" if info.stale else "held"
                print(f"{p}\n    {info.describe()}; {state}")
        print(f"{len(shown)} claims; `repcap bundle unclaim CLAIM` removes one, `--stale` every stale one")
        return 0
    for p in dict.fromkeys(targets):
        info = read_claim(p)
        if info is None:
            continue
        if info.local and info.stale is None and not args.force:
            raise RepcapError(
                f"{p}: pid {info.pid} on this host still runs and holds it ({info.describe()}); stop that run, or "
                "add --force"
            )
        p.unlink(missing_ok=True)
        print(f"removed {p} ({info.describe()})")
    return 0


def _short(cfg: dict) -> str:
    keys = ("k", "d", "loss", "n", "m", "alpha", "gamma", "seed")
    return " ".join(f"{k}={cfg[k]}" for k in keys if k in cfg) or str(cfg)[:100]
