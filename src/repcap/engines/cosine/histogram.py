"""A fixed-bin histogram of cosines, and everything read off it.

One type for every histogram in the book: the tiled pass fills one on [-1, 1]; packing reads its
|cos| half; row-norm histograms use :meth:`Histogram.of`.  Counts are exact integers kept in
float64 (exact up to 2^53 pairs).  Quantiles and fractions are linear inside a bin, so their
error is at most one bin width (or one bin's mass).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from repcap import RepcapError

__all__ = ["Histogram", "bin_index", "tile_counts"]


def bin_index(vals: torch.Tensor, bins: int, lo: float = -1.0, hi: float = 1.0) -> torch.Tensor:
    """Bin of each value on ``bins`` equal bins of ``[lo, hi]``, computed as ``torch.histc`` does
    (``(v - lo) * bins / (hi - lo)``, truncated; ``v == hi`` in the last bin).  Values must lie in
    ``[lo, hi]``."""
    return ((vals - lo) * bins / (hi - lo)).long().clamp_(0, bins - 1)


def tile_counts(vals: torch.Tensor, bins: int, lo: float = -1.0, hi: float = 1.0) -> torch.Tensor:
    """Counts of one tile of values, as float64 ``(bins,)``: integer bin indices and one
    ``bincount`` (cheaper than ``histc``, the same counts)."""
    return torch.bincount(bin_index(vals.reshape(-1), bins, lo, hi), minlength=bins).to(torch.float64)


@dataclass
class Histogram:
    """Counts on ``len(counts)`` equal bins of ``[lo, hi]``; ``edges`` and ``width`` derive from them."""

    counts: np.ndarray
    lo: float = -1.0
    hi: float = 1.0

    def __post_init__(self) -> None:
        self.counts = np.asarray(self.counts, dtype=np.float64)
        if self.counts.ndim != 1 or len(self.counts) < 1:
            raise RepcapError("a histogram needs a 1-D array of at least one count")
        if not self.hi > self.lo:
            raise RepcapError(f"histogram range [{self.lo}, {self.hi}] is empty")

    @classmethod
    def of(cls, values, bins: int = 40, lo: float = 0.0, hi: float = 2.0, clip: bool = True) -> Histogram:
        """The histogram of ``values``; with ``clip`` values outside ``[lo, hi]`` go to the end bins."""
        a = np.asarray(values, dtype=np.float64).ravel()
        if clip:
            a = np.clip(a, lo, hi)
        counts, _ = np.histogram(a, bins=bins, range=(lo, hi))
        return cls(counts.astype(np.float64), lo, hi)

    @property
    def bins(self) -> int:
        return len(self.counts)

    @property
    def edges(self) -> np.ndarray:
        return np.linspace(self.lo, self.hi, self.bins + 1)

    @property
    def centres(self) -> np.ndarray:
        e = self.edges
        return (e[:-1] + e[1:]) / 2

    @property
    def width(self) -> float:
        return (self.hi - self.lo) / self.bins

    @property
    def total(self) -> float:
        return float(self.counts.sum())

    def density(self) -> np.ndarray:
        """Counts as a probability density (integrates to 1); NaN if empty."""
        t = self.total
        return self.counts / (t * self.width) if t > 0 else np.full(self.bins, np.nan)

    def rebin(self, factor: int) -> Histogram:
        """Merge every ``factor`` neighbouring bins (``factor`` must divide the number of bins)."""
        if factor < 1 or self.bins % factor:
            raise RepcapError(f"cannot merge {self.bins} bins in groups of {factor}")
        return Histogram(self.counts.reshape(-1, factor).sum(axis=1), self.lo, self.hi)

    def folded(self) -> Histogram:
        """The histogram of |x| on [0, hi] from a symmetric one on [-hi, hi] (even number of bins)."""
        if self.lo != -self.hi or self.bins % 2:
            raise RepcapError("folding needs a histogram symmetric about 0 with an even number of bins")
        h = self.bins // 2
        return Histogram(self.counts[h:] + self.counts[:h][::-1], 0.0, self.hi)

    def quantile(self, q: float) -> float:
        """The ``q`` quantile, linear inside its bin (error at most one bin width); NaN if empty."""
        if not 0.0 <= q <= 1.0:
            raise RepcapError(f"quantile {q} must be in [0, 1]")
        t = self.total
        if t <= 0:
            return float("nan")
        cdf = np.concatenate([[0.0], np.cumsum(self.counts)]) / t
        k = min(max(int(np.searchsorted(cdf, q, side="left")), 1), self.bins)
        lo_, hi_ = cdf[k - 1], cdf[k]
        frac = 0.0 if hi_ <= lo_ else (q - lo_) / (hi_ - lo_)
        e = self.edges
        return float(e[k - 1] + frac * (e[k] - e[k - 1]))

    def fraction_below(self, x: float) -> float:
        """P(value <= x), linear inside the bin (error at most one bin's mass); NaN if empty."""
        t = self.total
        if t <= 0:
            return float("nan")
        pos = (float(x) - self.lo) / (self.hi - self.lo) * self.bins
        k = int(min(max(math.floor(pos), 0), self.bins))
        below = self.counts[:k].sum() + (self.counts[k] * (pos - k) if k < self.bins else 0.0)
        return float(min(max(below / t, 0.0), 1.0))

    def is_edge(self, x: float) -> bool:
        pos = (float(x) - self.lo) / self.width
        return abs(pos - round(pos)) <= 1e-6

    def count_above(self, x: float) -> float:
        """The number of values above ``x``; exact when ``x`` is a bin edge."""
        if not self.is_edge(x):
            raise RepcapError(f"{x} is not a bin edge; count it in the pass instead")
        return float(self.counts[int(round((float(x) - self.lo) / self.width)) :].sum())


def quantiles(h: Histogram, qs: Sequence[float]) -> dict[float, float]:
    return {float(q): h.quantile(float(q)) for q in qs}
