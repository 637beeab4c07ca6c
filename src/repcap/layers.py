"""The directions each layer writes into the residual stream, and their pairwise geometry.

Reference: Guha 2026 (Sec. 2.1, 2.4 and 2.6) takes the embedding's eps = mu + 2 sigma as the
near-orthogonality tolerance of the whole latent space, and says himself that this "remains an
empirical hypothesis".  This module measures the matrices that hypothesis is about.  A block adds
``W a`` to the residual stream, where ``a`` is the hidden activation (the MLP's ``d_ff`` neurons, or
the ``n_heads * head_dim`` concatenated head outputs): unit ``j`` firing alone writes ``W e_j``, the
j-th **column** of the torch-layout ``W: (d_model, d_ff)``.  Those columns, one row each, are the
*direction matrix* ``(n_directions, d_model)`` whose cosines we take over all pairs, exactly, through
:func:`repcap.survey.describe` (moments from the d x d Gram, the class, the capacity under each law).

Which axis of the stored matrix holds the directions (the matrix as
:func:`repcap.embeddings.load` ``(source, tensor=NAME)`` returns it; ``N`` is the layer, ``*`` any
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
:func:`repcap.random_geometry.unit_vectors` (seeded, on the CPU so that every device draws the
same), shows how far training moved a matrix from random (E cos = 0 and E cos^2 = 1/d exactly).
:func:`records` runs models and baselines through the content-addressed sweep cache.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from . import RepcapError, embeddings, offline, sweep
from .formats.gguf import GGUFFile, open_gguf
from .formats.names import short
from .matrix import Embedding
from .random_geometry import unit_vectors
from .survey import describe

#: What each kind of layer matrix is (the table's and figures' words).
KINDS: dict[str, str] = {
    "mlp_out": "MLP down-projection (writes)",
    "attn_out": "attention output projection (writes)",
    "mlp_in": "MLP up-projection (reads)",
}


@dataclass(frozen=True)
class LayerConfig:
    """Settings of :func:`records` (the chapter's parameters default to these)."""

    kinds: tuple = ("mlp_out", "attn_out")  # the layer matrices read: keys of KINDS
    seed: int = 0  # seed of the Gaussian baselines


DEFAULTS = LayerConfig()


@dataclass(frozen=True)
class Pattern:
    """One naming scheme: tensors named like ``regex`` (group 1: the layer) hold ``kind``'s
    directions along ``axis`` of the loaded matrix (0: its rows, 1: its columns)."""

    family: str
    kind: str
    regex: str
    axis: int
    loaded: str  # the loaded shape, in words


def _p(family: str, kind: str, tail: str, axis: int, loaded: str, prefix: str = r"(?:^|.*\.)") -> Pattern:
    return Pattern(family, kind, prefix + tail + "$", axis, loaded)


_OUT, _IN = "(d_model, d_ff)", "(d_ff, d_model)"
#: Every naming scheme we read, most specific first (a tensor takes the first pattern it matches).
PATTERNS: tuple[Pattern, ...] = (
    _p("gguf", "mlp_out", r"blk\.(\d+)\.ffn_down\.weight", 1, _OUT, prefix="^"),
    _p("gguf", "attn_out", r"blk\.(\d+)\.attn_output\.weight", 1, "(d_model, n_heads·head_dim)", prefix="^"),
    _p("gguf", "mlp_in", r"blk\.(\d+)\.ffn_up\.weight", 0, _IN, prefix="^"),
    _p("llama", "mlp_out", r"layers\.(\d+)\.mlp\.down_proj\.weight", 1, _OUT),
    _p("llama", "attn_out", r"layers\.(\d+)\.self_attn\.o_proj\.weight", 1, "(d_model, n_heads·head_dim)"),
    _p("llama", "mlp_in", r"layers\.(\d+)\.mlp\.up_proj\.weight", 0, _IN),
    _p("gpt-neox", "mlp_out", r"layers\.(\d+)\.mlp\.dense_4h_to_h\.weight", 1, _OUT),
    _p("gpt-neox", "attn_out", r"layers\.(\d+)\.attention\.dense\.weight", 1, "(d_model, d_model)"),
    _p("gpt-neox", "mlp_in", r"layers\.(\d+)\.mlp\.dense_h_to_4h\.weight", 0, _IN),
    _p("opt", "mlp_out", r"layers\.(\d+)\.fc2\.weight", 1, _OUT),
    _p("opt", "attn_out", r"layers\.(\d+)\.self_attn\.out_proj\.weight", 1, "(d_model, d_model)"),
    _p("opt", "mlp_in", r"layers\.(\d+)\.fc1\.weight", 0, _IN),
    _p("phi", "mlp_out", r"layers\.(\d+)\.mlp\.fc2\.weight", 1, _OUT),
    _p("phi", "attn_out", r"layers\.(\d+)\.self_attn\.dense\.weight", 1, "(d_model, d_model)"),
    _p("phi", "mlp_in", r"layers\.(\d+)\.mlp\.fc1\.weight", 0, _IN),
    _p("bert", "mlp_out", r"layer\.(\d+)\.output\.dense\.weight", 1, _OUT),
    _p("bert", "attn_out", r"layer\.(\d+)\.attention\.output\.dense\.weight", 1, "(d_model, d_model)"),
    _p("bert", "attn_out", r"layer\.(\d+)\.attention\.attn\.o\.weight", 1, "(d_model, d_model)"),
    _p("bert", "mlp_in", r"layer\.(\d+)\.intermediate\.dense\.weight", 0, _IN),
    _p("gpt2", "mlp_out", r"h\.(\d+)\.mlp\.c_proj\.weight", 0, _IN + " (Conv1D)"),
    _p("gpt2", "attn_out", r"h\.(\d+)\.attn\.c_proj\.weight", 0, "(d_model, d_model) (Conv1D)"),
    _p("gpt2", "mlp_in", r"h\.(\d+)\.mlp\.c_fc\.weight", 1, _OUT + " (Conv1D)"),
)
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


# ---------------------------------------------------------------------------------------------
# one model's tensors


def _gguf_file(source: str) -> tuple[Path, str | None] | None:
    """``(path, offline key or None)`` when ``source`` is a GGUF file (a ``.gguf`` path, or an
    installed offline copy in GGUF), else None."""
    src = embeddings.resolve(source)
    if isinstance(src, embeddings.PathSource):
        p = src.what
        return (p, None) if p.is_file() and p.suffix.lower() == ".gguf" else None
    key = src.what if isinstance(src, embeddings.OfflineSource) else None
    if isinstance(src, embeddings.CatalogSource):
        entry = src.what
        if entry.offline and entry.offline in offline.OFFLINE and offline.is_installed(entry.offline):
            key = entry.offline
    if key is not None and offline.spec(key).fmt == "gguf":
        return offline.model_file(key), key
    return None


class ModelTensors:
    """The tensors of one model source, opened once.

    A GGUF file is opened once (:func:`repcap.formats.gguf.open_gguf`, the strict reader) and every
    tensor dequantised from that one reader (opening a GGUF with a 150k-token vocabulary takes
    8-14 s, so opening it per tensor would cost minutes per model); the embedding and head of an
    offline model come from its checked ``.npy`` cache.  Any other source reads each tensor with
    :func:`repcap.embeddings.load` ``(source, tensor=NAME)`` (a safetensors read touches only
    that tensor).  Every path goes through the same hostile-file checks."""

    def __init__(self, source: str):
        self.source = str(source)
        gg = _gguf_file(self.source)
        self._gguf: GGUFFile | None = None
        self._key: str | None = None
        self.shapes: dict[str, tuple]
        if gg is not None:
            path, self._key = gg
            self._gguf = open_gguf(path)
            self.shapes = {i.name: i.shape for i in self._gguf.list_tensors() if i.name is not None}
        else:
            listing = embeddings.list_tensors(self.source)
            self.shapes = {i.name: tuple(i.shape) for i in listing if i.name}
            if not self.shapes and listing:  # a .npy file: one unnamed array
                self.shapes = {}

    def load(self, name: str | None = None, *, head: bool = False) -> Embedding:
        """The named tensor (or the embedding / head) as :func:`repcap.embeddings.load` returns it."""
        if self._gguf is None or (self._key is not None and name is None):
            src = self._key if self._gguf is not None else self.source
            return embeddings.load(str(src), head=head, tensor=name, device="cpu")
        e = self._gguf.read(name, head=head, with_tokens=False)
        e.matrix = e.matrix.to(torch.float32)
        return e

    def layers(self, kinds: Sequence[str] | None = None) -> list[LayerTensor]:
        """The layer matrices of this model (:func:`find_layers`); one clear error when it has none."""
        found = find_layers(self.shapes, kinds)
        if not found:
            want = short(list(dict.fromkeys(pattern_name(p) for p in PATTERNS if p.kind in (kinds or KINDS))), 3)
            raise RepcapError(
                f"{self.source}: no layer matrices found (looked for {want}); "
                f"tensors: {short(list(self.shapes), 5) if self.shapes else 'one unnamed array (a .npy file)'}"
            )
        return found


def _common(
    e: Embedding,
    source: str,
    label: str,
    kind: str,
    layer: int | None,
    axis: str,
    shape: tuple,
    family: str | None,
    device: str,
) -> dict[str, Any]:
    rec = dict(describe(source, embedding=e, device=device))
    if kind not in ("embedding", "head"):
        rec.pop("catalog", None)  # the catalog's expected shape is the embedding's
    rec.update(
        {
            "label": label,
            "kind": kind,
            "layer": layer,
            "axis": axis,
            "loaded_shape": list(shape),
            "family": family,
            "n_directions": int(e.matrix.shape[0]),
        }
    )
    return rec


def matrices(
    source: str, *, label: str | None = None, kinds: Sequence[str] | None = None, device: str = "auto"
) -> Iterator[dict[str, Any]]:
    """One record per matrix of ``source``: the embedding (``kind="embedding"``), the head when it
    is stored apart from the embedding (``"head"``), then each layer's matrices in layer order.
    Each record is :func:`repcap.survey.describe`'s (moments, class, capacities; ``vocab_size`` is
    the number of directions) plus ``label, kind, layer, axis, loaded_shape, family, n_directions``."""
    label = label or str(source)
    m = ModelTensors(source)
    found = m.layers(kinds if kinds is not None else DEFAULTS.kinds)
    emb = m.load()
    d_model = emb.d_model
    emb_name = emb.tensor_name
    yield _common(emb, str(source), label, "embedding", None, "rows", tuple(emb.matrix.shape), None, device)
    del emb
    head = m.load(head=True)
    if head.tensor_name != emb_name:
        yield _common(head, str(source), label, "head", None, "rows", tuple(head.matrix.shape), None, device)
    del head
    for t in found:
        e = m.load(t.name)
        if tuple(e.matrix.shape) != t.shape:  # pragma: no cover - the listing and the data disagree
            raise RepcapError(f"{source}: {t.name} lists shape {t.shape} but loads as {tuple(e.matrix.shape)}")
        e.matrix = directions(e.matrix, t.axis)
        if e.d_model != d_model:
            raise RepcapError(
                f"{source}: {t.name} ({t.family} naming) has shape {t.shape}, so its "
                f"{'columns' if t.axis else 'rows'} have width {e.d_model}, but the embedding's width is "
                f"{d_model}: the tensor is not stored as the {t.family} layout says; repcap cannot tell "
                "which axis holds its directions"
            )
        yield _common(
            e, str(source), label, t.kind, t.layer, "columns" if t.axis else "rows", t.shape, t.family, device
        )


def model_point(config: dict) -> dict:
    """Sweep point: every matrix of one model (``source``, ``label``, ``kinds``, ``device``)."""
    recs = list(
        matrices(
            config["source"], label=config.get("label"), kinds=config.get("kinds"), device=config.get("device", "auto")
        )
    )
    return {"source": config["source"], "label": config.get("label") or config["source"], "records": recs}


def gaussian(n: int, d: int, seed: int = DEFAULTS.seed) -> Embedding:
    """``n`` Gaussian directions in R^d (unit rows, drawn on the CPU from ``seed``)."""
    return Embedding(
        matrix=unit_vectors(int(n), int(d), seed=int(seed), device="cpu"),
        name=f"gaussian {n}x{d}",
        source_kind="gaussian",
        tensor_name=None,
        tied=None,
    )


def baseline_point(config: dict) -> dict:
    """Sweep point: the record of :func:`gaussian` ``(n, d, seed)`` (``device`` for the moments)."""
    n, d, seed = int(config["n"]), int(config["d"]), int(config["seed"])
    rec = dict(
        describe(f"gaussian {n}x{d} seed {seed}", embedding=gaussian(n, d, seed), device=config.get("device", "auto"))
    )
    rec.update({"n_directions": n, "seed": seed, "expected_mean": 0.0, "expected_mean_sq": 1.0 / d})
    return rec


#: The baseline fields attached to every record (``record["baseline"]``).
BASELINE_FIELDS = (
    "n_rows",
    "d",
    "mean",
    "std",
    "mean_sq",
    "eps",
    "eps3",
    "class",
    "capacity",
    "log10_capacity",
    "seed",
)


def _with_signature(cfg: dict) -> dict:
    """A local file's size and mtime join the cache key (an edited file is re-read), as in
    :func:`repcap.survey.scan`."""
    try:
        st = Path(str(cfg["source"])).expanduser().stat()
    except (OSError, ValueError):
        return cfg
    if stat.S_ISREG(st.st_mode):
        cfg["file_signature"] = f"{st.st_size}:{st.st_mtime_ns}"
    return cfg


def _point(config: dict) -> dict:
    cfg = {k: v for k, v in config.items() if k != "file_signature"}
    return model_point(cfg)


def records(
    configs: Sequence[dict],
    *,
    kinds: Sequence[str] | None = None,
    seed: int | None = None,
    cache: str = "layer-stats",
    progress: bool = True,
) -> tuple[list[dict], list[dict]]:
    """Every matrix of every model in ``configs`` (each ``{source, label?, device?}``), through the
    sweep cache, each record with its Gaussian baseline at the same shape under ``"baseline"``
    (computed once per distinct shape).  ``kinds`` and ``seed`` default to :data:`DEFAULTS`.  A model
    that cannot be read is a failure ``{source, label, error}`` and the others go on.  Returns
    ``(records, failures)``; records are flat, in model order (embedding, head, layers)."""
    kinds = list(kinds) if kinds is not None else list(DEFAULTS.kinds)
    find_layers({}, kinds)  # unknown kinds fail before any model is read
    seed = DEFAULTS.seed if seed is None else int(seed)
    cfgs = [
        _with_signature(
            {
                "source": str(c["source"]),
                "label": c.get("label") or str(c["source"]),
                "kinds": kinds,
                "device": c.get("device", "auto"),
            }
        )
        for c in configs
    ]
    rep = sweep.run(_point, cfgs, cache=cache, progress=progress, desc="models", on_error="collect")
    failed = {e["index"]: e["error"] for e in rep.errors}
    out: list[dict] = []
    failures: list[dict] = []
    for i, (cfg, res) in enumerate(zip(cfgs, rep.results)):
        if i in failed or res is None:
            failures.append({"source": cfg["source"], "label": cfg["label"], "error": failed.get(i, "no result")})
        else:
            out += res["records"]
    device = {c["label"]: c["device"] for c in cfgs}
    shapes: dict[tuple[int, int], str] = {}
    for r in out:
        shapes.setdefault((int(r["vocab_size"]), int(r["d_model"])), device[r["label"]])
    bcfgs = [{"n": n, "d": d, "seed": seed, "device": dev} for (n, d), dev in shapes.items()]
    brep = sweep.run(baseline_point, bcfgs, cache=cache, progress=progress, desc="baselines")
    base = {(c["n"], c["d"]): b for c, b in zip(bcfgs, brep.results)}
    for r in out:
        b = base[(int(r["vocab_size"]), int(r["d_model"]))]
        r["baseline"] = {k: b[k] for k in BASELINE_FIELDS}
    return out, failures


# ---------------------------------------------------------------------------------------------
# a tiny stand-in model (tests and the smoke profile)


def write_stand_in(
    path: str | Path,
    *,
    n_layers: int = 2,
    vocab: int = 400,
    d_model: int = 32,
    d_ff: int = 96,
    attn_dim: int | None = None,
    mean_cos: float = 0.3,
    seed: int = 0,
) -> Path:
    """Write a tiny F32 GGUF with the tensor names and layouts of llama.cpp (``token_embd.weight``
    ``(vocab, d_model)``; per layer ``blk.N.ffn_down.weight`` ``(d_model, d_ff)``,
    ``blk.N.attn_output.weight`` ``(d_model, attn_dim)``, ``blk.N.ffn_up.weight`` ``(d_ff, d_model)``
    as loaded).  The embedding's rows share a common direction (mean cosine about ``mean_cos``, as
    :func:`repcap.synthetic.stand_in`); the layers' directions are Gaussian with a common direction
    of a tenth of that weight, so the layers sit nearer random than the embedding."""
    import gguf

    from .synthetic import stand_in

    path = Path(path)
    attn_dim = attn_dim or d_model
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_tensor("token_embd.weight", stand_in(vocab, d_model, mean_cos=mean_cos, seed=seed))
    for i in range(n_layers):
        s = seed + 1 + 3 * i
        w.add_tensor(
            f"blk.{i}.ffn_down.weight", np.ascontiguousarray(stand_in(d_ff, d_model, mean_cos=mean_cos / 10, seed=s).T)
        )
        w.add_tensor(
            f"blk.{i}.attn_output.weight",
            np.ascontiguousarray(stand_in(attn_dim, d_model, mean_cos=mean_cos / 10, seed=s + 1).T),
        )
        w.add_tensor(f"blk.{i}.ffn_up.weight", stand_in(d_ff, d_model, mean_cos=mean_cos / 10, seed=s + 2))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


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
