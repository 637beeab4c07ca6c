"""Tables of the model survey (records from :func:`repcap.engines.survey.scan`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from repcap.engines.cosine import Histogram


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


#: The ``kind`` of the two rows :func:`with_class_boundaries` adds to :func:`eps_points`.
BOUNDARY = "class boundary"


def with_class_boundaries(points: pd.DataFrame, class2_below: float, class1_above: float) -> pd.DataFrame:
    """:func:`eps_points` and two rows of ``kind`` :data:`BOUNDARY` that hold Guha's class boundaries
    in ``eps`` (the band the figure of ε against width shades)."""
    marks = [
        {"model": "Class 2 below", "eps": class2_below, "kind": BOUNDARY},
        {"model": "Class 1 above", "eps": class1_above, "kind": BOUNDARY},
    ]
    out = pd.concat([points, pd.DataFrame(marks)], ignore_index=True)
    for col in points.columns:  # integer columns stay integers (blank on the boundary rows)
        if pd.api.types.is_integer_dtype(points[col]):
            out[col] = out[col].astype("Int64")
    return out


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


def histogram_panels(records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Each record's histogram density (:func:`histogram_density`) in one long table, with its mu,
    eps and width: ``model, cos, density, mu, eps, d_model`` (the figure of one panel per model,
    whose titles give the width)."""
    rows = []
    for r in records:
        h = histogram_density(r)
        rows += [
            {"model": r["label"], "cos": x, "density": y, "mu": r["mean"], "eps": r["eps"], "d_model": r["d_model"]}
            for x, y in zip(h.cos, h.density)
        ]
    return pd.DataFrame(rows, columns=["model", "cos", "density", "mu", "eps", "d_model"])


def head_histograms(
    records_by_label: Mapping[str, Mapping[str, Any]],
    pairs: Sequence[tuple[str, str]],
    variants: Mapping[str, str],
) -> pd.DataFrame:
    """The histogram density of an embedding and of its separately stored head, per pair:
    ``model, matrix ("<variant> (<storage>)"), cos, density, eps``."""
    rows = []
    for lbl, h_lbl in pairs:
        for r in (records_by_label[lbl], records_by_label[h_lbl]):
            h = histogram_density(r)
            name = f"{variants[r['label']]} ({r['quant']})"
            rows += [
                {"model": lbl, "matrix": name, "cos": x, "density": y, "eps": r["eps"]}
                for x, y in zip(h.cos, h.density)
            ]
    return pd.DataFrame(rows, columns=["model", "matrix", "cos", "density", "eps"])


def capacity_curves(law_names: Mapping[str, str], eps: Sequence[float], d: int) -> pd.DataFrame:
    """log10 capacity against eps at width ``d`` under each law (``{law key: label}``)."""
    from repcap.engines import laws

    grid = np.asarray(eps, dtype=float)
    rows = []
    for k, name in law_names.items():
        y = laws.log10_capacity(grid, d, k)
        rows += [{"law": name, "eps": e, "log10_capacity": v, "d": d} for e, v in zip(grid, y)]
    return pd.DataFrame(rows)


#: The ``law`` of the rows :func:`with_capacity_marks` adds to :func:`capacity_curves`.
MARK = "four-constant law at the marked ε"


def with_capacity_marks(curves: pd.DataFrame, eps: Sequence[float], d: int) -> pd.DataFrame:
    """:func:`capacity_curves` and one row of ``law`` :data:`MARK` per ``eps``: the four-constant
    capacity there (the dots of the figure)."""
    from repcap.engines import laws

    marks = [{"law": MARK, "eps": e, "log10_capacity": np.log10(laws.capacity(e, d, "four")), "d": d} for e in eps]
    return pd.concat([curves, pd.DataFrame(marks)], ignore_index=True)


def threshold_table(records: Sequence[Mapping[str, Any]], quantiles: Sequence[str]) -> pd.DataFrame:
    """Per model, five thresholds (mu + 2 sigma, mu + 3 sigma and the given quantiles of |cos|) and
    the four-constant capacity each implies; a quantile carries the histogram's bin error."""
    from repcap.engines import laws

    rows = []
    for r in records:
        cand = {"μ+2σ": r["eps"], "μ+3σ": r["eps3"], **{f"q{q} of |cos|": r["quantiles_abs"][q] for q in quantiles}}
        for name, val in cand.items():
            rows.append(
                {
                    "model": r["label"],
                    "d": r["d_model"],
                    "threshold": name,
                    "eps": val,
                    "log10_capacity_four": float(laws.log10_capacity(val, r["d_model"], "four")),
                    "quantile_error": r["quantile_error"] if name.startswith("q") else 0.0,
                }
            )
    return pd.DataFrame(rows)


def overlap_points(overlaps: pd.DataFrame, low: float, high: float) -> pd.DataFrame:
    """The points of the overlap-against-width figure (rows of :func:`overlap_table`) with the band
    ``low/m .. high/m`` where a source's heads lie."""
    return overlaps[["model", "kind", "m", "E[cos²]", "Var(cos)", "1/m"]].assign(
        paper_low=low / overlaps["m"], paper_high=high / overlaps["m"]
    )


#: The ``kind`` of the reference rows of :func:`overlap_figure` (band, median line, 1/m line).
OVERLAP_BAND, OVERLAP_MEDIAN, OVERLAP_RANDOM = "source band", "source median", "random directions"


def overlap_figure(
    overlaps: pd.DataFrame, low: float, median: float, high: float, source_m: Sequence[int]
) -> pd.DataFrame:
    """:func:`overlap_points` and the reference rows the figure draws, each with its legend text in
    ``model``: the band ``low/m .. high/m`` (at most 1) over the source's widths ``source_m``
    (``paper_low``, ``paper_high``), and over the figure's width range the line ``median/m`` (in
    ``E[cos²]``) and the line ``1/m`` of random directions (in ``1/m``), 50 widths each (``ref_m``)."""
    pts = overlap_points(overlaps, low, high)
    m_lo, m_hi = min(overlaps["m"].min(), 256) / 1.5, max(overlaps["m"].max(), 8192) * 1.5
    mgrid = np.geomspace(m_lo, m_hi, 50)
    band_m = np.geomspace(min(source_m), max(source_m), 50)
    band = f"Liu et al., 27 heads (m = {min(source_m):,}–{max(source_m):,}): {low:g}/m to {high:g}/m"
    refs = [
        pd.DataFrame(
            {
                "model": band,
                "kind": OVERLAP_BAND,
                "ref_m": band_m,
                "paper_low": np.minimum(low / band_m, 1),
                "paper_high": np.minimum(high / band_m, 1),
            }
        ),
        pd.DataFrame(
            {"model": f"their median, {median:g}/m", "kind": OVERLAP_MEDIAN, "ref_m": mgrid, "E[cos²]": median / mgrid}
        ),
        pd.DataFrame({"model": "1/m (random directions)", "kind": OVERLAP_RANDOM, "ref_m": mgrid, "1/m": 1 / mgrid}),
    ]
    out = pd.concat([pts, *refs], ignore_index=True)
    if pd.api.types.is_integer_dtype(pts["m"]):
        out["m"] = out["m"].astype("Int64")  # (the points' widths stay integers)
    return out


#: The ``source`` of the reference rows of :func:`toyllm_figure` (band, 1/m line).
TOYLLM_BAND, TOYLLM_RANDOM = "source band", "1/m"


def toyllm_figure(points: pd.DataFrame, low: float, high: float, source_m: Sequence[int]) -> pd.DataFrame:
    """:func:`toy_and_heads` and the reference rows its figure draws against ``ref_x`` = 1/m, 20
    points each, legend text in ``model``: the band ``low/m .. high/m`` (at most 1) over the
    source's widths (``paper_low``, ``paper_high``) and the line 1/m (in ``mean_sq_overlap``)."""
    allx = np.concatenate([points["one_over_m"].to_numpy(), [1 / 8192, 1 / 256]])
    xx = np.geomspace(allx.min() * 0.7, allx.max() * 1.4, 20)
    band_x = np.geomspace(1 / max(source_m), 1 / min(source_m), 20)
    band = f"Liu et al.'s heads (m = {min(source_m):,}–{max(source_m):,}): {low:g}/m to {high:g}/m"
    refs = [
        pd.DataFrame(
            {
                "source": TOYLLM_BAND,
                "model": band,
                "ref_x": band_x,
                "paper_low": np.minimum(low * band_x, 1),
                "paper_high": np.minimum(high * band_x, 1),
            }
        ),
        pd.DataFrame({"source": TOYLLM_RANDOM, "model": "1/m", "ref_x": xx, "mean_sq_overlap": xx}),
    ]
    out = pd.concat([points, *refs], ignore_index=True)
    if pd.api.types.is_integer_dtype(points["m"]):
        out["m"] = out["m"].astype("Int64")  # (the points' widths stay integers)
    return out


def head_overlaps(records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """LM heads (and random stand-ins) as the toy's width m: mean square overlap, variance of the
    signed cosine, 1/m, and both times m."""
    cols = ["source", "model", "m", "rows", "tied", "storage", "mean_sq_overlap", "var_cos", "one_over_m"]
    df = pd.DataFrame(
        [
            {
                "source": "stand-in (random)" if r["source_kind"] in ("npy", "synthetic") else "LM head",
                "model": r["label"],
                "m": r["d_model"],
                "rows": r["n_rows"],
                "tied": r["tied"],
                "storage": r["quant"],
                "mean_sq_overlap": r["mean_sq"],
                "var_cos": r["var"],
                "one_over_m": 1.0 / r["d_model"],
            }
            for r in records
        ],
        columns=cols,
    )
    if len(df):
        df["m_times_overlap"] = df["mean_sq_overlap"] * df["m"]
        df["m_times_var"] = df["var_cos"] * df["m"]
    return df


def toy_and_heads(toy_overlaps: pd.DataFrame, heads: pd.DataFrame) -> pd.DataFrame:
    """The toy models' overlaps (``model="toy"``) and the heads' (:func:`head_overlaps`) in one table."""
    return pd.concat([toy_overlaps.assign(model="toy"), heads], ignore_index=True)
