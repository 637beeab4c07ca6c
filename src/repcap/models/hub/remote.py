"""One tensor of a model on the hub, read by HTTP range requests (:mod:`.transport`): only
``config.json``, the index, the header of the file that holds the tensor and the tensor's own bytes
are fetched, and kept in the slice cache (:mod:`.slices`).  Every offset is checked against the
header and the file size (the local reader's checks,
:func:`repcap.models.formats.safetensors.check_header`) before a tensor byte is requested.

Safetensors: bytes ``[0, 8)`` give the header length ``n``, ``[8, 8 + n)`` the header, then one
range for the tensor.  GGUF: a growing prefix until the tensor table is whole (the reader's data
offset lies inside what was read), then one range; the reader runs on a sparse local file of the
remote size holding only those bytes.  Every failure ends in one :class:`RepcapError` line.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

from repcap import RepcapError

from ..formats import safetensors as st_format
from ..formats.common import as_float32, pickle_magic, read_json_object
from ..formats.names import choose_tensor
from ..matrix import Embedding, TensorInfo
from .errors import hf, offline_mode, one
from .layout import INDEX, pick_in_index, safe_relative, shards, validate_hub_id, weight_map
from .slices import HEADER, SliceCache
from .transport import HubRepo

#: The first read of a GGUF file (doubled until the tensor table is whole), and the most we read
#: (a real header with a 256k-token vocabulary and its merges is about 10 MB).
GGUF_PREFIX = 1 << 18
GGUF_MAX_HEADER = 1 << 28


# ---------------------------------------------------------------------------------------------
# safetensors


def _st_header(repo: HubRepo, fname: str) -> tuple[dict[str, dict], int, str, int]:
    """``(checked header, data start, etag, size)`` of a remote safetensors file: bytes ``[0, 8)``
    (the header length), then the header; kept as one slice."""
    etag, size = repo.meta(fname)
    label = repo.label(fname)
    cached = repo.cache.find(repo.commit, fname, HEADER)
    if cached is not None and cached[0] == 0 and cached[1] >= 8:
        raw = repo.read(fname, etag, size, HEADER, *cached)
    else:
        raw = repo.read(fname, etag, size, HEADER, 0, min(8, size), keep=False)
    n = int.from_bytes(raw[:8], "little")
    if not (len(raw) >= 8 and 2 <= n <= min(size - 8, st_format.SAFETENSORS_MAX_HEADER)):
        if pickle_magic(raw[:8]):
            raise RepcapError(f"{label}: this .safetensors file is really a pickle checkpoint; repcap never unpickles")
        raise RepcapError(
            f"{label}: malformed or truncated safetensors header (declares {n} header bytes, the file has {size})"
        )
    if len(raw) != 8 + n:
        raw = raw[:8] + repo.read(fname, etag, size, HEADER, 8, 8 + n, keep=False)
        repo.cache.put(repo.commit, fname, etag, size, HEADER, 0, raw)
    try:
        return st_format.check_header(label, raw[8:], n, size), 8 + n, etag, size
    except RepcapError as exc:  # the hub serves it so: re-downloading would not help
        raise RepcapError(str(exc).replace(f"; {st_format._HINT}", "; the file on the hub is so")) from None


def _st_tensor(repo: HubRepo, fname: str, head: bool, tensor: str | None, config: dict | None, pick: str | None):
    """``(float32 matrix, name, tied, dtype)`` of one tensor of a remote safetensors file."""
    from safetensors.torch import load as st_load

    hdr, data0, etag, size = _st_header(repo, fname)
    label = repo.label(fname)
    if pick is not None:
        if pick not in hdr:
            raise RepcapError(f"{label}: the index puts {pick!r} in this file, but its header has no such tensor")
        name, tied = pick, None
    else:
        name, tied = choose_tensor(label, {k: tuple(v["shape"]) for k, v in hdr.items()}, head, tensor, config)
    info = hdr[name]
    if len(info["shape"]) != 2:
        raise RepcapError(f"{label}: tensor {name} has shape {tuple(info['shape'])}, not (V, d)")
    if info["dtype"] in st_format.NOT_REAL:
        from ..formats.common import refuse_storage

        raise refuse_storage(label, name, info["dtype"], st_format.NOT_REAL[info["dtype"]])
    b, e = info["data_offsets"]
    data = repo.read(fname, etag, size, name, data0 + b, data0 + e)
    mini = json.dumps({name: {"dtype": info["dtype"], "shape": info["shape"], "data_offsets": [0, e - b]}}).encode()
    mini += b" " * (-len(mini) % 8)
    try:
        t = st_load(len(mini).to_bytes(8, "little") + mini + data)[name]
    except Exception as exc:  # safetensors raises its own error types
        raise RepcapError(f"{label}: tensor {name} is not readable ({one(exc)})") from None
    return as_float32(t), name, tied, info["dtype"]


# ---------------------------------------------------------------------------------------------
# GGUF


def _gguf_prefix(repo: HubRepo, fname: str) -> tuple[bytes, str, int]:
    """The bytes of a remote GGUF file up to its data section (header, metadata, tensor table):
    a first read, then more while the table goes on past what was read (doubling, or to the byte
    the parse needs).  A parse failure inside the bytes already read is final: nothing more is
    fetched for a file whose table is broken."""
    from ..formats import gguf as gguf_format

    etag, size = repo.meta(fname)
    label = repo.label(fname)
    cached = repo.cache.find(repo.commit, fname, HEADER)
    if cached is not None:
        return repo.read(fname, etag, size, HEADER, *cached), etag, size
    want = min(GGUF_PREFIX, size)
    got = b""
    while True:
        got += repo.read(fname, etag, size, HEADER, len(got), want, keep=False)
        with _staged(label, got) as p:
            try:
                data_offset = gguf_format.prefix_data_offset(p, size)
            except gguf_format.GGUFPastEnd as more:
                data_offset, need = None, more.end
        if data_offset is not None:
            break
        if want >= size:  # cannot happen: a read past the whole file is malformed, not "more"
            raise RepcapError(f"{label}: the GGUF tensor table does not end within the file ({size} bytes)")
        if need > GGUF_MAX_HEADER:
            raise RepcapError(
                f"{label}: the GGUF header and tensor table would run past byte {need:,}, more than any "
                f"model's ({GGUF_MAX_HEADER:,} bytes): malformed or hostile, refused after {len(got):,} bytes"
            )
        want = min(max(2 * want, need), size, GGUF_MAX_HEADER)
    prefix = got[:data_offset]
    repo.cache.put(repo.commit, fname, etag, size, HEADER, 0, prefix)
    return prefix, etag, size


def _write(path: Path, label: str, parts: list[tuple[int, bytes]], size: int | None = None, mode="wb") -> None:
    """``parts`` at their offsets in a private temporary file (sparse up to ``size`` bytes); a
    failure of the local disk names ``label`` and the folder."""
    try:
        with open(path, mode) as fh:
            if size is not None:
                fh.truncate(size)
            for off, chunk in parts:
                fh.seek(off)
                fh.write(chunk)
    except OSError as exc:
        raise RepcapError(
            f"{label}: cannot stage its header in the temporary folder {path.parent.parent} "
            f"({exc.strerror or exc}); free space there or set TMPDIR"
        ) from None


@contextlib.contextmanager
def _staged(label: str, prefix: bytes, size: int | None = None, name: str = "f.gguf") -> Iterator[Path]:
    """A private file holding ``prefix`` (sparse up to ``size`` bytes); a reader's error about it
    inside the block is said of the hub file ``label`` (:func:`_relabelled`)."""
    with tempfile.TemporaryDirectory(prefix="repcap-gguf-") as tmp:
        p = Path(tmp) / name
        _write(p, label, [(0, prefix)], size)
        try:
            yield p
        except RepcapError as exc:
            raise _relabelled(exc, p, label) from None


def _relabelled(exc: RepcapError, path: Path, label: str) -> RepcapError:
    """A reader's error about a private temporary file, said of the hub file it stands for: its
    name instead of the temporary path, and no advice to re-download (the hub serves it so)."""
    from ..formats import gguf as gguf_format

    msg = str(exc).replace(str(path), label).replace(str(path.parent), label)
    msg = msg.replace(f"; {gguf_format._HINT}", "; the file on the hub is so, nothing was kept")
    return RepcapError(msg)


def _gguf_tensor(repo: HubRepo, fname: str, head: bool, tensor: str | None) -> Embedding:
    from ..formats import gguf as gguf_format
    from ..formats.gguf import _shape

    prefix, etag, size = _gguf_prefix(repo, fname)
    label = repo.label(fname)
    with _staged(label, prefix, size, Path(fname).name) as p:
        by_name = {t.name: t for t in gguf_format.open_gguf(p)._reader.tensors}
        name, _ = choose_tensor(label, {k: _shape(v) for k, v in by_name.items()}, head, tensor)
        start = int(by_name[name].data_offset)
        data = repo.read(fname, etag, size, name, start, start + int(by_name[name].n_bytes))
        _write(p, label, [(start, data)], mode="r+b")
        emb = gguf_format.open_gguf(p).read(name, head=head)
    emb.name = repo.repo_id
    emb.source_kind = "hub"
    emb.meta["path"] = f"{repo.repo_id}/{fname}"
    return emb


# ---------------------------------------------------------------------------------------------
# the entry points


def _gguf_file(repo: HubRepo, filename: str | None) -> str:
    ggufs = [f for f in repo.files if f.endswith(".gguf")]
    if filename is not None:
        if filename not in repo.files:
            raise RepcapError(f"hub model {repo.repo_id!r} has no file {filename!r}; .gguf files: {ggufs[:8]}")
        return filename
    if len(ggufs) == 1:
        return ggufs[0]
    if ggufs:
        raise RepcapError(
            f"hub model {repo.repo_id!r} has no safetensors release and {len(ggufs)} .gguf files "
            f"({', '.join(ggufs[:6])}); name one: repcap stats {repo.repo_id} --file {ggufs[0]} (or the source "
            f"{repo.repo_id}/{ggufs[0]}; in Python load_hub(..., filename=...))"
        )
    raise RepcapError(
        f"hub model {repo.repo_id!r} has no model.safetensors, safetensors index or .gguf file; repcap "
        "never unpickles pytorch_model.bin - use a repo with a safetensors release"
    )


def _is_gguf(repo: HubRepo, filename: str | None) -> bool:
    """Whether the file to read is a GGUF file: one named, or a repo with no safetensors release."""
    if filename is not None:
        return filename.endswith(".gguf")
    return not repo.has(INDEX) and not repo.has("model.safetensors")


def load_hub(
    repo_id: str,
    *,
    head: bool = False,
    tensor: str | None = None,
    revision: str | None = None,
    filename: str | None = None,
) -> Embedding:
    """Read one tensor of a hub model, fetching only ``config.json``, the index, the header of the
    file that holds the tensor and the tensor's bytes (see the module docstring).  ``filename``
    picks one file of the repo (a ``.gguf`` among several)."""
    repo = HubRepo(repo_id, revision)
    cfg = repo.json("config.json", "config.json") if repo.has("config.json") else None
    if _is_gguf(repo, filename):
        emb = _gguf_tensor(repo, _gguf_file(repo, filename), head, tensor)
        emb.meta["commit"] = repo.commit
        return emb
    if filename is None and repo.has(INDEX):
        wm = weight_map(repo.json(INDEX, "safetensors index"), repo_id)
        name, tied = pick_in_index(wm, head, tensor, cfg, repo_id)
        t, name, _, dtype = _st_tensor(repo, safe_relative(wm[name], repo_id), head, tensor, cfg, name)
    else:
        fname = safe_relative(filename or "model.safetensors", repo_id)
        if not repo.has(fname):
            raise RepcapError(f"hub model {repo_id!r} has no file {fname!r}")
        t, name, tied, dtype = _st_tensor(repo, fname, head, tensor, cfg, None)
    model_type = cfg.get("model_type") if isinstance(cfg, dict) else None
    return Embedding(
        matrix=t,
        name=repo_id,
        source_kind="hub",
        tensor_name=name,
        tied=tied,
        quant=dtype,
        meta={"config_model_type": model_type, "commit": repo.commit},
    )


def list_hub(repo_id: str, *, revision: str | None = None, filename: str | None = None) -> list[TensorInfo]:
    """Every tensor of a hub model, from its headers alone (range reads, kept in the slice cache:
    offline, the cached headers answer, or else whole files in the hub's own cache)."""
    try:
        return _list_hub(repo_id, revision, filename)
    except RepcapError:
        if not offline_mode():
            raise
        listed = _list_from_hub_cache(repo_id, revision, filename)
        if listed is None:
            raise
        return listed


def _list_from_hub_cache(repo_id: str, revision: str | None, filename: str | None) -> list[TensorInfo] | None:
    """The listing from files the hub's cache holds whole (fetched by ``hf_hub_download``), or None."""
    from ..formats import gguf as gguf_format

    client = hf()

    def cached(name: str) -> Path | None:
        p = client.try_to_load_from_cache(repo_id, name, revision=revision)
        return Path(p) if isinstance(p, str) else None

    if filename is not None:
        p = cached(filename)
        if p is None:
            return None
        return (gguf_format if filename.endswith(".gguf") else st_format).list_tensors(p)
    idx = cached(INDEX)
    names = shards(read_json_object(idx, "safetensors index"), repo_id) if idx is not None else ["model.safetensors"]
    paths = [cached(n) for n in names]
    if not all(paths):
        return None
    return [info for p in paths if p is not None for info in st_format.list_tensors(p)]


def _list_hub(repo_id: str, revision: str | None, filename: str | None) -> list[TensorInfo]:
    repo = HubRepo(repo_id, revision)
    if _is_gguf(repo, filename):
        from ..formats import gguf as gguf_format

        fname = _gguf_file(repo, filename)
        prefix, _, size = _gguf_prefix(repo, fname)
        label = repo.label(fname)
        with _staged(label, prefix, size) as p:
            return gguf_format.open_gguf(p).list_tensors()
    if filename is None and repo.has(INDEX):
        files = shards(repo.json(INDEX, "safetensors index"), repo_id)
    else:
        files = [safe_relative(filename or "model.safetensors", repo_id)]
    out = []
    for f in files:
        hdr, *_ = _st_header(repo, f)
        out += [TensorInfo(k, tuple(v["shape"]), v["dtype"]) for k, v in hdr.items()]
    return out


def slice_cache_folder(repo_id: str) -> Path:
    """Where the slices of ``repo_id`` are kept (for a user who wants to clear them)."""
    return SliceCache(validate_hub_id(repo_id)).root


__all__ = ["list_hub", "load_hub", "slice_cache_folder"]
