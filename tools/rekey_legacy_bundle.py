"""One-off migration of a results bundle from the single-digest keys (before the four-part keys of
``repcap.sweep.keys``) to the four-part keys, without recomputing a point.

It is exact, not a guess: for every entry it checks

1. that the entry's stored code digest equals the old-scheme digest (``repcap.codehash.digest``)
   of the checkout at ``--legacy-commit``: the entry was computed by that code;
2. that every module of the point function's numerical closure (``codehash.numeric_closure``) has
   the same normalised source at ``--legacy-commit`` and in this checkout;
3. that the data files the closure declares are the same bytes in both;

and only then writes the entry's new key and computation digest (config, result, checksum and
provenance unchanged).  Usage, from the project root::

    git worktree add /tmp/legacy <commit>
    python tools/rekey_legacy_bundle.py data/runs/reference --legacy-src /tmp/legacy/src \
        --legacy-data /tmp/legacy/data/reference
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from repcap import codehash, reference
from repcap.bundle.schema import MANIFEST, _sha
from repcap.bundle.writer import _dump_experiment, _write
from repcap.runs.point_functions import point_function
from repcap.sweep import canonical, code_digest, point_key


def _same_code(module: str, legacy_src: Path) -> None:
    here, there = codehash.numeric_closure([module]), codehash.numeric_closure([module], legacy_src)
    if here != there:
        sys.exit(f"{module}: numerical closure differs: {sorted(set(here) ^ set(there))}")
    if codehash.numeric_digest([module]) != codehash.numeric_digest([module], legacy_src):
        sys.exit(f"{module}: a numerical module's source differs from the legacy checkout's")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--legacy-src", type=Path, required=True, help="src/ of the checkout the bundle was computed at")
    ap.add_argument("--legacy-data", type=Path, required=True, help="its data/reference folder")
    args = ap.parse_args()
    man = json.loads((args.bundle / MANIFEST).read_text())
    for line in man["experiments"]:
        path = args.bundle / line["file"]
        exp = json.loads(path.read_text())
        fn = point_function(exp["fn"])
        legacy = codehash.digest([fn.__module__], args.legacy_src)
        _same_code(fn.__module__, args.legacy_src)
        if codehash.data_digest([fn.__module__]) != codehash.data_digest(
            [fn.__module__], args.legacy_src, args.legacy_data
        ):
            sys.exit(f"{exp['fn']}: a data file its closure reads differs from the legacy checkout's")
        new_code = code_digest(fn)
        for e in exp["entries"]:
            if e["code"] != legacy:
                sys.exit(f"{line['name']}: an entry was computed by other code ({e['code'][:12]} != {legacy[:12]})")
            e["code"], e["key"] = new_code, point_key(fn, e["config"], new_code)
        header = {k: exp[k] for k in ("experiment", "fn", "cache", "missing")}
        text = _dump_experiment(header, exp["entries"])
        _write(path, text)
        line["sha256"] = _sha(text)
        print(f"{line['name']}: {len(exp['entries'])} entries rekeyed (legacy code {legacy[:12]} verified)")
    body = {k: v for k, v in man.items() if k != "sha256"}
    _write(
        args.bundle / MANIFEST, json.dumps({**body, "sha256": _sha(canonical(body))}, indent=1, sort_keys=True) + "\n"
    )
    print(f"data digest checked against {reference.reference_dir()}")


if __name__ == "__main__":
    main()
