"""The chapters' figures, as tested functions: each takes the tables of
:mod:`repcap.book.figdata` and returns a Matplotlib figure in the book's style (:mod:`repcap.book.figures`),
which the chapter saves with :func:`repcap.book.figures.save`.  A chapter narrates; it defines no
functions and draws no figure of more than a few lines itself."""

from . import (
    capacity,
    frontier,
    laws,
    overlap,
    packing,
    random,
    regimes,
    reproducibility,
    scaling,
    scaling_reference,
    survey,
)

__all__ = [
    "capacity",
    "frontier",
    "laws",
    "overlap",
    "packing",
    "random",
    "regimes",
    "reproducibility",
    "scaling",
    "scaling_reference",
    "survey",
]
