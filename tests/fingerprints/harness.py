"""Engine fingerprints: each engine run on small canonical configs on the CPU, its numbers compared
with a committed table (``tests/fingerprints/<engine>.json``) at a tolerance stated per engine with
its reason.  They decide when an engine's numerics version must change (``book/architecture.md``):

* a change that moves a fingerprint beyond the tolerance needs a bump of that engine's ``NUMERICS``
  and a rewritten table (``python tools/fingerprints.py --update ENGINE``), in the same commit;
* a bump whose fingerprints did not move is refused (the table keeps every version's values, and
  two consecutive versions must differ);
* a setting's default is part of the fingerprint (``defaults``): a changed default is a change of
  numbers.

A *case* returns a flat ``{field: number}``; fields that count against a threshold or a bin edge
(:data:`COUNT`) may move by the engine's ``count_atol`` (one pair across an edge), the others by
``atol + rtol |value|``.
A *point case* runs a registered point function on configs given as data, so that the same case
runs on an older checkout through the function's legacy ``module:qualname`` (``--legacy-src``:
how a bundle computed there is shown to have been computed by today's numerics).

Run as a script inside a checkout (``python harness.py --worker [--legacy] ENGINE...``) it prints
the cases' values as JSON: what ``tools/fingerprints.py`` runs in a subprocess for another checkout
or another arithmetic path.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: Fingerprints are the CPU's on every machine: ``device="auto"`` is the CPU wherever they run (this
#: process and the workers it starts).
os.environ["REPCAP_AUTO_DEVICE"] = "cpu"

#: Where each engine declares its numerics version (module, attribute).
ENGINES: dict[str, tuple[str, str]] = {
    "cosine": ("repcap.engines.cosine.numerics", "NUMERICS"),
    "geometry": ("repcap.engines.random_geometry", "NUMERICS"),
    "packing": ("repcap.engines.packing.numerics", "NUMERICS"),
    "minimax": ("repcap.engines.packing.numerics", "MINIMAX"),
    "survey": ("repcap.engines.survey", "NUMERICS"),
    "toy": ("repcap.engines.toy.numerics", "NUMERICS"),
}
#: Result fields that measure the machine, not the numbers.
VOLATILE = ("seconds", "device", "sampler", "source", "label")


@dataclass
class Case:
    """One fingerprint: ``run()`` returns the values (nested dicts and lists of numbers are
    flattened).  ``point`` (a point case): ``{"fn", "configs", "batched", "legacy_fn",
    "legacy_batched"}``, run through the registry here and through ``legacy_fn`` on an older
    checkout."""

    engine: str
    name: str
    run: Callable[[], Any] | None = None
    point: dict | None = None
    fields: tuple[str, ...] | None = None  # the result fields kept (None: all numeric ones)


@dataclass
class Tolerance:
    rtol: float
    atol: float
    count_atol: float
    reason: str

    def close(self, a: float, b: float, count: bool) -> bool:
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if count:
            return abs(a - b) <= self.count_atol
        return abs(a - b) <= self.atol + self.rtol * abs(b)


def flatten(obj: Any, prefix: str = "") -> dict[str, float]:
    """Every number in ``obj`` (dicts, lists, tuples, numpy and torch values) under a dotted path;
    booleans as 0/1, None as NaN, strings dropped."""
    out: dict[str, float] = {}
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):
        obj = obj.tolist()
    if isinstance(obj, dict):
        n_pairs = obj.get("n_pairs")
        for k, v in obj.items():
            if k in VOLATILE:
                continue
            if k in FRACTIONS_OF_PAIRS and isinstance(v, dict) and isinstance(n_pairs, (int, float)):
                # a share of the pairs is a count over n_pairs: compared as the count it is
                v = {t: (round(x * n_pairs) if isinstance(x, (int, float)) else x) for t, x in v.items()}
                k = f"{k}_pairs"
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(flatten(v, f"{prefix}[{i}]"))
    elif isinstance(obj, (bool, int, float)):
        out[prefix] = float(obj)
    elif obj is None:
        out[prefix] = float("nan")
    return out


#: Fields that count pairs or rows against a threshold or a bin edge: one pair on the other side of an
#: edge after a last-bit change of its cosine moves them by one, so they are compared by
#: ``count_atol``.
COUNT = re.compile(r"(hist|counts|n_above|n_orthogonal|n_parallel|n_represented|exceed_pairs|exceed_abs_pairs)")
#: Result fields that hold shares of the pairs per threshold (a survey record's exceedances): flattened
#: as the counts of pairs they are (``<field>_pairs``), so that one pair across a threshold is one count.
FRACTIONS_OF_PAIRS = ("exceed", "exceed_abs")


def is_count(name: str) -> bool:
    """Whether field ``name`` (a dotted path) counts against a threshold (see :data:`COUNT`)."""
    return bool(COUNT.search(name))


def _load_cases(engine: str) -> list[Case]:
    mod = importlib.import_module(f"cases_{engine}")
    return list(mod.CASES)


def _resolve(name: str, legacy: bool) -> Callable:
    if legacy:
        module, qual = name.split(":", 1)
        return getattr(importlib.import_module(module), qual)
    from repcap.results.runs.point_functions import point_function

    return point_function(name)


def run_case(case: Case, legacy: bool = False) -> dict[str, float] | None:
    """The values of one case (None: a case that does not run on a legacy checkout)."""
    if case.point is None:
        if legacy:
            return None
        assert case.run is not None
        return flatten(case.run())
    p = case.point
    if legacy and p.get("legacy_fn") is None:  # a function newer than the checkouts it is run on
        return None
    fn = _resolve(p["legacy_fn"] if legacy else p["fn"], legacy)
    batched = p.get("legacy_batched", p.get("batched", False)) if legacy else p.get("batched", False)
    configs = [dict(c) for c in p["configs"]]
    results = fn(configs) if batched else [fn(c) for c in configs]
    if case.fields is not None:
        results = [{k: r[k] for k in case.fields if k in r} for r in results]
    return flatten(results)


def compute(engine: str, legacy: bool = False, only: Iterable[str] | None = None) -> dict[str, dict[str, float]]:
    """``{case name: values}`` of every case of ``engine`` (on a legacy checkout: its point cases)."""
    sys.path.insert(0, str(HERE))
    wanted = set(only) if only else None
    out = {}
    for case in _load_cases(engine):
        if wanted is not None and case.name not in wanted:
            continue
        vals = run_case(case, legacy)
        if vals is not None:
            out[case.name] = vals
    return out


def defaults(engine: str) -> dict[str, str]:
    """The registered defaults of the engine's point functions, as canonical JSON per function."""
    import repcap.results.runs.point_functions  # noqa: F401  (fills the registry)
    from repcap.sweep.cache import canonical
    from repcap.sweep.registry import all_registered

    return {pf.name: canonical(dict(pf.defaults)) for pf in all_registered() if pf.engine == engine}


def numerics(engine: str) -> str:
    module, attr = ENGINES[engine]
    return str(getattr(importlib.import_module(module), attr))


# ------------------------------------------------------------------------------------------ tables


@dataclass
class Table:
    engine: str
    tolerance: Tolerance
    history: list[dict] = field(default_factory=list)  # [{"numerics", "defaults", "values"}], oldest first

    @property
    def latest(self) -> dict:
        return self.history[-1]

    @classmethod
    def load(cls, engine: str) -> Table:
        doc = json.loads((HERE / f"{engine}.json").read_text())
        return cls(doc["engine"], Tolerance(**doc["tolerance"]), doc["history"])

    def dump(self) -> str:
        doc = {
            "engine": self.engine,
            "tolerance": self.tolerance.__dict__,
            "history": self.history,
        }
        return json.dumps(doc, indent=1, sort_keys=True, allow_nan=True) + "\n"

    def save(self) -> None:
        (HERE / f"{self.engine}.json").write_text(self.dump())


def differences(
    now: dict[str, dict[str, float]], then: dict[str, dict[str, float]], tol: Tolerance, *, missing: bool = True
) -> list[str]:
    """What moved between two sets of values, one line per field (cases and fields only in ``now``
    are new, not moves; cases only in ``then`` are listed when ``missing``, fields always)."""
    out = []
    for case in sorted(then):
        if case not in now:
            if missing:
                out.append(f"{case}: not computed (the table has it)")
            continue
        a, b = now[case], then[case]
        for k in sorted(set(a) | set(b)):
            if k not in b:  # a field a result gained: new information, no number moved
                continue
            if k not in a:
                out.append(f"{case}.{k}: missing now")
                continue
            if not tol.close(a[k], b[k], is_count(k)):
                out.append(f"{case}.{k}: {a[k]!r} against {b[k]!r}")
    return out


def defaults_moved(now: dict[str, str] | None, then: dict[str, str] | None) -> list[str]:
    """The defaults of ``then`` (a table's) that ``now`` changed: a function's default whose value
    differs, or one it no longer has.  A setting added with its own default, a new function, or a
    function that is gone (it computes nothing now) is no move."""
    out = []
    now, then = now or {}, then or {}
    for name, old in sorted(then.items()):
        if name not in now:
            continue
        a, b = json.loads(now[name]), json.loads(old)
        out += [
            f"defaults {name}.{k}: {a.get(k, '(none)')!r} against {v!r}" for k, v in b.items() if a.get(k, "\0") != v
        ]
    return out


def main(argv: list[str]) -> int:
    """``--worker [--legacy] ENGINE...``: print ``{engine: {case: values}}`` as JSON."""
    legacy = "--legacy" in argv
    engines = [a for a in argv if not a.startswith("--")]
    print(json.dumps({e: compute(e, legacy) for e in engines}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
