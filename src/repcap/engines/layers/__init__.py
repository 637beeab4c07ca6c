"""The directions each layer writes into the residual stream, and their pairwise geometry: Guha
2026 takes the embedding's eps as the tolerance of the whole latent space, and this package measures
the matrices that hypothesis is about (the naming schemes and which axis holds the directions are
told in :mod:`.names`).  Modules, each importing only those above it: :mod:`.names`, :mod:`.config`
(:class:`LayerConfig`), :mod:`.tensors` (one model's tensors) and :mod:`.points` (the sweep points,
:func:`records`)."""

from .config import DEFAULTS, LayerConfig
from .names import FAMILIES, KINDS, PATTERNS, LayerTensor, Pattern, conventions, directions, find_layers, pattern_name
from .points import BASELINE_FIELDS, baseline_point, gaussian, model_point, records
from .tensors import ModelTensors, matrices, write_stand_in

__all__ = ["BASELINE_FIELDS", "DEFAULTS", "FAMILIES", "KINDS", "PATTERNS", "LayerConfig", "LayerTensor"]
__all__ += ["ModelTensors", "Pattern", "baseline_point", "conventions", "directions", "find_layers", "gaussian"]
__all__ += ["matrices", "model_point", "pattern_name", "records", "write_stand_in"]
