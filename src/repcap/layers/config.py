"""The layer survey's settings: :class:`LayerConfig` and its defaults, :data:`DEFAULTS`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LayerConfig:
    """Settings of :func:`records` (the chapter's parameters default to these)."""

    kinds: tuple = ("mlp_out", "attn_out")  # the layer matrices read: keys of KINDS
    seed: int = 0  # seed of the Gaussian baselines


DEFAULTS = LayerConfig()
