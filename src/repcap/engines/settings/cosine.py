"""The settings of a tiled pass over the pairs of unit rows (:func:`repcap.engines.cosine.tiled_stats`):
:class:`TiledConfig`, the one place their defaults, help and checks are written."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from repcap import RepcapError
from repcap.base import config

#: The precisions of the products of a tiled pass (``TiledConfig.precision``).
PRECISIONS = ("fp32", "tf32", "bf16")


def _even_bins(name: str, v: Any) -> None:
    if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 2 or v % 2:
        raise RepcapError(f"{name}={v!r}: use an even number >= 2 (bins are symmetric about 0)")


def _cosine(name: str, v: Any) -> None:
    if not isinstance(v, numbers.Real) or isinstance(v, bool) or not -1.0 <= float(v) <= 1.0:
        raise RepcapError(f"{name}={v!r} must be a cosine in [-1, 1]")


@dataclass(frozen=True)
class TiledConfig:
    """What :func:`tiled_stats` computes: the one place its settings' defaults, help and checks are
    written (``repcap stats`` derives its flags from it, :func:`repcap.engines.survey.describe` takes it).

    Every field is part of what is computed (``groups`` and ``seed`` only with a ``sample``).  How
    the pass runs is not a setting: the device, the memory budget (which sets the tile size) and the
    progress bar are keyword arguments of :func:`tiled_stats`.  (The tile size is not bit-neutral:
    the pass sums each tile in float32, so a different tiling moves ``mean``, ``std``, ``mean_sq``
    and ``mean_abs`` in their last float32 digits, up to about 1e-5 relative.)  Lists are kept as
    tuples, so a config is hashable and compares equal to the same config spelled with lists."""

    bins: int = config.setting(2000, "histogram bins on [-1, 1] (even; 2000 is a width of 0.001)", check=_even_bins)
    top_k: int = config.setting(20, "most similar pairs to list", check=config.count(0))
    thresholds: tuple[float, ...] = config.setting(
        (0.1, 0.2, 0.3, 0.5, 0.9),
        "exceedance thresholds t: P(cos > t) and P(|cos| > t)",
        check=config.each(_cosine),
        metavar="X",
    )
    quantiles: tuple[float, ...] = config.setting(
        (0.5, 0.9, 0.95, 0.99, 0.999, 0.9999),
        "quantiles of cos to report",
        check=config.each(config.probability),
        metavar="X",
    )
    sample: int | None = config.setting(
        None,
        "visit only the pairs of N rows drawn at random, and report the sampling error; None: all rows",
        check=config.count(2),
        metavar="N",
    )
    groups: int = config.setting(8, "row groups for the sampling error (with a sample)", check=config.count(1))
    seed: int = config.setting(0, "row-sample seed (with a sample)", check=config.seed)
    precision: str = config.setting(
        "fp32",
        "the products' inputs: fp32 (exact float32), or rounded to tf32 or bf16 (tensor cores on a GPU, the same "
        "rounding emulated on a CPU): each cosine then errs by at most 2u + u² (tf32: 9.8e-4, one 0.001 bin; bf16: "
        "7.8e-3, eight bins); the exact moments are not affected",
        choices=PRECISIONS,
    )

    def __post_init__(self) -> None:
        for name in ("thresholds", "quantiles"):
            v = getattr(self, name)
            if isinstance(v, list):
                object.__setattr__(self, name, tuple(v))
        config.check(self)
