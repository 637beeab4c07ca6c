"""The tables behind the Reproducibility chapter: one identity computed on two machines (a
:class:`repcap.results.bundle.Comparison`), and what a bundle's provenance says of its points (a
:class:`repcap.results.bundle.Status`).  Nothing here reads a file."""

from __future__ import annotations

from typing import Any

import pandas as pd


def comparison_table(cmp: Any) -> pd.DataFrame:
    """One row per (function, metric) of a comparison: pairs, the mean of ln(a/b) and its 95%
    interval, the pairs' sd, the seed scatter it is judged against, and the verdict with its reason."""
    cols = [
        "function",
        "metric",
        "pairs",
        "mean ln(a/b)",
        "95% interval low",
        "95% interval high",
        "sd ln(a/b)",
        "seed sd",
        "seed dof",
        "verdict",
        "reason",
    ]
    return pd.DataFrame([m.row() for m in cmp.metrics], columns=cols)


def pairs_table(cmp: Any) -> pd.DataFrame:
    """One row per identity and metric computed on both sides: its config's headline settings, the
    two values, the devices and ln(a/b)."""
    rows = []
    for p in cmp.pairs:
        c = p.config
        rows.append(
            {
                "experiment": p.experiment,
                "point": ", ".join(f"{k}={c[k]}" for k in ("k", "d", "n", "m", "alpha", "gamma", "seed") if k in c),
                "metric": p.metric,
                "a": p.a,
                "b": p.b,
                "device a": p.device_a,
                "device b": p.device_b,
                "ln(a/b)": p.log_ratio,
            }
        )
    cols = ["experiment", "point", "metric", "a", "b", "device a", "device b", "ln(a/b)"]
    return pd.DataFrame(rows, columns=cols)


def pairs_figure(cmp: Any) -> pd.DataFrame:
    """:func:`pairs_table` with what its figure draws of each metric: ``panel`` (its panel, from 0;
    -1 for a metric with no pair), ``seed sd`` (the grey band), ``interval low`` and ``interval
    high`` (the 95% interval of the mean) and ``verdict`` (the panel's title)."""
    pairs = pairs_table(cmp)
    drawn = [m for m in cmp.metrics if m.n]
    info = {
        m.metric: {
            "panel": i,
            "seed sd": m.seed_sd,
            "interval low": None if m.interval is None else m.interval[0],
            "interval high": None if m.interval is None else m.interval[1],
            "verdict": m.verdict,
        }
        for i, m in enumerate(drawn)
    }
    blank = {"panel": -1, "seed sd": None, "interval low": None, "interval high": None, "verdict": ""}
    extra = pd.DataFrame([info.get(m, blank) for m in pairs.metric], index=pairs.index)
    return pd.concat([pairs, extra], axis=1)


def status_table(statuses: dict[str, Any]) -> pd.DataFrame:
    """One row per bundle: its points fresh, stale, missing and replicated, how many were computed
    under other package versions or by an engine edited since (information, not staleness), and on
    which devices."""
    rows = []
    for name, st in statuses.items():
        rows.append(
            {
                "bundle": name,
                "fresh": st.total("fresh") + st.total("summaries"),
                "stale": st.total("stale"),
                "missing": st.total("missing"),
                "replicas": st.total("replicas"),
                "other versions": st.total("other_versions"),
                "engine edited since": st.total("edited"),
                "devices": "; ".join(f"{d} ({n})" for d, n in sorted(st.devices.items())),
            }
        )
    cols = ["bundle", "fresh", "stale", "missing", "replicas", "other versions", "engine edited since", "devices"]
    return pd.DataFrame(rows, columns=cols)
