"""Which stored tensors are layer matrices, and which axis of each holds the directions it writes.

The naming schemes of GGUF, torch ``Linear`` and GPT-2 ``Conv1D`` checkpoints (told in words below): :data:`PATTERNS` maps a tensor's name to its layer, kind
and axis; :func:`find_layers` reads a listing with them; :func:`directions` turns a loaded matrix into
its direction matrix; :func:`conventions` is the chapter's table of the schemes.

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
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from repcap import RepcapError

#: What each kind of layer matrix is (the table's and figures' words).
KINDS: dict[str, str] = {
    "mlp_out": "MLP down-projection (writes)",
    "attn_out": "attention output projection (writes)",
    "mlp_in": "MLP up-projection (reads)",
}


@dataclass(frozen=True)
class Pattern:
    """One naming scheme: tensors named like ``regex`` (group 1: the layer) hold ``kind``'s
    directions along ``axis`` of the loaded matrix (0: its rows, 1: its columns)."""

    family: str
    kind: str
    regex: str
    axis: int
    loaded: str  # the loaded shape, in words


_ANY = r"(?:^|.*\.)"  # a block written ``*name``: any prefix (``model.``, ``transformer.``, ...) or none
_OUT, _IN = "(d_model, d_ff)", "(d_ff, d_model)"
_HEADS, _SQUARE = "(d_model, n_heads·head_dim)", "(d_model, d_model)"
#: Each family's layer tensors ``BLOCK.N.NAME.weight`` (``|``: either name): the MLP's output, the
#: attention's output and the MLP's input, then the attention output's loaded shape.
_TENSORS = (
    ("gguf", "blk", "ffn_down", "attn_output", "ffn_up", _HEADS),
    ("llama", "*layers", "mlp.down_proj", "self_attn.o_proj", "mlp.up_proj", _HEADS),
    ("gpt-neox", "*layers", "mlp.dense_4h_to_h", "attention.dense", "mlp.dense_h_to_4h", _SQUARE),
    ("opt", "*layers", "fc2", "self_attn.out_proj", "fc1", _SQUARE),
    ("phi", "*layers", "mlp.fc2", "self_attn.dense", "mlp.fc1", _SQUARE),
    ("bert", "*layer", "output.dense", "attention.output.dense|attention.attn.o", "intermediate.dense", _SQUARE),
    ("gpt2", "*h", "mlp.c_proj", "attn.c_proj", "mlp.c_fc", _SQUARE),
)
#: Families stored as GPT-2's ``Conv1D`` (in, out), the transpose of a ``Linear``: the axes swap.
_CONV1D = ("gpt2",)


def _patterns(family: str, block: str, mlp_out: str, attn_out: str, mlp_in: str, attn: str) -> Iterator[Pattern]:
    """One row of ``_TENSORS`` as patterns, in the order of :data:`KINDS` (a ``Linear``'s layout:
    the written directions are columns, the read ones rows; a ``Conv1D``'s is its transpose)."""
    start = _ANY if block.startswith("*") else "^"
    for kind, names, axis, loaded in (
        ("mlp_out", mlp_out, 1, _OUT),
        ("attn_out", attn_out, 1, attn),
        ("mlp_in", mlp_in, 0, _IN),
    ):
        if family in _CONV1D:
            axis, loaded = 1 - axis, {_OUT: _IN, _IN: _OUT}.get(loaded, loaded) + " (Conv1D)"
        for name in names.split("|"):
            regex = start + re.escape(block.lstrip("*")) + r"\.(\d+)\." + re.escape(name) + r"\.weight$"
            yield Pattern(family, kind, regex, axis, loaded)


#: Every naming scheme we read, most specific first (a tensor takes the first pattern it matches).
PATTERNS: tuple[Pattern, ...] = tuple(p for row in _TENSORS for p in _patterns(*row))
_COMPILED = tuple((p, re.compile(p.regex)) for p in PATTERNS)
#: Towers that are not the language model (their layers are not the residual stream we measure).
_SKIP = re.compile(r"(vision|visual|audio|image|mm_projector|multi_modal|mtp|experts)", re.I)


@dataclass(frozen=True)
class LayerTensor:
    """A layer matrix found in a listing: which layer and kind, its name, loaded shape and axis."""

    layer: int
    kind: str
    name: str
    shape: tuple
    axis: int
    family: str

    @property
    def n_directions(self) -> int:
        return int(self.shape[1 - self.axis])


def find_layers(shapes: Mapping[str, Sequence[int]], kinds: Sequence[str] | None = None) -> list[LayerTensor]:
    """The layer matrices among ``shapes`` (``{tensor name: loaded shape}``), sorted by layer then
    by the order of ``kinds`` (default: every kind).  Only 2-D tensors count; two tensors claiming
    the same layer and kind are an error (a checkpoint we cannot read unambiguously)."""
    kinds = list(kinds) if kinds is not None else list(KINDS)
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise RepcapError(f"unknown layer kind(s) {bad}; use {', '.join(KINDS)}")
    found: dict[tuple[int, str], LayerTensor] = {}
    for name, shape in shapes.items():
        if name is None or len(shape) != 2 or _SKIP.search(name):
            continue
        for pat, rx in _COMPILED:
            m = rx.match(name)
            if m is None:
                continue
            if pat.kind in kinds:
                key = (int(m.group(1)), pat.kind)
                if key in found:
                    raise RepcapError(
                        f"two tensors for layer {key[0]}'s {KINDS[pat.kind]}: {found[key].name} and "
                        f"{name}; pass the source of one language model"
                    )
                found[key] = LayerTensor(key[0], pat.kind, name, tuple(int(x) for x in shape), pat.axis, pat.family)
            break
    return sorted(found.values(), key=lambda t: (t.layer, kinds.index(t.kind)))


def directions(matrix: torch.Tensor, axis: int) -> torch.Tensor:
    """The direction matrix ``(n_directions, d_model)`` of a loaded matrix whose directions lie
    along ``axis`` (0: they are its rows; 1: its columns, transposed here)."""
    if axis not in (0, 1):
        raise RepcapError(f"axis={axis!r} must be 0 (rows) or 1 (columns)")
    return matrix if axis == 0 else matrix.T.contiguous()


def pattern_name(p: Pattern) -> str:
    """A pattern's tensor name as a reader writes it: ``*layers.N.mlp.down_proj.weight``."""
    return (
        p.regex.replace("(?:^|.*\\.)", "*").replace("^", "").replace("$", "").replace("(\\d+)", "N").replace("\\", "")
    )


#: The families' names in the conventions table.
FAMILIES = {
    "gguf": "GGUF (llama.cpp)",
    "llama": "Llama, Mistral, Qwen, Gemma, SmolLM, Phi-3",
    "gpt-neox": "GPT-NeoX, Pythia",
    "opt": "OPT",
    "phi": "Phi-1, Phi-2",
    "bert": "BERT, MPNet (encoders)",
    "gpt2": "GPT-2 (Conv1D)",
}


def conventions() -> list[dict[str, Any]]:
    """One row per naming family: the tensor of each kind (``N``: the layer; ``*``: any prefix),
    the loaded shape of the MLP's output projection, and which axis holds the written and the read
    directions -- the chapter's table of :data:`PATTERNS`."""
    rows: dict[str, dict[str, Any]] = {}
    for p in PATTERNS:
        row = rows.setdefault(p.family, {"family": FAMILIES.get(p.family, p.family)})
        col = KINDS[p.kind]
        row[col] = f"{row[col]} or {pattern_name(p)}" if col in row else pattern_name(p)
        if p.kind == "mlp_out":
            row["MLP output, loaded as"] = p.loaded
            row["written directions are"] = "columns" if p.axis else "rows"
        if p.kind == "mlp_in":
            row["read directions are"] = "columns" if p.axis else "rows"
    return list(rows.values())
