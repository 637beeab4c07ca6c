"""Each engine's settings: the dataclass that holds what a run computes, with every setting's
default, help and check written once (:mod:`.cosine` the tiled pass, :mod:`.packing` the packing
optimiser, :mod:`.toy` the toy model).

They import neither numpy nor torch, and no engine: ``repcap stats|pack|toy --help``, the runner's
checks and the sizing read them without loading one.  The engine packages re-export them.
"""
