"""The book: what a chapter calls (:mod:`.chapter`, :mod:`.figures`, :mod:`.tables`), its
parameters and their sizing (:mod:`.params`, :mod:`.sizing`), the figures' tables and drawings
(:mod:`.figdata`, :mod:`.drawings`), the runner that executes a chapter (:mod:`.runner`) and the
Jupyter Book build (:mod:`.build`, :mod:`.figindex`, :mod:`.sphinxext`, :mod:`.mathjax`,
:mod:`.calculator`).

It may import every part below it (evidence, results, engines, models, sweep, base); only the
command line imports it.
"""
