"""``.safetensors`` files: the header validated in Python before the Rust reader sees the file, one
named tensor read, and a listing of every tensor.

Reference: the safetensors format (8-byte little-endian header length, a JSON header
``{name: {dtype, shape, data_offsets}}``, then the data buffer; huggingface/safetensors README).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import torch

from repcap import RepcapError

from ..matrix import TensorInfo
from .common import one_line, os_error, pickle_magic, refuse_storage
from .names import choose_tensor

#: Bits per element of each safetensors dtype (the format's own list, sub-byte floats included).
SAFETENSORS_DTYPE_BITS = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E5M2": 8,
    "F8_E4M3": 8,
    "F8_E8M0": 8,
    "I16": 16,
    "U16": 16,
    "F16": 16,
    "BF16": 16,
    "I32": 32,
    "U32": 32,
    "F32": 32,
    "F64": 64,
    "I64": 64,
    "U64": 64,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
    "C64": 64,
}
#: Stored types that are not real numbers: listed, never read as a matrix.
NOT_REAL = {"BOOL": "boolean", "C64": "complex"}
#: Largest safetensors JSON header we read (the format's own limit is 100 MB).
SAFETENSORS_MAX_HEADER = 100_000_000
_HINT = "re-download or re-export it (safetensors.torch.save_file)"


def _read_header(path: Path) -> tuple[bytes, int, int]:
    """``(raw JSON header, its length n, file size)`` after the pickle and length checks."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head8 = fh.read(8)
            n = int.from_bytes(head8, "little")
            valid = len(head8) == 8 and 2 <= n <= min(size - 8, SAFETENSORS_MAX_HEADER)
            # a header length of 128 (+ 256 j) also starts with 0x80: the magic tells only when the length is wrong
            if not valid and pickle_magic(head8):
                raise RepcapError(
                    f"{path}: this .safetensors file is really a pickle / torch.save checkpoint; "
                    "repcap never unpickles (it can run arbitrary code) - use the model's real "
                    "safetensors release"
                )
            if len(head8) < 8:
                raise RepcapError(f"{path}: truncated safetensors file ({size} bytes, no header length); {_HINT}")
            if not valid:
                raise RepcapError(
                    f"{path}: malformed or truncated safetensors header (declares {n} header bytes, "
                    f"the file has {size}); {_HINT}"
                )
            return fh.read(n), n, size
    except OSError as exc:
        raise os_error(path, exc) from None


def _check_entry(path: Path | str, name: str, info, buf: int) -> dict:
    """One header entry checked against the data buffer of ``buf`` bytes."""
    bad = f"{path}: malformed safetensors header at tensor {str(name)[:80]!r}"
    if not isinstance(info, dict):
        raise RepcapError(f"{bad}: not an object; {_HINT}")
    dtype, shape, offs = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if not isinstance(dtype, str) or dtype not in SAFETENSORS_DTYPE_BITS:
        raise RepcapError(f"{bad}: unknown dtype {repr(dtype)[:20]}; {_HINT}")
    if not isinstance(shape, list) or not all(type(x) is int and x >= 0 for x in shape) or len(shape) > 16:
        raise RepcapError(f"{bad}: shape {repr(shape)[:60]} is not a list of non-negative ints; {_HINT}")
    if not (
        isinstance(offs, list) and len(offs) == 2 and all(type(x) is int for x in offs) and 0 <= offs[0] <= offs[1]
    ):
        raise RepcapError(f"{bad}: data_offsets {repr(offs)[:60]} are not [begin, end]; {_HINT}")
    numel = math.prod(shape)
    nbytes = (numel * SAFETENSORS_DTYPE_BITS[dtype] + 7) // 8
    if offs[1] > buf and nbytes <= buf:
        raise RepcapError(
            f"{path}: tensor {str(name)[:80]!r}: its data_offsets [{offs[0]}, {offs[1]}] run past the end of the "
            f"data, which holds {buf} bytes: truncated or hostile file, refused without reading it; {_HINT}"
        )
    if nbytes > buf:
        raise RepcapError(
            f"{path}: tensor {str(name)[:80]!r} declares shape {shape} {dtype} ({numel:.3g} elements, "
            f"{nbytes} bytes) but the file holds only {buf} data bytes: truncated or hostile "
            f"file, refused without reading it; {_HINT}"
        )
    if offs[1] - offs[0] != nbytes:
        raise RepcapError(
            f"{path}: tensor {str(name)[:80]!r}: shape {shape} {dtype} needs {nbytes} bytes but its "
            f"data_offsets span {offs[1] - offs[0]}; {_HINT}"
        )
    return {"dtype": dtype, "shape": shape, "data_offsets": offs}


class _DuplicateName(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose every key is new (``json.loads`` keeps the last of two silently)."""
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateName(k)
        out[k] = v
    return out


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
    raw, n, size = _read_header(path)
    return check_header(path, raw, n, size)


def check_header(label: Path | str, raw: bytes, n: int, size: int) -> dict[str, dict]:
    """:func:`check_safetensors` on a header already read: ``raw`` (``n`` bytes) of a file of
    ``size`` bytes, named ``label`` in errors (the hub's range reads check a remote header so,
    before any tensor byte is requested)."""
    path = label
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_keys)
    except _DuplicateName as exc:
        raise RepcapError(
            f"{path}: malformed safetensors header: {str(exc.name)[:80]!r} appears twice in one object (a "
            f"reader would keep the last silently); refused; {_HINT}"
        ) from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RepcapError(f"{path}: malformed safetensors header (not JSON: {repr(str(exc))[:80]}); {_HINT}") from None
    if not isinstance(header, dict):
        raise RepcapError(f"{path}: malformed safetensors header (not a JSON object); {_HINT}")
    buf = size - 8 - n
    out = {name: _check_entry(path, name, info, buf) for name, info in header.items() if name != "__metadata__"}
    pos = 0
    for b, e in sorted(tuple(v["data_offsets"]) for v in out.values()):
        if b != pos:
            raise RepcapError(
                f"{path}: malformed safetensors header: tensor data overlap or leave gaps at byte {b}; {_HINT}"
            )
        pos = e
    if pos != buf:
        raise RepcapError(
            f"{path}: truncated or padded safetensors file: the header covers {pos} data bytes, "
            f"the file holds {buf}; {_HINT}"
        )
    return out


def list_tensors(path: str | os.PathLike) -> list[TensorInfo]:
    """Every tensor of the file ``(name, shape, dtype)``, from the validated header (no data read)."""
    return [TensorInfo(k, tuple(v["shape"]), v["dtype"]) for k, v in check_safetensors(path).items()]


def load_safetensors(
    path: str | os.PathLike, *, head: bool = False, tensor: str | None = None, config: dict | None = None
) -> tuple[torch.Tensor, str, bool | None, str]:
    """Read one 2-D tensor from a ``.safetensors`` file: ``(matrix, tensor_name, tied, dtype_name)``.

    The header is validated by :func:`check_safetensors` first (the Rust reader only sees files
    whose every declared tensor fits the file); boolean and complex tensors are refused."""
    from safetensors import safe_open

    path = Path(path)
    hdr = check_safetensors(path)
    name, tied = choose_tensor(path, {k: tuple(v["shape"]) for k, v in hdr.items()}, head, tensor, config)
    if len(hdr[name]["shape"]) != 2:
        raise RepcapError(f"{path}: tensor {name} has shape {tuple(hdr[name]['shape'])}, not (V, d)")
    dtype = hdr[name]["dtype"]
    if dtype in NOT_REAL:
        raise refuse_storage(path, name, dtype, NOT_REAL[dtype])
    try:
        with safe_open(str(path), framework="pt") as f:
            t = f.get_tensor(name)
    except Exception as exc:  # safetensors raises its own error types
        raise RepcapError(f"{path}: not a readable safetensors file ({one_line(exc)})") from None
    try:
        t.flatten()[:1].to(torch.float64)  # packed sub-byte floats (F4) have no conversion in torch
    except (NotImplementedError, RuntimeError, TypeError):
        raise RepcapError(
            f"{path}: tensor {name} is stored as {dtype} ({t.dtype}), which torch cannot convert to real numbers; "
            "use an F32/F16/BF16 export"
        ) from None
    return t, name, tied, dtype
