"""What a chapter's run leaves behind, and whether it still holds: the run's cache key (the
chapter's source and imports, its parameters, the data and bundles it reads, the packages), the
name and folders of its outputs, its stamp, and the digests that tell a figure replaced since.
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path
from typing import Any

from repcap.base.paths import generated_dir, notebooks_dir, project_root


def _data_digest() -> str:
    """The reference data every chapter may read (``data/reference``)."""
    from repcap.evidence.reference import reference_dir

    h = hashlib.sha256()
    root = reference_dir()
    for p in sorted(root.rglob("*")) if root.is_dir() else []:
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _reference_digest(params: dict[str, Any]) -> str | None:
    """What a chapter with a ``reference_set`` parameter reads of that set: per experiment, the keys
    of the points the cache holds and where each came from (a point computed or imported since the
    last run re-runs the chapter); None for a chapter without one."""
    set_name = params.get("reference_set")
    if not set_name:
        return None
    from repcap.results import bundle, runs

    scale = str(params.get("reference_scale") or "full")
    parts = []
    for e in runs.point_set(str(set_name), scale).experiments:
        lk = bundle.lookup(str(set_name), e.name, scale=scale)
        parts.append([e.name, sorted([f.key, str((f.provenance or {}).get("source"))] for f in lk.found)])
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _bundles_digest(params: dict[str, Any]) -> str | None:
    """The manifests of the results bundles a chapter's parameters name (a folder holding a
    ``bundle.json``, relative to the project or absolute): a chapter that reads bundles directly
    (the Reproducibility chapter) runs again when one of them changes.  None: it names none."""
    names: list[str] = []
    for v in params.values():
        names += [x for x in (v if isinstance(v, (list, tuple)) else [v]) if isinstance(x, str) and x]
    found = []
    for n in names:
        try:
            path = Path(n) if Path(n).is_absolute() else project_root() / n
            manifest = path / "bundle.json"
            if manifest.is_file():
                found.append([n, hashlib.sha256(manifest.read_bytes()).hexdigest()])
        except (OSError, ValueError):
            continue
    return hashlib.sha256(json.dumps(found).encode()).hexdigest() if found else None


def _packages_digest() -> str:
    pairs = sorted({(d.metadata["Name"] or "").lower(): d.version for d in metadata.distributions()}.items())
    return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()


def cache_key(path: Path, profile: str, params: dict[str, Any]) -> str:
    """The chapter's run key: its source, parameters and profile, the code of the ``repcap`` modules
    it imports (their import closure, :mod:`repcap.sweep.codehash`: an edit elsewhere in the library does
    not re-run it), the reference data, the points of its ``reference_set`` that the cache holds
    (:func:`_reference_digest`), the manifests of the bundles its parameters name
    (:func:`_bundles_digest`), and the installed package versions."""
    from repcap.sweep.codehash import digest, source_imports

    source = path.read_bytes()
    parts = {
        "notebook": hashlib.sha256(source).hexdigest(),
        "profile": profile,
        "params": json.dumps(params, sort_keys=True, default=str),
        "repcap": digest(source_imports(source.decode("utf-8"))),
        "data": _data_digest(),
        "packages": _packages_digest(),
    }
    ref = _reference_digest(params)
    if ref is not None:  # chapters without a reference set keep the keys they had
        parts["reference_points"] = ref
    bundles = _bundles_digest(params)
    if bundles is not None:
        parts["bundles"] = bundles
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def output_name(path: Path) -> str:
    """The name of a notebook's outputs: its stem for a chapter in ``notebooks/``, else the stem
    prefixed with a hash of its path (so it cannot replace a chapter of the book)."""
    nb = notebooks_dir().resolve()
    if path.resolve().parent == nb:
        return path.stem
    return f"ext-{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]}-{path.stem}"


def out_dir(name: str, what: str) -> Path:
    """Where a run's ``figures`` or ``findings`` go: the book's folders for a chapter, a folder of
    its own for a notebook outside ``notebooks/`` (whose figure ids may be a chapter's: it must
    not replace the book's figures, nor add findings to its scorecard)."""
    gen = generated_dir()
    return gen / name / what if name.startswith("ext-") else gen / what


def stamp_path(name: str) -> Path:
    return generated_dir() / ".runs" / f"{name}.json"


def read_stamp(name: str) -> dict[str, Any] | None:
    """The last good run's stamp, or None if missing or unreadable (a truncated stamp is no stamp)."""
    try:
        stamp = json.loads(stamp_path(name).read_text())
        return stamp if isinstance(stamp, dict) else None
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _output_files(name: str, produced: list[str]) -> list[Path]:
    """The files a run committed: each figure's files as its sidecar lists them, the sidecar, the
    findings and the executed notebook."""
    gen = generated_dir()
    figdir = out_dir(name, "figures")
    out: list[Path] = []
    for fid in produced:
        try:
            side = json.loads((figdir / f"{fid}.json").read_text())
        except (OSError, ValueError):
            side = {}
        files = (side.get("files") or {}).values() if isinstance(side, dict) else []
        out += [figdir / str(f) for f in files]
        out.append(figdir / f"{fid}.json")
    findings = out_dir(name, "findings") / f"{name}.json"
    out += [findings] if findings.is_file() else []
    return [*dict.fromkeys(out), gen / f"{name}.ipynb"]


def output_digests(name: str, produced: list[str]) -> dict[str, str]:
    """sha256 of every file the run committed, by its path under ``book/generated``."""
    gen = generated_dir()
    return {p.relative_to(gen).as_posix(): _file_digest(p) for p in _output_files(name, produced) if p.is_file()}


def outputs_present(name: str, stamp: dict[str, Any]) -> bool:
    """Every file the stamp's figures promise (images, CSV, sidecar) and its findings exist, and each
    file the run committed still holds what it wrote (``outputs``: their sha256; a figure written
    over since, by a plain papermill run or by hand, makes the run stale)."""
    gen = generated_dir()
    figdir = out_dir(name, "figures")
    for fid in stamp.get("figures", []):
        try:
            side = json.loads((figdir / f"{fid}.json").read_text())
        except (OSError, ValueError):
            return False
        files = list((side.get("files") or {}).values()) if isinstance(side, dict) else []
        if not files or not all((figdir / f).is_file() for f in files):
            return False
    if not (gen / f"{name}.ipynb").is_file() or (
        stamp.get("findings") and not (out_dir(name, "findings") / f"{name}.json").is_file()
    ):
        return False
    digests = stamp.get("outputs")
    if not isinstance(digests, dict):  # a stamp from before content checks: the files' presence only
        return True
    try:
        return all(_file_digest(gen / rel) == want for rel, want in digests.items())
    except OSError:
        return False
