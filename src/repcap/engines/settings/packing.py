"""The settings of one packing problem (Guha 2026, Sec. 3.3 packing simulation; Yoder 2025's exp
loss), Guha's exponent and learning-rate rules, and the bounds that keep a run finite in float32.

:class:`PackConfig` is the single source of every default, help text and check: ``repcap pack``
derives its flags from it and the sweep functions build it from their config dicts.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
from dataclasses import dataclass

from repcap import RepcapError
from repcap.base import config
from repcap.base.memory import max_cpu_threads

LOSSES = ("abs-relu", "exp", "power")
#: |cos| thresholds at which nearly-parallel pairs are counted (0.9 is 25.8 degrees from parallel).
PARALLEL_THRESHOLDS = (0.5, 0.9, 0.99)
#: |cos| below which a pair counts as orthogonal for the "99% solution" share.
ORTHOGONAL_THRESHOLD = 0.01
#: Largest float32 value: the exp loss's sums and gradients must stay below it.
FLOAT32_MAX = (2.0 - 2.0**-23) * 2.0**127  # numpy.finfo(numpy.float32).max, 3.4028235e38
#: Seeds are torch generator seeds: 0 .. 2**63 - 1.
MAX_SEED = 2**63 - 1  # also the modulus of the random baseline's derived seeds: a number, so kept here
#: Largest learning rate accepted (the loss is scale free and columns are renormalised every step,
#: so an Adam step beyond ~1 only scrambles the vectors).
MAX_LR = 10.0
#: Largest power-loss exponent (its derivative p |cos|^(p-1) must stay far inside float32).
MAX_P = 1000.0
MAX_BINS = 100_000


def guha_exponent(k: int, d: int) -> int:
    """Guha's exponent rule ``p = min(floor(M / ln d), 20)``; M = 40 if k <= 4000, else 50 if
    d >= 3072, else 60 (Guha 2026, packing simulation)."""
    if d < 2:
        return 20
    M = 40 if k <= 4000 else (50 if d >= 3072 else 60)
    return int(min(math.floor(M / math.log(d)), 20))


def guha_lr(d: int) -> float:
    """Guha's learning rate: 0.005 for d <= 1024, 0.0025 above."""
    return 0.005 if d <= 1024 else 0.0025


# --------------------------------------------------------------------------------------------- checks


def _is_int(v) -> bool:
    # numpy's integers are numbers.Integral; numpy's bool_ is not
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_k(name, v):
    if not _is_int(v) or v < 2:
        raise RepcapError(f"{name}={v!r}: packing needs at least 2 vectors (an integer k >= 2)")


def _check_d(name, v):
    if not _is_int(v) or v < 1:
        raise RepcapError(f"{name}={v!r}: the dimension must be an integer >= 1")


def _check_loss(name, v):
    if v not in LOSSES:
        raise RepcapError(f"unknown loss {v!r}; use one of {', '.join(LOSSES)}")


def _check_lr(name, v):
    if v is None:
        return
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 < v <= MAX_LR:
        raise RepcapError(f"learning rate {name}={v!r} must be a finite number in (0, {MAX_LR:g}]")


def _check_beta(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise RepcapError(f"{name}={v!r} must be a finite number > 0")


def _check_p(name, v):
    if v is None:
        return
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 1 <= v <= MAX_P:
        raise RepcapError(f"{name}={v!r} must be a finite exponent in [1, {MAX_P:g}]")


#: A torch generator seed: an integer in 0 .. 2**63 - 1 (the shared check).
check_seed = config.seed


def _check_threads(name, v):
    if v is None:
        return
    hi = max_cpu_threads()
    if not _is_int(v) or not 1 <= v <= hi:
        raise RepcapError(
            f"{name}={v!r} must be an integer in 1 .. {hi} (4 x the {os.cpu_count() or 1} cores of this machine)"
        )


def _check_device(name, v):
    import torch

    if v == "auto":
        return
    try:
        torch.device(v)
    except (RuntimeError, TypeError):
        raise RepcapError(f"{name}={v!r} is not a device; use 'auto', 'cpu' or 'cuda[:N]'") from None


check_bins = config.between(1, MAX_BINS, integer_only=True)


def check_k_d(k, d) -> None:
    """k >= 2 vectors in dimension d >= 1 (integers)."""
    _check_k("k", k)
    _check_d("d", d)


def exp_worst_case(k: int, beta: float) -> float:
    """The largest float32 value the exp loss can form for k vectors: all pairs parallel gives a
    column sum ``(k-1) exp(beta)`` and a total ``k(k-1) exp(beta)``; the gradient of a column sums
    ``2 beta cos exp(beta cos^2)`` over k-1 pairs, times 2."""
    return (k - 1) * math.exp(min(beta, 700.0)) * max(k, 4.0 * beta)


def max_exp_beta(k: int) -> float:
    """The largest beta for which :func:`exp_worst_case` stays below float32's maximum (to 3 digits)."""
    lo, hi = 0.0, 100.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if exp_worst_case(k, mid) < FLOAT32_MAX else (lo, mid)
    return math.floor(lo * 1000) / 1000


def check_exp_overflow(k: int, beta: float) -> None:
    """Refuse an exp loss whose float32 sums could overflow (a NaN run, not a result)."""
    if exp_worst_case(k, beta) >= FLOAT32_MAX:
        raise RepcapError(
            f"beta={beta:g} with k={k}: the exp loss k(k-1)exp(beta) (and its gradient) can reach "
            f"{exp_worst_case(k, beta):.3g}, beyond float32's {FLOAT32_MAX:.3g}; lower beta to at "
            f"most {max_exp_beta(k):g} for this k"
        )


# --------------------------------------------------------------------------------------------- config


def _python_numbers(cfg) -> None:
    """Numpy scalars (from a grid) in a frozen settings object as Python numbers."""
    for f in dataclasses.fields(cfg):
        v = getattr(cfg, f.name)
        if type(v).__module__ == "numpy" and hasattr(v, "item"):
            object.__setattr__(cfg, f.name, v.item())


S = config.setting


@dataclass(frozen=True)
class PackConfig:
    """One packing problem: k unit vectors in R^d (a batch of them shares everything but the seed)."""

    k: int = S(help="number of vectors (>= 2)", check=_check_k)
    d: int = S(help="dimension (>= 1)", check=_check_d)
    loss: str = S("power", "packing loss: power (Guha) | exp (Yoder) | abs-relu (3Blue1Brown)", check=_check_loss)
    beta: float = S(20.0, "exp loss sum exp(beta cos^2) sharpness (Yoder: 20)", check=_check_beta)
    p: float | None = S(
        None, "exponent of the power loss sum |cos|^p; None: Guha's rule min(floor(M/ln d), 20)", check=_check_p
    )
    steps: int = S(5000, "Adam steps (Guha: 5000)", check=config.at_least(0, integer_only=True))
    lr: float | None = S(
        None, f"Adam learning rate in (0, {MAX_LR:g}]; None: 0.005 if d <= 1024 else 0.0025 (Guha)", check=_check_lr
    )
    seed: int = S(0, "seed of the random initial vectors N(0, I), then normalised", check=check_seed)
    tile: int | None = S(
        None, "columns per tile; None: from the memory budget", check=config.at_least(1, integer_only=True)
    )
    record_every: int = S(
        0, "loss-curve sampling in steps; 0: about 200 points", check=config.at_least(0, integer_only=True)
    )
    n_bins: int = S(200, "bins of the final |cos| histogram on [0, 1]", check=check_bins)
    device: str = S("auto", "auto | cpu | cuda[:N]", check=_check_device)
    threads: int | None = S(None, "CPU threads; None: 1 for B k^2 <= 16 M, else torch's setting", check=_check_threads)
    lr_floor: float = S(
        1.0,
        "the rate at the last step as a fraction of the first, reached along a cosine (1: a fixed rate, as Guha "
        "and Yoder run; 0: the rate decays to 0)",
        check=config.between(0.0, 1.0),
    )

    def __post_init__(self):
        _python_numbers(self)
        config.check(self)
        if self.loss == "exp":
            check_exp_overflow(self.k, self.beta)

    @property
    def exponent(self) -> float:
        return float(self.p) if self.p is not None else float(guha_exponent(self.k, self.d))

    @property
    def learning_rate(self) -> float:
        return float(self.lr) if self.lr is not None else guha_lr(self.d)

    @property
    def setting_to_lower(self) -> str:
        """The setting to lower when a run of this config goes non-finite."""
        return {"exp": "beta", "power": "p (or lr)"}.get(self.loss, "lr")


# ----------------------------------------------------------------------------- the minimax method

#: Largest problem (k d unknowns) the minimax refinement's linear programs take (a few seconds each).
MAX_REFINE_UNKNOWNS = 20_000
#: Largest k for which the sharpening stages use the dense batched Gram (above: the tiled loss).
MAX_DENSE_K = 512


def _check_schedule(name, v):
    if not isinstance(v, (list, tuple)) or not v:
        raise RepcapError(f"{name}={v!r} must be a non-empty list of exponents")
    for x in v:
        _check_p(name, x)
        if x is None:
            raise RepcapError(f"{name}={v!r} must be a non-empty list of exponents")
    if list(v) != sorted(v):
        raise RepcapError(f"{name}={v!r}: the exponents must rise (a continuation sharpens the loss)")


@dataclass(frozen=True)
class MinimaxConfig:
    """One line-packing problem solved for its coherence (the largest |cos|) rather than a smooth
    surrogate: random restarts optimised as one batch through a continuation in the loss's
    sharpness (Adam on ``log sum |cos|^p`` with p rising stage by stage), then a minimax refinement
    of the best starts by sequential linear programming on the pairs near the worst (as
    Grassmannian-packing searches do: Conway, Hardin & Sloane 1996; Dhillon et al. 2008)."""

    k: int = S(help="number of vectors (>= 2)", check=_check_k)
    d: int = S(help="dimension (>= 1)", check=_check_d)
    restarts: int = S(32, "random starts, optimised as one batch", check=config.between(1, 4096, integer_only=True))
    refine: int = S(
        2, "best starts given to the minimax refinement (0: none)", check=config.between(0, 4096, integer_only=True)
    )
    schedule: tuple = S(
        (8.0, 32.0, 128.0, 512.0), "exponents p of the continuation's stages, rising", check=_check_schedule, cli=False
    )
    steps: int = S(300, "Adam steps per stage", check=config.at_least(1, integer_only=True))
    lr: float = S(0.02, f"Adam rate of the first stage, halved each stage, in (0, {MAX_LR:g}]", check=_check_lr)
    lr_floor: float = S(
        0.05, "the rate at a stage's last step as a fraction of its first (a cosine)", check=config.between(0.0, 1.0)
    )
    refine_steps: int = S(200, "linear programs of the refinement at most", check=config.at_least(0, integer_only=True))
    seed: int = S(0, "seed of the first start; start r has seed + r", check=check_seed)
    tile: int | None = S(
        None,
        "columns per tile of the tiled loss; None: from the memory budget",
        check=config.at_least(1, integer_only=True),
    )
    n_bins: int = S(200, "bins of the final |cos| histogram on [0, 1]", check=check_bins)
    device: str = S("auto", "auto | cpu | cuda[:N]", check=_check_device)
    threads: int | None = S(None, "CPU threads; None: torch's setting", check=_check_threads)

    def __post_init__(self):
        _python_numbers(self)
        if isinstance(self.schedule, list):
            object.__setattr__(self, "schedule", tuple(self.schedule))
        config.check(self)
        if self.seed + self.restarts - 1 > MAX_SEED:
            raise RepcapError(f"seed={self.seed} with {self.restarts} restarts runs past the largest seed 2**63-1")
        if self.refine > self.restarts:
            raise RepcapError(f"refine={self.refine} must be at most restarts={self.restarts}")

    @property
    def dense(self) -> bool:
        """The sharpening stages use the dense float64 Gram (small k), else the tiled float32 loss."""
        return self.k <= MAX_DENSE_K

    @property
    def refinable(self) -> bool:
        """The refinement's linear programs are small enough (k d unknowns)."""
        return self.refine > 0 and self.refine_steps > 0 and self.k * self.d <= MAX_REFINE_UNKNOWNS
