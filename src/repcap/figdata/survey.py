"""Tables of the model survey (records from :func:`repcap.survey.scan`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..cosine import Histogram


def model_table(records: Sequence[Mapping[str, Any]], variants: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row per matrix: the key columns first (model, variant, d, ε, class), then the moments,
    the storage and the sampled pass's numbers."""
    variants = variants or {}
    rows = []
    for r in records:
        se = (r.get("sampling_error") or {}).get("eps")
        rows.append(
            {
                "model": r["label"],
                "variant": variants.get(r["label"], "embedding"),
                "d": r["d_model"],
                "ε": r["eps"],
                "class": r["class"],
                "μ": r["mean"],
                "σ": r["std"],
                "μ + 3σ": r["eps3"],
                "E[cos²]": r["mean_sq"],
                "V": r["vocab_size"],
                "zero rows": r["n_zero_rows"],
                "tensor": r["tensor"],
                "storage": r["quant"],
                "max |cos| (sampled)": r.get("max_abs"),
                "rows in pass": r.get("rows_used"),
                "se(ε) of the sampled pass": se,
            }
        )
    return pd.DataFrame(rows)


def histogram_density(record: Mapping[str, Any], bins_out: int = 200) -> pd.DataFrame:
    """A record's histogram on [-1, 1] merged to ``bins_out`` bins, as a density: ``cos, density``
    (``bins_out`` must divide the record's bin count)."""
    h = Histogram(record["hist_counts"], -1.0, 1.0)
    h = h.rebin(max(1, h.bins // bins_out))
    return pd.DataFrame({"cos": h.centres, "density": h.density()})


def head_comparison(
    records_by_label: Mapping[str, Mapping[str, Any]], pairs: Sequence[tuple[str, str]]
) -> pd.DataFrame:
    """Embedding against its separately stored head: one row per ``(embedding label, head label)``."""
    rows = []
    for e_lbl, h_lbl in pairs:
        e, h = records_by_label[e_lbl], records_by_label[h_lbl]
        rows.append(
            {
                "model": e_lbl,
                "ε embedding": e["eps"],
                "ε head": h["eps"],
                "Δε": h["eps"] - e["eps"],
                "embedding storage": e["quant"],
                "head storage": h["quant"],
            }
        )
    return pd.DataFrame(rows)


def nearest_pairs(records: Sequence[Mapping[str, Any]], per_model: int = 5) -> pd.DataFrame:
    """The most similar token pairs of each record (token strings where the file has a vocabulary)."""
    rows = []
    for r in records:
        for p in (r.get("top_pairs") or [])[:per_model]:
            rows.append(
                {
                    "model": r["label"],
                    "cos": p["cos"],
                    "token i": repr(p["token_i"]) if p.get("token_i") is not None else None,
                    "token j": repr(p["token_j"]) if p.get("token_j") is not None else None,
                    "rows": f"{p['i']}, {p['j']}",
                }
            )
    return pd.DataFrame(rows, columns=["model", "cos", "token i", "token j", "rows"])


def eps_points(records: Sequence[Mapping[str, Any]], reported: Sequence[Any]) -> pd.DataFrame:
    """Points of ε against width: Guha's reported models (catalog entries with ``eps_reported``)
    and our records."""
    pts = [
        {
            "model": e.name,
            "d_model": e.d_model,
            "eps": e.eps_reported,
            "class": e.class_reported,
            "kind": "reported (Guha 2026)",
        }
        for e in reported
        if e.eps_reported is not None
    ]
    pts += [
        {
            "model": r["label"],
            "d_model": r["d_model"],
            "eps": r["eps"],
            "class": r["class"],
            "kind": "reproduced (ours)",
        }
        for r in records
    ]
    return pd.DataFrame(pts)


def overlap_table(records: Sequence[Mapping[str, Any]], kinds: Mapping[str, str]) -> pd.DataFrame:
    """Mean square overlap of each record's rows, its split into the variance of the signed cosine
    and the squared mean, and both times the width (Liu, Liu & Gore 2025 compare with 1/m)."""
    rows = []
    for r in records:
        m = r["d_model"]
        rows.append(
            {
                "model": r["label"],
                "kind": kinds.get(r["label"], "LM head"),
                "m": m,
                "E[cos²]": r["mean_sq"],
                "m E[cos²]": r["mean_sq"] * m,
                "Var(cos)": r["var"],
                "m Var(cos)": r["var"] * m,
                "μ²": r["mean"] ** 2,
                "1/m": 1.0 / m,
                "tied": r.get("tied"),
                "tensor": r.get("tensor"),
                "storage": r.get("quant"),
                "V": r.get("vocab_size"),
            }
        )
    return pd.DataFrame(rows)


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Least-squares slope of log y on log x; None with fewer than three distinct x."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(np.unique(xs)) < 3:
        return None
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])
