"""Resolve a model source to its input embedding (or output head) as a ``(V, d)`` float32 matrix.

Reference: Guha 2026 measures the input embedding matrix of each model; Liu, Liu & Gore 2025 the
LM-head rows.  A source (see :func:`load`) is, in this order:

* an existing file (``.safetensors``, ``.gguf``, ``.onnx``, ``.npy``: :mod:`repcap.models.formats`) or a
  model folder in the transformers layout (:mod:`repcap.models.hub`);
* an offline model key (:mod:`repcap.models.offline`: pinned PyPI packages, sha256-checked);
* a catalog key (:mod:`repcap.models.catalog`): the offline copy when installed, else the hub;
* a model-hub id ``org/name``: ``config.json`` and the safetensors index read, only the shard
  holding the tensor downloaded; ``org/name/NAME.gguf`` (or ``.safetensors``) reads that file of
  the repository (one of several GGUF files);
* ``synthetic:KIND,...`` (:mod:`repcap.models.synthetic`): a stand-in matrix or model built in memory
  (the smoke profile's, and the tests'), read like a file.

This module is the top of the loader stack (matrix -> formats -> hub / offline -> here); nothing
below imports it.  Never unpickles and never runs remote code.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, NamedTuple, TypeAlias

import numpy as np
import torch

from repcap import RepcapError
from repcap.models import catalog, hub, offline, synthetic

from .formats import PICKLE_SUFFIXES, SUFFIXES, load_file
from .formats import list_tensors as list_file_tensors
from .formats.common import check_name_lengths, os_error
from .formats.names import choose_tensor
from .matrix import Embedding, TensorInfo

__all__ = [
    "CatalogSource",
    "Embedding",
    "HubSource",
    "OfflineSource",
    "PathSource",
    "Source",
    "SyntheticSource",
    "TensorInfo",
    "list_tensors",
    "load",
    "resolve",
]


def _existing(src: str) -> Path | None:
    """The local file or folder ``src`` names, or None; a name no file system can hold, or a path
    that cannot be examined (permissions), is one clear error rather than an OSError."""
    import stat as _stat

    p = Path(src).expanduser()
    try:
        if p.is_dir() or p.is_file():
            return p
        if not p.exists():
            return None
        mode = p.stat().st_mode
    except OSError as exc:
        check_name_lengths(p)
        raise os_error(p, exc, "cannot examine") from None
    kind = (
        "a character device"
        if _stat.S_ISCHR(mode)
        else "a block device"
        if _stat.S_ISBLK(mode)
        else "a FIFO (named pipe)"
        if _stat.S_ISFIFO(mode)
        else "a socket"
        if _stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise RepcapError(f"{str(p)[:200]}: {kind}, not a model file or folder; give a file or a folder")


class PathSource(NamedTuple):
    """An existing local file or model folder."""

    kind: Literal["path"]
    what: Path


class OfflineSource(NamedTuple):
    """An offline model key (:data:`repcap.models.offline.OFFLINE`)."""

    kind: Literal["offline"]
    what: str


class CatalogSource(NamedTuple):
    """A catalog entry (:func:`repcap.models.catalog.find`)."""

    kind: Literal["catalog"]
    what: catalog.ModelEntry


class HubSource(NamedTuple):
    """A validated model-hub id ``org/name``, and the one file of it to read where the source names
    one (``org/name/NAME.gguf``: a repository with several GGUF files)."""

    kind: Literal["hub"]
    what: str
    file: str | None = None


class SyntheticSource(NamedTuple):
    """A matrix or model built in memory (:mod:`repcap.models.synthetic`): ``synthetic:KIND,name=value,...``."""

    kind: Literal["synthetic"]
    what: str


#: What :func:`resolve` returns: a ``(kind, what)`` pair, one class per kind.
Source: TypeAlias = PathSource | OfflineSource | CatalogSource | HubSource | SyntheticSource


_SOURCE_TYPES = (PathSource, OfflineSource, CatalogSource, HubSource, SyntheticSource)


def resolve(source: str | os.PathLike | Source) -> Source:
    """What ``source`` names: ``("path", Path)``, ``("offline", key)``, ``("catalog", ModelEntry)``
    or ``("hub", repo_id)`` (a :data:`Source`: a named pair that unpacks as ``kind, what``); one
    clear error for anything else.  A source already resolved is returned as it is, so a caller that
    reads several tensors of one model resolves it once and passes the :data:`Source` down."""
    if isinstance(source, _SOURCE_TYPES):
        return source
    src = os.fspath(source)
    if not src:
        raise RepcapError("empty model source; give an offline key, catalog key, hub id, folder or file")
    if src.startswith(synthetic.SCHEME):
        synthetic.parse(src)  # a malformed one is refused here, in one line
        return SyntheticSource("synthetic", src)
    p = _existing(src)
    if p is not None:
        return PathSource("path", p)
    if src in offline.OFFLINE:
        return OfflineSource("offline", src)
    entry = catalog.find(src)
    if entry is not None:
        return CatalogSource("catalog", entry)
    if hub.looks_like_hub_id(src) and Path(src).suffix.lower() not in (*SUFFIXES, *PICKLE_SUFFIXES):
        return HubSource("hub", hub.validate_hub_id(src))
    in_repo = hub_file(src)
    if in_repo is not None:
        return HubSource("hub", *in_repo)
    check_name_lengths(src)
    if "/" in src or "\\" in src or src.startswith((".", "~")):
        raise RepcapError(
            f"{src[:200]!r}: no such file or folder, and not a hub id owner/name (a model id may "
            "not hold '..', a leading '/' or '.'); check the path, or give an offline key "
            f"({', '.join(offline.OFFLINE)}) or a catalog key (repcap models)"
        )
    raise RepcapError(
        f"unknown model source {src[:200]!r}: not an existing file or folder, an offline key "
        f"({', '.join(offline.OFFLINE)}), a catalog key (repcap models) or a hub id 'org/name'"
    )


#: The files of a hub repository a source may name (``org/name/NAME.gguf``).
HUB_FILE_SUFFIXES = (".gguf", ".safetensors")


def hub_file(src: str) -> tuple[str, str] | None:
    """``(repo id, file)`` of a source ``org/name/FILE`` naming one ``.gguf`` or ``.safetensors``
    file of a hub repository (not a local path), else None."""
    from .formats.common import plain_relative

    parts = src.split("/", 2)
    if len(parts) != 3 or Path(parts[2]).suffix.lower() not in HUB_FILE_SUFFIXES or not plain_relative(parts[2]):
        return None
    repo_id = f"{parts[0]}/{parts[1]}"
    if not hub.looks_like_hub_id(repo_id) or Path(parts[0]).exists():  # a local folder: a path that is not there
        return None
    return hub.validate_hub_id(repo_id), parts[2]


def _naming(p: Path, exc: RepcapError) -> RepcapError:
    """``exc`` on one line, naming the file ``p`` (every refusal of a local file names it)."""
    msg = " ".join(str(exc).split("\n"))
    if str(p) in msg and msg == str(exc):
        return exc
    return RepcapError(msg if str(p) in msg else f"{p}: {msg}")


def _offline_copy(entry: catalog.ModelEntry) -> str | None:
    """The offline key of a catalog entry whose offline copy is installed, else None."""
    if entry.offline and entry.offline in offline.OFFLINE and offline.is_installed(entry.offline):
        return entry.offline
    return None


def _label(source: str | os.PathLike | Source) -> str:
    """How an error names ``source`` (a resolved one by what it names)."""
    if isinstance(source, _SOURCE_TYPES):
        return source.what.key if isinstance(source, CatalogSource) else str(source.what)
    return os.fspath(source)


def _synthetic(spec: str, head: bool, tensor: str | None) -> Embedding:
    """A ``synthetic:`` source as an F32 :class:`Embedding` (a model's tensors chosen by name as a
    file's are: the embedding, the head, or the named ``tensor``)."""
    arrays = synthetic.tensors(spec)
    if None in arrays:  # one matrix, as a .npy file holds it
        if tensor is not None:
            raise RepcapError(f"{spec}: one unnamed matrix; it has no tensor {tensor!r}")
        name, tied = None, None
    else:
        name, tied = choose_tensor(spec, {k: tuple(v.shape) for k, v in arrays.items() if k}, head, tensor)
    return Embedding(
        matrix=torch.from_numpy(np.array(arrays[name], dtype=np.float32)),
        name=spec,
        source_kind="synthetic",
        tensor_name=name,
        tied=tied,
        quant="F32",
        meta={"synthetic": spec},
    )


def load(
    source: str | os.PathLike | Source,
    *,
    head: bool = False,
    device: str | torch.device = "cpu",
    tensor: str | None = None,
    revision: str | None = None,
) -> Embedding:
    """Load the input embedding (``head=False``), the output head (``head=True``) or the named 2-D
    ``tensor`` of ``source`` (see the module docstring).  For a tied model ``head=True`` returns the
    embedding with ``tied=True``.  Returns an :class:`Embedding` whose ``matrix: (V, d)`` is float32
    on ``device``."""
    from repcap.base.devices import resolve_device

    dev = resolve_device(device)
    src = resolve(source)
    if isinstance(src, PathSource):
        path = src.what
        try:
            emb = (hub.load_dir if path.is_dir() else load_file)(path, head=head, tensor=tensor)
        except RepcapError as exc:
            raise _naming(path, exc) from exc.__cause__
    elif isinstance(src, OfflineSource):
        emb = offline.load(src.what, head=head, tensor=tensor)
    elif isinstance(src, SyntheticSource):
        emb = _synthetic(src.what, head, tensor)
    elif isinstance(src, CatalogSource):
        entry = src.what
        key = _offline_copy(entry)
        if key is not None:
            emb = offline.load(key, head=head, tensor=tensor)
        else:
            emb = hub.load_hub(entry.hub_id, head=head, tensor=tensor, revision=revision)
        emb.meta["catalog_key"] = entry.key
    else:
        emb = hub.load_hub(src.what, head=head, tensor=tensor, revision=revision, filename=src.file)
    if head and emb.tied:
        emb.meta["head_is_embedding"] = True
    if emb.matrix.ndim != 2 or emb.matrix.shape[0] == 0 or emb.matrix.shape[1] == 0:
        raise RepcapError(f"{_label(source)}: the matrix is empty or not 2-D (shape {tuple(emb.matrix.shape)})")
    emb.matrix = emb.matrix.to(device=dev, dtype=torch.float32)
    return emb


def list_tensors(source: str | os.PathLike | Source, *, revision: str | None = None) -> list[TensorInfo]:
    """Every tensor of ``source`` ``(name, shape, storage type)``, through the same checks as
    :func:`load` and without reading tensor data (a hub model: its safetensors headers only)."""
    src = resolve(source)
    if isinstance(src, PathSource):
        path = src.what
        try:
            return hub.list_dir(path) if path.is_dir() else list_file_tensors(path)
        except RepcapError as exc:
            raise _naming(path, exc) from exc.__cause__
    if isinstance(src, OfflineSource):
        return offline.list_tensors(src.what)
    if isinstance(src, SyntheticSource):
        return [TensorInfo(n, tuple(a.shape), "F32") for n, a in synthetic.tensors(src.what).items()]
    if isinstance(src, CatalogSource):
        key = _offline_copy(src.what)
        return offline.list_tensors(key) if key else hub.list_hub(src.what.hub_id, revision=revision)
    return hub.list_hub(src.what, revision=revision, filename=src.file)
