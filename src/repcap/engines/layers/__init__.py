"""The directions each layer writes into the residual stream, and their pairwise geometry.

Reference: Guha 2026 (Sec. 2.1, 2.4 and 2.6) takes the embedding's eps = mu + 2 sigma as the
near-orthogonality tolerance of the whole latent space, and says himself that this "remains an
empirical hypothesis".  This module measures the matrices that hypothesis is about.  A block adds
``W a`` to the residual stream, where ``a`` is the hidden activation (the MLP's ``d_ff`` neurons, or
the ``n_heads * head_dim`` concatenated head outputs): unit ``j`` firing alone writes ``W e_j``, the
j-th **column** of the torch-layout ``W: (d_model, d_ff)``.  Those columns, one row each, are the
*direction matrix* ``(n_directions, d_model)`` whose cosines we take over all pairs, exactly, through
:func:`repcap.engines.survey.describe` (moments from the d x d Gram, the class, the capacity under each law).

Which axis of the stored matrix holds the directions (the matrix as
:func:`repcap.models.embeddings.load` ``(source, tensor=NAME)`` returns it; ``N`` is the layer, ``*`` any
prefix such as ``model.``, ``transformer.`` or ``language_model.``):

* **GGUF** (llama.cpp): ``blk.N.ffn_down.weight`` and ``blk.N.attn_output.weight`` are stored with
  ne = [d_ff, d_model] (fastest first); the reader reverses ne, so they load as ``(d_model, d_ff)``
  and ``(d_model, n_heads * head_dim)``: the directions are the **columns**.  The read side
  ``blk.N.ffn_up.weight`` loads as ``(d_ff, d_model)``: one **row** per neuron.
* **torch Linear** checkpoints (safetensors; ``weight`` is (out, in)): the output projections load
  as ``(d_model, d_ff)``, directions in the **columns**; the up-projections as ``(d_ff, d_model)``,
  **rows**.  Names: Llama / Mistral / Qwen / Gemma / SmolLM / Phi-3 ``*layers.N.mlp.down_proj``,
  ``*layers.N.self_attn.o_proj``, ``*layers.N.mlp.up_proj``; GPT-NeoX / Pythia
  ``*layers.N.mlp.dense_4h_to_h``, ``*layers.N.attention.dense``, ``dense_h_to_4h``; OPT
  ``*layers.N.fc2``, ``*layers.N.self_attn.out_proj``, ``fc1``; Phi-1/2 ``*layers.N.mlp.fc2``,
  ``*layers.N.self_attn.dense``, ``mlp.fc1``; BERT / MPNet ``*layer.N.output.dense``,
  ``*layer.N.attention.output.dense`` or ``*layer.N.attention.attn.o``, ``intermediate.dense``
  (each ``.weight``).
* **GPT-2** (``Conv1D`` stores (in, out), the transpose of a Linear): ``*h.N.mlp.c_proj.weight``
  loads as ``(d_ff, d_model)`` and ``*h.N.attn.c_proj.weight`` as ``(d_model, d_model)``: the
  directions are the **rows**; the read side ``*h.N.mlp.c_fc.weight`` ``(d_model, d_ff)``, columns.

``*`` is any prefix (``model.``, ``transformer.``, ``language_model.``); tensors of vision or audio
towers are skipped, and so are mixture-of-experts blocks (no single down-projection).  ONNX files
are not supported: an exported graph keeps its MatMul weights under generated names, often
transposed, so neither the layer nor the axis can be read from the file.  The width of every
direction matrix is checked against the embedding's; a square matrix (``o_proj`` with
``n_heads * head_dim = d_model``) cannot be checked that way, which is why the tests plant known
columns in tiny GGUF and safetensors models (and compare with ``W e_j`` of the running layer).

A Gaussian baseline at each distinct shape, ``(n, d)`` directions drawn with
:func:`repcap.engines.random_geometry.unit_vectors` (seeded, on the CPU so that every device draws the
same), shows how far training moved a matrix from random (E cos = 0 and E cos^2 = 1/d exactly).
:func:`records` runs models and baselines through the content-addressed sweep cache.

Modules, each importing only those above it: :mod:`.names` (the naming schemes: :data:`PATTERNS`,
:func:`find_layers`, :func:`directions`, :func:`conventions`), :mod:`.config` (:class:`LayerConfig`,
:data:`DEFAULTS`), :mod:`.tensors` (one model's tensors: :class:`ModelTensors`, :func:`matrices`,
:func:`write_stand_in`) and :mod:`.points` (the sweep points and :func:`records`).
"""

from .config import DEFAULTS, LayerConfig
from .names import FAMILIES, KINDS, PATTERNS, LayerTensor, Pattern, conventions, directions, find_layers, pattern_name
from .points import BASELINE_FIELDS, baseline_point, gaussian, model_point, records
from .tensors import ModelTensors, matrices, write_stand_in

__all__ = [
    "BASELINE_FIELDS",
    "DEFAULTS",
    "FAMILIES",
    "KINDS",
    "PATTERNS",
    "LayerConfig",
    "LayerTensor",
    "ModelTensors",
    "Pattern",
    "baseline_point",
    "conventions",
    "directions",
    "find_layers",
    "gaussian",
    "matrices",
    "model_point",
    "pattern_name",
    "records",
    "write_stand_in",
]
