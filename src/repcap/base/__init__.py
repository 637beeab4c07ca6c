"""The shared base: settings dataclasses (:mod:`.config`), paths and the environment
(:mod:`.paths`), atomic file writing and the cache reads that never block on a FIFO (:mod:`.io`),
the machine's memory (:mod:`.memory`), devices and seeding (:mod:`.devices`), the run context a
chapter exports (:mod:`.context`) and the sources' numbers read from ``data/reference``
(:mod:`.quotes`).

It may import nothing of repcap but the package's error type; every other part may import it.
"""
