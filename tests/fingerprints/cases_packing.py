"""Fingerprint cases of the packing engine (:mod:`repcap.engines.packing`): each loss at a size that runs in
a fraction of a second, Guha's exponent and rate rules, a batch of seeds, the decaying rate, the
random baseline and the three random projections, and the loss kernels on both passes."""

from __future__ import annotations

from harness import Case

_OPT = "repcap.packing.points:sweep_packed"


def _point(configs: list[dict]) -> dict:
    return {"fn": "packing.optimise", "configs": configs, "batched": True, "legacy_fn": _OPT, "legacy_batched": True}


def _small(loss: str, **kw) -> list[dict]:
    base = {"k": 120, "d": 10, "loss": loss, "steps": 25, "lr": 0.01, "record_every": 5, "n_bins": 50} | kw
    return [base | {"seed": 0}, base | {"seed": 1}]


def _kernels() -> dict:
    """The tiled loss and gradient on the CPU's symmetric pass and the GPU's column pass (run here
    on the CPU), against one fixed set of columns, for every loss."""
    import torch

    from repcap.engines.packing.losses import dense_loss, loss_and_grad, normalise

    g = torch.Generator().manual_seed(11)
    V = normalise(torch.randn(2, 6, 40, generator=g))
    out: dict = {}
    for loss in ("power", "exp", "abs-relu"):
        for sym in (True, False):
            total, grad, mx = loss_and_grad(V, loss, beta=5.0, p=6.0, tile=16, want_max=True, symmetric=sym)
            out[f"{loss}-{'sym' if sym else 'col'}"] = {
                "loss": total,
                "grad_sum": grad.double().abs().sum(dim=(1, 2)),
                "max": mx,
            }
        out[f"{loss}-dense"] = dense_loss(V[0], loss, beta=5.0, p=6.0)
    return out


def _rules() -> dict:
    from repcap.engines.settings import packing as config

    return {
        "exponent": [config.guha_exponent(k, d) for k, d in ((2000, 32), (8000, 64), (8000, 4096), (100, 1))],
        "lr": [config.guha_lr(d) for d in (64, 2048)],
        "max_exp_beta": config.max_exp_beta(1000),
    }


def _pieces() -> dict:
    """The pieces a point composes, called as a caller outside it would: the power loss at p = 1,
    the tile and block sizes on the CPU and on a GPU (the GPU's rule, from a memory budget given in
    ``REPCAP_MEMORY_BUDGET``, which it reads before asking the device), a config of numpy scalars
    with an explicit exponent and rate, the key form of an annealed config and a batch's group, the
    float64 coherence of a small packing, and a projection's distortion one column per tile."""
    import dataclasses
    import os

    import numpy as np
    import torch

    from repcap.engines.packing import baselines, points, stats
    from repcap.engines.packing.losses import default_block, default_tile, loss_and_grad, normalise
    from repcap.engines.settings.packing import PackConfig

    g = torch.Generator().manual_seed(12)
    V = normalise(torch.randn(1, 5, 30, generator=g))
    total, grad, mx = loss_and_grad(V, "power", beta=5.0, p=1.0, tile=16, want_max=True)
    cpu, gpu = torch.device("cpu"), torch.device("cuda")  # a device name: nothing runs on it
    before = os.environ.get("REPCAP_MEMORY_BUDGET")
    os.environ["REPCAP_MEMORY_BUDGET"] = str(1 << 28)
    try:
        sizes = [
            f(k, b, dev)
            for f in (default_tile, default_block)
            for k in (100, 5000)
            for b in (1, 8)
            for dev in (cpu, gpu)
        ]
    finally:
        if before is None:
            os.environ.pop("REPCAP_MEMORY_BUDGET", None)
        else:
            os.environ["REPCAP_MEMORY_BUDGET"] = before
    cfg = PackConfig(k=np.int64(40), d=np.int64(6), p=np.float64(7.0), lr=np.float32(0.02), steps=np.int64(5))
    W = torch.from_numpy(np.random.default_rng(3).standard_normal((6, 25)))
    return {
        "power_p1": {"loss": total, "grad_sum": grad.double().abs().sum(), "max": mx},
        "sizes": sizes,
        "config": {"k": cfg.k, "d": cfg.d, "p": cfg.p, "exponent": cfg.exponent, "lr": cfg.learning_rate},
        "annealed_config": dataclasses.asdict(points.pack_config({"k": 30, "d": 5, "loss": "exp", "lr_floor": 0.1})),
        "group": points.packed_group({"k": 30, "d": 5, "seed": 4}),
        "coherence": stats.coherence(W.numpy()),
        "projection_tile_1": baselines.projection_distortion(12, 6, "rademacher", seed=1, tile=1),
    }


CASES = [
    Case("packing", "power", point=_point(_small("power"))),
    Case("packing", "exp", point=_point(_small("exp", beta=20.0, lr=0.005))),
    Case("packing", "abs-relu", point=_point(_small("abs-relu"))),
    Case("packing", "guha-rules", point=_point([{"k": 60, "d": 8, "steps": 20, "seed": 3}])),
    Case(
        "packing",
        "annealed",
        point={
            "fn": "packing.optimise",
            "configs": [{"k": 80, "d": 6, "loss": "exp", "steps": 20, "lr": 0.01, "lr_floor": 0.0, "n_bins": 40}],
            "batched": True,
            "legacy_fn": "repcap.packing.annealed:sweep_annealed",
            "legacy_batched": False,
        },
    ),
    Case(
        "packing",
        "signed",
        point={
            "fn": "packing.signed",
            "configs": [
                {"k": 24, "d": 3, "steps": 30, "lr": 0.01, "p": 12.0, "seed": 0, "n_bins": 20, "record_every": 10},
                {"k": 24, "d": 3, "steps": 30, "lr": 0.01, "p": 12.0, "seed": 1, "n_bins": 20, "record_every": 10},
            ],
            "batched": True,
            "legacy_fn": None,  # new since the format-1 bundles
            "legacy_batched": True,
        },
    ),
    Case(
        "packing",
        "signed-exp",
        point={
            "fn": "packing.signed",
            "configs": [{"k": 20, "d": 4, "loss": "exp", "beta": 5.0, "steps": 20, "lr": 0.01, "n_bins": 20}],
            "batched": True,
            "legacy_fn": None,  # new since the format-1 bundles
            "legacy_batched": True,
        },
    ),
    Case(
        "packing",
        "random",
        point={
            "fn": "packing.random",
            "configs": [{"k": 50, "d": 8, "trials": 7, "seed": 2}],
            "legacy_fn": "repcap.packing.points:sweep_random",
        },
    ),
    Case(
        "packing",
        "projection",
        point={
            "fn": "packing.projection",
            "configs": [{"N": 48, "k": 12, "kind": kind, "seed": 1} for kind in ("gaussian", "rademacher", "srht")],
            "legacy_fn": "repcap.packing.points:sweep_projection",
        },
    ),
    Case("packing", "power-p", point=_point(_small("power", p=6.0, steps=15))),  # an exponent given, not Guha's
    Case("packing", "kernels", run=_kernels),
    Case("packing", "pieces", run=_pieces),
    Case("packing", "rules", run=_rules),
]
