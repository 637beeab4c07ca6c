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


def outside_dir() -> Path:
    """Where a notebook executed outside ``repcap run`` (plain jupytext + papermill, Jupyter, a
    script) writes its figures and findings: ``book/generated/interactive``, never the book's own
    folders, which only the runner commits to."""
    return generated_dir() / "interactive"


def figure_dir() -> Path:
    """Where :func:`repcap.book.figures.save` writes: the runner points it at a staging folder (and then
    moves the files to ``book/generated/figures``); outside the runner, :func:`outside_dir`."""
    env = os.environ.get("REPCAP_FIGURE_DIR")
    return Path(env) if env else outside_dir() / "figures"


#: Longest path the file systems repcap meets accept (Linux PATH_MAX is 4096 bytes with the file
#: names the cache appends; NAME_MAX is 255 bytes per component).
MAX_PATH_BYTES, MAX_NAME_BYTES = 3800, 255


def check_path(path: Path, what: str) -> Path:
    """``path`` if the file system can hold it, else one :class:`RepcapError` naming it (cut to
    200 characters) and the cause: too long, a component too long, or a regular file where a
    folder is wanted."""
    from repcap import RepcapError

    shown = str(path) if len(str(path)) <= 200 else f"{str(path)[:180]}... ({len(str(path)):,} characters)"
    raw = os.fsencode(path)
    if len(raw) > MAX_PATH_BYTES:
        raise RepcapError(f"{what} {shown}: the path is {len(raw):,} bytes long, more than {MAX_PATH_BYTES}")
    for part in raw.split(b"/"):
        if len(part) > MAX_NAME_BYTES:
            raise RepcapError(
                f"{what} {shown}: a component is {len(part)} bytes long, more than the {MAX_NAME_BYTES} a "
                "file system allows"
            )
    return path


def cache_dir() -> Path:
    """Content-addressed caches (sweeps, dequantised models): ``REPCAP_CACHE`` or ``.cache/``.

    A ``REPCAP_CACHE`` that is too long, or that names something other than a folder, is refused
    here in one line (not reported later as a failed write, or as a packaging problem)."""
    from repcap import RepcapError

    env = os.environ.get("REPCAP_CACHE")
    if not env:
        return project_root() / ".cache"
    path = check_path(Path(env), "REPCAP_CACHE")
    try:
        exists, is_dir = path.exists(), path.is_dir()
    except OSError as exc:
        raise RepcapError(f"REPCAP_CACHE {str(path)[:200]}: cannot look at it ({exc.strerror})") from None
    if exists and not is_dir:
        raise RepcapError(
            f"REPCAP_CACHE {str(path)[:200]}: not a folder (a regular file or a device); point it at a folder"
        )
    return path


def reference_dir() -> Path:
    """``data/reference`` of the checkout this package lives in (or of the project root): the
    sources' numbers with their citations."""
    here = Path(__file__).resolve()
    for cand in (here.parents[3] / "data" / "reference", Path.cwd() / "data" / "reference"):
        if cand.is_dir():
            return cand
    return project_root() / "data" / "reference"


def check_environment() -> None:
    """The environment variables repcap reads as numbers or paths, checked once before a command
    runs, so that a bad one is one line here rather than a traceback deep inside (the CLI calls
    this): ``REPCAP_MEMORY_BUDGET`` a finite number of bytes > 0, ``REPCAP_CACHE`` a folder."""
    import math

    from repcap import RepcapError

    env = os.environ.get("REPCAP_MEMORY_BUDGET")
    if env:
        try:
            v = float(env)
        except ValueError:
            v = math.nan
        if not (math.isfinite(v) and 1 <= v < 2**63):
            raise RepcapError(
                f"REPCAP_MEMORY_BUDGET={env[:60]!r} is not a number of bytes (a finite number >= 1, e.g. 2e9); "
                "unset it for the default"
            )
    if os.environ.get("REPCAP_CACHE"):
        cache_dir()


def check_device(device: object) -> None:
    """A ``--device`` value repcap can compute on: auto, cpu or cuda[:N] (torch also accepts
    ``meta``, which holds no data, and back ends repcap does not test)."""
    import re

    from repcap import RepcapError

    if device is None or not isinstance(device, str):
        return
    if not re.fullmatch(r"auto|cpu|cuda(:[0-9]{1,3})?", device):
        raise RepcapError(f"--device {device[:40]!r}: use auto, cpu or cuda[:N]")
