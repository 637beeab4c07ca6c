"""Guha 2026: our numbers for his claims, from the tables of chapters 2, 3 and 7."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from repcap.base.quotes import quote, value

Finding = dict[str, Any]


def class_boundaries() -> tuple[float, float]:
    """``(Class 2 below, Class 1 above)``: his 0.1 and 0.2 (Sec. 2.5)."""
    return value("guha2026.class2_eps_below"), value("guha2026.class1_eps_above")


def empty_band(decoders: Sequence[dict[str, Any]], *, key: str = "eps") -> dict[str, Finding]:
    """``guha-empty-band`` over every decoder language model measured (tied or not: his population
    is decoder LMs, Class 2 is mostly untied), each ``{"label", "eps"}``; the note gives the margin
    of the nearest one to the band.  ``key="eps3"``: the same count under his code's μ + 3σ variant
    (``guha-empty-band-3sigma``, a context row)."""
    if not decoders:
        return {}
    lo, hi = class_boundaries()
    inside = [r for r in decoders if lo <= float(r[key]) <= hi]
    margin = min(max(lo - float(r[key]), float(r[key]) - hi) for r in decoders)
    return {
        ("guha-empty-band" if key == "eps" else "guha-empty-band-3sigma"): {
            "value": len(inside),
            "interval": "deterministic",
            "n": len(decoders),
            "n_of": "decoders",
            "note": (
                "in the band: " + ", ".join(str(r["label"]) for r in inside)
                if inside
                else f"the nearest decoder lies {margin:.4f} outside the band"
            ),
        }
    }


def table1(entries: Sequence[Any]) -> dict[str, Finding]:
    """Two re-analyses of his Table 1 (``entries``: :func:`repcap.models.catalog.guha_models`, each with
    ``name, eps_reported, capacity_reported, tied``): ``guha-class2-span``, how many orders of
    magnitude the farthest Class-2 capacity lies outside his stated span (0 inside it), and
    ``guha-class1-mostly-tied``, the share of his Class-1 models with tied embeddings (``tied``:
    from each model's config, data/reference/catalog_hub.csv)."""
    span = quote("guha2026.class2_capacity_span")
    assert span.low is not None and span.high is not None  # a range (checked when read)
    lo, hi = math.log10(span.low), math.log10(span.high)
    b2, b1 = class_boundaries()
    out: dict[str, Finding] = {}
    c2 = [e for e in entries if e.eps_reported is not None and e.eps_reported < b2 and e.capacity_reported]
    if c2:
        logs = {e.name: math.log10(float(e.capacity_reported)) for e in c2}
        far = max(c2, key=lambda e: max(logs[e.name] - hi, lo - logs[e.name]))
        outside = max(logs[far.name] - hi, lo - logs[far.name], 0.0)
        out["guha-class2-span"] = {
            "value": outside,
            "interval": "deterministic",
            "n": len(c2),
            "n_of": "Class-2 rows of Table 1",
            "note": f"Class-2 capacities run from 10^{min(logs.values()):.1f} to 10^{max(logs.values()):.1f}; the "
            f"farthest outside is {far.name} ({float(far.capacity_reported):.3g}, ε = {float(far.eps_reported):.5f})",
        }
    c1 = [e for e in entries if e.eps_reported is not None and e.eps_reported > b1 and e.tied is not None]
    if c1:
        n_tied = sum(bool(e.tied) for e in c1)
        out["guha-class1-mostly-tied"] = {
            "value": n_tied / len(c1),
            "interval": "deterministic",
            "n": len(c1),
            "n_of": "Class-1 rows of Table 1",
            "note": f"{n_tied} of his {len(c1)} Class-1 models tie their embedding and unembedding",
        }
    return out


def layers_latent(records: Sequence[dict[str, Any]]) -> dict[str, Finding]:
    """``guha-layers-latent``, our operationalisation of his hypothesis on untied Class-2 models only:
    the median, over their layer matrices, of each matrix's ε over a Gaussian matrix of its own shape
    (``baseline``), divided by its embedding's excess over random directions (ε √d / 2).  ``records``:
    chapter 5's layer records (``label, kind, eps, d_model, class, tied, baseline``)."""
    embs = {r["label"]: r for r in records if r["kind"] == "embedding" and r.get("tied") is False and r["class"] == 2}
    excess = [
        (r["eps"] / r["baseline"]["eps"]) / (embs[r["label"]]["eps"] * math.sqrt(r["d_model"]) / 2)
        for r in records
        if r["label"] in embs and r["kind"] not in ("embedding", "head") and r.get("baseline")
    ]
    if not excess:
        return {}
    return {
        "guha-layers-latent": {
            "value": float(statistics.median(excess)),
            "interval": "deterministic",
            "n": len(embs),
            "n_of": "untied Class-2 models",
        }
    }


__all__ = ["class_boundaries", "empty_band", "layers_latent", "table1"]
