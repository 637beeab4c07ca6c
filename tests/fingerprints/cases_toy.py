"""Fingerprint cases of the toy engine (:mod:`repcap.toy`): every numerical path at a size that
trains in well under a second per case -- the dense and the sparse sampler, each frequency law,
both learning-rate rules with warm-up and window settings, per-model rates, signed decay of both
signs, the overlap candidates, the measurements and the closed forms."""

from __future__ import annotations

from harness import Case

#: One shape for the dense cases: 64 features, 8 hidden units, 40 steps of 32 samples.
_DENSE = {"n": 64, "m": 8, "steps": 40, "batch": 32, "sampler": "dense", "keep_norms": True}
#: The sparse sampler at a size where it is the one chosen on a CPU (n >= 512).
_SPARSE = {"n": 600, "m": 6, "steps": 30, "batch": 64, "sampler": "sparse", "keep_norms": True}


def _point(fn: str, configs: list[dict], legacy: str) -> dict:
    return {"fn": fn, "configs": configs, "batched": True, "legacy_fn": legacy, "legacy_batched": True}


_TRAIN = "repcap.toy.points:train_points"


def _trajectory() -> dict:
    """The whole training curve and the parameters' sums of three models trained as one batch."""
    from repcap import toy

    specs = [
        toy.ModelSpec(alpha=1.0, gamma=-1.0, seed=1),
        toy.ModelSpec(alpha=1.5, gamma=0.3, seed=2),
        toy.ModelSpec(alpha=0.5, gamma=0.0, seed=3, lr=0.02),
    ]
    cfg = toy.TrainConfig(n=64, m=8, steps=60, batch=32, device="cpu", sampler="dense")
    r = toy.train(specs, cfg, progress=False, n_curve=6)
    return {
        "loss": r.loss,
        "curve": r.curve,
        "curve_steps": r.curve_steps,
        "W_sum": r.W.double().sum(dim=(1, 2)),
        "W_sq": r.W.double().square().sum(dim=(1, 2)),
        "b_sum": r.b.double().sum(1),
        "lr": r.lr,
        "bias_lr": r.bias_lr,
        "schedule": r.schedule[::7],
    }


def _closed_forms() -> dict:
    """The frequency laws, the schedules and the weak regime's unlearned loss (closed forms)."""
    import numpy as np

    from repcap import toy
    from repcap.toy import schedule, theory
    from repcap.toy.measurements import norm_histogram

    p = toy.frequencies(50, "power", 1.2)
    out = {
        "power": toy.frequencies(20, "power", 1.5),
        "exp": toy.frequencies(20, "exp", tau=7.0),
        "linear": toy.frequencies(20, "linear"),
        "density": toy.frequencies(20, "density", 0.8, density=3.0),
        "unlearned_k": theory.unlearned_loss(p, 10),
        "unlearned_mask": theory.unlearned_loss(p, np.arange(50) % 3 == 0),
        "unlearned_zero_bias": theory.unlearned_loss(p, 10, optimal_bias=False),
        "weak_exponent": theory.weak_exponent(1.7),
        "schedule": schedule.schedule(40, 4, 0.05),
        "peak_constant": schedule.peak_lrs("constant", 16, None, None, None),
        "peak_exp17": schedule.peak_lrs("liu-exp17", 16, None, None, None),
        "warmup": [schedule.warmup_steps(100), schedule.warmup_steps(100, 7), schedule.warmup_steps(100, None, 0.05)],
        "norm_histogram": norm_histogram(np.linspace(0.0, 2.5, 37), bins=8)[0],
    }
    return out


CASES = [
    Case(
        "toy",
        "train-dense",
        point=_point(
            "toy.train",
            [
                {**_DENSE, "alpha": 1.0, "gamma": -1.0, "seed": 1},
                {**_DENSE, "alpha": 1.5, "gamma": 0.3, "seed": 2},
                {**_DENSE, "alpha": 0.5, "gamma": 0.0, "seed": 3, "lr": 0.02, "bias_lr": 0.005},
            ],
            _TRAIN,
        ),
    ),
    Case(
        "toy",
        "train-sparse",
        point=_point(
            "toy.train",
            [{**_SPARSE, "alpha": 1.2, "gamma": -0.5, "seed": 4}, {**_SPARSE, "alpha": 1.8, "gamma": 0.5, "seed": 5}],
            _TRAIN,
        ),
    ),
    Case(
        "toy",
        "train-exp17",
        point=_point(
            "toy.train",
            [
                {
                    **_DENSE,
                    "lr_rule": "liu-exp17",
                    "warmup_fraction": 0.1,
                    "loss_window": 5,
                    "final_lr_frac": 0.1,
                    "distribution": "exp",
                    "tau": 20.0,
                    "gamma": -0.8,
                    "seed": 6,
                },
                {
                    **_DENSE,
                    "lr_rule": "liu-exp17",
                    "warmup_fraction": 0.1,
                    "loss_window": 5,
                    "final_lr_frac": 0.1,
                    "distribution": "density",
                    "density": 2.0,
                    "gamma": 0.2,
                    "seed": 7,
                    "bias_lr": 0.01,
                },
            ],
            _TRAIN,
        ),
    ),
    Case(
        "toy",
        "train-warmup-betas",
        point=_point(
            "toy.train",
            [
                {
                    **_DENSE,
                    "warmup": 3,
                    "lr": 0.03,
                    "betas": [0.8, 0.99],
                    "eps": 1e-6,
                    "distribution": "linear",
                    "gamma": -0.2,
                    "seed": 8,
                }
            ],
            _TRAIN,
        ),
    ),
    Case(
        "toy",
        "overlaps",
        point={
            "fn": "toy.overlaps",
            "configs": [
                {**{k: v for k, v in _DENSE.items() if k != "keep_norms"}, "alpha": 1.0, "gamma": -1.0, "seed": s}
                for s in (0, 1)
            ],
            "batched": True,
            "legacy_fn": "repcap.toy.overlaps:overlap_points",
            "legacy_batched": True,
        },
    ),
    Case("toy", "trajectory", run=_trajectory),
    Case("toy", "closed-forms", run=_closed_forms),
]
