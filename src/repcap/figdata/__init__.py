"""The data behind the book's figures and tables, computed apart from drawing them (the pattern of
cebra-figures and showyourwork): each function takes the records a chapter computed and returns
the tidy table a figure plots or a table shows, and is tested on its own.

* :mod:`.survey` -- embedding and LM-head statistics (chapters on ε, capacity, LM-head overlap);
* :mod:`.packing` -- packings and their pair statistics;
* :mod:`.toy` -- the toy model's regimes and width exponents.
"""
