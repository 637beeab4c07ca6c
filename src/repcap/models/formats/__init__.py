"""Model file formats, one module each, with the checks that refuse hostile or broken files
before anything they declare is allocated: :mod:`.safetensors` (header validated in Python),
:mod:`.gguf` (a strict reader), :mod:`.onnx` (initialisers, types and lengths checked), :mod:`.npy`
(``allow_pickle=False``, header checked); :mod:`.names` chooses the embedding / head tensor and
:mod:`.common` refuses pickles.  :func:`load_file` and :func:`list_tensors` dispatch on the suffix.

Never unpickles (``.bin``/``.pt``/``.pth``/``.ckpt``/``.pkl``) and never runs code from a file.
"""

from __future__ import annotations

import os
from pathlib import Path

from repcap import RepcapError

from ..matrix import Embedding, TensorInfo
from . import gguf, npy, onnx, safetensors
from .common import PICKLE_SUFFIXES, as_float32, file_embedding, pickle_magic, read_head, refuse_pickle
from .gguf import GGUF_OK_TYPES, GGUFFile, bytelevel_decode, load_gguf, open_gguf
from .names import EMBED_NAMES, HEAD_NAMES, choose_tensor, pick_tensor, tie_flag
from .npy import check_npy, load_npy
from .onnx import load_onnx
from .safetensors import SAFETENSORS_DTYPE_BITS, check_safetensors, load_safetensors

#: The suffixes a model file may have, with the reader module's listing for each.
_LISTERS = {
    ".safetensors": safetensors.list_tensors,
    ".gguf": gguf.list_tensors,
    ".onnx": onnx.list_tensors,
    ".npy": npy.list_tensors,
}
SUFFIXES = tuple(_LISTERS)

__all__ = [
    "EMBED_NAMES",
    "GGUF_OK_TYPES",
    "HEAD_NAMES",
    "PICKLE_SUFFIXES",
    "SAFETENSORS_DTYPE_BITS",
    "SUFFIXES",
    "GGUFFile",
    "bytelevel_decode",
    "check_npy",
    "check_safetensors",
    "choose_tensor",
    "list_tensors",
    "load_file",
    "load_gguf",
    "load_npy",
    "load_onnx",
    "load_safetensors",
    "open_gguf",
    "pick_tensor",
    "tie_flag",
]


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
