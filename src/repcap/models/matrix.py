"""What every loader returns: one matrix ``(V, d)`` with where it came from, and one row of a
tensor listing.  The bottom layer of the model path (formats -> folders/hub -> offline -> resolver
-> survey): it imports nothing of repcap but torch's tensor type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import torch


@dataclass
class Embedding:
    """A loaded matrix.  ``matrix: (V, d)`` float32 on the requested device."""

    matrix: torch.Tensor
    name: str  # what was asked for (key, hub id or path)
    source_kind: str  # "hub" | "dir" | "safetensors" | "gguf" | "onnx" | "npy" | "offline"
    tensor_name: str | None  # the tensor read
    tied: bool | None  # head tied to the embedding (None: cannot tell from the source)
    quant: str | None = None  # storage type of the tensor, e.g. "Q8_0", "BF16", "F32"
    tokens: list[str] | None = field(default=None, repr=False)  # token strings, where the source has them
    meta: dict[str, Any] = field(default_factory=dict)  # anything else (path, config, notes)

    @property
    def vocab_size(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def d_model(self) -> int:
        return int(self.matrix.shape[1])


class TensorInfo(NamedTuple):
    """One tensor of a model file, as listed without reading its data: ``shape`` in the ``(V, d)``
    order the readers return (GGUF's reversed dims already flipped), ``storage`` the stored type
    (``"F32"``, ``"BF16"``, ``"Q8_0"``, ...).  ``name`` is None for a ``.npy`` file (one array)."""

    name: str | None
    shape: tuple[int, ...]
    storage: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "shape": list(self.shape), "storage": self.storage}
