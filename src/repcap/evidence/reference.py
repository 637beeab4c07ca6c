"""The sources' numbers (:mod:`repcap.base.quotes`) and the scorecard's rows (:mod:`repcap.evidence.claims`), in
one namespace for the chapters: ``reference.quote(id)``, ``reference.value(id)``,
``reference.claims()``.  Library code that reads a number imports :mod:`repcap.base.quotes` itself."""

from repcap import RepcapError
from repcap.base import quotes as _quotes
from repcap.base.quotes import *  # noqa: F403  (the quotes' public names: their __all__)

from .claims import (
    CHECK_PROFILES,
    CLAIM_SOURCES,
    COMPARES,
    KINDS,
    OURS,
    Claim,
    check_fmt,
    claim,
    claims,
    load_claims,
)

__all__ = [
    *_quotes.__all__,
    "CHECK_PROFILES",
    "CLAIM_SOURCES",
    "COMPARES",
    "KINDS",
    "OURS",
    "Claim",
    "RepcapError",
    "check_fmt",
    "claim",
    "claims",
    "load_claims",
]
