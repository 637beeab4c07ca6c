"""The model survey: load a model's matrix, compute its cosine statistics, apply the capacity laws,
and return one JSON-ready record per model; :func:`scan` runs many through the sweep cache.

This is the layer that composes the others (:mod:`repcap.models.embeddings` -> :mod:`repcap.engines.cosine` ->
:mod:`repcap.engines.laws`); the statistics engine below it imports none of them.  The record is a plain
JSON dict (the sweep cache stores it, the chapters read ``r["eps"]``, ``r["hist_counts"]``, ...),
typed as :class:`SurveyRecord`.  Reference: Guha 2026, Sec. 2.4-2.5 (eps = mu + 2 sigma, the
classes, the capacity under each published law).
"""

from __future__ import annotations

import dataclasses
import math
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict, cast

import numpy as np
import torch

from repcap import sweep
from repcap.base.devices import resolve_device
from repcap.engines import laws
from repcap.models import catalog
from repcap.models.embeddings import load
from repcap.sweep.registry import point_function

from .cosine import DEFAULTS, CosineMoments, TiledConfig, TiledStats, moments, tiled_stats

#: The survey engine's numerics version (this module, :mod:`repcap.engines.layers`, and what they take from
#: :mod:`repcap.engines.laws` and :mod:`repcap.engines.random_geometry`): the one declaration that a survey or layer
#: point's identity carries (:mod:`repcap.sweep.keys`).  Bump it (``survey/N`` to ``survey/N+1``)
#: in the same commit as a change that moves ``tests/fingerprints/survey.json`` (a cosine change
#: that moves a record moves them too), and rewrite that table (``tools/fingerprints.py --update
#: survey``).  ``survey/1``: the engine at commit 12d7158 (identity keys introduced).
NUMERICS = "survey/1"

#: The keys every record has (functional form: ``"class"`` is a Python keyword).
_Always = TypedDict(
    "_Always",
    {
        "source": str,
        "source_kind": str,
        "tensor": str | None,
        "quant": str | None,
        "tied": bool | None,
        "head": bool,
        "vocab_size": int,
        "d_model": int,
        "rows_limit": int | None,
        # the exact moments (CosineMoments.to_dict())
        "n_rows": int,
        "n_zero_rows": int,
        "d": int,
        "n_pairs": int,
        "sum_cos": float,
        "mean": float,
        "mean_sq": float,
        "var": float,
        "std": float,
        "eps": float,
        "eps3": float,
        "inv_d": float,
        "class": int | None,  # Guha's class: 1 (eps > 0.2), 2 (eps < 0.1), None between
        "capacity": dict,
        "log10_capacity": dict,
        "capacity_eps3": dict,  # {law: value or None}
        "capacity_note": str | None,  # why the laws do not apply (eps < 0), else None
    },
)


class SurveyRecord(_Always, total=False):
    """One model's record: a plain JSON dict.  The keys below are present for catalog sources
    (``catalog``), with ``tiled=True`` (the rest) and in :func:`scan`'s output (``label``)."""

    catalog: dict  # {key, expected_vocab, expected_d, shape_matches}
    label: str
    tiled: bool
    sampled: bool
    rows_used: int
    pairs_visited: int
    max_abs: float
    max_abs_pair: list
    quantiles: dict  # {str(q): value}
    quantiles_abs: dict
    quantile_error: float
    exceed: dict  # {str(t): P(cos > t)}
    exceed_abs: dict
    tiled_mean: float
    tiled_std: float
    tiled_eps: float
    sampling_error: dict
    top_pairs: list  # [{i, j, cos, token_i, token_j}]
    nn_cos_quantiles: dict
    nn_cos_mean: float
    hist_counts: list  # (bins,) counts over hist_range
    hist_range: list


def _finite(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def capacities(eps: float, eps3: float, d: int) -> dict[str, Any]:
    """The capacity under each published law at ``eps`` (and at ``eps3``), as record fields.

    The laws count vectors at a tolerance eps >= 0.  A matrix whose mean cosine is negative enough
    that eps = mu + 2 sigma < 0 (a regular simplex: d + 1 unit vectors at cos = -1/d) is a geometry the
    laws do not describe: its capacities are None and ``capacity_note`` says why."""

    def under(e: float) -> dict[str, float | None]:
        return {k: (_finite(laws.capacity(e, d, k)) if e >= 0 else None) for k in laws.PUBLISHED}

    note = None
    if eps < 0:
        note = (
            f"eps = {eps:.6g} < 0: the pairs are anti-correlated on average (as in a regular simplex), "
            "and the capacity laws, which count vectors at a tolerance eps >= 0, do not apply"
        )
    return {
        "capacity": under(eps),
        "log10_capacity": {k: (float(laws.log10_capacity(eps, d, k)) if eps >= 0 else None) for k in laws.PUBLISHED},
        "capacity_eps3": under(eps3),
        "capacity_note": note,
    }


def _tiled_fields(t: TiledStats, tokens: list[str] | None) -> dict[str, Any]:
    def name(i: int) -> str | None:
        return tokens[i] if tokens is not None and 0 <= i < len(tokens) else None

    return {
        "tiled": True,
        "sampled": t.sampled,
        "rows_used": t.rows_used,
        "pairs_visited": t.n_pairs,
        "max_abs": t.max_abs,
        "max_abs_pair": list(t.max_abs_pair),
        "quantiles": {str(q): v for q, v in t.quantiles.items()},
        "quantiles_abs": {str(q): t.quantile(q, absolute=True) for q in t.quantiles},
        "quantile_error": t.quantile_error,
        "exceed": {str(k): v for k, v in t.exceed.items()},
        "exceed_abs": {str(k): v for k, v in t.exceed_abs.items()},
        "tiled_mean": t.mean,
        "tiled_std": t.std,
        "tiled_eps": t.eps,
        "sampling_error": t.sampling_error,
        # at most as many pairs as there are (a top-k larger than the pairs visited is padded with -inf)
        "top_pairs": [
            {"i": i, "j": j, "cos": c, "token_i": name(i), "token_j": name(j)}
            for i, j, c in t.top_pairs
            if math.isfinite(c)
        ],
        "nn_cos_quantiles": {str(q): float(np.quantile(t.nn_cos, q)) for q in (0.01, 0.1, 0.5, 0.9, 0.99)},
        "nn_cos_mean": float(np.mean(t.nn_cos)),
        "hist_counts": t.counts.tolist(),
        "hist_range": [-1.0, 1.0],
    }


def _catalog_fields(entry: catalog.ModelEntry, shape: tuple[int, int]) -> dict[str, Any]:
    """The catalog's expected shape, checked against the weights actually read."""
    return {
        "catalog": {
            "key": entry.key,
            "expected_vocab": entry.vocab,
            "expected_d": entry.d_model,
            "shape_matches": entry.vocab in (None, shape[0]) and entry.d_model in (None, shape[1]),
        }
    }


def describe(
    source: Any,
    cfg: TiledConfig | None = None,
    *,
    head: bool = False,
    tiled: bool = False,
    rows: int | None = None,
    device: str | torch.device = "auto",
    tensor: str | None = None,
    progress: bool = True,
    embedding: Any = None,
) -> SurveyRecord:
    """Load ``source`` (see :func:`repcap.models.embeddings.load`) and return one JSON-ready record:
    shape, exact moments, eps, eps3, class, capacity under each published law, and with
    ``tiled=True`` max |cos|, quantiles, exceedances, top pairs (with token strings where the source
    has them), the histogram counts and, for a ``cfg.sample``, the sampling error.  ``rows`` keeps
    only the first ``rows`` rows (e.g. the real tokens before a padded vocabulary's padding rows).
    ``cfg`` holds the tiled pass's settings (default :data:`repcap.engines.cosine.DEFAULTS`).
    A ``device`` this machine does not have is refused before the source is read.
    """
    resolve_device(device)
    e = embedding if embedding is not None else load(source, head=head, device="cpu", tensor=tensor)
    X = e.matrix if rows is None else e.matrix[: int(rows)]
    m: CosineMoments = moments(X, device=device)
    d = int(X.shape[1])
    rec: dict[str, Any] = {
        "source": str(source),
        "source_kind": e.source_kind,
        "tensor": e.tensor_name,
        "quant": e.quant,
        "tied": e.tied,
        "head": bool(head),
        "vocab_size": int(X.shape[0]),
        "d_model": d,
        "rows_limit": rows,
        **m.to_dict(),
        "inv_d": 1.0 / d,
        "class": laws.classify(m.eps),
        **capacities(m.eps, m.eps3, d),
    }
    entry = catalog.find(source) if isinstance(source, str) else None
    if entry is not None:
        rec.update(_catalog_fields(entry, (int(e.matrix.shape[0]), d)))
    if tiled:
        t = tiled_stats(X, cfg if cfg is not None else DEFAULTS, device=device, progress=progress)
        rec.update(_tiled_fields(t, e.tokens))
    return rec  # type: ignore[return-value]


@point_function(
    "survey.describe",
    numerics=NUMERICS,
    execution=("device", "threads", "tile", "label", "progress"),
    metrics=("eps", "mean", "std"),
    legacy=("repcap.survey:describe_point",),
)
def describe_point(config: dict) -> SurveyRecord:
    """:func:`describe` for one sweep config: ``source``, :func:`describe`'s keyword options and any
    :class:`~repcap.engines.cosine.TiledConfig` fields (``bins``, ``top_k``, ``sample``, ...), which build
    its ``cfg``."""
    opts = dict(config)
    source = opts.pop("source")
    opts.pop("label", None)
    opts.pop("file_signature", None)  # part of the cache key only
    names = {f.name for f in dataclasses.fields(TiledConfig)}
    cfg = TiledConfig(**{k: opts.pop(k) for k in list(opts) if k in names})
    return describe(source, cfg, progress=False, **opts)


def scan(
    configs: Sequence[dict], *, cache: str = "embedding-stats", progress: bool = True
) -> tuple[list[SurveyRecord], list[dict]]:
    """Run :func:`describe_point` over ``configs`` through the content-addressed cache; a model that
    fails (hub error, missing tensor, ...) is recorded as ``{"source", "error"}`` and the scan goes on.
    Failures are not cached, so a re-run tries them again.  Returns ``(records, failures)``; each
    record carries its config's ``label`` (default: the source)."""
    configs = [dict(c) for c in configs]
    for cfg in configs:  # a local file's size and mtime join the cache key: an edited file is re-read
        try:
            st = Path(str(cfg["source"])).expanduser().stat()
        except (OSError, ValueError):  # not a local path (an id), or one the point itself will refuse
            continue
        if stat.S_ISREG(st.st_mode):
            cfg["file_signature"] = f"{st.st_size}:{st.st_mtime_ns}"
    # One sweep over all models, so that on a cluster (sweep.set_default_executor) they run in parallel.
    rep = sweep.run(describe_point, configs, cache=cache, progress=progress, desc="models", on_error="collect")
    failed = {e["index"]: e["error"] for e in rep.errors}
    records: list[SurveyRecord] = []
    failures: list[dict] = []
    for i, (cfg, rec) in enumerate(zip(configs, rep.results)):
        label = cfg.get("label", cfg["source"])
        if i in failed or rec is None:
            failures.append({"source": cfg["source"], "label": label, "error": failed.get(i, "no result")})
        else:
            # the sweep hands back describe_point's SurveyRecord as the plain dict it stored
            records.append(cast(SurveyRecord, {**rec, "label": label}))
    return records, failures
