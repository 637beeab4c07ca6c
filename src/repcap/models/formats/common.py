"""What every format reader shares: refusing pickles, reading a JSON object (type-checked),
refusing non-real element types, turning OS errors on a path into one line, and the cast to float32
that keeps every row's cosines (:func:`as_float32`).

Reference: the pickle format (protocol >= 2 starts with ``0x80``; ``torch.save`` writes a zip,
``PK``) -- unpickling runs arbitrary code, so repcap never does it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import torch

from repcap import RepcapError

from ..matrix import Embedding

#: File suffixes that hold pickles: refused (unpickling runs arbitrary code).
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".joblib")
#: The longest name one path component may have on Linux/macOS file systems (bytes).
NAME_MAX = 255


def pickle_magic(head: bytes) -> bool:
    """A pickle (protocol >= 2 starts with 0x80) or a torch.save zip (``PK``)."""
    return head[:1] == b"\x80" or head[:2] == b"PK"


def refuse_pickle(path: Path) -> None:
    raise RepcapError(
        f"{path}: refusing to unpickle a {path.suffix} checkpoint (it can run arbitrary code); "
        "use the model's .safetensors release, or convert it where you trust it with "
        "safetensors.torch.save_file / np.save(..., allow_pickle=False)"
    )


def one_line(text: object, limit: int = 200) -> str:
    """``text`` on one line, at most ``limit`` characters (for messages quoting a library's error)."""
    return " ".join(str(text).split())[:limit]


def os_error(path: Path | str, exc: OSError, what: str = "cannot read") -> RepcapError:
    """One line for an OS error on ``path`` (permission, name too long, a folder where a file was expected)."""
    return RepcapError(f"{path}: {what} ({exc.strerror or type(exc).__name__}); check the path and its permissions")


def read_head(path: Path, n: int) -> bytes:
    """The first ``n`` bytes of the file at ``path`` (an OS error is one line)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(n)
    except OSError as exc:
        raise os_error(path, exc) from None


def file_embedding(path: Path, matrix: torch.Tensor, kind: str, tensor_name: str | None, tied, quant) -> Embedding:
    """The :class:`repcap.models.matrix.Embedding` of a matrix read from the model file ``path``."""
    return Embedding(
        matrix=matrix,
        name=str(path),
        source_kind=kind,
        tensor_name=tensor_name,
        tied=tied,
        quant=quant,
        meta={"path": str(path)},
    )


def check_name_lengths(path: Path | str) -> None:
    """Refuse a path with a component longer than the file system allows, before ``stat`` fails on it."""
    for part in Path(path).parts:
        n = len(os.fsencode(part))
        if n > NAME_MAX:
            raise RepcapError(
                f"{str(path)[:120]}...: a path component is {n} bytes, over the {NAME_MAX}-byte "
                "limit of file names; not a file or folder that can exist - check the path"
            )


def plain_relative(name: str) -> bool:
    """Whether ``name`` (a file named inside a model file or index) is a plain relative path that
    stays in its folder: not empty, not absolute, no drive, no ``~``, no ``.``/``..``/empty segments, no NUL."""
    s = str(name)
    segs = s.replace("\\", "/").split("/")
    return (
        bool(s)
        and not s.startswith(("/", "~"))
        and not re.match(r"^[A-Za-z]:", s)
        and not any(g in ("", ".", "..") for g in segs)
        and "\x00" not in s
    )


def resolves_inside(path: Path, root: Path) -> bool:
    """Whether ``path``, symlinks followed, lies inside ``root`` (symlinks followed too)."""
    try:
        return Path(path).resolve().is_relative_to(Path(root).resolve())
    except (OSError, RuntimeError):  # a symlink loop, a name too long
        return False


def read_json_object(path: Path, what: str = "JSON file") -> dict[str, Any]:
    """``path``'s JSON content, which must be an object (``{...}``); one clear line otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise os_error(path, exc) from None
    except UnicodeDecodeError:
        raise RepcapError(f"{path}: the {what} is not UTF-8 text; re-download it") from None
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RepcapError(f"{path}: the {what} is not readable JSON ({str(exc)[:100]}); re-download it") from None
    if not isinstance(obj, dict):
        raise RepcapError(
            f"{path}: the {what} holds a JSON {type(obj).__name__}, not an object {{...}}; "
            "the file is corrupt or not what its name says - re-download it"
        )
    return obj


#: Element kinds that are not real numbers, with what to say about each (numpy ``dtype.kind``).
NOT_REAL = {
    "b": "boolean",
    "c": "complex",
    "m": "timedelta",
    "M": "datetime",
    "O": "Python object",
    "S": "byte-string",
    "U": "string",
    "V": "raw/structured",
}


def refuse_storage(path: Path | str, name: str | None, storage: str, what: str) -> RepcapError:
    """The refusal for a tensor whose element type is not a real number (``what``: e.g. "complex")."""
    where = f"tensor {name!r}" if name else "the array"
    return RepcapError(
        f"{path}: {where} is stored as {storage} ({what} values), not real numbers; "
        "repcap reads float or integer matrices - choose another tensor (--list-tensors)"
    )


#: Rows whose largest |value| lies outside [2^-120, 2^120] would underflow to zero or subnormals, or
#: overflow, in float32 (whose normal range is 2^-126 to 2^128, with 24 bits of precision).
_F32_SAFE_EXP = 120


def as_float32(values: Any) -> torch.Tensor:
    """A 2-D matrix as float32 with every row's cosines kept.

    Values inside float32's range are cast as they are.  A row of a wider type (float64, int64)
    whose largest |value| is outside ``[2^-120, 2^120]`` is first scaled by a power of two (exact in
    float64) so that it is at most 1: a cosine does not depend on a row's scale, so a matrix of tiny
    or huge float64 rows has the statistics of its stored values, not of float32 zeros or infinities.
    """
    if not isinstance(values, torch.Tensor):  # a copy: the source may be a read-only memory map
        arr = np.asarray(values)
        narrow = arr.dtype in (np.float32, np.float16) or arr.ndim != 2 or arr.size == 0
        values = torch.from_numpy(np.array(arr, dtype=np.float32 if narrow else np.float64))
    t = values
    if t.dtype in (torch.float32, torch.float16, torch.bfloat16) or t.ndim != 2 or t.numel() == 0:
        return t.to(torch.float32)
    wide = t.to(torch.float64)
    peak = wide.abs().amax(dim=1)
    finite = torch.isfinite(peak) & (peak > 0)
    _, exp = torch.frexp(torch.where(finite, peak, torch.ones_like(peak)))
    out_of_range = finite & ((exp > _F32_SAFE_EXP) | (exp < -_F32_SAFE_EXP))
    if bool(out_of_range.any()):
        shift = torch.where(out_of_range, -exp, torch.zeros_like(exp))
        wide = torch.ldexp(wide, shift.to(torch.float64).unsqueeze(1))
    return wide.to(torch.float32)
