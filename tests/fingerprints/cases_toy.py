"""Fingerprint cases of the toy engine (:mod:`repcap.engines.toy`): every numerical path at a size that
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
    from repcap.engines import toy

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

    from repcap.engines import toy
    from repcap.engines.settings.toy import warmup_steps
    from repcap.engines.toy import schedule, theory
    from repcap.engines.toy.measurements import norm_histogram

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
        "warmup": [warmup_steps(100), warmup_steps(100, 7), warmup_steps(100, None, 0.05)],
        "norm_histogram": norm_histogram(np.linspace(0.0, 2.5, 37), bins=8)[0],
    }
    return out


def _kernels() -> dict:
    """The pieces the trainers compose, called as a caller outside them would: the dense sampler
    and loss without scratch buffers, the signed decay with its sign read from ``gamma``, the
    sparse sampler's batches (a continued gap walk: a feature whose events overran its budget of
    gaps; no feature active at all), the sparse loss in several row tiles and with no active sample,
    the represented share, a norm histogram on given edges, and the sampler rule."""
    import numpy as np
    import torch

    from repcap.engines import toy
    from repcap.engines.toy import data, measurements, model, optim, sparse_data, sparse_model

    cpu = torch.device("cpu")
    W, b, gens = model.init_params(24, 5, [3, 4], cpu)
    p = torch.from_numpy(np.stack([toy.frequencies(24, "power", 1.1), toy.frequencies(24, "exp", tau=6.0)])).float()
    x = data.sample_batch(p, 16, gens)
    loss, dW, db = model.loss_and_grad(x, W, b)
    lr = torch.tensor([0.05, 0.05])
    decayed = {
        name: optim.decay_(W.clone(), lr, torch.tensor(g)).double().sum(dim=(1, 2))
        for name, g in (("pos", [0.5, 1.0]), ("neg", [-0.5, -1.0]), ("mixed", [0.5, -1.0]))
    }
    # p = 0.02 over 64 samples: a budget of 8 gaps per feature, overrun (>= 8 events) by some of the
    # 4000 features in the first seven batches of seed 0, whose walks then go on (sparse_data._continue)
    sampler = sparse_data.SparseSampler(torch.full((1, 4000), 0.02), 64)
    g0 = [torch.Generator().manual_seed(0)]
    batches = [sampler.sample(g0) for _ in range(7)]
    walks = {
        "entries": [int(bt.vals.numel()) for bt in batches],
        "vals_sum": [float(bt.vals.double().sum()) for bt in batches],
        "rows_sum": [int(bt.rows.sum()) for bt in batches],
        "cols_sum": [int(bt.cols.sum()) for bt in batches],
    }
    quiet = sparse_data.SparseSampler(torch.zeros(2, 50), 8).sample([torch.Generator().manual_seed(1)] * 2)
    dense = sparse_data.SparseBatch.from_dense(x)
    Ws, bs, _ = model.init_params(30, 4, [5], cpu)
    xs = sparse_data.SparseSampler(torch.full((1, 30), 0.1), 40).sample([torch.Generator().manual_seed(2)])
    ws = sparse_model.SparseWorkspace(1, 40, 30, 4, cpu, tile_elems=7 * 30)  # 7 rows a tile
    tiled = sparse_model.sparse_loss_and_grad(xs, Ws, bs, ws=ws)
    whole = sparse_model.sparse_loss_and_grad(xs, Ws, bs)
    empty = sparse_model.sparse_loss_and_grad(quiet, torch.full((2, 50, 4), 0.2), torch.full((2, 50), 0.3))
    return {
        "dense": {"x_sum": x.double().sum(dim=(1, 2)), "loss": loss, "dW": dW.double().sum(dim=(1, 2)), "db": db},
        "decay": decayed,
        "walks": walks,
        "quiet_entries": int(quiet.vals.numel()),
        "from_dense": {"entries": int(dense.vals.numel()), "roundtrip": bool(torch.equal(dense.to_dense(), x))},
        "sparse_tiled": {"loss": tiled[0], "dW": tiled[1].double().abs().sum(), "db": tiled[2]},
        "sparse_whole": {"loss": whole[0], "dW": whole[1].double().abs().sum(), "db": whole[2]},
        "sparse_empty": {"loss": empty[0], "dW": empty[1].double().abs().sum(), "db": empty[2]},
        "phi_half": measurements.phi_half(W * 3.0),
        "norm_histogram": measurements.norm_histogram(np.linspace(0.0, 2.5, 37), bins=np.linspace(0.5, 1.5, 6))[0],
        "sampler": [
            sparse_data.choose_sampler("auto", torch.full((1, 600), 0.01), cpu) == "sparse",
            sparse_data.choose_sampler("auto", torch.full((1, 600), 0.5), cpu) == "sparse",
            sparse_data.choose_sampler("auto", torch.full((1, 100), 0.01), cpu) == "sparse",
            sparse_data.sparse_fraction(torch.empty(0, 0)),
        ],
    }


def _configs() -> dict:
    """A sweep config's one spelling per value (an integer given as a float, betas as a list), a
    training config's betas, models given as dicts with the loss of every step handed to a
    callback, and the models that fit a memory budget."""
    from repcap.engines import toy
    from repcap.engines.toy import points

    cfg = points.sweep_config(n=64.0, m=8, alpha=1, betas=[0.8, 0.99], steps=10)
    seen: list = []
    r = toy.train(
        [{"alpha": 1.2, "gamma": 0.4, "seed": 3}],
        toy.TrainConfig(n=32, m=4, steps=15, batch=16, device="cpu", sampler="dense", betas=[0.85, 0.99]),
        n_curve=3,
        callback=lambda step, loss_sum: seen.append(float(loss_sum[0])),
    )
    return {
        "config": {k: v for k, v in cfg.items() if not isinstance(v, str)},
        "dict_spec": {"loss": r.loss, "curve": r.curve, "every_step": seen},
        "models_per_batch": [points.models_per_batch(1000, 2048, 1 << 30), points.models_per_batch(64, 32, 10)],
    }


def _run_sweep() -> dict:
    """:func:`repcap.engines.toy.points.run_sweep` through a fresh sweep cache (two groups of configs), and
    the same configs again from the cache."""
    import os
    import tempfile

    from repcap.engines.toy import points

    configs = [
        {**_DENSE, "steps": 10, "alpha": 1.0, "seed": 1},
        {**_DENSE, "steps": 10, "alpha": 1.5, "seed": 2},
        {**_DENSE, "steps": 10, "n": 32, "seed": 3},
    ]
    before = os.environ.get("REPCAP_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["REPCAP_CACHE"] = tmp
        try:
            df = points.run_sweep(configs, progress=False)
            again = points.run_sweep(configs, progress=False)
        finally:
            if before is None:
                os.environ.pop("REPCAP_CACHE", None)
            else:
                os.environ["REPCAP_CACHE"] = before
    cols = ["loss", "phi_half", "n_represented", "mean_sq_overlap", "mean_sq_overlap_represented"]
    return {"rows": df[cols].to_dict(orient="list"), "cached_equal": bool(df[cols].equals(again[cols]))}


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
    Case(
        "toy",
        "train-auto-unlearned",  # the sampler rule's choice (sparse here), and measurements left undefined
        point=_point(
            "toy.train",
            [{"n": 600.0, "m": 4, "steps": 3, "batch": 32, "lr": 0.1, "alpha": 1.0, "gamma": 9.0, "seed": 9}],
            _TRAIN,
        ),
    ),
    Case(
        "toy",
        "overlaps-unlearned",  # fewer than two rows represented: the candidates over them are undefined
        point={
            "fn": "toy.overlaps",
            "configs": [{"n": 40, "m": 4, "steps": 3, "batch": 16, "lr": 0.1, "gamma": 9.0, "seed": 9}],
            "batched": True,
            "legacy_fn": "repcap.toy.overlaps:overlap_points",
            "legacy_batched": True,
        },
    ),
    Case("toy", "trajectory", run=_trajectory),
    Case("toy", "kernels", run=_kernels),
    Case("toy", "configs", run=_configs),
    Case("toy", "run-sweep", run=_run_sweep),
    Case("toy", "closed-forms", run=_closed_forms),
]
