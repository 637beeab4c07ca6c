"""The transformers layout, in a local folder or on the model hub: ``config.json`` plus
``model.safetensors``, or ``model.safetensors.index.json`` whose ``weight_map`` names the shard of
each tensor -- so only the shard holding the matrix is read (downloaded).

Reference: the transformers checkpoint layout (``save_pretrained``) and the hub's repository id
grammar (``owner/name``; huggingface_hub ``validate_repo_id``).  Every name an index or a folder
offers is checked before it becomes a path: a hub id never escapes the hub cache, an index never
names a file outside its folder, and a shard in a local folder that is a symlink to somewhere else
is refused (the hub cache's own ``snapshots/<rev>/ -> ../../blobs/`` links excepted).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from repcap import RepcapError

from ..formats import PICKLE_SUFFIXES, load_gguf, load_safetensors, pick_tensor
from ..formats import gguf as gguf_format
from ..formats import safetensors as st_format
from ..formats.common import as_float32, os_error, plain_relative, read_json_object, resolves_inside
from ..formats.names import short
from ..matrix import Embedding, TensorInfo

INDEX = "model.safetensors.index.json"
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")
#: One part of a hub id (the hub's own grammar): letters, digits, ``_ . -``, at most 96, not starting or
#: ending with ``.`` or ``-``, no ``..`` or ``--``.
_HUB_PART = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.\-]{0,94}[A-Za-z0-9_])?$")


def looks_like_hub_id(src: str) -> bool:
    """Whether ``src`` has the shape ``owner/name`` (then :func:`validate_hub_id` decides)."""
    return bool(_HUB_ID.match(src)) and not src.startswith((".", "/"))


def validate_hub_id(repo_id: str) -> str:
    """Return ``repo_id`` if it is a hub id ``owner/name`` in the hub's grammar, else raise
    :class:`RepcapError` -- checked before anything touches the filesystem or the network, so an id
    such as ``../../etc/passwd``, ``/abs/path`` or ``org/..`` can never become a cache path."""
    parts = str(repo_id).split("/")
    if len(parts) != 2 or not all(_HUB_PART.match(p) and ".." not in p and "--" not in p for p in parts):
        raise RepcapError(
            f"{str(repo_id)[:200]!r} is not a hub id: expected owner/name (letters, digits, '_', '.', '-'; "
            "no '..', no leading '.' or '/'); give an offline key, a catalog key, an existing "
            "file or folder, or a hub id like google/gemma-3-270m"
        )
    return str(repo_id)


def safe_relative(name: str, label: str) -> str:
    """A file name from an index (``weight_map``) must be a plain relative path inside its folder/repo."""
    if not isinstance(name, str) or not plain_relative(name):
        raise RepcapError(
            f"{label}: the safetensors index names the file {str(name)[:200]!r}, which escapes the "
            "model folder; refused - the index is corrupt or hostile, re-download the model"
        )
    return name


def weight_map(index: dict, label: str) -> dict[str, str]:
    """The index's ``{tensor: shard file}``, type-checked (an object of strings, not empty)."""
    wm = index.get("weight_map")
    if not wm:
        raise RepcapError(f"{label}: {INDEX} has no weight_map")
    if not isinstance(wm, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in wm.items()):
        raise RepcapError(
            f"{label}: {INDEX}: weight_map is not an object of tensor name -> file name; "
            "the index is corrupt - re-download the model"
        )
    return wm


def shards(index: dict, label: str) -> list[str]:
    """The shard files an index names, each checked to stay inside its folder/repo."""
    return sorted({safe_relative(v, label) for v in weight_map(index, label).values()})


def pick_in_index(
    wm: dict[str, str], head: bool, tensor: str | None, config: dict | None, label: str
) -> tuple[str, bool | None]:
    """``(tensor name, tied)`` from an index's weight map: ``tensor`` if given (it must be there),
    else the embedding (or with ``head`` the output head) the names and ``config`` point to."""
    if tensor is not None:
        if tensor not in wm:
            raise RepcapError(f"{label}: no tensor named {tensor!r} in the weight map; tensors: {short(list(wm))}")
        return tensor, None
    emb, hd, tied = pick_tensor(list(wm), head, config)
    return (hd if (head and hd) else emb), tied


def _from_layout(
    config: dict | None,
    index: dict | None,
    single: str | None,
    fetch: Callable[[str], Path],
    label: str,
    head: bool,
    tensor: str | None,
    kind: str,
) -> Embedding:
    """Shared by folders and the hub.  ``fetch(filename) -> local path``."""
    if index is not None:
        wm = weight_map(index, label)
        name, tied = pick_in_index(wm, head, tensor, config, label)
        t, _, _, dtype = load_safetensors(fetch(safe_relative(wm[name], label)), tensor=name)
    elif single is not None:
        t, name, tied, dtype = load_safetensors(fetch(single), head=head, tensor=tensor, config=config)
    else:  # pragma: no cover - callers pass one of the two
        raise AssertionError
    model_type = config.get("model_type") if isinstance(config, dict) else None
    return Embedding(
        matrix=as_float32(t),
        name=label,
        source_kind=kind,
        tensor_name=name,
        tied=tied,
        quant=dtype,
        meta={"config_model_type": model_type},
    )


# ---------------------------------------------------------------------------------------------
# local folders


class Folder:
    """A local model folder: its file names read once (an unreadable folder is one clear error),
    and each file it hands out checked to stay inside it."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            with os.scandir(self.path) as it:
                self.names = sorted(e.name for e in it)
        except OSError as exc:
            raise os_error(self.path, exc, "cannot read the folder") from None
        real = self.path.resolve()
        # the hub cache's snapshot folders link each file to ../../blobs/<hash>: its repo folder is the root
        hf_cache = real.parent.name == "snapshots" and real.parent.parent.name.startswith("models--")
        self.root = real.parent.parent if hf_cache else real

    def has(self, name: str) -> bool:
        return name in self.names

    def file(self, name: str) -> Path:
        """``path / name``, refused if it (a symlink, or a name with folders) leads out of the folder."""
        p = self.path / name
        if not resolves_inside(p, self.root):
            raise RepcapError(
                f"{self.path}: {name} is a symlink (or path) leading out of the model folder "
                f"(to {p.resolve()}); refused - copy the file into the folder"
            )
        return p

    def config(self) -> dict | None:
        return read_json_object(self.file("config.json"), "config.json") if self.has("config.json") else None

    def index(self) -> dict | None:
        return read_json_object(self.file(INDEX), "safetensors index") if self.has(INDEX) else None

    def with_suffix(self, suffix: str) -> list[str]:
        return [n for n in self.names if n.endswith(suffix)]


def _single_file(folder: Folder) -> tuple[str, str]:
    """``("safetensors" | "gguf", file name)`` of a folder without an index; one clear error otherwise."""
    st = folder.with_suffix(".safetensors")
    if len(st) == 1:
        return "safetensors", st[0]
    if len(st) > 1:
        raise RepcapError(f"{folder.path}: {len(st)} .safetensors files but no {INDEX}; point at one file instead")
    gg = folder.with_suffix(".gguf")
    if len(gg) == 1:
        return "gguf", gg[0]
    if len(gg) > 1:
        raise RepcapError(
            f"{folder.path}: {len(gg)} .gguf files ({', '.join(sorted(gg)[:3])}{', ...' if len(gg) > 3 else ''}); "
            "point at one file instead"
        )
    pickles = [n for n in folder.names if Path(n).suffix in PICKLE_SUFFIXES]
    if pickles:
        raise RepcapError(
            f"{folder.path}: only pickle checkpoints ({', '.join(pickles[:3])}); repcap never unpickles. "
            "Use the model's safetensors release (or convert it with safetensors.torch.save_file)"
        )
    raise RepcapError(f"{folder.path}: no model.safetensors, safetensors index or .gguf file in this folder")


def load_dir(path: str | os.PathLike, *, head: bool = False, tensor: str | None = None) -> Embedding:
    folder = Folder(path)
    cfg, idx = folder.config(), folder.index()
    if idx is not None:
        return _from_layout(cfg, idx, None, folder.file, str(folder.path), head, tensor, "dir")
    kind, name = _single_file(folder)
    if kind == "gguf":
        return load_gguf(folder.file(name), head=head, tensor=tensor)
    return _from_layout(cfg, None, name, folder.file, str(folder.path), head, tensor, "dir")


def list_dir(path: str | os.PathLike) -> list[TensorInfo]:
    """Every tensor of a model folder: each shard's validated header (only headers are read)."""
    folder = Folder(path)
    idx = folder.index()
    if idx is None:
        kind, name = _single_file(folder)
        return (gguf_format if kind == "gguf" else st_format).list_tensors(folder.file(name))
    return [info for shard in shards(idx, str(folder.path)) for info in st_format.list_tensors(folder.file(shard))]
