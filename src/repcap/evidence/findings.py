"""What a chapter found, for the scorecard: ``record(claim_id, value, ...)``.

A chapter computes its number for a scorecard claim (``data/reference/claims.yaml``) and records it
here; :mod:`repcap.evidence.scorecard` later sets it against the source's number.  Under the notebook runner
the records go to the run's staging folder (``REPCAP_FINDINGS_DIR``) and are committed with the
chapter's figures to ``book/generated/findings/<chapter>.json``; outside it, to that folder as
``interactive.json``.

A record: ``{"claim", "value", "profile", "chapter", "figure", "note", "provenance", "experiments",
"low", "high", "interval", "se", "replicate_sd", "n", "n_of", "exact", "undecided"}``; ``value`` is None where the
chapter could not compute it in this run (for example no model loaded).  ``interval`` says what
``low``/``high`` are, or what the value's uncertainty is where it has none (:data:`UNCERTAINTIES`:
a 95% interval and from which statistic, a range over models or cells, one stochastic run, an exact
computation); ``se`` is the value's standard error where the row compares it with a source's error
bar; ``n`` the number of points behind it (``n_of``: widths, seeds, models, cells, ...).
``experiments`` names the results-bundle experiments the number rests on, each with its provenance
sentence, so that the scorecard states each once.  :func:`spearman` and :func:`interval` make those
fields for the common statistics; the per-source modules of :mod:`repcap.evidence` make whole
findings from the figure tables.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.base import io as rio
from repcap.base.datafiles import number
from repcap.base.paths import generated_dir

_RECORDS: dict[str, list[dict[str, Any]]] = {}

#: What a finding's ``interval`` may be, and how the scorecard names it.  ``t``, ``fisher`` and
#: ``fit`` are 95% intervals of an estimate (Student t on a standard error, Fisher z of a
#: correlation, a least-squares fit's standard error); ``range`` is the spread over the models or
#: cells named by ``n_of`` (not an uncertainty); ``one run`` is a single stochastic run with no
#: interval; ``deterministic`` an exact computation on fixed data (all pairs of a matrix, a source's
#: own stored numbers); ``closed form`` a formula evaluated.
UNCERTAINTIES: dict[str, str] = {
    "t": "95% interval (t",
    "fisher": "95% interval (Fisher z",
    "fit": "95% interval (fit's standard error",
    "range": "range over",
    "one run": "one run",
    "deterministic": "exact (no sampling",
    "closed form": "exact (closed form)",
}
#: The kinds that give ``low``/``high``.
INTERVAL_KINDS = ("t", "fisher", "fit", "range")

#: One finding as the per-source modules of :mod:`repcap.evidence` return it: :func:`record`'s
#: keyword arguments (``value`` among them).
Finding = dict[str, Any]


def signed(x: float, fmt: str = "+.3f") -> str:
    """``x`` as a finding's note prints it: ``fmt``, with a true minus sign (−)."""
    return format(x, fmt).replace("-", "−")


def findings_dir() -> Path:
    env = os.environ.get("REPCAP_FINDINGS_DIR")
    return Path(env) if env else generated_dir() / "findings"


def _chapter() -> str:
    """The name this chapter's outputs go under (the runner's; outside it, ``interactive``)."""
    name = os.environ.get("REPCAP_OUTPUT_NAME")
    if name:
        return name
    nb = os.environ.get("REPCAP_NOTEBOOK")
    return Path(nb).stem if nb else "interactive"


def record(
    claim_id: str,
    value: float | int | None,
    *,
    figure: str | None = None,
    note: str = "",
    profile: str | None = None,
    provenance: str = "",
    low: float | None = None,
    high: float | None = None,
    n: int | None = None,
    n_of: str = "",
    exact: bool = False,
    undecided: str = "",
    interval: str | None = None,
    se: float | None = None,
    replicate_sd: float | None = None,
    experiments: dict[str, str] | None = None,
) -> None:
    """Record this chapter's number for scorecard claim ``claim_id`` (returns nothing, so that a
    ``record`` at the end of a notebook cell adds no output to the page).

    ``profile``: the profile whose runs produced the number (default: the one running this chapter;
    ``"reference"`` for points read from the committed reference bundle).  ``figure``: the figure
    that shows it (default: the claim's own).  ``note``: why it may differ, if this run knows better
    than the claim's stated reason.  ``provenance``: where and when the number was computed, for
    numbers not computed in this run.  ``low``/``high``: the 95% interval of the value; ``n``: the
    number of points it rests on (``n_of`` says of what); ``exact``: no sampling or fitting error;
    ``undecided``: why this run's data cannot decide the claim (e.g. the grid stops before the regime
    the claim is about), which makes the verdict inconclusive whatever the number.  ``interval``:
    what ``low``/``high`` are, or the kind of uncertainty (:data:`UNCERTAINTIES`; ``exact=True`` is
    ``"deterministic"``); ``se``: the value's standard error; ``experiments``: ``{bundle experiment:
    its provenance sentence}``; ``replicate_sd``: where the value is a mean over seeds, the seeds'
    sd (one replicate's scatter, which a source's single run carries too).
    """
    from repcap.base.context import run_context

    from .claims import claim

    c = claim(claim_id)  # an unknown id is a clear error
    value = _finite(claim_id, "value", value)
    spread = _uncertainty_fields(
        claim_id, value, low, high, n, n_of, exact=exact, interval=interval, se=se, replicate_sd=replicate_sd
    )
    _store(
        {
            "claim": claim_id,
            "value": value,
            "profile": profile or run_context()["profile"],
            "chapter": _chapter(),
            "figure": figure or c.figure,
            "note": note,
            "provenance": provenance,
            **spread,
            "experiments": {str(k): str(v) for k, v in (experiments or {}).items()},
            "undecided": undecided,
        }
    )


def _finite(claim_id: str, name: str, x: float | None) -> float | None:
    """``x`` as a float (None where it is None or not finite); a value that is not a number is an error."""
    return number(x, f"finding {claim_id}: {name}", infinite=False)


def _not_negative(claim_id: str, name: str, x: float | None) -> float | None:
    """:func:`_finite`, refusing a negative number (a standard error or a standard deviation)."""
    y = _finite(claim_id, name, x)
    if y is not None and y < 0:
        raise RepcapError(f"finding {claim_id}: {name} {y:g} is negative")
    return y


def _uncertainty_fields(
    claim_id: str,
    value: float | None,
    low: float | None,
    high: float | None,
    n: int | None,
    n_of: str,
    *,
    exact: bool,
    interval: str | None,
    se: float | None,
    replicate_sd: float | None,
) -> dict[str, Any]:
    """A record's uncertainty fields (``low`` to ``replicate_sd``), each checked in turn: the
    interval's ends, the kind of uncertainty (``exact=True`` is ``deterministic``), which must be
    one that has an interval where ends are given, the standard error and replicate sd, and the
    count.  Where ``value`` is None, the record states no interval, kind or errors."""
    lo, hi = _finite(claim_id, "low", low), _finite(claim_id, "high", high)
    kind = interval if interval is not None else ("deterministic" if exact else None)
    if kind is not None and kind not in UNCERTAINTIES:
        raise RepcapError(f"finding {claim_id}: interval {kind!r} is not one of {', '.join(UNCERTAINTIES)}")
    if (lo is not None or hi is not None) and kind is not None and kind not in INTERVAL_KINDS:
        raise RepcapError(f"finding {claim_id}: a {kind!r} value has no interval, yet low/high are given")
    s_e, r_sd = _not_negative(claim_id, "se", se), _not_negative(claim_id, "replicate_sd", replicate_sd)
    if n is not None and (isinstance(n, bool) or int(n) != n or n < 0):
        raise RepcapError(f"finding {claim_id}: n {n!r} is not a count")
    known = value is not None
    return {
        "low": lo if known else None,
        "high": hi if known else None,
        "n": int(n) if n is not None else None,
        "n_of": n_of,
        "exact": kind in ("deterministic", "closed form"),
        "interval": kind if known else None,
        "se": s_e if known else None,
        "replicate_sd": r_sd if known else None,
    }


def _store(rec: dict[str, Any]) -> None:
    """Keep ``rec`` in this chapter's records (replacing the one of the same claim and profile) and
    write them to the chapter's findings file."""
    chapter = _chapter()
    recs = [
        r
        for r in _RECORDS.setdefault(chapter, [])
        if not (r["claim"] == rec["claim"] and r["profile"] == rec["profile"])
    ]
    recs.append(rec)
    _RECORDS[chapter] = recs
    rio.write_json(findings_dir() / f"{chapter}.json", {"chapter": chapter, "findings": recs})


def load_all(folder: Path | None = None) -> list[dict[str, Any]]:
    """Every record in ``folder`` (default ``book/generated/findings``), chapter files in name order."""
    folder = folder or generated_dir() / "findings"
    out: list[dict[str, Any]] = []
    for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if p.stem == "interactive":
            continue  # records of a notebook run by hand are not the book's
        try:
            out += json.loads(p.read_text())["findings"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a damaged file is skipped; the chapter's next run rewrites it
    return out


def interval(
    value: float, se: float, *, level: float = 0.95, dof: int | None = None, kind: str = "t"
) -> dict[str, Any]:
    """``{"value", "low", "high", "se", "interval"}``: ``value ± t·se`` (Student t with ``dof``
    degrees of freedom, normal without), for :func:`record`'s keyword arguments; ``kind`` names the
    statistic (``t``, or ``fit`` for a least-squares fit's standard error)."""
    from scipy import stats

    if kind not in INTERVAL_KINDS:
        raise RepcapError(f"interval kind {kind!r} is not one of {', '.join(INTERVAL_KINDS)}")
    q = stats.t.ppf(0.5 + level / 2, dof) if dof else stats.norm.ppf(0.5 + level / 2)
    return {
        "value": float(value),
        "low": float(value - q * se),
        "high": float(value + q * se),
        "se": float(se),
        "interval": kind,
    }


def spearman(x: Any, y: Any, *, level: float = 0.95) -> dict[str, Any]:
    """Spearman's ρ of ``x`` and ``y`` with its interval (Fisher z, standard error
    √(1.06 / (n − 3)) after Fieller, Hartley and Pearson 1957), as :func:`record`'s keyword arguments
    (``value``, ``low``, ``high``, ``n``)."""
    import numpy as np
    from scipy import stats

    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = int(len(xs))
    if n < 4 or len(ys) != n:
        raise RepcapError(f"spearman needs at least 4 pairs of equal length, got {len(xs)} and {len(ys)}")
    rho = float(stats.spearmanr(xs, ys).statistic)
    z, se = math.atanh(max(min(rho, 0.999999), -0.999999)), math.sqrt(1.06 / (n - 3))
    q = float(stats.norm.ppf(0.5 + level / 2))
    return {"value": rho, "low": math.tanh(z - q * se), "high": math.tanh(z + q * se), "n": n, "interval": "fisher"}


def record_all(found: dict[str, dict[str, Any]], **common: Any) -> None:
    """:func:`record` each ``{claim id: keyword arguments}`` of a :mod:`repcap.evidence` function
    (``common``: arguments every record shares, such as ``profile``; a finding's own win)."""
    for cid, kw in found.items():
        args = {**common, **kw}
        record(cid, args.pop("value"), **args)
