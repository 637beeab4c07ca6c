"""The chapters' figures, as tested functions: each takes the table a figure ships (its CSV, made by
:mod:`repcap.book.figdata`) and JSON-able options, and returns a Matplotlib figure in the book's style
(:mod:`repcap.book.figures`); the chapter hands it to :func:`repcap.book.figures.save`, which draws it
from the CSV read back.  One module per chapter's subject: :mod:`.random`, :mod:`.survey`,
:mod:`.capacity`, :mod:`.overlap`, :mod:`.layers`, :mod:`.packing`, :mod:`.laws`, :mod:`.regimes`,
:mod:`.scaling` and :mod:`.scaling_reference`, :mod:`.frontier`, :mod:`.reproducibility`.  A chapter
narrates; it defines no functions and draws no figure itself."""
