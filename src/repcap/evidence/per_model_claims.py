"""The generated scorecard rows, one per model (issue 19.5): Guha's ε of each model of his Table 1
and Liu et al.'s m E[cos²] of each LM head of their Fig. 8a, each a measurement of one quote,
checked by the ``paper`` profile (which loads the models).  :func:`repcap.evidence.claims.claims`
adds them after the rows of ``claims.yaml``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from repcap.base.quotes import _read_csv, key_of, quotes, reference_dir

from .claim_model import Claim

#: The files this module reads (a sweep point that imported it would be keyed on their bytes; none does).
DATA_FILES = ("guha2026_table1.csv", "liu2025_llm_models.csv")


def _per_model_rows(
    csv: str, quote_of: Callable[[dict[str, str]], str], fields_of: Callable[[dict[str, str], str], dict[str, Any]]
) -> list[Claim]:
    """One row per line of ``data/reference/<csv>`` whose quote (``quote_of(line)``) is known: a
    measurement of that quote, checked by ``paper``, with the fields ``fields_of(line, quote id)``."""
    out = []
    for row in _read_csv(reference_dir() / csv):
        qid = quote_of(row)
        if qid in quotes():
            out.append(Claim(checked_by=("paper",), kind="measurement", quote_ids=(qid,), **fields_of(row, qid)))
    return out


def _table1_fields(row: dict[str, str], qid: str) -> dict[str, Any]:
    key = key_of(row["hf_repo"])
    eps = quotes()[qid].value or 0.0
    class1 = eps > 0.2
    return {
        "id": f"guha-table1-eps-{key}",
        "source": "guha2026",
        "claim": f"{row['model']} (d = {row['d_model']}) has ε = {eps:.5f} (Table 1).",
        "compare": "abs",
        "tolerance": 1e-3 if class1 else 3e-4,
        "tolerance_why": (
            "his bf16 pipeline rounds μ and σ to bf16 (8 significant bits): at a Class 1 ε of "
            "0.2-0.6 that is of order 1e-4 to 1e-3"
            if class1
            else "his bf16 pipeline rounds μ and σ to bf16 (8 significant bits): at a Class 2 ε "
            "below 0.1 that is a few 1e-4"
        ),
        "ours": "exact ε = μ + 2σ over all pairs of the checkpoint's embedding (float64 moments)",
        "chapter": "02_embedding_eps",
        "figure": "fig-eps-vs-d",
        "fmt": ".5f",
        "if_differs": "the checkpoint on the hub is not the one he measured, or his bf16 rounding is larger here",
        "short": f"ε of {row['model']}",
    }


def table1_rows() -> list[Claim]:
    """One row per model of Guha's Table 1: his ε against ours, within his bf16 rounding, checked
    by the ``paper`` profile, which loads the 45 models."""
    return _per_model_rows(
        "guha2026_table1.csv", lambda row: f"guha2026.table1.{key_of(row['hf_repo'])}.eps", _table1_fields
    )


def _liu_quote(row: dict[str, str]) -> str:
    fam = row["family"].lower().replace("qwen2.5", "qwen").replace("-", "")
    return f"liu2025.fig8a_m_overlap_{fam}"


def _liu_head_fields(row: dict[str, str], qid: str) -> dict[str, Any]:
    key = key_of(row["hf_repo"])
    return {
        "id": f"liu-head-overlap-{key}",
        "source": "liu2025",
        "claim": f"The LM head of {row['hf_repo']} (m = {row['width_m']}) sits among its family's points of Fig. 8a.",
        "compare": "range",
        "tolerance": 0.0,
        "tolerance_why": "the range of the family's points digitised from Fig. 8a; a single point's reading "
        "is good to a few per cent on its log axis, well inside the family's spread",
        "ours": "m E[cos²] of the head: all rows, padding included, no centring (their LLMs/overlap-0.py)",
        "chapter": "04_lm_head_overlap",
        "figure": "fig-overlap-vs-width",
        "fmt": ".1f",
        "if_differs": "the checkpoint or the head tensor differs from the one they read",
        "short": f"head overlap of {key}",
    }


def liu_head_rows() -> list[Claim]:
    """One row per LM head of Liu et al.'s Fig. 8a: m E[cos²] against the range of its family's
    points, checked by the ``paper`` profile, which loads the 27 heads."""
    return _per_model_rows("liu2025_llm_models.csv", _liu_quote, _liu_head_fields)


__all__ = ["DATA_FILES", "liu_head_rows", "table1_rows"]
