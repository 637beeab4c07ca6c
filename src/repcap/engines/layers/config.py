"""The layer survey's settings: :class:`LayerConfig` and its defaults, :data:`DEFAULTS`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from repcap import RepcapError
from repcap.base import config
from repcap.base.config import setting

from .names import KINDS


def _kinds(name: str, v: Any) -> None:
    bad = [k for k in v if k not in KINDS] if isinstance(v, (tuple, list)) else [v]
    if bad:
        raise RepcapError(f"{name}: unknown layer kind(s) {bad}; use {', '.join(KINDS)}")


@dataclass(frozen=True)
class LayerConfig:
    """Settings of :func:`records` (the chapter's parameters default to these)."""

    kinds: tuple[str, ...] = setting(("mlp_out", "attn_out"), "the layer matrices read (keys of KINDS)", check=_kinds)
    seed: int = setting(0, "seed of the Gaussian baselines", check=config.seed)

    def __post_init__(self) -> None:
        config.check(self)


DEFAULTS = LayerConfig()
