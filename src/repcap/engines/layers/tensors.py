"""One model's matrices: its tensors read once, and a record per embedding, head and layer matrix.

:class:`ModelTensors` opens a source once (a GGUF file with the strict reader, any other source
through :func:`repcap.models.embeddings.load`); :func:`matrices` turns each matrix it finds into a
:func:`repcap.engines.survey.describe` record, checking every direction matrix's width against the
embedding's.  :func:`write_stand_in` writes a tiny GGUF model in llama.cpp's layout (tests and the
smoke profile).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import torch

from repcap import RepcapError
from repcap.models import embeddings, offline
from repcap.models.formats.gguf import GGUFFile, open_gguf
from repcap.models.formats.names import short
from repcap.models.matrix import Embedding

from ..survey import describe
from .config import DEFAULTS
from .names import KINDS, PATTERNS, LayerTensor, directions, find_layers, pattern_name


def _gguf_file(src: embeddings.Source) -> tuple[Path, str | None] | None:
    """``(path, offline key or None)`` when the resolved source ``src`` is a GGUF file (a ``.gguf``
    path, or an installed offline copy in GGUF), else None."""
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

    A GGUF file is opened once (:func:`repcap.models.formats.gguf.open_gguf`, the strict reader) and every
    tensor dequantised from that one reader (opening a GGUF with a 150k-token vocabulary takes
    8-14 s, so opening it per tensor would cost minutes per model); the embedding and head of an
    offline model come from its checked ``.npy`` cache.  Any other source reads each tensor with
    :func:`repcap.models.embeddings.load` ``(source, tensor=NAME)`` (a safetensors read touches only
    that tensor).  Every path goes through the same hostile-file checks."""

    def __init__(self, source: str):
        self.source = str(source)
        self.resolved = embeddings.resolve(self.source)  # once: every tensor below is read through it
        gg = _gguf_file(self.resolved)
        self._gguf: GGUFFile | None = None
        self._key: str | None = None
        self.shapes: dict[str, tuple]
        if gg is not None:
            path, self._key = gg
            self._gguf = open_gguf(path)
            self.shapes = {i.name: i.shape for i in self._gguf.list_tensors() if i.name is not None}
        else:
            listing = embeddings.list_tensors(self.resolved)
            self.shapes = {i.name: tuple(i.shape) for i in listing if i.name}
            if not self.shapes and listing:  # a .npy file: one unnamed array
                self.shapes = {}

    def load(self, name: str | None = None, *, head: bool = False) -> Embedding:
        """The named tensor (or the embedding / head) as :func:`repcap.models.embeddings.load` returns it."""
        if self._gguf is None or (self._key is not None and name is None):
            src = embeddings.resolve(self._key) if self._gguf is not None and self._key else self.resolved
            return embeddings.load(src, head=head, tensor=name, device="cpu")
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
    try:
        rec = dict(describe(source, embedding=e, device=device))
    except RepcapError as exc:  # a NaN row, too few rows: say which tensor of the model
        at = f", layer {layer}" if layer is not None else ""
        raise RepcapError(f"{source}: tensor {str(e.tensor_name)[:120]!r} ({kind}{at}): {exc}") from None
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
    Each record is :func:`repcap.engines.survey.describe`'s (moments, class, capacities; ``vocab_size`` is
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


# ---------------------------------------------------------------------------------------------
# a tiny stand-in model (tests and the smoke profile)


def write_stand_in(path: str | Path, **model: Any) -> Path:
    """Write a tiny F32 GGUF with the tensor names and layouts of llama.cpp: the tensors of
    :func:`repcap.models.synthetic.stand_in_layers` (``model``: its parameters, with its defaults),
    whose embedding sits nearer one direction than its layers."""
    import gguf

    from repcap.models.synthetic import stand_in_layers

    path = Path(path)
    w = gguf.GGUFWriter(str(path), "llama")
    for name, arr in stand_in_layers(**model).items():
        w.add_tensor(name, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
