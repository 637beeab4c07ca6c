"""PackConfig is the one source of packing settings: the CLI's defaults are its defaults, sweeps
fill in its defaults, and its checks bound every input (float32 overflow, seeds, lr, threads)."""

import math

import numpy as np
import pytest
import torch

from repcap import RepcapError
from repcap.base import config
from repcap.base.devices import cpu_threads
from repcap.base.memory import max_cpu_threads
from repcap.cli.app import build_parser
from repcap.engines import packing
from repcap.engines.packing import optimiser as popt
from repcap.engines.settings import packing as pconfig


def test_cli_defaults_are_the_dataclass_defaults():
    args = build_parser().parse_args(["pack", "--k", "5", "--d", "3"])
    defaults = config.defaults(packing.PackConfig)
    assert set(defaults) == {f.name for f in config.fields(packing.PackConfig)} - {"k", "d"}
    for name, value in defaults.items():
        assert getattr(args, name) == value, name
    assert config.from_args(packing.PackConfig, args) == packing.PackConfig(k=5, d=3)


def test_every_field_has_help_and_a_check():
    for f in config.fields(packing.PackConfig):
        assert f.metadata["help"], f.name
        assert f.metadata["checks"], f.name


def test_numpy_scalars_from_a_grid_are_plain_numbers():
    cfg = packing.PackConfig(k=np.int64(30), d=np.int32(4), beta=np.float64(10.0))
    assert type(cfg.k) is int and type(cfg.d) is int and type(cfg.beta) is float


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(lr=1e300), "learning rate"),
        (dict(lr=10.5), "learning rate"),
        (dict(lr=0.0), "learning rate"),
        (dict(seed=2**64), r"0\.\.2\*\*63-1"),
        (dict(seed=2**63), r"0\.\.2\*\*63-1"),
        (dict(seed=-1), r"0\.\.2\*\*63-1"),
        (dict(seed=1.5), r"0\.\.2\*\*63-1"),
        (dict(threads=0), "threads"),
        (dict(threads=100000), "threads"),
        (dict(p=0.5), "exponent"),
        (dict(p=1e300), "exponent"),
        (dict(beta=float("nan")), "beta"),
        (dict(beta=-1.0), "beta"),
        (dict(steps=-1), "steps"),
        (dict(tile=0), "tile"),
        (dict(n_bins=0), "n_bins"),
        (dict(device="gpu"), "not a device"),
    ],
)
def test_bounds_give_one_clear_error(kwargs, match):
    with pytest.raises(RepcapError, match=match) as err:
        packing.PackConfig(k=10, d=5, **kwargs)
    assert "\n" not in str(err.value)


def test_edge_values_are_accepted():
    packing.PackConfig(k=10, d=5, lr=10.0, seed=2**63 - 1, threads=max_cpu_threads(), p=1000.0, steps=0)
    assert max_cpu_threads() == 4 * (__import__("os").cpu_count() or 1)


def test_cpu_threads_refuses_what_torch_cannot_take():
    with pytest.raises(RepcapError, match="threads=100000"):
        cpu_threads(torch.device("cpu"), 1, 100000)
    with pytest.raises(RepcapError, match="threads=0"):
        cpu_threads(torch.device("cpu"), 1, 0)
    with cpu_threads(torch.device("cpu"), 1, 1):
        assert torch.get_num_threads() == 1


def test_exp_overflow_bound_is_the_float32_limit_of_the_actual_sums():
    # d = 1: every pair is parallel, the worst case the bound is written for.  Just below the bound
    # the float32 loss and gradient are finite; just above it the gradient overflows.
    k = 50
    b = pconfig.max_exp_beta(k)
    assert pconfig.exp_worst_case(k, b) < pconfig.FLOAT32_MAX <= pconfig.exp_worst_case(k, b + 0.01)
    V = packing.normalise(torch.randn(1, 1, k, generator=torch.Generator().manual_seed(0)))
    L, g, _ = packing.loss_and_grad(V, "exp", beta=b)
    assert math.isfinite(float(L)) and bool(torch.isfinite(g).all())
    assert float(L) == pytest.approx(k * (k - 1) * math.exp(b), rel=1e-5)
    assert float(g.abs().max()) == pytest.approx(4 * b * (k - 1) * math.exp(b), rel=1e-5)
    _, g_over, _ = packing.loss_and_grad(V, "exp", beta=b + 0.05)
    assert not bool(torch.isfinite(g_over).all())
    # where k > 4 beta the total k(k-1) exp(beta) is the binding term
    assert pconfig.exp_worst_case(10_000, 20.0) == pytest.approx(10_000 * 9_999 * math.exp(20.0))


def test_exp_beta_that_would_overflow_is_refused():
    with pytest.raises(RepcapError, match=r"beta=80 with k=50.*lower beta to at most 79\.07"):
        packing.PackConfig(k=50, d=1, loss="exp", beta=80.0)
    packing.PackConfig(k=50, d=1, loss="exp", beta=79.0)
    packing.PackConfig(k=50, d=1, loss="power", beta=80.0)  # beta only matters for the exp loss


def test_a_run_that_leaves_float32_stops_naming_the_setting():
    # k = 50 in R^2 at beta = 60: the loss fits float32, Adam's squared gradient does not
    cfg = packing.PackConfig(k=50, d=2, loss="exp", beta=60.0, steps=5, device="cpu")
    with pytest.raises(RepcapError, match=r"at step 0 .*beta=60.*lower beta$"):
        packing.optimise(cfg, progress=False)
    with pytest.raises(RepcapError, match=r"exp loss became non-finite at step 7 .*lower beta"):
        popt._check_finite(cfg, torch.tensor([1.0, float("nan")]), 7)
    popt._check_finite(cfg, torch.tensor([1.0, 2.0]), 7)


def test_seeds_of_a_batch_are_checked():
    with pytest.raises(RepcapError, match="seed=18446744073709551616"):
        packing.optimise(packing.PackConfig(k=10, d=3, steps=1), seeds=[0, 2**64], progress=False)


def test_sweep_config_takes_the_dataclass_defaults():
    out = packing.sweep_packed([dict(k=12, d=3, steps=4, seed=1)])[0]
    ref = packing.optimise(packing.PackConfig(k=12, d=3, steps=4, seed=1), progress=False)
    assert out["loss"] == "power" and out["lr"] == packing.guha_lr(3) and out["p"] == packing.guha_exponent(12, 3)
    assert len(out["hist"]) == config.defaults(packing.PackConfig)["n_bins"]
    assert out["eps_star"] == pytest.approx(float(ref.eps_star[0]), rel=1e-6)
    assert packing.packed_group(dict(k=12, d=3)) == packing.packed_group(dict(k=12, d=3, loss="power", beta=20.0))
    assert packing.packed_group(dict(k=12, d=3, seed=0)) == packing.packed_group(dict(k=12, d=3, seed=5))
    with pytest.raises(RepcapError, match="unknown packing sweep config keys"):
        packing.sweep_packed([dict(k=12, d=3, stpes=4)])
    with pytest.raises(RepcapError, match="share every setting but the seed"):
        packing.sweep_packed([dict(k=12, d=3, steps=2), dict(k=12, d=3, steps=3)])


def test_baseline_sweep_points_take_the_functions_defaults():
    r = packing.sweep_random(dict(k=np.int64(20), d=3, trials=4))
    assert r == {**packing.random_eps_star(20, 3, 4), "k": 20, "d": 3, "seconds": r["seconds"]}
    assert packing.sweep_projection(dict(N=20, k=4)) == packing.projection_distortion(20, 4)
    with pytest.raises(RepcapError, match="sweep_random config"):
        packing.sweep_random(dict(k=20, d=3, trails=4))
