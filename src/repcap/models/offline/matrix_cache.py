"""Reading an offline model's matrix, with its ``.npy`` cache: the dequantised float32 ``(V, d)``
array and a ``.json`` sidecar (meta, tokens, the array's own sha256); a cache entry that fails its
check or holds a non-finite value is rebuilt from the verified model file."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np
import torch

from repcap import RepcapError
from repcap.base import io as rio

from ..catalog import OfflineSpec
from ..formats import load_gguf, load_onnx, load_safetensors
from ..formats.common import as_float32
from ..formats.npy import read_array
from ..matrix import Embedding
from .layout import key_dir, models_dir, spec
from .modelfile import _marker, model_file

#: Bump when what the cache holds changes (2: readable byte-level tokens, F32 for ONNX float;
#: 3: the array's own sha256 in the sidecar).
CACHE_VERSION = 3


def _tokens_near(path: Path) -> list[str] | None:
    for cand in (path.parent / "vocab.txt", models_dir() / path.parent.name / "vocab.txt"):
        if rio.regular_file(cand):
            return rio.read_regular_text(cand).splitlines()
    return None


def _array_sha256(arr: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(arr).data).hexdigest()


def _from_cache(key: str, s: OfflineSpec, tensor: str) -> tuple[np.ndarray, dict] | None:
    """The cached matrix and its sidecar, or None (absent, stale, or failing its own check)."""
    out_dir = key_dir(key)
    npy, side = out_dir / f"{tensor}.npy", out_dir / f"{tensor}.json"
    info = _marker(side) if rio.regular_file(npy) else None
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
            matrix=as_float32(t),
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


def _embedding(
    key: str,
    s: OfflineSpec,
    tensor: str,
    arr: np.ndarray,
    *,
    tied: bool | None,
    quant: str | None,
    tokens: list[str] | None,
    path: str | None,
    cached: bool,
) -> Embedding:
    """The offline :class:`repcap.models.matrix.Embedding` over ``arr`` (shared, not copied)."""
    return Embedding(
        matrix=torch.from_numpy(arr),
        name=key,
        source_kind="offline",
        tensor_name=tensor,
        tied=tied,
        quant=quant,
        tokens=tokens,
        meta=_meta(s, path, cached=cached),
    )


def load(key: str, *, head: bool = False, tensor: str | None = None, auto_install: bool = True) -> Embedding:
    """Load the embedding (or the separately stored head, or any named 2-D ``tensor``) of an offline
    model as an :class:`repcap.models.matrix.Embedding` (``source_kind="offline"``).  The embedding and head
    come from the checked ``.npy`` cache when it is present and sound; another tensor is read from
    the verified model file each time."""
    s = spec(key)
    own = s.head_tensor if (head and s.head_tensor) else s.tensor
    if tensor is not None and tensor not in (s.tensor, s.head_tensor):
        arr, emb, path = _read_model(key, s, tensor, auto_install)
        return _embedding(
            key, s, tensor, arr, tied=None, quant=emb.quant, tokens=emb.tokens, path=str(path), cached=False
        )
    tensor = tensor or own
    hit = _from_cache(key, s, tensor)
    if hit is not None:
        arr, info = hit
        return _embedding(
            key,
            s,
            tensor,
            arr,
            tied=s.tied,
            quant=info.get("quant"),
            tokens=info.get("tokens"),
            path=info.get("path"),
            cached=True,
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
    return _embedding(
        key, s, tensor, arr, tied=s.tied, quant=emb.quant, tokens=emb.tokens, path=str(path), cached=False
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
