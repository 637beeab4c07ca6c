"""Where things live.  The notebook runner exports these as environment variables so that a
notebook executed under papermill writes into the right (staging) folders."""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    """``REPCAP_ROOT`` if set, else the nearest folder above the cwd holding ``_config.yml`` and
    ``notebooks/``, else the cwd."""
    env = os.environ.get("REPCAP_ROOT")
    if env:
        return Path(env).resolve()
    here = Path.cwd().resolve()
    for cand in (here, *here.parents):
        if (cand / "_config.yml").is_file() and (cand / "notebooks").is_dir():
            return cand
    return here


def generated_dir() -> Path:
    """Executed notebooks and the figure index (git-ignored): ``book/generated``."""
    return project_root() / "book" / "generated"


def notebooks_dir() -> Path:
    return project_root() / "notebooks"


def figure_dir() -> Path:
    """Where :func:`repcap.figures.save` writes; the runner points it at a staging folder."""
    env = os.environ.get("REPCAP_FIGURE_DIR")
    return Path(env) if env else generated_dir() / "figures"


def cache_dir() -> Path:
    """Content-addressed caches (sweeps, dequantised models): ``REPCAP_CACHE`` or ``.cache/``."""
    env = os.environ.get("REPCAP_CACHE")
    return Path(env) if env else project_root() / ".cache"


def reference_dir() -> Path:
    """``data/reference`` of the checkout this package lives in (or of the project root): the
    sources' numbers with their citations."""
    here = Path(__file__).resolve()
    for cand in (here.parents[2] / "data" / "reference", Path.cwd() / "data" / "reference"):
        if cand.is_dir():
            return cand
    return project_root() / "data" / "reference"
