"""What the survey chapters read before they tabulate: chapter 2's scan (every matrix to describe,
and its variant) and chapter 4's row-norm shares of the LM heads (Liu et al.'s "every row has a
non-zero norm", as a distribution).  The tables of their figures are :mod:`.survey`'s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd


def scan_configs(
    models: Sequence[str],
    hub_models: Sequence[str],
    synthetic: Sequence[Sequence[Any]],
    common: Mapping[str, Any],
    seed: int | None = None,
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Chapter 2's scan (:func:`repcap.engines.survey.scan`): every matrix to describe, with ``common``
    (the tiled pass's settings and device), and its variant by label: each offline model's
    embedding, its separately stored head and its real tokens alone where it has them, each hub
    model's embedding, and each synthetic stand-in ``(name, V, d, mean_cos)`` with a copy of it as
    its head (:mod:`repcap.models.synthetic`)."""
    from repcap.models import offline
    from repcap.models.synthetic import source as stand_in_source

    configs: list[dict[str, Any]] = []
    variant_of: dict[str, str] = {}

    def add(variant: str, **cfg: Any) -> None:
        configs.append(dict(tiled=True, **common, **cfg))
        variant_of[cfg["label"]] = variant

    for key in models:
        add("embedding", source=key, label=key, head=False)
        spec = offline.spec(key)
        if spec.head_tensor:  # a separately stored (differently quantised) output head
            add("head", source=key, label=f"{key} (head)", head=True)
        if spec.real_vocab:  # padded vocabulary: also the real tokens alone
            add("real tokens", source=key, label=f"{key} (real tokens)", head=False, rows=spec.real_vocab)
    for key in hub_models:
        add("embedding", source=key, label=key, head=False)
    for name, V, d, mean_cos in synthetic:  # stand-ins go through the same loader as any file
        stand_in = dict(V=V, d=d, mean_cos=mean_cos, seed=seed or 0)
        add("embedding", source=stand_in_source("embedding", **stand_in), label=name, head=False)
        copy = stand_in_source("copy", **stand_in, copy_seed=(seed or 0) + 1)
        add("head", source=copy, label=f"{name} (head)", head=False)
    return configs, variant_of


#: A head's row is "represented" when its norm exceeds this share of the head's median row norm:
#: the toy's rule (phi_1/2, norm > 1/2 of the unit norm strong rows keep) with the median for the unit.
HEAD_NORM_SHARE = 0.5


def row_norm_shares(sources: Sequence[str], share: float = HEAD_NORM_SHARE) -> pd.DataFrame:
    """For each LM head (``sources``: what :func:`repcap.models.embeddings.load` reads, ``head=True``), its
    rows, the share of them whose norm exceeds ``share`` x the median row norm, and the smallest
    norm over the median (Liu et al.'s "every row has a non-zero norm", as a distribution)."""
    from repcap.models.embeddings import load

    rows = []
    for src in sources:
        x = np.asarray(load(src, head=True).matrix, dtype=np.float32)
        norms = np.sqrt(np.einsum("ij,ij->i", x, x, dtype=np.float64))
        med = float(np.median(norms))
        rows.append(
            {
                "head": src,
                "rows": int(len(norms)),
                "share_represented": float(np.mean(norms > share * med)),
                "min_over_median": float(norms.min() / med) if med > 0 else float("nan"),
            }
        )
        del x
    return pd.DataFrame(rows, columns=["head", "rows", "share_represented", "min_over_median"])
