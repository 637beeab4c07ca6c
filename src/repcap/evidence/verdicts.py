"""The verdict rule: our number against the source's, from the two numbers, their uncertainties and
the tolerance stated in the claim's row (the vocabulary is :data:`VERDICTS`; the scorecard,
:mod:`repcap.evidence.scorecard`, describes each verdict).

:func:`verdict` is the rule.  A point value, range, bound or count is judged on the regions of our
number that pass whatever the source's number is within its interval and those that pass for some
source value (:func:`_regions`); a ``combined`` row on :data:`Z` combined standard errors
(:func:`_combined`).  Nothing here reads a claim or a finding: :mod:`repcap.evidence.rows` hands
the rule their numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from repcap import RepcapError
from repcap.base.quotes import pretty

VERDICTS = (
    "reproduced",
    "reproduced within",
    "consistent, not decisive",
    "differs",
    "differs (explained)",
    "inconclusive",
    "not checked in this profile",
)
#: ``combined`` rows: ours and the source's agree when they are at most Z combined standard errors
#: apart, |ours - theirs| <= Z sqrt(se_ours^2 + se_theirs^2): a two-sided test at about the 5% level
#: for normal errors (the conventional choice; it was set after the first numbers had been printed,
#: as Methods says).
Z = 2.0


@dataclass(frozen=True)
class Verdict:
    kind: str  # one of VERDICTS
    text: str  # the verdict as printed

    @property
    def ok(self) -> bool:
        return self.kind in ("reproduced", "reproduced within")


def _fmt(x: float, fmt: str) -> str:
    if fmt == "d":
        return str(int(round(x)))
    return pretty(x, fmt)


def _regions(
    compare: str, value: float | None, low: float | None, high: float | None, tol: float
) -> tuple[tuple[float, float], tuple[float, float], bool]:
    """``(sure, possible, strict)``: the values of ours that pass whatever the source's number is
    within its interval, those that pass for some source value, and whether an open lower end
    (``above`` with no tolerance) is strict."""
    inf = math.inf

    def need(x: float | None) -> float:
        if x is None:
            raise RepcapError(f"compare={compare!r} needs value")
        return x

    if compare in ("abs", "rel", "equal"):
        v = need(value)
        if compare == "rel":
            if v == 0:
                raise RepcapError("compare='rel' needs a non-zero source value")
            tol = tol * abs(v)
        s_lo, s_hi = (low, high) if (low is not None and high is not None and compare != "equal") else (v, v)
        return (s_hi - tol, s_lo + tol), (s_lo - tol, s_hi + tol), False
    if compare == "range":
        if low is None or high is None:
            raise RepcapError(f"compare={compare!r} needs low and high")
        return (low - tol, high + tol), (low - tol, high + tol), False
    if compare == "above":
        v = need(value)
        return (v - tol, inf), (v - tol, inf), tol == 0
    if compare == "below":
        v = need(value)
        return (-inf, v + tol), (-inf, v + tol), False
    raise RepcapError(f"unknown compare {compare!r}; use one of abs, rel, range, above, below, equal, combined")


def _inside(x: float, region: tuple[float, float], strict_low: bool) -> bool:
    lo, hi = region
    return (x > lo if strict_low else x >= lo) and x <= hi


def _combined(
    ours: float,
    value: float | None,
    se: float | None,
    source_se: float | None,
    tol: float,
    fmt: str,
    why: str,
    replicate_sd: float | None = None,
    window_max: float | None = None,
) -> tuple[str, str]:
    """The ``combined`` rule: ``(kind, text)``, on one currency of uncertainty.  ``replicate_sd``
    (ours a mean over seeds): the source's single replicate carries the seed scatter too, so its
    variance is its bar's plus ``replicate_sd``²; without it (ours one fit) both are regression
    standard errors.  A pass window (Z combined standard errors plus the tolerance) wider than the
    row's stated ``window_max`` is never decisive."""
    if value is None or source_se is None:
        raise RepcapError("compare='combined' needs value and source_se (the source's error bar)")
    if se is None or not math.isfinite(se):
        return "inconclusive", "inconclusive: our value has no standard error recorded"
    if replicate_sd is not None and math.isfinite(replicate_sd):
        source_se = math.hypot(source_se, replicate_sd)
    s = math.sqrt(se**2 + source_se**2)
    d = abs(ours - value)
    z = d / s if s > 0 else (0.0 if d == 0 else math.inf)
    zt = f"{z:.1f}" if math.isfinite(z) else "∞"
    if d > Z * s + tol + 1e-12 * max(1.0, abs(value)):  # the boundary is inclusive, up to rounding
        return "differs", f"differs: {zt} combined SEs apart; {why}"
    bare = fmt.replace("+", "")
    if se > max(source_se, tol / Z):
        return (
            "consistent, not decisive",
            f"consistent, not decisive: {zt} combined SEs apart; our SE ({_fmt(se, bare)}) exceeds the "
            f"source's ({_fmt(source_se, bare)})",
        )
    window = Z * s + tol
    if window_max is not None and window > window_max:
        return (
            "consistent, not decisive",
            f"consistent, not decisive: {zt} combined SEs apart, a pass window of ±{_fmt(window, '.2g')} "
            f"(wider than the row's ±{window_max:g})",
        )
    return "reproduced within", f"reproduced within {_fmt(d, '.2g')} ({zt} combined SEs)"


def _not_checked(checked_by: Sequence[str] | None, decide: str) -> Verdict:
    """No number from a profile that checks the claim: the verdict names the profiles that do."""
    who = ", ".join(f"`{p}`" for p in checked_by) if checked_by else ""
    tail = f" (checked by {who})" if who else (" (no profile can check it)" if checked_by is not None else "")
    return Verdict(
        "not checked in this profile", f"not checked in this profile{tail}" + (f": {decide}" if decide else "")
    )


def _explained(explained: str) -> Verdict:
    """Outside, for the systematic reason the row states."""
    return Verdict("differs (explained)", f"differs (explained: {explained})")


def _difference(ours: float, value: float | None, compare: str, fmt: str) -> str:
    """How far ours is from the source's point value, as a ``reproduced within`` verdict prints it:
    relative for ``rel`` (a percentage), in the row's units for ``abs``."""
    v = float(value if value is not None else 0.0)
    diff = abs(ours - v)
    if compare == "rel":
        rel = diff / abs(v)
        return f"{rel:.2%}" if rel >= 1e-4 else f"{rel:.1e}"
    return format(diff, ".1%") if fmt.endswith("%") else _fmt(diff, ".2g")


def _on_regions(
    ours: float,
    ours_span: tuple[float | None, float | None],
    compare: str,
    source: tuple[float | None, float | None, float | None],
    tol: float,
    fmt: str,
    why: str,
    then: str,
    explained: str,
) -> Verdict:
    """Every rule but ``combined``: ours and its whole interval (``ours_span``) against the regions
    that pass for the source's ``(value, low, high)`` (:func:`_regions`); an interval with values
    in both is inconclusive."""
    value, low, _ = source
    ours_low, ours_high = ours_span
    sure, possible, strict = _regions(compare, *source, tol)
    lo = ours if ours_low is None or not math.isfinite(ours_low) else min(ours, float(ours_low))
    hi = ours if ours_high is None or not math.isfinite(ours_high) else max(ours, float(ours_high))
    all_pass = _inside(lo, sure, strict) and _inside(hi, sure, strict) and sure[0] <= sure[1]
    none_pass = hi < possible[0] or lo > possible[1] or (strict and hi <= possible[0])
    if not all_pass and not none_pass:
        span = f"[{_fmt(lo, fmt)}, {_fmt(hi, fmt)}]" if lo != hi else _fmt(ours, fmt)
        src = "the source's interval" if (low is not None and compare in ("abs", "rel")) else "the tolerance"
        return Verdict("inconclusive", f"inconclusive: ours {span} reaches both sides of {src}{then}")
    if none_pass:
        return _explained(explained) if explained else Verdict("differs", f"differs: {why}")
    if compare in ("abs", "rel"):
        return Verdict("reproduced within", f"reproduced within {_difference(ours, value, compare, fmt)}")
    return Verdict("reproduced", "reproduced")


def verdict(
    ours: float | None,
    compare: str,
    *,
    value: float | None = None,
    low: float | None = None,
    high: float | None = None,
    tolerance: float = 0.0,
    fmt: str = ".3g",
    reason: str = "",
    checked_by: Sequence[str] | None = None,
    ours_low: float | None = None,
    ours_high: float | None = None,
    n: int | None = None,
    n_of: str = "points",
    min_n: int = 1,
    explained: str = "",
    decide: str = "",
    undecided: str = "",
    se: float | None = None,
    source_se: float | None = None,
    replicate_sd: float | None = None,
    window_max: float | None = None,
) -> Verdict:
    """The verdict on our number ``ours`` (interval ``ours_low..ours_high``, standard error ``se``,
    from ``n`` points) against the source's ``value`` (or ``low``..``high``; ``source_se``: its
    standard error).

    ``compare``: ``abs`` / ``rel`` (point value within ``tolerance``, relative for ``rel``; a
    source that gives an interval as well as a value is taken at every value of its interval),
    ``range`` (inside ``low - tolerance .. high + tolerance``), ``above`` / ``below``
    (``ours > value - tolerance`` / ``ours < value + tolerance``), ``equal``, ``combined``
    (``|ours - value| <= Z sqrt(se^2 + source_se^2) + tolerance``).  ``ours`` None (or not
    finite): not checked, naming ``checked_by``.
    """
    if ours is None or not math.isfinite(float(ours)):
        return _not_checked(checked_by, decide)
    ours = float(ours)
    tol = abs(float(tolerance))
    why = reason or "outside the stated tolerance"
    then = f"; decided by {decide}" if decide else ""
    if undecided:
        return Verdict("inconclusive", f"inconclusive: {undecided}{then}")
    if n is not None and n < min_n:
        return Verdict("inconclusive", f"inconclusive: rests on {n} {n_of}, and the row needs at least {min_n}{then}")
    if compare == "combined":
        kind, text = _combined(ours, value, se, source_se, tol, fmt, why, replicate_sd, window_max)
        if kind == "differs" and explained:
            return _explained(explained)
        return Verdict(kind, text + (then if kind == "inconclusive" else ""))
    return _on_regions(ours, (ours_low, ours_high), compare, (value, low, high), tol, fmt, why, then, explained)


__all__ = ["VERDICTS", "Verdict", "Z", "verdict"]
