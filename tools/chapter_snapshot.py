"""Run every chapter under the smoke profile in a fresh copy of the book and record what it produced,
so that a restructuring of the library can be shown to change no result.

A snapshot is a folder holding, per chapter, every figure's CSV (byte for byte), every glued value
(the raw text papermill recorded, volatile timings left out) and every finding, plus
``manifest.json`` with the sha256 of each.  Two snapshots are compared file by file::

    .venv/bin/python tools/chapter_snapshot.py run .cache/snap-before       # minutes: all smoke chapters
    .venv/bin/python tools/chapter_snapshot.py compare .cache/snap-before .cache/snap-after

The chapters run through ``repcap run`` (the command line, whose spelling does not depend on where
the library's modules live), under the golden tests' arithmetic pins, with a cache of their own.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "notebooks"))
import _golden  # noqa: E402  (the goldens' own list of chapters, pins and source copy)

#: Sidecar and findings fields that record the machine or the moment, not the result.
VOLATILE_KEYS = {"git", "git_rev", "date", "compute_s", "wall_s", "seconds", "host", "pid", "created", "time"}


def _glued_raw(ipynb: Path) -> dict[str, str]:
    nb = json.loads(ipynb.read_text())
    out: dict[str, str] = {}
    for cell in nb["cells"]:
        for o in cell.get("outputs", []):
            meta = (o.get("metadata") or {}).get("scrapbook")
            if not meta or _golden.VOLATILE.search(meta["name"]):
                continue
            data = o.get("data", {})
            out[meta["name"]] = json.dumps(
                {k: v for k, v in data.items() if k.startswith("application/papermill.record")}, sort_keys=True
            )
    return out


def _strip(obj):
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in VOLATILE_KEYS}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def run(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="repcap-snap-") as tmp:
        book = Path(tmp)
        _golden.copy_sources(book, ROOT)
        env = {**os.environ, **_golden.PINS, "REPCAP_ROOT": str(book), "REPCAP_CACHE": str(book / ".cache")}
        env.pop("REPCAP_FIGURE_DIR", None)
        subprocess.run([sys.executable, "-c", _golden.REFERENCE_SMOKE], check=True, env=env, stdout=subprocess.DEVNULL)
        repcap = [sys.executable, "-m", "repcap"]
        for stem in _golden.chapters(ROOT):
            print(f"== {stem}", flush=True)
            subprocess.run(
                [*repcap, "run", f"notebooks/{stem}.py", "--profile", "smoke"], check=True, env=env, cwd=book
            )
        gen = book / "book" / "generated"
        manifest: dict[str, str] = {}
        for stem in _golden.chapters(ROOT):
            glue = _glued_raw(gen / f"{stem}.ipynb")
            (dest / f"{stem}.glue.json").write_text(json.dumps(glue, indent=1, sort_keys=True))
            f = gen / "findings" / f"{stem}.json"
            if f.exists():
                (dest / f"{stem}.findings.json").write_text(
                    json.dumps(_strip(json.loads(f.read_text())), indent=1, sort_keys=True)
                )
        for csv in sorted((gen / "figures").glob("*.csv")):
            shutil.copy(csv, dest / csv.name)
        sidecars = dest / "sidecars"  # what each figure says was run (dated: kept beside, not compared)
        sidecars.mkdir(exist_ok=True)
        for side in sorted((gen / "figures").glob("*.json")):
            shutil.copy(side, sidecars / side.name)
        for p in sorted(dest.iterdir()):
            if p.is_file() and p.name != "manifest.json":
                manifest[p.name] = hashlib.sha256(p.read_bytes()).hexdigest()
        (dest / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
        print(f"{len(manifest)} files in {dest}")


def compare(a: Path, b: Path) -> int:
    ma, mb = (json.loads((p / "manifest.json").read_text()) for p in (a, b))
    only_a, only_b = sorted(set(ma) - set(mb)), sorted(set(mb) - set(ma))
    differ = sorted(k for k in set(ma) & set(mb) if ma[k] != mb[k])
    for k in only_a:
        print(f"only in {a}: {k}")
    for k in only_b:
        print(f"only in {b}: {k}")
    for k in differ:
        print(f"differs: {k}")
    same = len(set(ma) & set(mb)) - len(differ)
    print(f"{same} identical, {len(differ)} differ, {len(only_a) + len(only_b)} in one snapshot only")
    return 1 if differ or only_a or only_b else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("run").add_argument("dest", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.cmd == "run":
        run(args.dest)
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    raise SystemExit(main())
