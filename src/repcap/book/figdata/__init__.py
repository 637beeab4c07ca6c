"""The data behind the book's figures and tables, computed apart from drawing them (the pattern of
cebra-figures and showyourwork): each function takes the records a chapter computed and returns
the tidy table a figure plots or a table shows, and is tested on its own.  Every figure of the book
saves a table made here (``tests/unit/test_figdata.py`` holds the chapters to that).

* :mod:`.random` -- random unit vectors against their exact laws (chapter 1);
* :mod:`.survey` -- embedding and LM-head statistics (chapters on ε, capacity, LM-head overlap);
* :mod:`.scans` -- what chapters 2 and 4 read before they tabulate (the scan's configs, head row norms);
* :mod:`.layers` -- the layer matrices against their embedding and a Gaussian baseline;
* :mod:`.packing` -- packings and their pair statistics, Guha's data and laws;
* :mod:`.packing_figures` -- chapter 6's curves with the lines drawn over them;
* :mod:`.toy` -- the toy model's regimes and width exponents;
* :mod:`.scaling` -- chapter 9's figure tables, with the fit lines and the paper's points they draw;
* :mod:`.reference` -- a chapter's reference-bundle section (points, provenance, empty build).
"""
