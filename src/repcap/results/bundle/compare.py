"""Comparing results of one identity computed twice: on another device, under other versions, on
another machine.  ``repcap bundle compare A [B]`` and the book's Reproducibility chapter use it.

Two runs of one point (same engine numerics, same config, same data) differ only in their bits:
another device draws its random numbers from another stream and sums in another order.  So the
yardstick is the *seed scatter*: how much one point moves when only its seed changes.  For each
function and metric (the ``metrics`` it registered, e.g. the toy's ``loss``, a packing's
``eps_star``):

* the paired differences are ``d_i = ln(a_i) - ln(b_i)`` over the identities both hold (A's primary
  against B's primary, or, for one bundle, each point's primary against its replicas);
* the seed scatter ``s`` is the pooled standard deviation of ``ln(metric)`` over the groups of
  points that differ only in their seed, each bundle's groups on their own (``dof`` its degrees of
  freedom);
* the verdict:

  - ``agree within seed scatter``: the 95% t interval of the mean of ``d`` lies inside ``(-s, s)``
    (a shift smaller than one seed's scatter), and the spread of ``d`` is not larger than two
    independent runs give (``var d <= 2 s^2`` at 95%, an F test on ``(n - 1, dof)``);
  - ``differs``: the interval lies outside ``(-s, s)``, or the spread is larger at 95%;
  - ``inconclusive``: fewer than 3 pairs, no seed scatter (no point of the bundles was computed for
    two seeds), or an interval that straddles ``+-s``.

The margin ``s`` is fixed by the seeds before the comparison is made; it is not chosen to fit the
gap.  Values that are not positive numbers are left out of the logarithms (and counted).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.sweep import canonical
from repcap.sweep.registry import get

from .schema import Bundle, BundleEntry, read

#: The confidence of the interval and of the spread test.
LEVEL = 0.95


@dataclass
class Pair:
    """One identity computed twice: its config, the two values of one metric, and where each ran."""

    fn: str
    experiment: str
    config: dict
    metric: str
    a: float
    b: float
    device_a: str
    device_b: str

    @property
    def log_ratio(self) -> float:
        return math.log(self.a) - math.log(self.b)


@dataclass
class MetricComparison:
    """The paired comparison of one metric of one function (see the module docstring)."""

    fn: str
    metric: str
    n: int
    mean: float | None  # mean of ln(a/b)
    sd: float | None  # sd of ln(a/b)
    interval: tuple[float, float] | None  # LEVEL t interval of the mean
    seed_sd: float | None  # pooled sd of ln(metric) across seeds
    seed_dof: int
    verdict: str
    reason: str
    skipped: int = 0  # pairs whose values are not both positive

    def row(self) -> dict[str, Any]:
        lo, hi = self.interval if self.interval else (None, None)
        return {
            "function": self.fn,
            "metric": self.metric,
            "pairs": self.n,
            "mean ln(a/b)": self.mean,
            "95% interval low": lo,
            "95% interval high": hi,
            "sd ln(a/b)": self.sd,
            "seed sd": self.seed_sd,
            "seed dof": self.seed_dof,
            "verdict": self.verdict,
            "reason": self.reason,
        }


@dataclass
class Comparison:
    a: str
    b: str
    metrics: list[MetricComparison]
    pairs: list[Pair] = field(default_factory=list)

    def describe(self) -> str:
        lines = [f"compare {self.a} (a) with {self.b} (b): {len({_pair_id(p) for p in self.pairs})} shared points"]
        for m in self.metrics:
            if m.n == 0:
                lines.append(f"  {m.fn} {m.metric}: no pair ({m.reason})")
                continue
            iv = f"[{m.interval[0]:+.4f}, {m.interval[1]:+.4f}]" if m.interval else "n/a"
            sd = f"{m.sd:.4f}" if m.sd is not None else "n/a"
            seed = f"{m.seed_sd:.4f} ({m.seed_dof} dof)" if m.seed_sd is not None else "none"
            lines.append(
                f"  {m.fn} {m.metric}: n = {m.n}, mean ln(a/b) = {m.mean:+.4f}, 95% interval {iv}, sd {sd}; "
                f"seed scatter {seed}: {m.verdict} ({m.reason})"
            )
        return "\n".join(lines)


def _pair_id(p: Pair) -> str:
    return p.fn + canonical(p.config)


def _positive(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def _device(be: BundleEntry) -> str:
    return str(be.data["provenance"]["device"])


def _pairs(a: Bundle, b: Bundle | None) -> list[tuple[BundleEntry, BundleEntry]]:
    """(a, b) entries of the same identity: A's primary against B's primary, or within A each
    primary against its replicas."""
    out = []
    if b is None:
        prim = {(be.experiment, be.key): be for be in a.entries if be.primary}
        for be in a.entries:
            if not be.primary:
                out.append((prim[(be.experiment, be.key)], be))
        return out
    theirs: dict[str, BundleEntry] = {}
    for be in b.entries:
        if be.primary:
            theirs.setdefault(be.key, be)
    seen = set()
    for be in a.entries:
        if be.primary and be.key in theirs and be.key not in seen:
            seen.add(be.key)
            out.append((be, theirs[be.key]))
    return out


def seed_scatter(bundles: Iterable[Iterable[BundleEntry]], fn: str, metric: str) -> tuple[float | None, int]:
    """The pooled sd of ``ln(metric)`` over the groups of ``fn``'s primaries that differ only in
    their seed, each bundle's groups on their own (``(None, 0)`` where no group has two seeds), and
    its degrees of freedom."""
    ss, dof = 0.0, 0
    for entries in bundles:
        groups: dict[str, dict[str, float]] = {}
        for be in entries:
            if not be.primary or be.data["fn"] != fn:
                continue
            v = be.data["result"].get(metric)
            if not _positive(v):
                continue
            ident = dict(be.data["identity"])
            seed = ident.pop("seed", 0)
            groups.setdefault(canonical(ident), {})[canonical(seed)] = math.log(float(v))
        for vals in groups.values():
            if len(vals) < 2:
                continue
            xs = list(vals.values())
            mu = sum(xs) / len(xs)
            ss += sum((x - mu) ** 2 for x in xs)
            dof += len(xs) - 1
    return (math.sqrt(ss / dof), dof) if dof else (None, 0)


def judge(
    d: list[float], seed_sd: float | None, seed_dof: int
) -> tuple[float | None, float | None, tuple | None, str, str]:
    """``(mean, sd, interval, verdict, reason)`` of paired log-differences ``d`` against the seed
    scatter (see the module docstring)."""
    from scipy import stats

    n = len(d)
    if n == 0:
        return None, None, None, "inconclusive", "no pair"
    mean = sum(d) / n
    if n < 2:
        return mean, None, None, "inconclusive", "one pair: no interval"
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    half = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1)) * sd / math.sqrt(n)
    interval = (mean - half, mean + half)
    if n < 3:
        return mean, sd, interval, "inconclusive", f"{n} pairs: too few to judge (3 at least)"
    if seed_sd is None or seed_dof < 2:
        return mean, sd, interval, "inconclusive", "no seed scatter: no point of the bundles was run for two seeds"
    f_crit = float(stats.f.ppf(LEVEL, n - 1, seed_dof))
    too_spread = sd**2 > f_crit * 2 * seed_sd**2
    inside = -seed_sd < interval[0] and interval[1] < seed_sd
    outside = interval[0] >= seed_sd or interval[1] <= -seed_sd
    if too_spread:
        return (
            mean,
            sd,
            interval,
            "differs",
            (f"the pairs spread more than two independent runs (sd {sd:.4f} > sqrt(2 F) x {seed_sd:.4f})"),
        )
    if outside:
        return mean, sd, interval, "differs", f"the shift's interval lies outside one seed's scatter (+-{seed_sd:.4f})"
    if inside:
        return (
            mean,
            sd,
            interval,
            "agree within seed scatter",
            (f"the shift's interval lies inside +-{seed_sd:.4f} and the spread is that of independent runs"),
        )
    return mean, sd, interval, "inconclusive", f"the shift's interval straddles one seed's scatter (+-{seed_sd:.4f})"


def compare(a: str | Path, b: str | Path | None = None) -> Comparison:
    """Compare bundle ``a`` with bundle ``b`` over the identities both hold (or, without ``b``, the
    primaries of ``a`` with their replicas); nothing is computed or written."""
    ba = read(a)
    bb = read(b) if b is not None else None
    entry_pairs = _pairs(ba, bb)
    pool = [ba.entries] + ([bb.entries] if bb is not None else [])
    pairs: list[Pair] = []
    skipped: dict[tuple[str, str], int] = {}
    for ea, eb in entry_pairs:
        fn = ea.data["fn"]
        for metric in get(fn).metrics:
            va, vb = ea.data["result"].get(metric), eb.data["result"].get(metric)
            if _positive(va) and _positive(vb):
                pairs.append(
                    Pair(fn, ea.experiment, ea.data["config"], metric, float(va), float(vb), _device(ea), _device(eb))
                )
            else:
                skipped[(fn, metric)] = skipped.get((fn, metric), 0) + 1
    metrics = []
    for fn, metric in sorted({(p.fn, p.metric) for p in pairs} | set(skipped)):
        d = [p.log_ratio for p in pairs if (p.fn, p.metric) == (fn, metric)]
        s, dof = seed_scatter(pool, fn, metric)
        mean, sd, interval, verdict, reason = judge(d, s, dof)
        metrics.append(
            MetricComparison(
                fn, metric, len(d), mean, sd, interval, s, dof, verdict, reason, skipped.get((fn, metric), 0)
            )
        )
    label_b = str(bb.path) if bb is not None else f"{ba.path} (replicas)"
    if not entry_pairs:
        what = "no replica" if bb is None else "no point in common"
        raise RepcapError(f"bundle compare: {ba.path} and {label_b} have {what}; nothing to compare")
    return Comparison(str(ba.path), label_b, metrics, pairs)
