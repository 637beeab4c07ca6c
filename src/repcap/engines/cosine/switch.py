"""Whether the fused Triton kernels run: the one switch of the cosine pass and the toy trainer
(``REPCAP_FUSED=0`` turns them off, and the torch ops run instead: an execution switch).  Imports
neither torch nor triton, so that asking costs nothing."""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

#: ``REPCAP_FUSED=0`` turns the fused kernels off (the torch ops run instead): an execution switch.
ENV_SWITCH = "REPCAP_FUSED"


def have_triton() -> bool:
    """Whether ``triton`` can be imported (without importing it)."""
    return importlib.util.find_spec("triton") is not None


def usable(device: torch.device) -> bool:
    """A fused kernel runs on ``device``: CUDA, with ``triton`` installed and ``REPCAP_FUSED`` not ``0``."""
    return device.type == "cuda" and os.environ.get(ENV_SWITCH, "1") != "0" and have_triton()
