"""The model survey: load a model's matrix, compute its cosine statistics, apply the capacity laws,
and return one JSON-ready record per model; :func:`scan` runs many through the sweep cache.

This is the layer that composes the others (loaders -> :mod:`repcap.cosine` -> :mod:`repcap.laws`);
the statistics engine below it imports none of them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from . import catalog, laws, sweep
from .cosine import DEFAULTS, moments, tiled_stats
from .embeddings import load


def _finite(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def describe(source: Any, *, head: bool = False, tiled: bool = False, sample: int | None = None,
             rows: int | None = None, device: str | torch.device = "auto", bins: int = DEFAULTS.bins,
             top_k: int = DEFAULTS.top_k, tensor: str | None = None, seed: int = DEFAULTS.seed,
             progress: bool = True, embedding: Any = None) -> dict[str, Any]:
    """Load ``source`` (see :func:`repcap.embeddings.load`) and return one JSON-ready record:
    shape, exact moments, eps, eps3, class, capacity under each published law, and with
    ``tiled=True`` max |cos|, quantiles, exceedances, top pairs (with token strings where the source
    has them), the histogram counts and, for ``sample``, the sampling error.  ``rows`` keeps only the
    first ``rows`` rows (e.g. the real tokens before a padded vocabulary's padding rows).
    """

    e = embedding if embedding is not None else load(source, head=head, device="cpu", tensor=tensor)
    X = e.matrix if rows is None else e.matrix[: int(rows)]
    m = moments(X, device=device)
    d = int(X.shape[1])
    rec: dict[str, Any] = {
        "source": str(source), "source_kind": e.source_kind, "tensor": e.tensor_name, "quant": e.quant,
        "tied": e.tied, "head": bool(head), "vocab_size": int(X.shape[0]), "d_model": d, "rows_limit": rows,
        **m.to_dict(), "inv_d": 1.0 / d, "class": laws.classify(m.eps),
        "capacity": {k: _finite(laws.capacity(m.eps, d, k)) for k in laws.PUBLISHED},
        "log10_capacity": {k: float(laws.log10_capacity(m.eps, d, k)) for k in laws.PUBLISHED},
        "capacity_eps3": {k: _finite(laws.capacity(m.eps3, d, k)) for k in laws.PUBLISHED},
    }
    entry = catalog.find(str(source)) if isinstance(source, str) else None
    if entry is not None:  # the catalog's expected shape, checked against the weights actually read
        rec["catalog"] = {"key": entry.key, "expected_vocab": entry.vocab, "expected_d": entry.d_model,
                          "shape_matches": (entry.vocab in (None, int(e.matrix.shape[0]))
                                            and entry.d_model in (None, d))}
    if tiled:
        t = tiled_stats(X, bins=bins, top_k=top_k, sample=sample, seed=seed, device=device, progress=progress)
        tok = e.tokens

        def name(i: int) -> str | None:
            return tok[i] if tok is not None and 0 <= i < len(tok) else None

        rec.update({
            "tiled": True, "sampled": t.sampled, "rows_used": t.rows_used, "pairs_visited": t.n_pairs,
            "max_abs": t.max_abs, "max_abs_pair": list(t.max_abs_pair),
            "quantiles": {str(q): v for q, v in t.quantiles.items()},
            "quantiles_abs": {str(q): t.quantile(q, absolute=True) for q in t.quantiles},
            "quantile_error": t.quantile_error, "exceed": {str(k): v for k, v in t.exceed.items()},
            "exceed_abs": {str(k): v for k, v in t.exceed_abs.items()},
            "tiled_mean": t.mean, "tiled_std": t.std, "tiled_eps": t.eps, "sampling_error": t.sampling_error,
            "top_pairs": [{"i": i, "j": j, "cos": c, "token_i": name(i), "token_j": name(j)} for i, j, c in t.top_pairs],
            "nn_cos_quantiles": {str(q): float(np.quantile(t.nn_cos, q)) for q in (0.01, 0.1, 0.5, 0.9, 0.99)},
            "nn_cos_mean": float(np.mean(t.nn_cos)),
            "hist_counts": t.counts.tolist(), "hist_range": [-1.0, 1.0],
        })
    return rec


def describe_point(config: dict) -> dict:
    """:func:`describe` for one sweep config (``source`` plus :func:`describe`'s keyword options)."""
    cfg = dict(config)
    source = cfg.pop("source")
    cfg.pop("label", None)
    cfg.pop("file_signature", None)  # part of the cache key only
    return describe(source, progress=False, **cfg)


def scan(configs: Sequence[dict], *, cache: str = "embedding-stats", progress: bool = True
         ) -> tuple[list[dict], list[dict]]:
    """Run :func:`describe_point` over ``configs`` through the content-addressed cache; a model that
    fails (hub error, missing tensor, ...) is recorded as ``{"source", "error"}`` and the scan goes on.
    Failures are not cached, so a re-run tries them again.  Returns ``(records, failures)``; each
    record carries its config's ``label`` (default: the source)."""
    configs = [dict(c) for c in configs]
    for cfg in configs:  # a local file's size and mtime join the cache key: an edited file is re-read
        p = Path(str(cfg["source"])).expanduser()
        if p.is_file():
            st = p.stat()
            cfg["file_signature"] = f"{st.st_size}:{st.st_mtime_ns}"
    # One sweep over all models, so that on a cluster (sweep.set_default_executor) they run in parallel.
    rep = sweep.run(describe_point, configs, cache=cache, progress=progress, desc="models", on_error="collect")
    failed = {e["index"]: e["error"] for e in rep.errors}
    records, failures = [], []
    for i, (cfg, rec) in enumerate(zip(configs, rep.results)):
        label = cfg.get("label", cfg["source"])
        if i in failed or rec is None:
            failures.append({"source": cfg["source"], "label": label, "error": failed.get(i, "no result")})
        else:
            records.append({**rec, "label": label})
    return records, failures
