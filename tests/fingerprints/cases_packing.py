"""Fingerprint cases of the packing engine (:mod:`repcap.packing`): each loss at a size that runs in
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

    from repcap.packing.losses import dense_loss, loss_and_grad, normalise

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
    from repcap.packing import config

    return {
        "exponent": [config.guha_exponent(k, d) for k, d in ((2000, 32), (8000, 64), (8000, 4096), (100, 1))],
        "lr": [config.guha_lr(d) for d in (64, 2048)],
        "max_exp_beta": config.max_exp_beta(1000),
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
    Case("packing", "kernels", run=_kernels),
    Case("packing", "rules", run=_rules),
]
