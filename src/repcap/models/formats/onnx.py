"""``.onnx`` files: an embedding read from the graph's initialisers (no graph is ever executed),
with each initialiser's element type and data length checked against its dims before conversion,
and a listing of every initialiser.

Reference: ONNX ``TensorProto`` (onnx/onnx.proto): ``dims``, ``data_type``, the data in ``raw_data``
or a typed field (``float_data``, ``int32_data``, ...), or in an external file
(``data_location = EXTERNAL``, ``external_data`` = location / offset / length).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from repcap import RepcapError

from ..matrix import Embedding, TensorInfo
from .common import as_float32, file_embedding, one_line, os_error, plain_relative, refuse_storage, resolves_inside
from .names import choose_tensor

#: Element types read as a matrix: ONNX name -> (short name, bytes per element, typed data field).
READABLE = {
    "FLOAT": ("F32", 4, "float_data"),
    "FLOAT16": ("F16", 2, "int32_data"),
    "BFLOAT16": ("BF16", 2, "int32_data"),
    "DOUBLE": ("F64", 8, "double_data"),
    "INT8": ("I8", 1, "int32_data"),
    "UINT8": ("U8", 1, "int32_data"),
    "INT16": ("I16", 2, "int32_data"),
    "UINT16": ("U16", 2, "int32_data"),
    "INT32": ("I32", 4, "int32_data"),
    "INT64": ("I64", 8, "int64_data"),
    "UINT32": ("U32", 4, "uint64_data"),
    "UINT64": ("U64", 8, "uint64_data"),
}
#: Element types that are not real numbers.
NOT_REAL = {
    "BOOL": "boolean",
    "COMPLEX64": "complex",
    "COMPLEX128": "complex",
    "STRING": "string",
    "UNDEFINED": "undefined",
}
_HINT = "re-export the model"


def _onnx():
    try:
        import onnx
        from onnx import numpy_helper
    except ImportError as exc:  # pragma: no cover
        raise RepcapError("reading .onnx files needs the 'onnx' package: pip install 'repcap[models]'") from exc
    return onnx, numpy_helper


def _open(path: Path):
    """The parsed model, external data not loaded (each initialiser's is read on demand)."""
    onnx, _ = _onnx()
    try:
        path.stat()
        return onnx.load(str(path), load_external_data=False)
    except OSError as exc:
        raise os_error(path, exc) from None
    except Exception as exc:  # protobuf DecodeError and friends
        raise RepcapError(f"{path}: not a readable ONNX file ({one_line(exc)})") from None


def _type_name(init) -> str:
    onnx, _ = _onnx()
    try:
        return onnx.TensorProto.DataType.Name(init.data_type)
    except ValueError:
        return f"unknown type {int(init.data_type)}"


def _storage(init) -> str:
    name = _type_name(init)
    return READABLE[name][0] if name in READABLE else name


def _initialisers(path: Path) -> list:
    """The graph's initialisers; refused if a name is not text (protobuf hands invalid UTF-8 back as
    bytes)."""
    inits = list(_open(path).graph.initializer)
    for i in inits:
        if not isinstance(i.name, str):
            raise RepcapError(
                f"{path}: an initialiser's name is not valid UTF-8 text ({bytes(i.name)[:60]!r}); "
                f"the file is corrupt; {_HINT}"
            )
    return inits


def list_tensors(path: str | os.PathLike) -> list[TensorInfo]:
    """Every initialiser ``(name, dims, element type)`` (no data converted)."""
    path = Path(path)
    return [TensorInfo(i.name, tuple(int(x) for x in i.dims), _storage(i)) for i in _initialisers(path)]


def _checked_numel(path: Path, init) -> tuple[int, str, int]:
    """``(elements, type name, bytes per element)`` of an initialiser whose type is readable."""
    name = _type_name(init)
    if name in NOT_REAL:
        raise refuse_storage(path, init.name, name, NOT_REAL[name])
    if name not in READABLE:
        raise RepcapError(
            f"{path}: initialiser {init.name!r} has element type {name}, which repcap does not read "
            f"(readable: {', '.join(READABLE)}); {_HINT} as float32"
        )
    dims = [int(x) for x in init.dims]
    if len(dims) != 2 or min(dims) < 1:
        raise RepcapError(f"{path}: initialiser {init.name!r} has dims {tuple(dims)}, not (V, d)")
    return math.prod(dims), name, READABLE[name][1]


def _in_file_array(path: Path, init, numel: int, name: str, itemsize: int) -> np.ndarray:
    _, numpy_helper = _onnx()
    field = READABLE[name][2]
    have, need = (len(init.raw_data), numel * itemsize) if init.raw_data else (len(getattr(init, field)), numel)
    if have != need:
        unit = "bytes" if init.raw_data else f"{field} values"
        raise RepcapError(
            f"{path}: initialiser {init.name!r} declares dims {tuple(init.dims)} {name} ({need} {unit}) "
            f"but holds {have}: truncated or malformed file; {_HINT}"
        )
    try:
        return numpy_helper.to_array(init)
    except Exception as exc:  # any other inconsistency the converter finds
        raise RepcapError(f"{path}: cannot convert initialiser {init.name!r} ({one_line(exc)}); {_HINT}") from None


def _external_array(path: Path, init, numel: int, name: str, itemsize: int) -> np.ndarray:
    """The data of an initialiser stored in a file next to the model, checked to stay in its folder."""
    from onnx import helper

    info = {e.key: e.value for e in init.external_data}
    loc = info.get("location", "")
    where = path.parent / loc
    if not plain_relative(loc) or not resolves_inside(where, path.parent):
        raise RepcapError(
            f"{path}: initialiser {init.name!r} names the external file {loc[:200]!r}, which escapes "
            "the model folder; refused - the model is corrupt or hostile"
        )
    try:
        offset, length = int(info.get("offset", 0)), int(info.get("length", numel * itemsize))
        size = where.stat().st_size
    except ValueError:
        raise RepcapError(
            f"{path}: initialiser {init.name!r}: external offset/length are not integers; {_HINT}"
        ) from None
    except OSError as exc:
        raise os_error(where, exc, f"cannot read the external data of {init.name!r}") from None
    if length != numel * itemsize or offset < 0 or offset + length > size:
        raise RepcapError(
            f"{path}: initialiser {init.name!r} declares dims {tuple(init.dims)} {name} "
            f"({numel * itemsize} bytes) at offset {offset}, length {length} of {where.name} "
            f"({size} bytes): truncated or malformed; {_HINT}"
        )
    try:
        with open(where, "rb") as fh:
            fh.seek(offset)
            data = fh.read(length)
    except OSError as exc:  # a folder, unreadable, gone since the stat
        raise os_error(where, exc, f"cannot read the external data of {init.name!r}") from None
    if len(data) != length:
        raise RepcapError(f"{path}: initialiser {init.name!r}: {where.name} ended early (truncated); {_HINT}")
    return np.frombuffer(data, dtype=helper.tensor_dtype_to_np_dtype(init.data_type)).reshape(tuple(init.dims))


def load_onnx(path: str | os.PathLike, *, head: bool = False, tensor: str | None = None) -> Embedding:
    """Read an embedding initialiser from an ONNX graph (no graph execution).  Element types that are
    not real numbers, and data shorter or longer than the dims say, are refused before conversion."""
    onnx, _ = _onnx()
    path = Path(path)
    inits = {i.name: i for i in _initialisers(path)}
    name, tied = choose_tensor(path, {k: tuple(v.dims) for k, v in inits.items()}, head, tensor, kind="initialiser")
    init = inits[name]
    numel, tname, itemsize = _checked_numel(path, init)
    external = init.data_location == onnx.TensorProto.EXTERNAL
    arr = (_external_array if external else _in_file_array)(path, init, numel, tname, itemsize)
    try:
        mat = as_float32(np.array(arr, copy=True).reshape(tuple(int(x) for x in init.dims)))
    except (ValueError, TypeError) as exc:
        raise RepcapError(
            f"{path}: cannot convert initialiser {name!r} to float32 ({one_line(exc)}); {_HINT}"
        ) from None
    return file_embedding(path, mat, "onnx", name, tied, READABLE[tname][0])
