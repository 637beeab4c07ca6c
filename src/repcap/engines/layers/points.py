"""The layer survey as sweep points: every matrix of a model, and a Gaussian baseline per shape.

A Gaussian baseline at each distinct shape, ``(n, d)`` directions drawn with
:func:`repcap.engines.random_geometry.unit_vectors` (seeded, on the CPU so that every device draws the
same), shows how far training moved a matrix from random (E cos = 0 and E cos^2 = 1/d exactly).
:func:`records` runs models and baselines through the content-addressed sweep cache.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from pathlib import Path

from repcap import sweep
from repcap.models.matrix import Embedding
from repcap.sweep.registry import point_function

from ..random_geometry import unit_vectors
from ..survey import NUMERICS, describe
from .config import DEFAULTS
from .names import find_layers
from .tensors import matrices


def model_point(config: dict) -> dict:
    """Sweep point: every matrix of one model (``source``, ``label``, ``kinds``, ``device``)."""
    recs = list(
        matrices(
            config["source"], label=config.get("label"), kinds=config.get("kinds"), device=config.get("device", "auto")
        )
    )
    return {"source": config["source"], "label": config.get("label") or config["source"], "records": recs}


def gaussian(n: int, d: int, seed: int = DEFAULTS.seed) -> Embedding:
    """``n`` Gaussian directions in R^d (unit rows, drawn on the CPU from ``seed``)."""
    return Embedding(
        matrix=unit_vectors(int(n), int(d), seed=int(seed), device="cpu"),
        name=f"gaussian {n}x{d}",
        source_kind="gaussian",
        tensor_name=None,
        tied=None,
    )


@point_function(
    "layers.baseline",
    numerics=NUMERICS,
    execution=("device",),
    metrics=("mean", "std"),
    legacy=("repcap.layers.points:baseline_point",),
)
def baseline_point(config: dict) -> dict:
    """Sweep point: the record of :func:`gaussian` ``(n, d, seed)`` (``device`` for the moments)."""
    n, d, seed = int(config["n"]), int(config["d"]), int(config["seed"])
    rec = dict(
        describe(f"gaussian {n}x{d} seed {seed}", embedding=gaussian(n, d, seed), device=config.get("device", "auto"))
    )
    rec.update({"n_directions": n, "seed": seed, "expected_mean": 0.0, "expected_mean_sq": 1.0 / d})
    return rec


#: The baseline fields attached to every record (``record["baseline"]``).
BASELINE_FIELDS = (
    "n_rows",
    "d",
    "mean",
    "std",
    "mean_sq",
    "eps",
    "eps3",
    "class",
    "capacity",
    "log10_capacity",
    "seed",
)


def _with_signature(cfg: dict) -> dict:
    """A local file's size and mtime join the cache key (an edited file is re-read), as in
    :func:`repcap.engines.survey.scan`."""
    try:
        st = Path(str(cfg["source"])).expanduser().stat()
    except (OSError, ValueError):
        return cfg
    if stat.S_ISREG(st.st_mode):
        cfg["file_signature"] = f"{st.st_size}:{st.st_mtime_ns}"
    return cfg


@point_function("layers.model", numerics=NUMERICS, execution=("device",), legacy=("repcap.layers.points:_point",))
def _point(config: dict) -> dict:
    cfg = {k: v for k, v in config.items() if k != "file_signature"}
    return model_point(cfg)


def records(
    configs: Sequence[dict],
    *,
    kinds: Sequence[str] | None = None,
    seed: int | None = None,
    cache: str = "layer-stats",
    progress: bool = True,
) -> tuple[list[dict], list[dict]]:
    """Every matrix of every model in ``configs`` (each ``{source, label?, device?}``), through the
    sweep cache, each record with its Gaussian baseline at the same shape under ``"baseline"``
    (computed once per distinct shape).  ``kinds`` and ``seed`` default to :data:`DEFAULTS`.  A model
    that cannot be read is a failure ``{source, label, error}`` and the others go on.  Returns
    ``(records, failures)``; records are flat, in model order (embedding, head, layers)."""
    kinds = list(kinds) if kinds is not None else list(DEFAULTS.kinds)
    find_layers({}, kinds)  # unknown kinds fail before any model is read
    seed = DEFAULTS.seed if seed is None else int(seed)
    cfgs = [
        _with_signature(
            {
                "source": str(c["source"]),
                "label": c.get("label") or str(c["source"]),
                "kinds": kinds,
                "device": c.get("device", "auto"),
            }
        )
        for c in configs
    ]
    rep = sweep.run(_point, cfgs, cache=cache, progress=progress, desc="models", on_error="collect")
    failed = {e["index"]: e["error"] for e in rep.errors}
    out: list[dict] = []
    failures: list[dict] = []
    for i, (cfg, res) in enumerate(zip(cfgs, rep.results)):
        if i in failed or res is None:
            failures.append({"source": cfg["source"], "label": cfg["label"], "error": failed.get(i, "no result")})
        else:
            out += res["records"]
    device = {c["label"]: c["device"] for c in cfgs}
    shapes: dict[tuple[int, int], str] = {}
    for r in out:
        shapes.setdefault((int(r["vocab_size"]), int(r["d_model"])), device[r["label"]])
    bcfgs = [{"n": n, "d": d, "seed": seed, "device": dev} for (n, d), dev in shapes.items()]
    brep = sweep.run(baseline_point, bcfgs, cache=cache, progress=progress, desc="baselines")
    base = {(c["n"], c["d"]): b for c, b in zip(bcfgs, brep.results)}
    for r in out:
        b = base[(int(r["vocab_size"]), int(r["d_model"]))]
        r["baseline"] = {k: b[k] for k in BASELINE_FIELDS}
    return out, failures
