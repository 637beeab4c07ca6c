"""GGUF files (llama.cpp): a strict reader whose every read must lie inside the file, one tensor
dequantised with the ``gguf`` package, the token strings, and a listing of every tensor.

Reference: the GGUF format (ggml-org/ggml ``docs/gguf.md``): dims are stored fastest-first, so an
embedding is listed ``[d, V]`` and returned ``(V, d)``; byte-level BPE vocabularies store tokens in
GPT-2's byte-to-unicode alphabet.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
import torch

from repcap import RepcapError

from ..matrix import Embedding, TensorInfo
from .common import one_line, os_error, pickle_magic, read_head
from .names import choose_tensor

#: GGUF tensor types we can read; anything else is refused with its name.
GGUF_OK_TYPES = (
    "F64",
    "F32",
    "F16",
    "BF16",
    "Q4_0",
    "Q4_1",
    "Q5_0",
    "Q5_1",
    "Q8_0",
    "Q2_K",
    "Q3_K",
    "Q4_K",
    "Q5_K",
    "Q6_K",
    "IQ2_XXS",
    "IQ2_XS",
    "IQ2_S",
    "IQ3_XXS",
    "IQ3_S",
    "IQ1_S",
    "IQ1_M",
    "IQ4_NL",
    "IQ4_XS",
    "TQ1_0",
    "TQ2_0",
    "MXFP4",
)
#: Smallest possible GGUF file: magic, version, tensor count, kv count.
_GGUF_MIN = 4 + 4 + 8 + 8
_HINT = "re-download or re-export it"


#: Largest metadata string, tensor name, array and tensor rank a GGUF file may declare: a real file's
#: longest string is a chat template (kilobytes), its longest array a vocabulary (a few 10^5), its
#: names are at most 64 bytes and its ranks at most 4.
GGUF_MAX_STRING = 1 << 24
GGUF_MAX_ARRAY = 1 << 26
GGUF_MAX_NAME = 1 << 12
GGUF_MAX_DIMS = 8


class GGUFPastEnd(ValueError):
    """A read of the strict reader that runs past the bytes it was given, ending at ``end`` (a
    prefix of a remote file: more bytes may hold it, where ``end`` is inside the whole file)."""

    def __init__(self, msg: str, end: int) -> None:
        super().__init__(msg)
        self.end = end


def _check_read(offset: int, dtype: np.dtype, count: int, have: int, whole: int) -> None:
    """Refuse a read of ``count`` x ``dtype`` at ``offset`` outside a file of ``whole`` bytes
    (``ValueError``), or past the ``have`` bytes at hand (:class:`GGUFPastEnd`: read more)."""
    end = offset + int(dtype.itemsize) * count
    if count < 0 or offset < 0 or end > whole:
        raise ValueError(f"read of {count} x {dtype} at byte {offset} runs past the end of the file ({whole} bytes)")
    if end > have:
        raise GGUFPastEnd(f"read of {count} x {dtype} at byte {offset}", end)


@functools.lru_cache(maxsize=1)
def _strict_gguf_reader_class():
    """``gguf.GGUFReader`` whose every read must lie inside the file and whose every declared count
    and length is possible.  The stock reader returns empty views past the end, so a metadata array
    declaring 2**63 one-byte items loops (almost) forever instead of failing; found by
    tests/unit/test_fuzz_readers.py.

    ``total``: the size of the whole file when the reader is given a prefix of it (a remote file's
    first bytes): a read past the prefix but inside ``total`` raises :class:`GGUFPastEnd` (read
    more), one past ``total`` is malformed."""
    import gguf

    class StrictGGUFReader(gguf.GGUFReader):
        def __init__(self, path, total: int | None = None):
            self.total = total
            super().__init__(path)

        def _whole(self) -> int:
            return len(self.data) if self.total is None else max(int(self.total), len(self.data))

        def _get(self, offset, dtype, count=1, override_order=None):
            _check_read(int(offset), np.dtype(dtype), int(count), len(self.data), self._whole())
            return super()._get(offset, dtype, count, override_order)

        def _count(self, what: str, n, at_least: int, limit: int | None = None) -> None:
            n = int(n)
            if n * at_least > self._whole():
                raise ValueError(f"declares {n} {what}, which runs past the end of the file ({self._whole()} bytes)")
            if limit is not None and n > limit:
                raise ValueError(f"declares {n} {what}, more than any real GGUF file holds (at most {limit})")

        def _get_str(self, offset):
            self._count("bytes in a string", self._get(offset, np.uint64)[0], 1, GGUF_MAX_STRING)
            return super()._get_str(offset)

        def _get_field_parts(self, orig_offs, raw_type):
            if int(raw_type) == int(gguf.GGUFValueType.ARRAY):
                self._count("items in an array", self._get(int(orig_offs) + 4, np.uint64)[0], 1, GGUF_MAX_ARRAY)
            return super()._get_field_parts(orig_offs, raw_type)

        def _build_fields(self, offs, count):
            self._count("metadata entries", count, 13)  # key length, key, value type, a byte of value
            return super()._build_fields(offs, count)

        def _build_tensor_info(self, offs, count):
            self._count("tensors", count, 24)  # name length, rank, type, offset
            return super()._build_tensor_info(offs, count)

        def _get_tensor_info_field(self, orig_offs):
            n = int(self._get(orig_offs, np.uint64)[0])
            self._count("bytes in a tensor name", n, 1, GGUF_MAX_NAME)
            self._count("dimensions of a tensor", self._get(int(orig_offs) + 8 + n, np.uint32)[0], 8, GGUF_MAX_DIMS)
            return super()._get_tensor_info_field(orig_offs)

    return StrictGGUFReader


@functools.lru_cache(maxsize=1)
def _prefix_reader_class():
    """The strict reader for a prefix of a file: it parses the header, metadata and tensor table,
    and builds no tensor (their data lies past the prefix)."""

    class PrefixReader(_strict_gguf_reader_class()):  # type: ignore[misc]
        def _build_tensors(self, start_offs, fields):
            self.tensors = []

    return PrefixReader


def _gguf_head(path: Path) -> bytes:
    """The first 8 bytes of a .gguf file, once the ``gguf`` package is known to be there; a pickle is refused."""
    try:
        import gguf  # noqa: F401
    except ImportError as exc:  # pragma: no cover
        raise RepcapError("reading .gguf files needs the 'gguf' package: pip install 'repcap[models]'") from exc
    head = read_head(path, 8)
    if pickle_magic(head):
        raise RepcapError(f"{path}: this .gguf file is really a pickle / torch.save checkpoint; repcap never unpickles")
    return head


def prefix_data_offset(path: Path, total: int) -> int:
    """Where the data section starts, from a file holding the first bytes of a GGUF file of
    ``total`` bytes.  Raises :class:`GGUFPastEnd` (with the byte the parse needs) where the tensor
    table goes on past those bytes, and :class:`RepcapError` where the bytes are malformed: a
    parse failure inside the bytes given is final."""
    head = _gguf_head(path)
    if head[:4] != b"GGUF":
        raise RepcapError(f"{path}: not a GGUF file (no GGUF magic); {_HINT}")
    try:
        return int(_prefix_reader_class()(str(path), total=total).data_offset)
    except GGUFPastEnd:
        raise
    except Exception as exc:
        raise RepcapError(
            f"{path}: malformed GGUF file ({type(exc).__name__}: {repr(str(exc))[:200]}); {_HINT}"
        ) from None


def _gguf_reader(path: Path):
    head = _gguf_head(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise os_error(path, exc) from None
    if head[:4] != b"GGUF" or size < _GGUF_MIN:
        raise RepcapError(f"{path}: not a GGUF file (no GGUF magic, or truncated at {size} bytes); {_HINT}")
    try:  # the reader memory-maps the file: a declared size is never allocated, only viewed
        return _strict_gguf_reader_class()(str(path))
    except ValueError as exc:
        msg = str(exc)
        if "GGMLQuantizationType" in msg:
            raise RepcapError(
                f"{path}: a tensor has an unknown GGUF tensor type ({repr(msg)[:200]}); the file is corrupt or "
                "from a newer llama.cpp - re-export it as F16 or Q8_0"
            ) from None
        raise RepcapError(f"{path}: truncated or malformed GGUF file ({repr(msg)[:200]}); {_HINT}") from None
    except Exception as exc:  # the reader has no error type of its own: IndexError, struct, Unicode ...
        raise RepcapError(
            f"{path}: truncated or malformed GGUF file ({type(exc).__name__}: {repr(str(exc))[:200]}); {_HINT}"
        ) from None


def _guarded(path: Path, fn):
    """Run ``fn()``; any failure of the ``gguf`` package on a malformed file becomes one RepcapError."""
    try:
        return fn()
    except RepcapError:
        raise
    except MemoryError:
        raise RepcapError(f"{path}: the tensor does not fit in memory") from None
    except Exception as exc:
        raise RepcapError(
            f"{path}: malformed GGUF file ({type(exc).__name__}: {one_line(repr(str(exc)))}); {_HINT}"
        ) from None


def _shape(t) -> tuple[int, ...]:
    return tuple(int(x) for x in reversed(list(t.shape)))


class GGUFFile:
    """One GGUF file, opened once through the strict reader (:func:`open_gguf`): list its tensors
    and read any number of them without opening it again (opening a GGUF with a 150k-token
    vocabulary takes seconds).  Every read goes through the checks of :func:`load_gguf`, which is
    ``open_gguf(path).read(...)``; the file is memory-mapped, so nothing is read until a tensor is."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._reader = _gguf_reader(self.path)

    def list_tensors(self) -> list[TensorInfo]:
        """Every tensor ``(name, shape as (V, d), GGML type)``, without reading tensor data."""
        import gguf

        r = self._reader
        return _guarded(
            self.path,
            lambda: [
                TensorInfo(t.name, _shape(t), gguf.GGMLQuantizationType(int(t.tensor_type)).name) for t in r.tensors
            ],
        )

    def read(self, name: str | None = None, *, head: bool = False, with_tokens: bool = True) -> Embedding:
        """The 2-D tensor ``name`` (default: ``token_embd.weight``, or the head with ``head=True``)
        dequantised to a float32 ``(V, d)`` :class:`Embedding`, as :func:`load_gguf` returns it."""
        r, path = self._reader, self.path
        return _guarded(path, lambda: _gguf_embedding(r, path, head, name, with_tokens))

    def __repr__(self) -> str:
        return f"GGUFFile({str(self.path)!r})"


def open_gguf(path: str | os.PathLike) -> GGUFFile:
    """Open a GGUF file once (magic, size and every metadata read checked; a pickle is refused) to
    list and read many of its tensors: ``f = open_gguf(p); f.list_tensors(); f.read(name)``."""
    return GGUFFile(path)


def list_tensors(path: str | os.PathLike) -> list[TensorInfo]:
    """Every tensor of the file ``(name, shape as (V, d), GGML type)``, through the strict reader."""
    return open_gguf(path).list_tensors()


def load_gguf(
    path: str | os.PathLike, *, head: bool = False, tensor: str | None = None, with_tokens: bool = True
) -> Embedding:
    """Dequantise ``token_embd.weight`` (or ``output.weight`` with ``head=True``) from a GGUF file.

    GGUF lists shapes reversed (``[d, V]``); the result is ``(V, d)``.  ``quant`` names the storage
    type; types the ``gguf`` package cannot dequantise are refused with their name.  Any failure of
    the ``gguf`` package on a malformed file comes back as one :class:`RepcapError`.
    """
    return open_gguf(path).read(tensor, head=head, with_tokens=with_tokens)


def _gguf_embedding(r, path: Path, head: bool, tensor: str | None, with_tokens: bool) -> Embedding:
    import gguf
    from gguf import quants

    by_name = {t.name: t for t in r.tensors}
    name, tied = choose_tensor(path, {k: _shape(v) for k, v in by_name.items()}, head, tensor)
    t = by_name[name]
    qtype = gguf.GGMLQuantizationType(int(t.tensor_type)).name
    if qtype not in GGUF_OK_TYPES:
        raise RepcapError(
            f"{path}: tensor {name} is stored as {qtype}, a quantisation type repcap cannot "
            f"dequantise (readable: {', '.join(GGUF_OK_TYPES)}); use an F16/Q8_0 export"
        )
    shape = _shape(t)
    if len(shape) != 2 or min(shape) < 1:
        raise RepcapError(f"{path}: tensor {name} has shape {shape}, not (V, d)")
    block, tsize = gguf.GGML_QUANT_SIZES[t.tensor_type]
    numel = shape[0] * shape[1]
    if numel % block or shape[1] % block or int(t.data.nbytes) != numel // block * tsize:
        raise RepcapError(
            f"{path}: tensor {name} declares shape {shape} ({qtype}) but holds {int(t.data.nbytes)} "
            f"bytes: truncated or malformed file; {_HINT}"
        )
    arr: np.ndarray
    try:
        if qtype == "F64":  # plain doubles; the gguf package's dequantize does not list them
            raw = np.asarray(t.data)
            arr = raw.view(np.float64) if raw.dtype == np.uint8 else raw.astype(np.float64, copy=False)
        else:
            arr = quants.dequantize(t.data, t.tensor_type)
    except (NotImplementedError, ValueError, KeyError) as exc:
        raise RepcapError(f"{path}: cannot dequantise {name} ({qtype}): {one_line(exc)}") from None
    arr = np.array(arr, dtype=np.float32, copy=True).reshape(shape)  # F32/F16 come back as read-only memmaps
    return Embedding(
        matrix=torch.from_numpy(arr),
        name=str(path),
        source_kind="gguf",
        tensor_name=name,
        tied=tied,
        quant=qtype,
        tokens=_tokens(r) if with_tokens else None,
        meta={"path": str(path), "architecture": _string_field(r, "general.architecture")},
    )


def _string_field(r, key: str) -> str | None:
    f = r.fields.get(key)
    return None if f is None else bytes(f.parts[f.data[0]]).decode("utf-8", errors="replace")


def _tokens(r) -> list[str] | None:
    f = r.fields.get("tokenizer.ggml.tokens")
    if f is None:
        return None
    tokens = [bytes(f.parts[i]).decode("utf-8", errors="replace") for i in f.data]
    if _string_field(r, "tokenizer.ggml.model") == "gpt2":
        tokens = [bytelevel_decode(t) for t in tokens]  # readable text, not the byte-to-unicode alphabet
    return tokens


@functools.lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """Inverse of GPT-2's byte-to-unicode table (byte-level BPE vocabularies store tokens in it)."""
    bs = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("\xa1"), ord("\xac") + 1))
        + list(range(ord("\xae"), ord("\xff") + 1))
    )
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def bytelevel_decode(token: str) -> str:
    """``'Ġhello'`` -> ``' hello'``; tokens that are not byte-level (special tokens) come back as they are."""
    dec = _byte_decoder()
    if token.startswith(("<", "[")) or any(ch not in dec for ch in token):
        return token
    return bytes(dec[ch] for ch in token).decode("utf-8", errors="replace")
