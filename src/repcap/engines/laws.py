"""Capacity laws: how many vectors k fit in d dimensions at pairwise tolerance eps.

Published forms and constants (Guha 2026, arXiv:2606.02765, Sec. "Fitting"; see
``data/reference`` and ``../shared/reference/README.md``):

* JL form        eps = sqrt(C ln k / d)              -> k = exp(d eps^2 / C)
  (C = 8: the textbook JL constant; C = 3.029: Guha's fit to random Gaussian vectors)
* adjusted       eps = sqrt(C ln(k/d) / d)           -> k = d exp(d eps^2 / C),  C = 1.293
* four-constant  eps = sqrt(C ln(k^a/d)^b / d^c)     -> k = (d exp((eps^2 d^c / C)^(1/b)))^(1/a)
  C = 0.45809143, a = 1.0668005, b = 1.44738666, c = 0.97197234

Capacities overflow float64 quickly (Yoder's 10^200), so every law is computed as ``ln k`` first;
:func:`capacity` returns ``inf`` where ``k`` exceeds float64.  Fitting a law to data is
:mod:`repcap.engines.fits`; the rigorous bounds it is compared with are :mod:`repcap.engines.bounds`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from repcap import RepcapError


@dataclass(frozen=True)
class Law:
    """A capacity law ``eps(k, d)`` with named constants."""

    name: str
    form: str  # "jl" | "adjusted" | "four"
    constants: Mapping[str, float] = field(default_factory=dict)
    label: str = ""

    def eps(self, k, d):
        """Tolerance eps at which ``k`` vectors fit in ``d`` dimensions (broadcasts)."""
        k = np.asarray(k, dtype=np.float64)
        d = np.asarray(d, dtype=np.float64)
        C = self.constants["C"]
        if self.form == "jl":
            inner = C * np.log(k) / d
        elif self.form == "adjusted":
            inner = C * np.log(k / d) / d
        elif self.form == "four":
            a, b, c = (self.constants[x] for x in "abc")
            # As Guha's own fit (code/vector_packing_graphs.py): eps = 0 where k <= d, and the
            # ratio k^a/d clipped just above 1 (so the power of the log stays real).
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.maximum(k**a / d, 1.00001)
                inner = np.where(k > d, C * np.log(ratio) ** b / d**c, 0.0)
        else:  # pragma: no cover - guarded in __post_init__
            raise AssertionError(self.form)
        return np.sqrt(np.maximum(inner, 0.0))

    def log_capacity(self, eps, d):
        """``ln k(d, eps)``: the natural log of the number of vectors the law allows."""
        eps = np.asarray(eps, dtype=np.float64)
        d = np.asarray(d, dtype=np.float64)
        if np.any(~np.isfinite(eps)) or np.any(eps < 0) or np.any(d < 1):
            raise RepcapError("capacity needs finite eps >= 0 and d >= 1")
        C = self.constants["C"]
        if self.form == "jl":
            return d * eps**2 / C
        if self.form == "adjusted":
            return np.log(d) + d * eps**2 / C
        a, b, c = (self.constants[x] for x in "abc")
        return (np.log(d) + (eps**2 * d**c / C) ** (1.0 / b)) / a

    def capacity(self, eps, d):
        """``k(d, eps)``; ``inf`` where it exceeds float64."""
        with np.errstate(over="ignore"):
            out = np.exp(self.log_capacity(eps, d))
        return out if np.ndim(out) else float(out)

    def log10_capacity(self, eps, d):
        return self.log_capacity(eps, d) / math.log(10.0)

    def __post_init__(self):
        if self.form not in ("jl", "adjusted", "four"):
            raise RepcapError(f"unknown law form {self.form!r}; use 'jl', 'adjusted' or 'four'")
        need = {"jl": "C", "adjusted": "C", "four": "Cabc"}[self.form]
        missing = [x for x in need if x not in self.constants]
        if missing:
            raise RepcapError(f"law {self.name!r} needs constants {missing}")


def _published() -> dict[str, Law]:
    """The laws with their published constants, from ``data/reference/guha2026_laws.csv``."""
    from repcap.base.quotes import laws_table

    out = {}
    for row in laws_table():
        consts = {k: float(row[k]) for k in ("C", "a", "b", "c") if row.get(k, "").strip()}
        out[row["law"]] = Law(row["law"], row["form"], consts, row["label"])
    return out


#: The laws with the constants as published (Guha 2026, Sec. 3.2-3.3; JL with C = 8 is the best
#: proven constant he quotes): ``jl8``, ``jl`` (C = 3.029, random vectors), ``adjusted``, ``four``.
PUBLISHED: dict[str, Law] = _published()


def get_law(name: str | Law) -> Law:
    if isinstance(name, Law):
        return name
    try:
        return PUBLISHED[name]
    except KeyError:
        raise RepcapError(f"unknown capacity law {name!r}; known: {', '.join(PUBLISHED)}") from None


def capacity(eps, d, law: str | Law = "four"):
    """``k(d, eps)`` under a published law (default: Guha's four-constant form, as in Table 1)."""
    return get_law(law).capacity(eps, d)


def log10_capacity(eps, d, law: str | Law = "four"):
    return get_law(law).log10_capacity(eps, d)


def capacity_table_value(eps: float, d: int) -> float:
    """Guha's Table 1 capacity: ``ceil`` of the four-constant law (finite only for class 2)."""
    return float(math.ceil(capacity(eps, d, "four")))


def classify(eps: float) -> int | None:
    """Guha's classes (Sec. 2.5): 1 if eps > 0.2, 2 if eps < 0.1, ``None`` in between (no model of
    his falls there).  The boundaries are read from ``data/reference/quotes.yaml``."""
    from repcap.base.quotes import value

    if eps > value("guha2026.class1_eps_above"):
        return 1
    if eps < value("guha2026.class2_eps_below"):
        return 2
    return None


# ---------------------------------------------------------------------------------------------
# Yoder's rule of thumb


def _yoder_divisor() -> float:
    from repcap.base.quotes import value

    return value("yoder2025.rule_divisor")


#: Yoder 2025: Vectors ~ 10^(k F^2 / divisor), F in degrees off 90 (data/reference/quotes.yaml).
YODER_DIVISOR = _yoder_divisor()


def yoder_log10_capacity(d, F_deg):
    """Yoder's rule of thumb ``log10 N = d F^2 / 1500`` (F = degrees off orthogonal; Yoder writes
    k for the dimension).  d = 12288: F = 1 -> 10^8, 2 -> 10^32, 3 -> 10^73, 5 -> 10^200."""
    return np.asarray(d, dtype=np.float64) * np.asarray(F_deg, dtype=np.float64) ** 2 / YODER_DIVISOR


def eps_from_degrees_off(F_deg):
    """|cos| of a pair at ``90 - F`` degrees: ``sin(F)``."""
    return np.sin(np.radians(np.asarray(F_deg, dtype=np.float64)))


def yoder_C() -> float:
    """The JL constant equivalent to Yoder's rule for small angles: ``ln N = d eps^2 / C`` with
    eps = F pi / 180 gives C = (pi/180)^2 * 1500 / ln 10 = 0.198."""
    return (math.pi / 180.0) ** 2 * YODER_DIVISOR / math.log(10.0)


#: Yoder's rule as a law (JL form with C = 0.198; exact for small F where sin F = F in radians).
YODER = Law(
    "yoder", "jl", {"C": (math.pi / 180.0) ** 2 * YODER_DIVISOR / math.log(10.0)}, "Yoder's rule 10^(d F^2/1500)"
)
