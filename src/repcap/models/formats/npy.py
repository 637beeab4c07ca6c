"""``.npy`` files: the header read alone and checked (no object dtype, no element type that is not
a real number, no shape the file cannot hold) before the array is mapped; never unpickled.

Reference: the NumPy ``.npy`` format, versions 1.0-3.0 (``numpy.lib.format``).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from repcap import RepcapError
from repcap.base import memory

from ..matrix import Embedding, TensorInfo
from .common import NOT_REAL, as_float32, file_embedding, os_error, refuse_storage

_RESAVE = "re-save it with np.save(path, array.astype('float32'))"


def storage_name(dtype: np.dtype) -> str:
    """``float32`` -> ``F32``, ``int8`` -> ``INT8`` (the names the other readers use for floats)."""
    return str(dtype).upper().replace("FLOAT", "F")


def check_npy(path: str | os.PathLike) -> tuple[tuple[int, ...], np.dtype]:
    """Read only the ``.npy`` header: refuse object (pickle) dtypes, element types that are not real
    numbers (bool, complex, timedelta, strings, records) and shapes the file cannot hold, before
    anything is mapped or allocated.  Returns ``(shape, dtype)``."""
    path = Path(path)
    fmt = np.lib.format
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            major, minor = fmt.read_magic(fh)
            if (major, minor) == (1, 0):
                shape, _fortran, dtype = fmt.read_array_header_1_0(fh, max_header_size=10000)
            elif (major, minor) in ((2, 0), (3, 0)):
                shape, _fortran, dtype = fmt.read_array_header_2_0(fh, max_header_size=10000)
            else:
                raise ValueError(f"unsupported .npy version {major}.{minor}")
            offset = fh.tell()
    except OSError as exc:
        raise os_error(path, exc) from None
    except (ValueError, SyntaxError, TypeError) as exc:
        raise RepcapError(f"{path}: not a readable .npy file ({str(exc)[:120]}); re-save it with np.save") from None
    if not all(type(x) is int and x >= 0 for x in shape):
        raise RepcapError(
            f"{path}: the header declares shape {tuple(shape)}, with a negative dimension: a malformed or "
            "hostile file, refused; re-save it with np.save"
        )
    if dtype.hasobject:
        raise RepcapError(
            f"{path}: holds Python objects (a pickle); repcap reads only plain numeric .npy arrays - {_RESAVE}"
        )
    if dtype.kind in NOT_REAL:
        raise refuse_storage(path, None, str(dtype), NOT_REAL[dtype.kind])
    need = math.prod(shape) * dtype.itemsize
    if offset + need > size:
        raise RepcapError(
            f"{path}: the header declares shape {shape} {dtype} ({need} bytes) but the file holds "
            f"{size - offset}: truncated or hostile file, refused without reading it"
        )
    return tuple(shape), dtype


def list_tensors(path: str | os.PathLike) -> list[TensorInfo]:
    """The one array of the file (``name`` None), from the checked header."""
    shape, dtype = check_npy(path)
    return [TensorInfo(None, shape, storage_name(dtype))]


def read_array(path: str | os.PathLike, *, mmap: bool = True) -> np.ndarray:
    """The checked array (memory-mapped by default), ``allow_pickle=False``."""
    path = Path(path)
    shape, dtype = check_npy(path)
    try:
        return np.load(path, allow_pickle=False, mmap_mode="r" if mmap else None)
    except (MemoryError, OSError) as exc:
        if not memory.allocation_error(exc):
            raise RepcapError(f"{path}: not a readable .npy file ({exc})") from None
        need = math.prod(shape) * dtype.itemsize
        raise RepcapError(
            f"{path}: a readable .npy file, but its {memory.gib(need)} array cannot be mapped into memory "
            f"({memory.machine_text()}); read a smaller file, or raise the limit"
        ) from None
    except ValueError as exc:
        raise RepcapError(
            f"{path}: holds Python objects (a pickle) or a malformed header; repcap reads only plain "
            f"numeric .npy arrays - {_RESAVE}"
        ) from exc


def load_npy(path: str | os.PathLike) -> Embedding:
    path = Path(path)
    arr = read_array(path)
    if arr.ndim != 2 or not np.issubdtype(arr.dtype, np.number):
        raise RepcapError(f"{path}: expected a 2-D numeric (V, d) array, got shape {arr.shape} dtype {arr.dtype}")
    try:
        matrix = as_float32(np.asarray(arr))
    except (MemoryError, RuntimeError) as exc:
        if not memory.allocation_error(exc):
            raise
        raise RepcapError(
            f"{path}: its {arr.shape[0]:,} x {arr.shape[1]:,} matrix needs {memory.gib(arr.size * 4)} as float32, "
            f"more than is free ({memory.machine_text()}); read a smaller file, or raise the limit"
        ) from None
    return file_embedding(path, matrix, "npy", None, None, storage_name(arr.dtype))
