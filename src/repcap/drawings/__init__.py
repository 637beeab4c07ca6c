"""The chapters' figures, as tested functions: each takes the tables of
:mod:`repcap.figdata` and returns a Matplotlib figure in the book's style (:mod:`repcap.figures`),
which the chapter saves with :func:`repcap.figures.save`.  A chapter narrates; it defines no
functions and draws no figure of more than a few lines itself."""

from . import frontier, laws, packing, scaling

__all__ = ["frontier", "laws", "packing", "scaling"]
