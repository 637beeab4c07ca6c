"""Tables of the layer survey (records from :func:`repcap.engines.layers.records`): each matrix against its
Gaussian baseline, the per-layer ranges next to the embedding, whether the embedding's class is the
layers' class, and the capacity the laws would give if read from the layers (Guha 2026, Sec. 2.4-2.6
and 3.3: eps = mu + 2 sigma, the classes, the four-constant law)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from repcap.engines import laws
from repcap.engines.layers import KINDS

#: Short names of the layer kinds (table columns, legends).
SHORT = {"mlp_out": "MLP out", "attn_out": "attention out", "mlp_in": "MLP in"}
#: The rows that are not layers.
WHOLE = ("embedding", "head")

Rec = Mapping[str, Any]


def class_name(c: int | None) -> str:
    """Guha's class as a table cell: ``"1"``, ``"2"`` or ``"between"`` (0.1 <= eps <= 0.2)."""
    return "between" if c is None else str(int(c))


def _models(records: Sequence[Rec]) -> list[str]:
    return list(dict.fromkeys(r["label"] for r in records))


def _embedding(records: Sequence[Rec], label: str) -> Rec | None:
    return next((r for r in records if r["label"] == label and r["kind"] == "embedding"), None)


def _layer_records(records: Sequence[Rec], label: str | None = None) -> list[Rec]:
    return [r for r in records if r["kind"] not in WHOLE and (label is None or r["label"] == label)]


def _kinds(records: Sequence[Rec]) -> list[str]:
    present = {r["kind"] for r in records}
    return [k for k in KINDS if k in present]


def _matrix_name(kind: str) -> str:
    return kind if kind in WHOLE else KINDS[kind]


def matrix_table(records: Sequence[Rec]) -> pd.DataFrame:
    """One row per matrix: model, matrix, layer, n directions, d, ε and class, the moments,
    d·E[cos²] (1 for random directions), the Gaussian baseline's ε at the same shape and the ratio,
    the four-constant capacity, where the directions lie in the stored tensor, its storage."""
    rows = []
    for r in records:
        b = r["baseline"]
        d = r["d_model"]
        rows.append(
            {
                "model": r["label"],
                "matrix": _matrix_name(r["kind"]),
                "layer": r["layer"],
                "n": r["n_directions"],
                "d": d,
                "ε": r["eps"],
                "class": class_name(r["class"]),
                "μ": r["mean"],
                "σ": r["std"],
                "d E[cos²]": r["mean_sq"] * d,
                "ε random": b["eps"],
                "ε / ε random": r["eps"] / b["eps"],
                "log10 k (four-constant)": r["log10_capacity"].get("four"),
                "directions": r.get("axis"),
                "tensor": r.get("tensor"),
                "storage": r.get("quant"),
            }
        )
    return pd.DataFrame(rows)


def by_layer(records: Sequence[Rec]) -> pd.DataFrame:
    """Long form of the layer matrices for the figures: one row per (model, kind, layer) with ε,
    the baseline's ε, d·E[cos²] (and the baseline's), the model's embedding ε and the four-constant
    capacity at each ε (log10)."""
    rows = []
    for r in _layer_records(records):
        e = _embedding(records, r["label"])
        b = r["baseline"]
        d = r["d_model"]
        rows.append(
            {
                "model": r["label"],
                "kind": r["kind"],
                "matrix": KINDS[r["kind"]],
                "layer": r["layer"],
                "n": r["n_directions"],
                "d": d,
                "eps": r["eps"],
                "class": class_name(r["class"]),
                "eps_random": b["eps"],
                "d_mean_sq": r["mean_sq"] * d,
                "d_mean_sq_random": b["mean_sq"] * d,
                "eps_embedding": e["eps"] if e else np.nan,
                "log10_capacity_four": r["log10_capacity"].get("four"),
                "log10_capacity_four_random": b["log10_capacity"].get("four"),
                "log10_capacity_four_embedding": e["log10_capacity"].get("four") if e else np.nan,
            }
        )
    return pd.DataFrame(rows)


def range_table(records: Sequence[Rec]) -> pd.DataFrame:
    """One row per model: its embedding's ε and class, the head's ε where the head is stored apart,
    the number of layers, and per layer kind the smallest and largest ε over the layers next to
    the Gaussian baseline's ε at that kind's shape."""
    kinds = _kinds(_layer_records(records))
    rows = []
    for label in _models(records):
        e = _embedding(records, label)
        head = next((r for r in records if r["label"] == label and r["kind"] == "head"), None)
        lay = _layer_records(records, label)
        row: dict[str, Any] = {
            "model": label,
            "d": e["d_model"] if e else None,
            "ε embedding": e["eps"] if e else np.nan,
            "embedding class": class_name(e["class"]) if e else None,
            "ε head": head["eps"] if head else np.nan,
            "layers": len({r["layer"] for r in lay}),
        }
        for k in kinds:
            mine = [r for r in lay if r["kind"] == k]
            eps = [r["eps"] for r in mine]
            row[f"ε {SHORT[k]} min"] = min(eps) if eps else np.nan
            row[f"ε {SHORT[k]} max"] = max(eps) if eps else np.nan
            row[f"ε random ({SHORT[k]})"] = float(np.median([r["baseline"]["eps"] for r in mine])) if mine else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def excess_table(records: Sequence[Rec]) -> pd.DataFrame:
    """Per model and layer kind: how far the layers sit from Gaussian directions of the same shape,
    as ε / ε random and d·E[cos²] (exactly 1 in expectation for random directions), median and
    largest over the layers."""
    rows = []
    for label in _models(records):
        lay = _layer_records(records, label)
        for k in _kinds(lay):
            mine = [r for r in lay if r["kind"] == k]
            ratio = [r["eps"] / r["baseline"]["eps"] for r in mine]
            over = [r["mean_sq"] * r["d_model"] for r in mine]
            rows.append(
                {
                    "model": label,
                    "matrix": KINDS[k],
                    "layers": len(mine),
                    "ε random": float(np.median([r["baseline"]["eps"] for r in mine])),
                    "ε / ε random, median": float(np.median(ratio)),
                    "ε / ε random, max": max(ratio),
                    "d E[cos²], median": float(np.median(over)),
                    "d E[cos²], max": max(over),
                    "d E[cos²], random": float(np.median([r["baseline"]["mean_sq"] * r["d_model"] for r in mine])),
                }
            )
    return pd.DataFrame(rows)


def class_table(records: Sequence[Rec]) -> pd.DataFrame:
    """Per model: the embedding's class, how many layer matrices fall in each class, and how many
    (and what share) share the embedding's class."""
    rows = []
    for label in _models(records):
        e = _embedding(records, label)
        lay = _layer_records(records, label)
        cls = [r["class"] for r in lay]
        same = sum(1 for c in cls if e is not None and c == e["class"])
        rows.append(
            {
                "model": label,
                "embedding class": class_name(e["class"]) if e else None,
                "layer matrices": len(lay),
                "Class 1": cls.count(1),
                "between": cls.count(None),
                "Class 2": cls.count(2),
                "same class as the embedding": same,
                "share in the embedding's class": same / len(lay) if lay else np.nan,
            }
        )
    return pd.DataFrame(rows)


def share_same_class(records: Sequence[Rec], *, tied_only: bool = False) -> float | None:
    """The share of all layer matrices (of tied models only, with ``tied_only``) whose class is
    their model's embedding's; None when there is no layer matrix to count."""
    same = total = 0
    for label in _models(records):
        e = _embedding(records, label)
        if e is None or (tied_only and e.get("tied") is not True):
            continue
        lay = _layer_records(records, label)
        total += len(lay)
        same += sum(1 for r in lay if r["class"] == e["class"])
    return same / total if total else None


def median_eps_ratio(records: Sequence[Rec]) -> float | None:
    """The median over all layer matrices of ε(layer) / ε(its model's embedding); None without any."""
    ratios = []
    for label in _models(records):
        e = _embedding(records, label)
        if e is None or e["eps"] == 0:
            continue
        ratios += [r["eps"] / e["eps"] for r in _layer_records(records, label)]
    return float(np.median(ratios)) if ratios else None


def capacity_table(records: Sequence[Rec], law: str = "four") -> pd.DataFrame:
    """Per model: the capacity (log10 k) under ``law`` read from the embedding's ε, and read from
    the median ε of each layer kind instead, next to the Gaussian baseline's and the number of
    directions the layers actually hold."""
    kinds = _kinds(_layer_records(records))
    rows = []
    for label in _models(records):
        e = _embedding(records, label)
        lay = _layer_records(records, label)
        d = e["d_model"] if e else (lay[0]["d_model"] if lay else None)
        row: dict[str, Any] = {
            "model": label,
            "d": d,
            "ε embedding": e["eps"] if e else np.nan,
            "log10 k, embedding": e["log10_capacity"].get(law) if e else np.nan,
        }
        for k in kinds:
            eps = [r["eps"] for r in lay if r["kind"] == k]
            med = float(np.median(eps)) if eps else np.nan
            row[f"ε {SHORT[k]} (median)"] = med
            row[f"log10 k, {SHORT[k]} (median ε)"] = (
                float(laws.log10_capacity(med, d, law)) if eps and med >= 0 else np.nan
            )
        base = [r["baseline"]["log10_capacity"].get(law) for r in lay if r["kind"] == (kinds[0] if kinds else None)]
        row["log10 k, random (first kind's shape)"] = base[0] if base else np.nan
        row["n directions in the layers"] = int(sum(r["n_directions"] for r in lay))
        rows.append(row)
    return pd.DataFrame(rows)


__all__ = [
    "BOUNDARY",
    "DIAGONAL",
    "EMBEDDING",
    "HEAD",
    "LAYER",
    "MEDIAN",
    "SHORT",
    "WHOLE",
    "by_layer",
    "capacity_figure",
    "capacity_points",
    "capacity_table",
    "class_name",
    "class_table",
    "eps_figure",
    "excess_table",
    "matrix_table",
    "median_eps_ratio",
    "range_table",
    "share_same_class",
    "vs_embedding",
    "vs_embedding_figure",
]


def vs_embedding(layer_table: pd.DataFrame) -> pd.DataFrame:
    """The points of the layer-against-embedding figure: each layer matrix's ε next to its model's
    embedding ε and the Gaussian baseline's (rows of :func:`by_layer`)."""
    return layer_table[["model", "kind", "layer", "eps", "eps_embedding", "eps_random", "class"]]


def capacity_points(records: Sequence[Rec], layer_table: pd.DataFrame, kinds: Sequence[str]) -> pd.DataFrame:
    """Per model: the four-constant capacity (log10 k) read from its embedding's ε, then from each
    layer matrix's ε of ``kinds`` (with the Gaussian baseline's and log10 of the directions held)."""
    rows: list[dict] = []
    for lbl in _models(records):
        mine = layer_table[layer_table.model == lbl]
        emb = _embedding(records, lbl)
        if emb is not None:
            rows.append(
                {
                    "model": lbl,
                    "matrix": "embedding",
                    "layer": None,
                    "log10_capacity_four": emb["log10_capacity"]["four"],
                    "log10_n": np.log10(emb["n_directions"]),
                }
            )
        for k in kinds:
            rows += [
                {
                    "model": lbl,
                    "matrix": k,
                    "layer": int(r.layer),
                    "log10_capacity_four": r.log10_capacity_four,
                    "log10_capacity_four_random": r.log10_capacity_four_random,
                    "log10_n": np.log10(r.n),
                }
                for r in mine[mine.kind == k].itertuples()
            ]
    return pd.DataFrame(rows)


#: The ``row`` of each line of the chapter's figure tables that is not a layer matrix's point.
LAYER, EMBEDDING, HEAD, MEDIAN, BOUNDARY, DIAGONAL = (
    "layer matrix",
    "embedding",
    "LM head",
    "median over the layers",
    "class boundary",
    "diagonal",
)


def _with_marks(points: pd.DataFrame, marks: list[dict], class2_below: float, class1_above: float) -> pd.DataFrame:
    """``points`` (row :data:`LAYER`), then ``marks``, then Guha's two class boundaries in ``eps``;
    the integer columns stay integers (blank on the added rows)."""
    bounds = [
        {"row": BOUNDARY, "model": n, "eps": e}
        for n, e in (("Class 2 below", class2_below), ("Class 1 above", class1_above))
    ]
    out = pd.concat([points.assign(row=LAYER), pd.DataFrame(marks + bounds)], ignore_index=True)
    for col in points.columns:
        if pd.api.types.is_integer_dtype(points[col]):
            out[col] = out[col].astype("Int64")
    return out[["row", *points.columns]]


def eps_figure(records: Sequence[Rec], class2_below: float, class1_above: float) -> pd.DataFrame:
    """The table of ε layer by layer: the rows of :func:`by_layer`, and per model its embedding's ε
    and width, its head's ε where stored apart and, per layer kind, the median ε of the Gaussian
    baseline (in ``eps_random``): the lines each panel draws; then the class boundaries (its band)."""
    layer_table = by_layer(records)
    marks: list[dict] = []
    for label in _models(records):
        marks += [
            {"row": EMBEDDING if r["kind"] == "embedding" else HEAD, "model": label, "kind": r["kind"]}
            | {"n": r["n_directions"], "d": r["d_model"], "eps": r["eps"]}
            for r in records
            if r["label"] == label and r["kind"] in WHOLE
        ]
        mine = layer_table[layer_table.model == label] if len(layer_table) else layer_table
        for k in _kinds(_layer_records(records, label)):
            med = float(mine[mine.kind == k].eps_random.median())
            marks.append({"row": MEDIAN, "model": label, "kind": k, "matrix": KINDS[k], "eps_random": med})
    return _with_marks(layer_table, marks, class2_below, class1_above)


def vs_embedding_figure(
    records: Sequence[Rec], layer_table: pd.DataFrame, class2_below: float, class1_above: float
) -> pd.DataFrame:
    """The table of layer ε against embedding ε: the points of :func:`vs_embedding`, each model's
    median Gaussian ε (its bar, at its embedding's ε), the two ends of the diagonal (the axes' range:
    every ε shown, and every embedding's, with a margin of 1.3) and the class boundaries (the bands)."""
    embs = [r["eps"] for r in records if r["kind"] == "embedding"]
    lo = min(layer_table.eps.min(), layer_table.eps_random.min(), min(embs)) / 1.3
    hi = max(layer_table.eps.max(), max(embs)) * 1.3
    marks = [
        {"row": MEDIAN, "model": lbl, "eps_embedding": g.eps_embedding.iloc[0], "eps_random": g.eps_random.median()}
        for lbl, g in layer_table.groupby("model", sort=False)
    ]
    marks += [{"row": DIAGONAL, "eps": v, "eps_embedding": v} for v in (lo, hi)]
    return _with_marks(vs_embedding(layer_table), marks, class2_below, class1_above)


def capacity_figure(records: Sequence[Rec], layer_table: pd.DataFrame, kinds: Sequence[str]) -> pd.DataFrame:
    """The rows of :func:`capacity_points` (``row`` embedding or layer matrix) and, per model and layer
    kind, the median over its layers of the Gaussian baseline's capacity and log10 of the median number
    of directions held (the bars and dotted lines of the figure)."""
    points = capacity_points(records, layer_table, kinds)
    points.insert(0, "row", np.where(points.matrix == "embedding", EMBEDDING, LAYER))
    marks = [
        {
            "row": MEDIAN,
            "model": lbl,
            "matrix": k,
            "log10_capacity_four_random": g.log10_capacity_four_random.median(),
            "log10_n": np.log10(g.n.median()),
        }
        for lbl in _models(records)
        for k in kinds
        if len(g := layer_table[(layer_table.model == lbl) & (layer_table.kind == k)])
    ]
    return pd.concat([points, pd.DataFrame(marks)], ignore_index=True)
