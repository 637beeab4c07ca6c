"""Which reader opens a model file: :func:`load_file` and :func:`list_tensors` dispatch on the
suffix, after refusing pickles by suffix or by their first bytes."""

from __future__ import annotations

import os
from pathlib import Path

from repcap import RepcapError

from ..matrix import Embedding, TensorInfo
from . import gguf, npy, onnx, safetensors
from .common import PICKLE_SUFFIXES, as_float32, file_embedding, pickle_magic, read_head, refuse_pickle
from .gguf import load_gguf
from .npy import load_npy
from .onnx import load_onnx
from .safetensors import load_safetensors

#: The suffixes a model file may have, with the reader module's listing for each.
_LISTERS = {
    ".safetensors": safetensors.list_tensors,
    ".gguf": gguf.list_tensors,
    ".onnx": onnx.list_tensors,
    ".npy": npy.list_tensors,
}
SUFFIXES = tuple(_LISTERS)


def _suffix(path: Path) -> str:
    """The file's suffix, after refusing pickles by suffix or by their first bytes."""
    suf = path.suffix.lower()
    if suf in PICKLE_SUFFIXES:
        refuse_pickle(path)
    if suf in SUFFIXES:
        return suf
    if pickle_magic(read_head(path, 4)):
        refuse_pickle(path)
    raise RepcapError(f"{path}: unknown file type {suf or '(no suffix)'}; use .safetensors, .gguf, .onnx or .npy")


def load_file(path: str | os.PathLike, *, head: bool = False, tensor: str | None = None) -> Embedding:
    """The embedding (or head, or the named 2-D ``tensor``) of one model file, by its suffix."""
    path = Path(path)
    suf = _suffix(path)
    if suf == ".safetensors":
        t, name, tied, dtype = load_safetensors(path, head=head, tensor=tensor)
        return file_embedding(path, as_float32(t), "safetensors", name, tied, dtype)
    if suf == ".gguf":
        return load_gguf(path, head=head, tensor=tensor)
    if suf == ".onnx":
        return load_onnx(path, head=head, tensor=tensor)
    if head:
        raise RepcapError(f"{path}: a .npy file holds one matrix; it has no separate head (drop --head)")
    if tensor is not None:
        raise RepcapError(f"{path}: a .npy file holds one unnamed matrix; drop --tensor")
    return load_npy(path)


def list_tensors(path: str | os.PathLike) -> list[TensorInfo]:
    """Every tensor of one model file ``(name, shape, storage type)``, through the same checks as
    :func:`load_file` (no tensor data read)."""
    path = Path(path)
    return _LISTERS[_suffix(path)](path)
