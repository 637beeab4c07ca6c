"""The engines and the geometry: tiled cosine statistics (:mod:`.cosine`), the toy ReLU autoencoder
(:mod:`.toy`), vector packing (:mod:`.packing`), the model survey (:mod:`.survey`, :mod:`.layers`),
the capacity laws and their fits (:mod:`.laws`, :mod:`.fits`), the rigorous bounds, explicit codes
and the achievable frontier (:mod:`.bounds`, :mod:`.constructions`, :mod:`.frontier`,
:mod:`.feasible`) and random geometry (:mod:`.random_geometry`).

It may import :mod:`repcap.models`, :mod:`repcap.sweep` (to register its point functions) and
:mod:`repcap.base`; never the results, the evidence, the book or the command line.
"""
