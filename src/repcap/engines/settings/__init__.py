"""Each engine's settings: the dataclass that holds what a run computes, with every setting's
default, help and check written once (:mod:`.cosine` the tiled pass, :mod:`.packing` the packing
optimiser, :mod:`.toy` the toy model).

They import neither numpy nor torch, and no engine: ``repcap stats|pack|toy --help``, the runner's
checks and the sizing read them without loading one.  The engine packages re-export them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class ChapterConfig:
    """An engine config a chapter's parameters cell may hold as one mapping, named by its
    annotation (``train: "toy_train" = {}``): the settings class, and the fields the mapping leaves
    out (the chapter's grid sets them per point, or they say where a point runs, not what it computes)."""

    module: str
    cls: str
    grid: tuple[str, ...] = ()
    #: values for the settings class's required fields among ``grid`` (a packing's k and d) when the
    #: mapping is checked on its own, before the chapter's grid gives each point its own
    probe: tuple[tuple[str, object], ...] = ()

    def settings_class(self) -> type:
        return getattr(importlib.import_module(self.module), self.cls)


_PACK_PROBE = (("k", 2), ("d", 2))

#: The engine configs a parameters cell may annotate a mapping with.
CHAPTER_CONFIGS: dict[str, ChapterConfig] = {
    "toy_train": ChapterConfig("repcap.engines.settings.toy", "TrainConfig", ("m", "device", "cpu_chunk_elems")),
    # a packing whose chapter sets the size and loss (chapter 6: one seed, its losses side by side)
    "pack": ChapterConfig(
        "repcap.engines.settings.packing", "PackConfig", ("k", "d", "loss", "device", "threads", "tile"), _PACK_PROBE
    ),
    # a grid of power-loss packings, one per size and seed (chapters 7 and 11)
    "pack_grid": ChapterConfig(
        "repcap.engines.settings.packing",
        "PackConfig",
        ("k", "d", "loss", "seed", "device", "threads", "tile"),
        _PACK_PROBE,
    ),
    # the tiled pass over an embedding's pairs (chapters 2 and 3)
    "tiled": ChapterConfig("repcap.engines.settings.cosine", "TiledConfig"),
    # the layer survey's matrices and baselines (chapter 5)
    "layers": ChapterConfig("repcap.engines.layers.config", "LayerConfig"),
}
# (a kind is one word: papermill reads a parameter's annotation as `\w[\w_\[\],\s]*`)
