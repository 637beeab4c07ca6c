"""The packing package: every public name the notebooks and tests use, each the object it names
whatever was imported first."""

import importlib
import pkgutil
import types

import repcap.engines.packing as packing

PUBLIC = [
    "PackConfig",
    "optimise",
    "PackResult",
    "loss_and_grad",
    "dense_loss",
    "pair_stats",
    "PackingStats",
    "max_abs_cos",
    "coherence",
    "normalise",
    "random_unit",
    "random_eps_star",
    "projection_matrix",
    "projection_distortion",
    "sweep_packed",
    "packed_group",
    "sweep_random",
    "sweep_projection",
    "guha_exponent",
    "guha_lr",
    "LOSSES",
    "PARALLEL_THRESHOLDS",
    "ORTHOGONAL_THRESHOLD",
    "default_tile",
    "default_block",
    "TiledPackingLoss",
]


def test_public_names_survive_importing_every_submodule():
    subs = [m.name for m in pkgutil.iter_modules(packing.__path__)]
    assert not set(subs) & set(packing.__all__)  # a submodule never shadows an exported name
    for name in subs:
        importlib.import_module(f"repcap.engines.packing.{name}")
    for name in PUBLIC:
        assert name in packing.__all__ and name in dir(packing)
        assert not isinstance(getattr(packing, name), types.ModuleType), name
    assert callable(packing.optimise) and packing.optimise.__module__ == "repcap.engines.packing.optimiser"


def test_sweep_functions_keep_their_names():
    for name in ("sweep_packed", "packed_group", "sweep_random", "sweep_projection"):
        fn = getattr(packing, name)
        assert fn.__qualname__ == name and fn.__module__ == "repcap.engines.packing.points"
