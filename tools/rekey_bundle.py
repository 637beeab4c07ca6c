"""Migrate a results bundle of format 1 (points keyed by their engine's source text and package
versions) to format 2 (identity keys: registered name, numerics version, config, data), without
recomputing a point.  It is exact, not a guess; for every entry it checks

1. that the entry's stored code digest is the format-1 digest that the checkout at ``--legacy-src``
   gives for its function, under the package versions it ran with (its provenance, completed by
   ``--env`` for the packages format 1 did not record): the entry was computed by that code;
2. that the engines' fingerprints, run by that checkout's code (``tools/fingerprints.py
   --legacy-src``), equal the tables of today's numerics versions: that code computes what today's
   numerics compute;
3. that the data files the function reads are the same bytes in both checkouts;

and only then writes the entry in format 2: its registered name, its identity, today's numerics
version and data digest, its new key, the result, checksum and provenance unchanged but completed
(the engine's source digest at the legacy checkout as ``code``; the versions it ran with).  Usage,
from the project root::

    git worktree add /tmp/legacy 12d7158
    python tools/rekey_bundle.py data/runs/reference --legacy-src /tmp/legacy/src
    python tools/rekey_bundle.py data/runs/paper-gpu --legacy-src /tmp/legacy-gpu/src \\
        --env torch=2.11.0 numpy=2.5.2 scipy=1.18.1 numba=0.68.0 numba_in_use=true
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What format 1 hashed, computed by the legacy checkout's own codehash under the interpreter given
#: (format 1 hashed ``ast.dump`` of the sources, which differs between Python versions): per
#: module, the normalised source digest, the data digest, and the raw-bytes digest of format 2's
#: provenance.
_LEGACY_DIGEST = r"""
import hashlib, importlib.util, json, sys
from pathlib import Path
src = Path(sys.argv[1])
spec = importlib.util.spec_from_file_location("legacy_codehash", src / "repcap" / "codehash.py")
ch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ch)
out = {}
for module in json.loads(sys.argv[2]):
    closure = ch.numeric_closure([module], src)
    h = hashlib.sha256()
    for name in closure:
        h.update(name.encode() + b"\0" + hashlib.sha256(ch.module_path(name, src).read_bytes()).hexdigest().encode())
    out[module] = {
        "source": ch.numeric_digest([module], src),
        "data": ch.data_digest([module], src, src.parent / "data" / "reference"),
        "files": h.hexdigest(),
    }
print(json.dumps(out))
"""


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _legacy(src: Path, python: str, modules: list[str]) -> dict:
    out = subprocess.run(
        [python, "-c", _LEGACY_DIGEST, str(src), json.dumps(modules)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if out.returncode != 0:
        sys.exit(f"the legacy checkout at {src} failed under {python}:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _format1_code(legacy: dict, module: str, env: dict) -> str:
    """Format 1's computation digest: sha256 of ``{"code", "data", "env"}``."""
    parts = {"code": legacy[module]["source"], "data": legacy[module]["data"], "env": env}
    return hashlib.sha256(_canonical(parts).encode()).hexdigest()


def _env(prov_versions: dict, given: dict) -> dict:
    """The format-1 environment part: torch/numpy from the entry, the rest from ``--env``."""
    out = {}
    for pkg in ("torch", "numpy", "scipy", "numba"):
        v = prov_versions.get(pkg) or given.get(pkg)
        if v is None:
            sys.exit(f"the version of {pkg} is not recorded: give it with --env {pkg}=VERSION")
        out[pkg] = str(v).split("+", 1)[0]
    flag = prov_versions.get("numba_in_use", given.get("numba_in_use", "true"))
    out["numba_in_use"] = str(flag).lower() == "true"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--legacy-src", type=Path, required=True, help="src/ of the checkout the bundle was computed at")
    ap.add_argument(
        "--env",
        nargs="*",
        default=[],
        metavar="PKG=VERSION",
        help="versions format 1 did not record (scipy, numba, numba_in_use); default: this environment's",
    )
    ap.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter of the Python version that computed the bundle (format 1 hashed its ast.dump; "
        "default: this one)",
    )
    ap.add_argument("--skip-fingerprints", action="store_true", help="(for tests) do not run the legacy fingerprints")
    args = ap.parse_args()
    src = args.legacy_src.resolve()

    from repcap.results.bundle.schema import MANIFEST, _check_manifest, _sha, entry_key
    from repcap.results.bundle.writer import _dump_experiment, _write
    from repcap.results.runs.point_functions import point_function
    from repcap.sweep import canonical
    from repcap.sweep.keys import config_part, data_part
    from repcap.sweep.provenance import versions
    from repcap.sweep.registry import get

    here = versions()
    given = {"scipy": here["scipy"], "numba": here["numba"], "numba_in_use": here["numba_in_use"]}
    given.update(dict(kv.split("=", 1) for kv in args.env))
    man = json.loads((args.bundle / MANIFEST).read_text())
    if man.get("version") != 1:
        sys.exit(f"{args.bundle}: format {man.get('version')}, not 1: nothing to migrate")
    docs = {x["name"]: json.loads((args.bundle / x["file"]).read_text()) for x in man["experiments"]}
    names = sorted({x["fn"] for x in man["experiments"]})

    # 1. each entry was computed by the legacy checkout's code under its recorded environment
    modules = {n: n.split(":", 1)[0] for n in names}
    legacy = _legacy(src, args.python, sorted(set(modules.values())))
    for name, doc in docs.items():
        for e in doc["entries"]:
            want = _format1_code(legacy, modules[e["fn"]], _env(e["provenance"]["versions"], given))
            if e["code"] != want:
                sys.exit(
                    f"{name}: an entry was computed by other code, other versions or another Python "
                    f"({e['code'][:12]} != {want[:12]})"
                )
    print(f"1. {sum(len(d['entries']) for d in docs.values())} entries: computed by {src} (format-1 digests match)")

    # 2. the legacy code computes what today's numerics compute
    engines = sorted({get(n).engine for n in names})
    if not args.skip_fingerprints:
        out = subprocess.run(
            [sys.executable, str(ROOT / "tools" / "fingerprints.py"), "--legacy-src", str(src), *engines],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        print("2. fingerprints of the legacy code:\n" + out.stdout.rstrip())
        if out.returncode != 0:
            sys.exit("the legacy code's fingerprints differ from today's numerics: the bundle cannot be rekeyed")

    # 3. the data read are the same bytes
    for n in names:
        if legacy[modules[n]]["data"] != _data_now(n):
            sys.exit(f"{n}: a data file it reads differs from the legacy checkout's")
    print(f"3. data: the files {', '.join(names)} read are the same bytes")

    for x in man["experiments"]:
        doc = docs[x["name"]]
        fn = point_function(x["fn"])
        pf = get(x["fn"])
        entries = []
        for e in doc["entries"]:
            env = _env(e["provenance"]["versions"], given)
            config = dict(e["config"])
            if x["fn"].endswith(":sweep_annealed") and "lr_floor" not in config:
                config["lr_floor"] = 0.0  # that function's default; PackConfig's is a fixed rate
            identity = config_part(fn, config)
            data = data_part(fn)
            prov = dict(e["provenance"])
            prov["code"] = legacy[modules[x["fn"]]]["files"]
            prov["versions"] = {
                **{k: str(v) for k, v in prov["versions"].items()},
                **{k: str(env[k]) for k in ("scipy", "numba") if k not in prov["versions"]},
                "numba_in_use": "true" if env["numba_in_use"] else "false",
            }
            entries.append(
                {
                    "fn": pf.name,
                    "config": config,
                    "identity": identity,
                    "numerics": pf.numerics,
                    "data": data,
                    "key": entry_key(pf.name, identity, pf.numerics, data),
                    "result": e["result"],
                    "sha256": e["sha256"],
                    "omitted": e["omitted"],
                    "primary": True,
                    "provenance": prov,
                }
            )
        header = {"experiment": x["name"], "fn": pf.name, "cache": doc["cache"], "missing": doc["missing"]}
        text = _dump_experiment(header, entries)
        _write(args.bundle / x["file"], text)
        x["fn"], x["sha256"] = pf.name, _sha(text)
        print(f"   {x['name']}: {len(entries)} entries rekeyed to {pf.name} ({pf.numerics})")
    man["version"] = 2
    body = {k: v for k, v in man.items() if k != "sha256"}
    manifest = {**body, "sha256": _sha(canonical(body))}
    _check_manifest(manifest, str(args.bundle / MANIFEST))
    _write(args.bundle / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(f"{args.bundle}: format 2 written")


def _data_now(name: str) -> str:
    from repcap.results.runs.point_functions import point_function
    from repcap.sweep.keys import data_part

    return data_part(point_function(name))


if __name__ == "__main__":
    main()
