"""Load a model's input embedding (and, where untied, its output head) as a ``(V, d)`` float32 tensor.

Reference: Guha 2026 measures the input embedding matrix of each model; Liu, Liu & Gore 2025 the
LM-head rows.  Sources (see :func:`load`):

* a catalog key (:mod:`repcap.catalog`) or a model-hub id ``org/name``: read ``config.json`` and the
  safetensors index ``weight_map``, download only the shard holding the tensor and ``safe_open`` it;
* a local model folder (transformers layout: ``config.json`` + ``model.safetensors`` or
  ``model.safetensors.index.json`` + shards);
* a ``.safetensors``, ``.gguf`` (dequantised with the ``gguf`` package), ``.onnx`` (initialiser) or
  ``.npy`` (``allow_pickle=False``) file;
* an offline model key (:mod:`repcap.offline`: pinned PyPI packages, sha256-checked).

Never unpickles (``.bin``/``.pt``/``.pth``/``.ckpt``/``.pkl``) and never runs remote code.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from . import RepcapError

#: File suffixes that hold pickles: refused (unpickling runs arbitrary code).
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".joblib")

#: Embedding tensor names, most specific first (GPT-2, NeoX/Pythia, OPT, Llama/Mistral/Qwen/Gemma/
#: Phi-3, old Phi, BERT-like encoders, BLOOM, ChatGLM, Meta originals, GGUF).  A ``language_model.``
#: (or ``model.language_model.``) prefix is handled by suffix matching.
EMBED_NAMES: tuple[str, ...] = (
    "model.embed_tokens.weight", "transformer.wte.weight", "wte.weight", "gpt_neox.embed_in.weight",
    "embed_in.weight", "model.decoder.embed_tokens.weight", "decoder.embed_tokens.weight",
    "embed_tokens.weight", "transformer.embd.wte.weight", "embeddings.word_embeddings.weight",
    "word_embeddings.weight", "transformer.word_embeddings.weight",
    "transformer.embedding.word_embeddings.weight", "tok_embeddings.weight", "token_embd.weight",
)
#: Output-head tensor names.
HEAD_NAMES: tuple[str, ...] = ("lm_head.weight", "embed_out.weight", "output.weight", "lm_head.linear.weight")
_SKIP = re.compile(r"(vision|visual|audio|image|mm_projector|multi_modal|mtp)", re.I)

#: GGUF tensor types we can read; anything else is refused with its name.
GGUF_OK_TYPES = ("F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K",
                 "Q5_K", "Q6_K", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ1_S", "IQ1_M",
                 "IQ4_NL", "IQ4_XS", "TQ1_0", "TQ2_0", "MXFP4")


@dataclass
class Embedding:
    """A loaded matrix.  ``matrix: (V, d)`` float32 on the requested device."""

    matrix: torch.Tensor
    name: str                         # what was asked for (key, hub id or path)
    source_kind: str                  # "hub" | "dir" | "safetensors" | "gguf" | "onnx" | "npy" | "offline"
    tensor_name: str | None           # the tensor read
    tied: bool | None                 # head tied to the embedding (None: cannot tell from the source)
    quant: str | None = None          # storage type of the tensor, e.g. "Q8_0", "BF16", "F32"
    tokens: list[str] | None = field(default=None, repr=False)  # token strings, where the source has them
    meta: dict[str, Any] = field(default_factory=dict)           # anything else (path, config, notes)

    @property
    def vocab_size(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def d_model(self) -> int:
        return int(self.matrix.shape[1])


# ---------------------------------------------------------------------------------------------
# tensor-name resolution


def choose_tensor(path, shapes: dict[str, tuple], head: bool, tensor: str | None,
                  config: dict | None = None, kind: str = "tensor") -> tuple[str, bool | None]:
    """``(name, tied)`` of the matrix to read from a file whose 2-D candidates have ``shapes``:
    the named ``tensor`` if given (a clear error if absent), else :func:`pick_tensor`'s choice."""
    if tensor is not None:
        if tensor not in shapes:
            raise RepcapError(f"{path}: no {kind} named {tensor!r}; {kind}s: {_short(list(shapes))}")
        return tensor, None
    emb, hd, tied = pick_tensor(list(shapes), head, config, shapes)
    return (hd if (head and hd) else emb), tied


def pick_tensor(names: Sequence[str], head: bool, config: dict | None = None,
                shapes: dict[str, tuple] | None = None) -> tuple[str, str | None, bool | None]:
    """Choose ``(embedding_name, head_name_or_None, tied)`` among ``names``.

    ``tied`` is True when the source has no separate head (or the config ties it), False when a head
    tensor is stored and the config does not tie it, None when neither tells.
    """
    cands = [n for n in names if not _SKIP.search(n)]

    def find(patterns):
        for p in patterns:
            hits = [n for n in cands if n == p or n.endswith("." + p)]
            if hits:
                return sorted(hits, key=len)[0]
        return None

    emb = find(EMBED_NAMES)
    if emb is None and shapes:
        two_d = [n for n in cands if len(shapes.get(n, ())) == 2]
        if len(two_d) == 1:
            emb = two_d[0]
    if emb is None:
        raise RepcapError("no embedding tensor found among "
                          f"{_short(names)}; pass tensor=NAME (repcap stats --tensor NAME) to choose one")
    hd = find(HEAD_NAMES)
    tie_cfg = _tie_flag(config)
    if hd is None:
        if tie_cfg is False and head:
            raise RepcapError(f"the config says the head is untied but no head tensor ({', '.join(HEAD_NAMES)}) "
                              f"is stored; tensors: {_short(names)}")
        tied: bool | None = True
    else:
        tied = True if tie_cfg else False
    return emb, hd, tied


def _tie_flag(config: dict | None) -> bool | None:
    if not config:
        return None
    for c in (config, config.get("text_config") or {}, config.get("language_config") or {}):
        if isinstance(c, dict) and "tie_word_embeddings" in c:
            return bool(c["tie_word_embeddings"])
    return None


def _short(names: Sequence[str], n: int = 8) -> str:
    names = list(names)
    s = ", ".join(names[:n])
    return s + (f", ... ({len(names)} in all)" if len(names) > n else "") if names else "(none)"


# ---------------------------------------------------------------------------------------------
# file loaders


def _refuse_pickle(path: Path) -> None:
    raise RepcapError(f"{path}: refusing to unpickle a {path.suffix} checkpoint (it can run arbitrary code); "
                      "use the model's .safetensors release, or convert it where you trust it with "
                      "safetensors.torch.save_file / np.save(..., allow_pickle=False)")


#: Bits per element of each safetensors dtype (the format's own list, sub-byte floats included).
SAFETENSORS_DTYPE_BITS = {"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16,
                          "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "F64": 64,
                          "I64": 64, "U64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "C64": 64}
#: Largest safetensors JSON header we read (the format's own limit is 100 MB).
SAFETENSORS_MAX_HEADER = 100_000_000


def _pickle_magic(head: bytes) -> bool:
    """A pickle (protocol >= 2 starts with 0x80) or a torch.save zip (``PK``)."""
    return head[:1] == b"\x80" or head[:2] == b"PK"


def check_safetensors(path: str | os.PathLike) -> dict[str, dict]:
    """Validate a ``.safetensors`` file's header in Python *before* any tensor is read.

    Reads the 8-byte little-endian header length and the JSON header only (never more than the file
    holds), then checks every tensor: a known dtype, a shape of non-negative ints, and data offsets
    ``[begin, end]`` inside the data buffer with ``end - begin == prod(shape) * dtype size`` -- so a
    header that declares a 1e12-element tensor in a small file is refused without allocating it.
    Returns ``{name: {"dtype", "shape", "data_offsets"}}`` (``__metadata__`` dropped); raises
    :class:`RepcapError` naming the file and the fault.
    """
    path = Path(path)
    hint = "re-download or re-export it (safetensors.torch.save_file)"
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head8 = fh.read(8)
            if _pickle_magic(head8):
                raise RepcapError(f"{path}: this .safetensors file is really a pickle / torch.save checkpoint; "
                                  "repcap never unpickles (it can run arbitrary code) - use the model's real "
                                  "safetensors release")
            if len(head8) < 8:
                raise RepcapError(f"{path}: truncated safetensors file ({size} bytes, no header length); {hint}")
            n = int.from_bytes(head8, "little")
            if n < 2 or n > size - 8 or n > SAFETENSORS_MAX_HEADER:
                raise RepcapError(f"{path}: malformed or truncated safetensors header (declares {n} header bytes, "
                                  f"the file has {size}); {hint}")
            raw = fh.read(n)
    except OSError as exc:
        raise RepcapError(f"{path}: cannot read ({exc})") from exc
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RepcapError(f"{path}: malformed safetensors header (not JSON: {repr(str(exc))[:80]}); {hint}") from None
    if not isinstance(header, dict):
        raise RepcapError(f"{path}: malformed safetensors header (not a JSON object); {hint}")
    buf = size - 8 - n
    out: dict[str, dict] = {}
    spans = []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        bad = f"{path}: malformed safetensors header at tensor {str(name)[:80]!r}"
        if not isinstance(info, dict):
            raise RepcapError(f"{bad}: not an object; {hint}")
        dtype, shape, offs = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if dtype not in SAFETENSORS_DTYPE_BITS:
            raise RepcapError(f"{bad}: unknown dtype {repr(dtype)[:20]}; {hint}")
        if not isinstance(shape, list) or not all(type(x) is int and x >= 0 for x in shape) or len(shape) > 16:
            raise RepcapError(f"{bad}: shape {repr(shape)[:60]} is not a list of non-negative ints; {hint}")
        if not (isinstance(offs, list) and len(offs) == 2 and all(type(x) is int for x in offs)
                and 0 <= offs[0] <= offs[1]):
            raise RepcapError(f"{bad}: data_offsets {repr(offs)[:60]} are not [begin, end]; {hint}")
        numel = math.prod(shape)
        nbytes = (numel * SAFETENSORS_DTYPE_BITS[dtype] + 7) // 8
        if nbytes > buf or offs[1] > buf:
            raise RepcapError(f"{path}: tensor {str(name)[:80]!r} declares shape {shape} {dtype} ({numel:.3g} elements, "
                              f"{nbytes} bytes) but the file holds only {buf} data bytes: truncated or hostile "
                              f"file, refused without reading it; {hint}")
        if offs[1] - offs[0] != nbytes:
            raise RepcapError(f"{path}: tensor {str(name)[:80]!r}: shape {shape} {dtype} needs {nbytes} bytes but its "
                              f"data_offsets span {offs[1] - offs[0]}; {hint}")
        spans.append((offs[0], offs[1]))
        out[name] = {"dtype": dtype, "shape": shape, "data_offsets": offs}
    pos = 0
    for b, e in sorted(spans):
        if b != pos:
            raise RepcapError(f"{path}: malformed safetensors header: tensor data overlap or leave gaps at byte {b}; "
                              f"{hint}")
        pos = e
    if pos != buf:
        raise RepcapError(f"{path}: truncated or padded safetensors file: the header covers {pos} data bytes, "
                          f"the file holds {buf}; {hint}")
    return out


def load_safetensors(path: str | os.PathLike, *, head: bool = False, tensor: str | None = None,
                     config: dict | None = None) -> tuple[torch.Tensor, str, bool | None, str]:
    """Read one tensor from a ``.safetensors`` file: ``(matrix, tensor_name, tied, dtype_name)``.

    The header is validated by :func:`check_safetensors` first (the Rust reader only sees files
    whose every declared tensor fits the file)."""
    from safetensors import safe_open

    path = Path(path)
    hdr = check_safetensors(path)
    name, tied = choose_tensor(path, {k: tuple(v["shape"]) for k, v in hdr.items()}, head, tensor, config)
    if len(hdr[name]["shape"]) != 2:
        raise RepcapError(f"{path}: tensor {name} has shape {tuple(hdr[name]['shape'])}, not (V, d)")
    try:
        with safe_open(str(path), framework="pt") as f:
            t = f.get_tensor(name)
    except Exception as exc:  # safetensors raises its own error types
        raise RepcapError(f"{path}: not a readable safetensors file ({exc})") from exc
    return t, name, tied, str(t.dtype).replace("torch.", "").upper().replace("FLOAT", "F").replace("BFLOAT", "BF")


#: Smallest possible GGUF file: magic, version, tensor count, kv count.
_GGUF_MIN = 4 + 4 + 8 + 8


@functools.lru_cache(maxsize=1)
def _strict_gguf_reader_class():
    """``gguf.GGUFReader`` whose every read must lie inside the file.  The stock reader returns empty
    views past the end, so a metadata array declaring 2**63 one-byte items loops (almost) forever
    instead of failing; found by tests/unit/test_fuzz_readers.py."""
    import gguf

    class StrictGGUFReader(gguf.GGUFReader):
        def _get(self, offset, dtype, count=1, override_order=None):
            count = int(count)
            end = int(offset) + int(np.dtype(dtype).itemsize) * count
            if count < 0 or int(offset) < 0 or end > len(self.data):
                raise ValueError(f"read of {count} x {np.dtype(dtype)} at byte {int(offset)} runs past the end "
                                 f"of the file ({len(self.data)} bytes)")
            return super()._get(offset, dtype, count, override_order)

    return StrictGGUFReader


def _gguf_reader(path: Path):
    try:
        import gguf
    except ImportError as exc:  # pragma: no cover
        raise RepcapError("reading .gguf files needs the 'gguf' package: pip install 'repcap[models]'") from exc
    hint = "re-download or re-export it"
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError as exc:
        raise RepcapError(f"{path}: cannot read ({exc})") from exc
    if _pickle_magic(head):
        raise RepcapError(f"{path}: this .gguf file is really a pickle / torch.save checkpoint; repcap never unpickles")
    if head[:4] != b"GGUF" or size < _GGUF_MIN:
        raise RepcapError(f"{path}: not a GGUF file (no GGUF magic, or truncated at {size} bytes); {hint}")
    try:  # the reader memory-maps the file: a declared size is never allocated, only viewed
        return _strict_gguf_reader_class()(str(path))
    except ValueError as exc:
        msg = str(exc)
        if "GGMLQuantizationType" in msg:
            raise RepcapError(f"{path}: a tensor has an unknown GGUF tensor type ({repr(msg)[:200]}); the file is corrupt or "
                              "from a newer llama.cpp - re-export it as F16 or Q8_0") from None
        raise RepcapError(f"{path}: truncated or malformed GGUF file ({repr(msg)[:200]}); {hint}") from None
    except Exception as exc:  # the reader has no error type of its own: IndexError, struct, Unicode ...
        raise RepcapError(f"{path}: truncated or malformed GGUF file ({type(exc).__name__}: {repr(str(exc))[:200]}); "
                          f"{hint}") from None


def load_gguf(path: str | os.PathLike, *, head: bool = False, tensor: str | None = None,
              with_tokens: bool = True) -> Embedding:
    """Dequantise ``token_embd.weight`` (or ``output.weight`` with ``head=True``) from a GGUF file.

    GGUF lists shapes reversed (``[d, V]``); the result is ``(V, d)``.  ``quant`` names the storage
    type; types the ``gguf`` package cannot dequantise are refused with their name.  Any failure of
    the ``gguf`` package on a malformed file comes back as one :class:`RepcapError`.
    """
    path = Path(path)
    r = _gguf_reader(path)
    try:
        return _gguf_embedding(r, path, head, tensor, with_tokens)
    except RepcapError:
        raise
    except MemoryError:
        raise RepcapError(f"{path}: the tensor does not fit in memory") from None
    except Exception as exc:
        raise RepcapError(f"{path}: malformed GGUF file ({type(exc).__name__}: {repr(str(exc))[:200]}); "
                          "re-download or re-export it") from None


def _gguf_embedding(r, path: Path, head: bool, tensor: str | None, with_tokens: bool) -> Embedding:
    import gguf
    from gguf import quants

    by_name = {t.name: t for t in r.tensors}
    name, tied = choose_tensor(path, {k: tuple(int(x) for x in v.shape) for k, v in by_name.items()}, head, tensor)
    t = by_name[name]
    qtype = gguf.GGMLQuantizationType(int(t.tensor_type)).name
    if qtype not in GGUF_OK_TYPES:
        raise RepcapError(f"{path}: tensor {name} is stored as {qtype}, a quantisation type repcap cannot "
                          f"dequantise (readable: {', '.join(GGUF_OK_TYPES)}); use an F16/Q8_0 export")
    shape = tuple(int(x) for x in reversed(list(t.shape)))
    if len(shape) != 2 or min(shape) < 1:
        raise RepcapError(f"{path}: tensor {name} has shape {shape}, not (V, d)")
    block, tsize = gguf.GGML_QUANT_SIZES[t.tensor_type]
    numel = shape[0] * shape[1]
    if numel % block or shape[1] % block or int(t.data.nbytes) != numel // block * tsize:
        raise RepcapError(f"{path}: tensor {name} declares shape {shape} ({qtype}) but holds {int(t.data.nbytes)} "
                          "bytes: truncated or malformed file; re-download or re-export it")
    try:
        arr = quants.dequantize(t.data, t.tensor_type)
    except (NotImplementedError, ValueError, KeyError) as exc:
        raise RepcapError(f"{path}: cannot dequantise {name} ({qtype}): {exc}") from exc
    arr = np.array(arr, dtype=np.float32, copy=True).reshape(shape)  # F32/F16 come back as read-only memmaps
    tokens = None
    if with_tokens and "tokenizer.ggml.tokens" in r.fields:
        f = r.fields["tokenizer.ggml.tokens"]
        tokens = [bytes(f.parts[i]).decode("utf-8", errors="replace") for i in f.data]
        tm = r.fields.get("tokenizer.ggml.model")
        if tm is not None and bytes(tm.parts[tm.data[0]]).decode("utf-8", errors="replace") == "gpt2":
            tokens = [bytelevel_decode(t) for t in tokens]  # readable text, not the byte-to-unicode alphabet
    arch = None
    if "general.architecture" in r.fields:
        f = r.fields["general.architecture"]
        arch = bytes(f.parts[f.data[0]]).decode("utf-8", errors="replace")
    return Embedding(matrix=torch.from_numpy(arr), name=str(path), source_kind="gguf", tensor_name=name,
                     tied=tied, quant=qtype, tokens=tokens, meta={"path": str(path), "architecture": arch})


def load_onnx(path: str | os.PathLike, *, head: bool = False, tensor: str | None = None) -> Embedding:
    """Read an embedding initialiser from an ONNX graph (no graph execution)."""
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError as exc:  # pragma: no cover
        raise RepcapError("reading .onnx files needs the 'onnx' package: pip install 'repcap[models]'") from exc
    path = Path(path)
    try:
        model = onnx.load(str(path))
    except Exception as exc:
        raise RepcapError(f"{path}: not a readable ONNX file ({exc})") from exc
    inits = {i.name: i for i in model.graph.initializer}
    name, tied = choose_tensor(path, {k: tuple(v.dims) for k, v in inits.items()}, head, tensor,
                               kind="initialiser")
    arr = numpy_helper.to_array(inits[name])
    dtype = {"FLOAT": "F32", "FLOAT16": "F16", "BFLOAT16": "BF16", "DOUBLE": "F64"}.get(
        onnx.TensorProto.DataType.Name(inits[name].data_type), onnx.TensorProto.DataType.Name(inits[name].data_type))
    return Embedding(matrix=torch.from_numpy(np.array(arr, dtype=np.float32, copy=True)), name=str(path),
                     source_kind="onnx", tensor_name=name, tied=tied, quant=dtype, meta={"path": str(path)})


def check_npy(path: str | os.PathLike) -> tuple[tuple[int, ...], np.dtype]:
    """Read only the ``.npy`` header: refuse object (pickle) dtypes and shapes the file cannot hold,
    before anything is mapped or allocated.  Returns ``(shape, dtype)``."""
    path = Path(path)
    fmt = np.lib.format
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            major, minor = fmt.read_magic(fh)
            if (major, minor) == (1, 0):
                shape, fortran, dtype = fmt.read_array_header_1_0(fh, max_header_size=10000)
            elif (major, minor) in ((2, 0), (3, 0)):
                shape, fortran, dtype = fmt.read_array_header_2_0(fh, max_header_size=10000)
            else:
                raise ValueError(f"unsupported .npy version {major}.{minor}")
            offset = fh.tell()
    except OSError as exc:
        raise RepcapError(f"{path}: cannot read ({exc})") from exc
    except (ValueError, SyntaxError, TypeError) as exc:
        raise RepcapError(f"{path}: not a readable .npy file ({str(exc)[:120]}); re-save it with np.save") from None
    if dtype.hasobject:
        raise RepcapError(f"{path}: holds Python objects (a pickle); repcap reads only plain numeric .npy "
                          "arrays - re-save it with np.save(path, array.astype('float32'))")
    need = math.prod(shape) * dtype.itemsize
    if offset + need > size:
        raise RepcapError(f"{path}: the header declares shape {shape} {dtype} ({need} bytes) but the file holds "
                          f"{size - offset}: truncated or hostile file, refused without reading it")
    return tuple(shape), dtype


def load_npy(path: str | os.PathLike) -> Embedding:
    path = Path(path)
    check_npy(path)
    try:
        arr = np.load(path, allow_pickle=False, mmap_mode="r")
    except ValueError as exc:
        raise RepcapError(f"{path}: holds Python objects (a pickle); repcap reads only plain numeric .npy "
                          "arrays - re-save it with np.save(path, array.astype('float32'))") from exc
    except OSError as exc:
        raise RepcapError(f"{path}: not a readable .npy file ({exc})") from exc
    if arr.ndim != 2 or not np.issubdtype(arr.dtype, np.number):
        raise RepcapError(f"{path}: expected a 2-D numeric (V, d) array, got shape {arr.shape} dtype {arr.dtype}")
    return Embedding(matrix=torch.from_numpy(np.array(arr, dtype=np.float32)), name=str(path), source_kind="npy",
                     tensor_name=None, tied=None, quant=str(arr.dtype).upper().replace("FLOAT", "F"),
                     meta={"path": str(path)})


@functools.lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    """Inverse of GPT-2's byte-to-unicode table (byte-level BPE vocabularies store tokens in it)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + \
        list(range(ord("\xae"), ord("\xff") + 1))
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
    if token.startswith("<") or token.startswith("[") or any(ch not in dec for ch in token):
        return token
    return bytes(dec[ch] for ch in token).decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------------------------
# transformers-layout folders and the hub


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise RepcapError(f"{path}: not readable JSON ({exc})") from exc


def _from_layout(config: dict | None, index: dict | None, single: str | None, fetch, label: str,
                 head: bool, tensor: str | None, kind: str) -> Embedding:
    """Shared by folders and the hub.  ``fetch(filename) -> local path``."""
    if config and config.get("auto_map") is not None:
        pass  # remote code is never run: we read tensors only, so auto_map is irrelevant
    if index is not None:
        wm = index.get("weight_map") or {}
        if not wm:
            raise RepcapError(f"{label}: model.safetensors.index.json has no weight_map")
        if tensor is not None:
            if tensor not in wm:
                raise RepcapError(f"{label}: no tensor named {tensor!r} in the weight map; tensors: {_short(list(wm))}")
            name, tied = tensor, None
        else:
            emb, hd, tied = pick_tensor(list(wm), head, config)
            name = hd if (head and hd) else emb
        shard = fetch(safe_relative(wm[name], label))
        t, _, _, dtype = load_safetensors(shard, tensor=name)
    elif single is not None:
        path = fetch(single)
        t, name, tied, dtype = load_safetensors(path, head=head, tensor=tensor, config=config)
    else:  # pragma: no cover - callers pass one of the two
        raise AssertionError
    if t.ndim != 2:
        raise RepcapError(f"{label}: tensor {name} has shape {tuple(t.shape)}, not (V, d)")
    return Embedding(matrix=t.to(torch.float32), name=label, source_kind=kind, tensor_name=name, tied=tied,
                     quant=dtype, meta={"config_model_type": (config or {}).get("model_type")})


def load_dir(path: str | os.PathLike, *, head: bool = False, tensor: str | None = None) -> Embedding:
    path = Path(path)
    cfg = _read_json(path / "config.json") if (path / "config.json").is_file() else None
    idx = path / "model.safetensors.index.json"
    if idx.is_file():
        return _from_layout(cfg, _read_json(idx), None, lambda f: path / f, str(path), head, tensor, "dir")
    st = sorted(path.glob("*.safetensors"))
    if len(st) == 1:
        return _from_layout(cfg, None, st[0].name, lambda f: path / f, str(path), head, tensor, "dir")
    if len(st) > 1:
        raise RepcapError(f"{path}: {len(st)} .safetensors files but no model.safetensors.index.json; "
                          "point at one file instead")
    gg = sorted(path.glob("*.gguf"))
    if len(gg) == 1:
        return load_gguf(gg[0], head=head, tensor=tensor)
    pickles = [p.name for p in path.iterdir() if p.suffix in PICKLE_SUFFIXES]
    if pickles:
        raise RepcapError(f"{path}: only pickle checkpoints ({', '.join(pickles[:3])}); repcap never unpickles. "
                          "Use the model's safetensors release (or convert it with safetensors.torch.save_file)")
    raise RepcapError(f"{path}: no model.safetensors, safetensors index or .gguf file in this folder")


def load_hub(repo_id: str, *, head: bool = False, tensor: str | None = None, revision: str | None = None) -> Embedding:
    """Read one tensor of a hub model, downloading only ``config.json``, the index and one shard.
    ``repo_id`` is checked against the hub's ``owner/name`` grammar before any download."""
    validate_hub_id(repo_id)
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.utils import EntryNotFoundError, LocalEntryNotFoundError
    except ImportError as exc:  # pragma: no cover
        raise RepcapError("hub ids need 'huggingface_hub': pip install 'repcap[models]'") from exc

    def fetch(fname: str) -> Path:
        try:
            return Path(hf_hub_download(repo_id, fname, revision=revision))
        except LocalEntryNotFoundError as exc:  # a subclass of EntryNotFoundError: no network, not cached
            raise RepcapError(f"hub model {repo_id!r}: cannot fetch {fname}: no network (or HF_HUB_OFFLINE is set) "
                              "and it is not in the local hub cache; use an offline key or a local file") from exc
        except EntryNotFoundError:
            raise
        except Exception as exc:  # network, gated, not found, offline mode ...
            kind = type(exc).__name__
            hint = {"GatedRepoError": "accept the licence on the hub and log in (huggingface-cli login)",
                    "RepositoryNotFoundError": "check the id (org/name) or log in for a private repo",
                    "LocalEntryNotFoundError": "no network or HF_HUB_OFFLINE is set, and it is not in the local cache",
                    "RevisionNotFoundError": "check the revision"}.get(kind, "check the id and your network")
            raise RepcapError(f"hub model {repo_id!r}: cannot fetch {fname} ({kind}): {hint}") from exc

    def maybe(fname: str) -> Path | None:
        try:
            return fetch(fname)
        except EntryNotFoundError:
            return None

    cfg_path = maybe("config.json")
    cfg = _read_json(cfg_path) if cfg_path else None
    idx_path = maybe("model.safetensors.index.json")
    if idx_path is not None:
        return _from_layout(cfg, _read_json(idx_path), None, fetch, repo_id, head, tensor, "hub")
    try:
        return _from_layout(cfg, None, "model.safetensors", fetch, repo_id, head, tensor, "hub")
    except EntryNotFoundError:
        raise RepcapError(f"hub model {repo_id!r} has no model.safetensors or safetensors index; repcap never "
                          "unpickles pytorch_model.bin - use a repo with a safetensors release") from None


# ---------------------------------------------------------------------------------------------
# entry point

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")
#: One part of a hub id (the hub's own grammar): letters, digits, ``_ . -``, at most 96, not starting or
#: ending with ``.`` or ``-``, no ``..`` or ``--``.
_HUB_PART = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.\-]{0,94}[A-Za-z0-9_])?$")


def validate_hub_id(repo_id: str) -> str:
    """Return ``repo_id`` if it is a hub id ``owner/name`` in the hub's grammar, else raise
    :class:`RepcapError` -- checked before anything touches the filesystem or the network, so an id
    such as ``../../etc/passwd``, ``/abs/path`` or ``org/..`` can never become a cache path."""
    parts = str(repo_id).split("/")
    if len(parts) != 2 or not all(_HUB_PART.match(p) and ".." not in p and "--" not in p for p in parts):
        raise RepcapError(f"{str(repo_id)[:200]!r} is not a hub id: expected owner/name (letters, digits, '_', '.', '-'; "
                          "no '..', no leading '.' or '/'); give an offline key, a catalog key, an existing "
                          "file or folder, or a hub id like google/gemma-3-270m")
    return str(repo_id)


def safe_relative(name: str, label: str) -> str:
    """A file name from an index (``weight_map``) must be a plain relative path inside its folder/repo."""
    s = str(name)
    segs = s.replace("\\", "/").split("/")
    if not s or s.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", s) or any(g in ("", ".", "..") for g in segs) \
            or "\x00" in s:
        raise RepcapError(f"{label}: the safetensors index names the file {s[:200]!r}, which escapes the model "
                          "folder; refused - the index is corrupt or hostile, re-download the model")
    return s


def load_file(path: Path, *, head: bool = False, tensor: str | None = None) -> Embedding:
    suf = path.suffix.lower()
    if suf in PICKLE_SUFFIXES:
        _refuse_pickle(path)
    if suf == ".safetensors":
        t, name, tied, dtype = load_safetensors(path, head=head, tensor=tensor)
        if t.ndim != 2:
            raise RepcapError(f"{path}: tensor {name} has shape {tuple(t.shape)}, not (V, d)")
        return Embedding(matrix=t.to(torch.float32), name=str(path), source_kind="safetensors", tensor_name=name,
                         tied=tied, quant=dtype, meta={"path": str(path)})
    if suf == ".gguf":
        return load_gguf(path, head=head, tensor=tensor)
    if suf == ".onnx":
        return load_onnx(path, head=head, tensor=tensor)
    if suf == ".npy":
        if head:
            raise RepcapError(f"{path}: a .npy file holds one matrix; it has no separate head (drop --head)")
        return load_npy(path)
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic[:1] == b"\x80" or magic[:2] == b"PK":
        _refuse_pickle(path)
    raise RepcapError(f"{path}: unknown file type {suf or '(no suffix)'}; use .safetensors, .gguf, .onnx or .npy")


def load(source: str | os.PathLike, *, head: bool = False, device: str | torch.device = "cpu",
         tensor: str | None = None, revision: str | None = None) -> Embedding:
    """Load the input embedding (``head=False``) or the output head (``head=True``) of ``source``.

    ``source``: an offline key (``repcap models``), a catalog key, a hub id ``org/name``, a local
    model folder, or a ``.safetensors`` / ``.gguf`` / ``.onnx`` / ``.npy`` file.  For a tied model
    ``head=True`` returns the embedding with ``tied=True``.  Returns an :class:`Embedding` whose
    ``matrix: (V, d)`` is float32 on ``device``.
    """
    from .devices import resolve_device

    dev = resolve_device(device)
    src = os.fspath(source)
    if not src:
        raise RepcapError("empty model source; give an offline key, catalog key, hub id, folder or file")
    p = Path(src).expanduser()
    emb: Embedding
    if p.is_dir() or p.is_file():
        try:
            emb = (load_dir if p.is_dir() else load_file)(p, head=head, tensor=tensor)
        except RepcapError as exc:  # every refusal names the file, on one line
            msg = " ".join(str(exc).split("\n"))
            if str(p) in msg and msg == str(exc):
                raise
            raise RepcapError(msg if str(p) in msg else f"{p}: {msg}") from exc.__cause__
    else:
        from . import catalog, offline

        if src in offline.OFFLINE:
            emb = offline.load(src, head=head)
        elif catalog.find(src) is not None:
            entry = catalog.find(src)
            if entry.offline and entry.offline in offline.OFFLINE and offline.is_installed(entry.offline):
                emb = offline.load(entry.offline, head=head)
            else:
                emb = load_hub(entry.hub_id, head=head, tensor=tensor, revision=revision)
                emb.meta["catalog_key"] = entry.key
        elif _HUB_ID.match(src) and not src.startswith((".", "/")) and not p.suffix.lower() in (
                ".safetensors", ".gguf", ".onnx", ".npy", *PICKLE_SUFFIXES):
            emb = load_hub(validate_hub_id(src), head=head, tensor=tensor, revision=revision)
        elif "/" in src or "\\" in src or src.startswith((".", "~")):
            raise RepcapError(f"{src[:200]!r}: no such file or folder, and not a hub id owner/name (a model id may "
                              "not hold '..', a leading '/' or '.'); check the path, or give an offline key "
                              f"({', '.join(offline.OFFLINE)}) or a catalog key (repcap models)")
        else:
            raise RepcapError(f"unknown model source {src!r}: not an existing file or folder, an offline key "
                              f"({', '.join(offline.OFFLINE)}), a catalog key (repcap models) or a hub id 'org/name'")
    if head and emb.tied:
        emb.meta["head_is_embedding"] = True
    if emb.matrix.ndim != 2 or emb.matrix.shape[0] == 0 or emb.matrix.shape[1] == 0:
        raise RepcapError(f"{src}: the matrix is empty or not 2-D (shape {tuple(emb.matrix.shape)})")
    emb.matrix = emb.matrix.to(device=dev, dtype=torch.float32)
    return emb


def synthetic(V: int, d: int, *, mean_cos: float = 0.2, seed: int = 0, noise_of: np.ndarray | None = None,
              noise: float = 0.02) -> np.ndarray:
    """A synthetic stand-in ``(V, d)`` float32 matrix for tests and the smoke profile: Gaussian rows
    plus a common direction whose weight gives pairwise cosines of mean about ``mean_cos``.  With
    ``noise_of`` it returns that matrix plus relative Gaussian noise (a re-quantised copy)."""
    rng = np.random.default_rng(seed)
    if noise_of is not None:
        base = np.asarray(noise_of, dtype=np.float32)
        return (base + noise * base.std() * rng.standard_normal(base.shape)).astype(np.float32)
    if not 0 <= mean_cos < 1:
        raise RepcapError(f"mean_cos={mean_cos} must be in [0, 1)")
    common = rng.standard_normal(d)
    common /= np.linalg.norm(common)
    # rows x = g + a c with g ~ N(0, I/d): E cos ~ a^2 / (1 + a^2)
    a = math.sqrt(mean_cos / (1 - mean_cos))
    X = rng.standard_normal((V, d)) / math.sqrt(d) + a * common * rng.uniform(0.5, 1.5, size=(V, 1))
    return X.astype(np.float32)
