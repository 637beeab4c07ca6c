"""The superposition toy model of Liu, Liu & Gore 2025 ("Superposition Yields Robust Neural
Scaling", arXiv:2505.10465), trained many models at a time.

Model (one per batch entry k)::

    y = ReLU(x W_k W_kᵀ + b_k),   W_k: (n, m) rows = feature vectors,  b_k: (n,)
    W ~ N(0, 1)/sqrt(m),  b ~ N(0, 1)

Data: ``x_i = 1[u_i < p_i] v_i`` with ``u ~ U(0,1)``, ``v ~ U(0,2)``, a fresh batch every step,
feature frequencies ``p`` from :func:`frequencies` (power law ``i^-alpha`` normalised to sum 1,
exponential, linear, or a power law scaled to a chosen activation density).

Optimiser: the paper's signed decoupled weight-decay AdamW, written out over batched tensors
(:func:`decay_`, :func:`adam_`): the decay acts first, then the Adam step; the bias is not decayed.

* ``gamma >= 0``: ``W <- W (1 - lr gamma)``;
* ``gamma < 0``:  ``W_i <- W_i + lr gamma W_i (1 - 1/||W_i||)`` per row (row norms pulled to 1:
  strong superposition).

Schedule: linear warm-up to the peak lr, then cosine decay to ``final_lr_frac`` (0.05) x peak.

Batching: every tensor carries a leading model axis, ``W: (n_models, n, m)``.  Models of one
``(n, m)`` (and one step count / batch size) share a batch; ``alpha``, ``gamma``, ``seed``, ``lr``
and the frequency distribution are per-model values.  Every model draws its initialisation and its
data from its own generator seeded with its ``seed``, so a model trained in a batch equals the same
model trained alone (up to float round-off).

Measurements (:func:`measure`): the final loss (mean over the last ``loss_window`` steps of the
per-sample squared error summed over features), the represented fraction ``phi_half`` (rows with
``||W_i|| > 1/2``), row norms, and the mean square overlap of normalised rows.  Loss-against-width
exponents come from :func:`fit_exponent`; the weak-regime prediction (loss carried by the features
a width-m model leaves out, exponent ``alpha - 1``) from :func:`unlearned_loss`.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

import numpy as np
import torch

from . import RepcapError, show_progress
from .devices import cpu_threads, generator, resolve_device

#: E[v] and E[v^2] for v ~ U(0, 2).
V_MEAN, V_SQ_MEAN = 1.0, 4.0 / 3.0

DISTRIBUTIONS = ("power", "exp", "linear", "density")


# --------------------------------------------------------------------------------------------
# Feature frequencies and data
# --------------------------------------------------------------------------------------------

def frequencies(n: int, distribution: str = "power", alpha: float = 1.0, tau: float = 400.0,
                density: float = 1.0) -> torch.Tensor:
    """Feature frequencies ``p: (n,)`` (float64), most frequent first.

    * ``"power"``:   ``p_i ∝ i^-alpha``, ``i = 1..n``, normalised to ``sum p = 1`` (the paper);
    * ``"exp"``:     ``p_i ∝ exp(-i / tau)``, sum 1 (paper's large run: ``tau = 400``);
    * ``"linear"``:  ``p_i ∝ (n - i) / n``, sum 1 (the last feature never fires);
    * ``"density"``: the power law scaled so that the expected number of active features per
      sample is ``density`` instead of 1: ``p_i = min(1, density * i^-alpha / sum_j j^-alpha)``.
    """
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise RepcapError(f"n={n!r}: the number of features must be a positive integer")
    i = torch.arange(1, n + 1, dtype=torch.float64)
    if distribution == "power" or distribution == "density":
        if not math.isfinite(alpha) or alpha < 0:
            raise RepcapError(f"alpha={alpha!r}: the power-law exponent must be finite and >= 0")
        w = i ** (-float(alpha))
    elif distribution == "exp":
        if not tau > 0:
            raise RepcapError(f"tau={tau!r}: the exponential scale must be > 0")
        w = torch.exp(-i / float(tau))
    elif distribution == "linear":
        if n < 2:
            raise RepcapError("the linear distribution needs n >= 2")
        w = (n - i) / n
    else:
        raise RepcapError(f"distribution {distribution!r} is unknown; use one of {', '.join(DISTRIBUTIONS)}")
    p = w / w.sum()
    if distribution == "density":
        if not density > 0:
            raise RepcapError(f"density={density!r}: the expected number of active features must be > 0")
        p = torch.clamp(p * float(density), max=1.0)
    return p


def sample_batch(p: torch.Tensor, batch: int, generators: Sequence[torch.Generator],
                 out: torch.Tensor | None = None, mask: torch.Tensor | None = None) -> torch.Tensor:
    """One fresh batch per model: ``x: (n_models, batch, n)`` float32.

    ``p: (n_models, n)`` frequencies on the target device.  Model ``k`` draws from
    ``generators[k]`` only, so its stream does not depend on the other models in the batch.

    One uniform ``u`` per entry gives both the event and the value: ``x_i = 1[u_i < p_i] v_i``
    with ``v_i = 2 u_i / p_i``.  Given ``u_i < p_i``, ``u_i / p_i`` is U(0, 1) and independent of
    the event, so ``v_i ~ U(0, 2)`` exactly as in the paper, for half the random numbers (values
    of features rarer than ~1e-6 are coarsened by float32's 2^-24 resolution of ``u``).
    ``out`` (optional): a ``(n_models, batch, n)`` float32 scratch buffer, reused across steps;
    ``mask`` (optional): a bool buffer of the same shape (no allocation per step).  Returns ``out``.
    """
    n_models, n = p.shape
    if out is None:
        out = torch.empty((n_models, batch, n), dtype=torch.float32, device=p.device)
    for k, g in enumerate(generators):
        torch.rand((batch, n), generator=g, out=out[k])
    p3 = p[:, None, :]
    off = torch.ge(out, p3, out=mask) if mask is not None else out >= p3  # inactive entries
    return out.mul_(2.0 / p3.clamp_min(1e-30)).masked_fill_(off, 0.0)


# --------------------------------------------------------------------------------------------
# Model, gradient, optimiser
# --------------------------------------------------------------------------------------------

def init_params(n: int, m: int, seeds: Sequence[int], device: torch.device
                ) -> tuple[torch.Tensor, torch.Tensor, list[torch.Generator]]:
    """``W: (n_models, n, m)`` ~ N(0,1)/sqrt(m), ``b: (n_models, n)`` ~ N(0,1), and the per-model
    generators (seeded with ``seeds``; they go on to draw the data)."""
    gens = [generator(int(s), device) for s in seeds]
    W = torch.empty((len(seeds), n, m), dtype=torch.float32, device=device)
    b = torch.empty((len(seeds), n), dtype=torch.float32, device=device)
    for k, g in enumerate(gens):
        torch.randn((n, m), generator=g, out=W[k])
        torch.randn((n,), generator=g, out=b[k])
    W /= math.sqrt(m)
    return W, b, gens


def forward(x: torch.Tensor, W: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``y = ReLU(x W Wᵀ + b)``; ``x: (M, B, n)``, ``W: (M, n, m)``, ``b: (M, n)`` -> ``(M, B, n)``."""
    h = torch.bmm(x, W)
    return torch.relu(torch.baddbmm(b[:, None, :], h, W.transpose(1, 2)))


def loss_and_grad(x: torch.Tensor, W: torch.Tensor, b: torch.Tensor, need_loss: bool = True,
                  z_buf: torch.Tensor | None = None, pos_buf: torch.Tensor | None = None
                  ) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
    """Per-model loss and analytic gradients of the training objective.

    Training objective (as the paper's ``MSELoss``): the mean over batch and features of
    ``(y - x)^2``.  Returns ``(loss_sum, dW, db)`` where ``loss_sum: (M,)`` float64 is the
    per-sample squared error summed over features (= n x objective, the quantity the paper plots;
    ``None`` unless ``need_loss``); ``dW: (M, n, m)`` and ``db: (M, n)`` are gradients of the
    objective.

    With ``z = x W Wᵀ + b`` and ``g = (z - x) 1[z > 0]`` (= ``(y - x) 1[z > 0]``):
    ``dObjective/dW = c (xᵀ (g W) + gᵀ (x W))``, ``dObjective/db = c sum_batch g``,
    ``c = 2 / (B n)``.  ``z_buf`` (float, like ``x``) and ``pos_buf`` (bool) are optional
    workspaces reused across steps (large per-step allocations cost page faults on the CPU).
    """
    M, B, n = x.shape
    h = torch.bmm(x, W)
    if z_buf is not None:
        z = torch.baddbmm(b[:, None, :], h, W.transpose(1, 2), out=z_buf)
    else:
        z = torch.baddbmm(b[:, None, :], h, W.transpose(1, 2))
    loss_sum = None
    if need_loss:
        # per-sample sums over features in float32, the batch sum in float64
        loss_sum = (torch.relu(z) - x).square_().sum(dim=2).sum(dim=1, dtype=torch.float64) / B
    off = torch.le(z, 0, out=pos_buf) if pos_buf is not None else z <= 0  # ReLU inactive
    g = z.sub_(x).masked_fill_(off, 0.0)
    c = 2.0 / (B * n)
    dW = torch.bmm(x.transpose(1, 2), torch.bmm(g, W))
    dW.baddbmm_(g.transpose(1, 2), h).mul_(c)
    db = g.sum(dim=1).mul_(c)
    return loss_sum, dW, db


def decay_(W: torch.Tensor, lr: torch.Tensor, gamma: torch.Tensor, min_norm: float = 1e-12,
           signs: str | None = None) -> torch.Tensor:
    """The paper's signed decoupled weight decay, in place.  ``W: (M, n, m)``; ``lr, gamma: (M,)``.

    ``gamma >= 0``: ``W <- W (1 - lr gamma)``.  ``gamma < 0``: each row
    ``W_i <- W_i + lr gamma W_i (1 - 1/||W_i||)``, which moves every row norm toward 1 (rows of
    norm exactly 0 stay 0).  ``signs`` (``"pos"``, ``"neg"`` or ``"mixed"``; None: read from
    ``gamma``) lets a training loop skip the branch it does not need.
    """
    if signs is None:
        signs = "pos" if bool((gamma >= 0).all()) else "neg" if bool((gamma < 0).all()) else "mixed"
    lg = (lr * gamma).to(W.dtype)[:, None, None]
    if signs == "pos":
        return W.mul_(1.0 - lg)
    norms = torch.linalg.vector_norm(W, dim=2, keepdim=True).clamp_min_(min_norm)
    signed = norms.reciprocal_().neg_().add_(1.0).mul_(lg).add_(1.0)  # 1 + lr gamma (1 - 1/||W_i||)
    if signs == "neg":
        return W.mul_(signed)
    factor = torch.where(gamma[:, None, None] >= 0, 1.0 - lg, signed)
    return W.mul_(factor)


@dataclass
class AdamState:
    """First and second moments for one parameter tensor; ``step`` counts updates."""

    exp_avg: torch.Tensor
    exp_avg_sq: torch.Tensor
    step: int = 0

    @classmethod
    def zeros_like(cls, t: torch.Tensor) -> "AdamState":
        return cls(torch.zeros_like(t), torch.zeros_like(t))


def adam_(param: torch.Tensor, grad: torch.Tensor, state: AdamState, lr: torch.Tensor,
          betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> torch.Tensor:
    """One Adam step in place (as ``torch.optim.Adam``), with a per-model learning rate
    ``lr: (M,)`` broadcast over the remaining axes of ``param: (M, ...)``."""
    b1, b2 = betas
    state.step += 1
    state.exp_avg.lerp_(grad, 1.0 - b1)
    state.exp_avg_sq.mul_(b2).addcmul_(grad, grad, value=1.0 - b2)
    bc1 = 1.0 - b1 ** state.step
    bc2 = 1.0 - b2 ** state.step
    denom = (state.exp_avg_sq / bc2).sqrt_().add_(eps)
    step = (lr / bc1).to(param.dtype).reshape((-1,) + (1,) * (param.dim() - 1))
    param.addcdiv_(state.exp_avg * step, denom, value=-1.0)
    return param


def lr_schedule(step: int, steps: int, warmup: int, final_frac: float = 0.05) -> float:
    """Multiplier of the peak lr at 0-based ``step``: linear warm-up over ``warmup`` steps
    (``(step+1)/warmup``), then cosine from 1 down to ``final_frac`` at the last step."""
    if step < warmup:
        return (step + 1) / warmup
    span = max(1, steps - warmup - 1)
    t = min(1.0, (step - warmup) / span)
    return final_frac + (1.0 - final_frac) * 0.5 * (1.0 + math.cos(math.pi * t))


# --------------------------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------------------------

@dataclass
class ModelSpec:
    """Per-model values (they may differ inside one batch)."""

    alpha: float = 1.0            # power-law exponent of the feature frequencies
    gamma: float = 0.0            # signed weight decay: < 0 strong, >= 0 weak superposition
    seed: int = 0                 # seeds the initialisation and the model's own data stream
    lr: float | None = None       # peak learning rate; None -> TrainConfig.lr
    distribution: str = "power"   # "power" | "exp" | "linear" | "density" (see frequencies)
    tau: float = 400.0            # scale of the "exp" distribution
    density: float = 1.0          # expected active features per sample for "density"


@dataclass
class TrainConfig:
    """Shared by every model of a batch.  Defaults are the paper's main sweep."""

    n: int = 1000                 # number of features (paper: 1000; large run 10240)
    m: int = 10                   # hidden width (paper: 10..100)
    steps: int = 20000            # optimiser steps (paper: 20000)
    batch: int = 2048             # samples per step (paper: 2048)
    lr: float = 1e-2              # peak learning rate (paper: 1e-2)
    warmup: int | None = None     # warm-up steps; None -> steps // 10 (paper: 2000 of 20000)
    final_lr_frac: float = 0.05   # cosine decays to this fraction of the peak (paper: 0.05)
    betas: tuple[float, float] = (0.9, 0.999)  # Adam betas (paper: 0.9, 0.999)
    eps: float = 1e-8             # Adam epsilon (torch default)
    loss_window: int | None = None  # last steps averaged for the final loss; None -> max(1, steps // 20)
    device: str = "auto"          # "auto" | "cpu" | "cuda[:N]"
    cpu_chunk_elems: int = 1 << 17  # on the CPU, the forward/backward runs over groups of models with
    #                               at most this many batch x n entries (cache-sized); None: all at once

    def resolved_warmup(self) -> int:
        return self.steps // 10 if self.warmup is None else int(self.warmup)

    def resolved_window(self) -> int:
        w = max(1, self.steps // 20) if self.loss_window is None else int(self.loss_window)
        return min(max(1, w), self.steps)

    def validate(self) -> None:
        for name in ("n", "m", "steps", "batch"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise RepcapError(f"{name}={v!r} must be a positive integer")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise RepcapError(f"lr={self.lr!r} must be a finite number > 0")
        if not 0 <= self.resolved_warmup() < self.steps + 1:
            raise RepcapError(f"warmup={self.warmup!r} must lie in 0..steps")


@dataclass
class TrainResult:
    """Trained parameters and per-model measurements (CPU tensors).

    ``W: (M, n, m)``, ``b: (M, n)``, ``loss: (M,)`` float64 (final loss, summed over features),
    ``curve: (M, n_points)`` float64 per-step loss averaged over logging intervals,
    ``curve_steps: (n_points,)`` the last step of each interval.
    """

    W: torch.Tensor
    b: torch.Tensor
    loss: torch.Tensor
    curve: torch.Tensor
    curve_steps: torch.Tensor
    specs: list[ModelSpec]
    config: TrainConfig
    seconds: float
    device: str

    def measurements(self, keep_norms: bool = False) -> list[dict[str, Any]]:
        """One dict per model: loss, phi_half, mean_sq_overlap(_represented), n_represented."""
        meas = measure(self.W)
        out = []
        for k in range(self.W.shape[0]):
            d = {"loss": float(self.loss[k]), **{key: _py(v[k]) for key, v in meas.items() if key != "norms"}}
            if keep_norms:
                d["norms"] = [round(float(x), 6) for x in meas["norms"][k]]
            out.append(d)
        return out


def _py(v: Any) -> Any:
    v = v.item() if hasattr(v, "item") else v
    return v


def _specs(models: Sequence[ModelSpec | dict]) -> list[ModelSpec]:
    out = []
    known = set(ModelSpec.__dataclass_fields__)
    for s in models:
        if isinstance(s, ModelSpec):
            out.append(s)
        elif isinstance(s, dict):
            extra = set(s) - known
            if extra:
                raise RepcapError(f"unknown model fields {sorted(extra)}; known: {sorted(known)}")
            out.append(ModelSpec(**s))
        else:
            raise RepcapError(f"a model spec must be a ModelSpec or a dict, got {type(s).__name__}")
    if not out:
        raise RepcapError("train() needs at least one model")
    return out


def train(models: Sequence[ModelSpec | dict], config: TrainConfig | None = None, *,
          progress: bool = False, n_curve: int = 50, callback: Callable[[int, torch.Tensor], None] | None = None
          ) -> TrainResult:
    """Train ``len(models)`` toy models of one shape ``(config.n, config.m)`` as one batch.

    Each step: fresh batch per model -> loss and gradient -> decay (signed, W only) -> Adam.
    ``callback(step, loss_sum)`` is called after every step if given.  On the CPU the work runs
    in cache-sized groups of many short ops, on one thread (:class:`repcap.devices.cpu_threads`).
    """
    cfg = config or TrainConfig()
    cfg.validate()
    work = cfg.cpu_chunk_elems if cfg.cpu_chunk_elems else 1 << 30
    with cpu_threads(resolve_device(cfg.device), work):
        return _train(models, cfg, progress=progress, n_curve=n_curve, callback=callback)


def _train(models, cfg: TrainConfig, *, progress: bool, n_curve: int, callback) -> TrainResult:
    specs = _specs(models)
    dev = resolve_device(cfg.device)
    n, m, steps, B = int(cfg.n), int(cfg.m), int(cfg.steps), int(cfg.batch)
    warmup, window = cfg.resolved_warmup(), cfg.resolved_window()

    p = torch.stack([frequencies(n, s.distribution, s.alpha, s.tau, s.density) for s in specs]).to(dev, torch.float32)
    gamma = torch.tensor([float(s.gamma) for s in specs], dtype=torch.float32, device=dev)
    peak = torch.tensor([float(cfg.lr if s.lr is None else s.lr) for s in specs], dtype=torch.float32, device=dev)
    if not torch.isfinite(gamma).all():
        raise RepcapError("gamma must be finite for every model")
    if not (peak > 0).all():
        raise RepcapError("every model's lr must be > 0")

    signs = ("pos" if all(s.gamma >= 0 for s in specs) else "neg" if all(s.gamma < 0 for s in specs)
             else "mixed")
    W, b, gens = init_params(n, m, [s.seed for s in specs], dev)
    sW, sb = AdamState.zeros_like(W), AdamState.zeros_like(b)
    M = len(specs)
    # Models per forward/backward group: all of them on a GPU; on the CPU as many as keep the
    # (group, B, n) work tensors cache-sized (memory-bound ops slow down ~2x beyond that).
    if dev.type == "cpu" and cfg.cpu_chunk_elems:
        per = max(1, int(cfg.cpu_chunk_elems) // (B * n))
    else:
        per = M
    per = min(per, M)
    groups = [(a, min(M, a + per)) for a in range(0, M, per)]
    scratch = torch.empty((per, B, n), dtype=torch.float32, device=dev)
    z_buf = torch.empty_like(scratch)
    bool_buf = torch.empty((per, B, n), dtype=torch.bool, device=dev)  # data mask, then z > 0
    dW = torch.empty_like(W)
    db = torch.empty_like(b)
    loss_sum = torch.zeros(M, dtype=torch.float64, device=dev)

    n_curve = max(1, min(n_curve, steps))
    edges = np.linspace(0, steps, n_curve + 1).astype(int)
    every = max(1, steps // (4 * n_curve))  # outside the final window the loss is logged every few steps
    curve = torch.zeros((M, n_curve), dtype=torch.float64, device=dev)
    counts = np.zeros(n_curve)
    tail = torch.zeros(M, dtype=torch.float64, device=dev)
    seg = 0

    t0 = time.perf_counter()
    from tqdm.auto import trange

    for step in trange(steps, disable=not show_progress(progress), desc=f"toy n={n} m={m} x{M}", leave=False, unit="step"):
        in_tail = step >= steps - window
        need = in_tail or step % every == 0 or callback is not None
        for a, e in groups:
            k = e - a
            x = sample_batch(p[a:e], B, gens[a:e], out=scratch[:k], mask=bool_buf[:k])
            ls, gW, gb = loss_and_grad(x, W[a:e], b[a:e], need_loss=need, z_buf=z_buf[:k], pos_buf=bool_buf[:k])
            if len(groups) == 1:
                dW, db = gW, gb
            else:
                dW[a:e] = gW
                db[a:e] = gb
            if need:
                loss_sum[a:e] = ls
        lr = peak * lr_schedule(step, steps, warmup, cfg.final_lr_frac)
        decay_(W, lr, gamma, signs=signs)
        adam_(W, dW, sW, lr, cfg.betas, cfg.eps)
        adam_(b, db, sb, lr, cfg.betas, cfg.eps)
        while step >= edges[seg + 1]:
            seg += 1
        if need:
            if in_tail:
                tail += loss_sum
            curve[:, seg] += loss_sum
            counts[seg] += 1
            if callback is not None:
                callback(step, loss_sum)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    seconds = time.perf_counter() - t0
    if not torch.isfinite(W).all():
        bad = [i for i in range(M) if not torch.isfinite(W[i]).all()]
        raise RepcapError(f"training diverged (non-finite weights) for models {bad}; lower the learning rate")
    counts_t = torch.tensor(counts, dtype=torch.float64, device=dev).clamp_min(1)
    return TrainResult(W=W.cpu(), b=b.cpu(), loss=(tail / window).cpu(), curve=(curve / counts_t).cpu(),
                       curve_steps=torch.tensor(edges[1:] - 1), specs=specs, config=cfg,
                       seconds=seconds, device=str(dev))


# --------------------------------------------------------------------------------------------
# Measurements
# --------------------------------------------------------------------------------------------

def row_norms(W: torch.Tensor) -> torch.Tensor:
    """``||W_i||`` for every row: ``W: (M, n, m)`` -> ``(M, n)`` float64."""
    return torch.linalg.vector_norm(W.to(torch.float64), dim=-1)


def phi_half(W: torch.Tensor, threshold: float = 0.5) -> torch.Tensor:
    """Represented fraction: the share of rows with ``||W_i|| > threshold`` -> ``(M,)``."""
    return (row_norms(W) > threshold).to(torch.float64).mean(dim=-1)


def mean_sq_overlap(W: torch.Tensor, min_norm: float = 0.0) -> torch.Tensor:
    """Mean over pairs ``i != j`` of ``(ŵ_i · ŵ_j)^2`` for the normalised rows with norm
    ``> min_norm`` -> ``(M,)`` float64 (NaN where fewer than two rows qualify).

    Uses ``sum_{i != j} cos^2 = ||Uᵀ U||_F^2 - k`` with ``U`` the k kept unit rows (no n x n matrix).
    """
    W64 = W.to(torch.float64)
    norms = torch.linalg.vector_norm(W64, dim=-1, keepdim=True)
    keep = (norms > min_norm) & (norms > 0)
    U = torch.where(keep, W64 / norms.clamp_min(1e-300), 0.0)
    k = keep.squeeze(-1).sum(dim=-1).to(torch.float64)
    G = U.transpose(-1, -2) @ U
    total = G.square().sum(dim=(-1, -2)) - k
    return torch.where(k >= 2, total / (k * (k - 1)).clamp_min(1), torch.nan)


def measure(W: torch.Tensor) -> dict[str, torch.Tensor]:
    """All per-model geometry measurements of ``W: (M, n, m)``: ``phi_half``, ``n_represented``,
    ``mean_sq_overlap`` (all rows), ``mean_sq_overlap_represented`` (rows with norm > 1/2),
    ``norms: (M, n)``."""
    norms = row_norms(W)
    return {
        "phi_half": (norms > 0.5).to(torch.float64).mean(-1),
        "n_represented": (norms > 0.5).sum(-1),
        "mean_sq_overlap": mean_sq_overlap(W),
        "mean_sq_overlap_represented": mean_sq_overlap(W, 0.5),
        "norms": norms,
    }


def norm_histogram(norms: Sequence[float] | np.ndarray | torch.Tensor, bins: int | Sequence[float] = 40,
                   range_: tuple[float, float] = (0.0, 2.0)) -> tuple[np.ndarray, np.ndarray]:
    """Histogram of row norms: ``(counts, edges)`` with fixed bins over ``range_`` (values outside
    are clipped into the end bins so nothing is lost)."""
    a = np.clip(np.asarray(norms, dtype=np.float64).ravel(), range_[0], range_[1])
    return np.histogram(a, bins=bins, range=range_)


def matrix_overlap(X: torch.Tensor, max_rows: int | None = None, seed: int = 0, center: bool = False
                   ) -> dict[str, Any]:
    """Mean square overlap ``E[cos^2]`` over pairs ``i != j`` of the rows of a real model's matrix
    ``X: (V, d)`` (e.g. an LM head), the quantity Liu, Liu & Gore 2025 compare with ``1/m``.

    Exact (via :func:`repcap.cosine.moments`, the d x d Gram) when ``max_rows`` is None or
    ``>= V``; otherwise over ``max_rows`` rows drawn without replacement (seeded), an unbiased
    estimate of the same pair mean.  ``center=True`` subtracts the mean row (of the rows used)
    before normalising, which removes a direction shared by all rows.  Returns ``mean_sq``, ``d``,
    ``rows_used``, ``n_rows``, ``sampled``, ``zero_rows``.
    """
    from .cosine import moments

    V = int(X.shape[0])
    sampled = max_rows is not None and int(max_rows) < V
    if sampled:
        g = torch.Generator().manual_seed(int(seed))
        X = X[torch.randperm(V, generator=g)[: int(max_rows)]]
    if center:
        X = X.to(torch.float64)
        X = X - X.mean(dim=0, keepdim=True)
    mo = moments(X, device="auto")
    return {"mean_sq": mo.mean_sq, "d": mo.d, "rows_used": mo.n_rows, "n_rows": V, "sampled": bool(sampled),
            "zero_rows": mo.n_zero_rows}


# --------------------------------------------------------------------------------------------
# Width scaling: exponents and the weak-regime prediction
# --------------------------------------------------------------------------------------------

def unlearned_loss(p: torch.Tensor | np.ndarray, k: "int | np.ndarray | Sequence[bool]",
                   optimal_bias: bool = True) -> float:
    """Loss (per sample, summed over features) carried by the features a model leaves out, if the
    ones it keeps are reconstructed perfectly.

    ``k`` an int: every feature except the ``k`` most frequent is left out (the weak-regime ideal);
    ``k`` a boolean mask ``(n,)``: the features where the mask is False are left out (e.g. the rows
    of a trained model with ``||W_i|| <= 1/2``; ``p`` is then taken in its given order).

    A left-out feature's best output is a constant, its mean ``p_i E[v] = p_i`` (the bias), leaving
    its variance ``p_i E[v^2] - p_i^2 = 4 p_i / 3 - p_i^2``; with ``optimal_bias=False`` the output
    is 0 and the loss ``4 p_i / 3``.  For ``p_i ∝ i^-alpha`` and integer ``k`` this falls as
    ``k^-(alpha - 1)`` (:func:`weak_exponent`).
    """
    p = np.asarray(p, dtype=np.float64).ravel()
    if isinstance(k, (int, np.integer)):
        q = np.sort(p)[::-1][int(k):]
    else:
        mask = np.asarray(k, dtype=bool).ravel()
        if mask.shape != p.shape:
            raise RepcapError(f"unlearned_loss: the mask has {mask.size} entries for {p.size} features")
        q = p[~mask]
    per = V_SQ_MEAN * q - (V_MEAN * q) ** 2 if optimal_bias else V_SQ_MEAN * q
    return float(per.sum())


def weak_exponent(alpha: float) -> float:
    """The weak-regime width exponent for power-law frequencies: ``alpha_m = alpha - 1``
    (Liu, Liu & Gore 2025); meaningful for ``alpha > 1``."""
    return float(alpha) - 1.0


# --------------------------------------------------------------------------------------------
# Sweeps: module-level functions for repcap.sweep.run(..., batched=True, group_by=group_key)
# --------------------------------------------------------------------------------------------

#: Keys of a sweep config and their defaults (the paper's main sweep).
SWEEP_DEFAULTS: dict[str, Any] = {
    "n": 1000, "m": 10, "alpha": 1.0, "gamma": 0.0, "seed": 0, "steps": 20000, "batch": 2048,
    "lr": 1e-2, "warmup": None, "loss_window": None, "distribution": "power", "tau": 400.0,
    "density": 1.0, "keep_norms": False,
}
_SHARED = ("n", "m", "steps", "batch", "warmup", "loss_window")


def sweep_config(**kw: Any) -> dict[str, Any]:
    """A complete sweep config (defaults filled in, unknown keys refused)."""
    extra = set(kw) - set(SWEEP_DEFAULTS)
    if extra:
        raise RepcapError(f"unknown toy sweep keys {sorted(extra)}; known: {sorted(SWEEP_DEFAULTS)}")
    c = {**SWEEP_DEFAULTS, **kw}
    # one spelling per value, so that alpha=1 and alpha=1.0 share a cache entry
    for k in ("alpha", "gamma", "lr", "tau", "density"):
        c[k] = float(c[k])
    for k in ("n", "m", "steps", "batch", "seed"):
        if isinstance(c[k], float) and c[k].is_integer():
            c[k] = int(c[k])
    return c


def group_key(config: dict) -> tuple:
    """Configs with equal keys can share one batch (same shape, steps, batch size, schedule)."""
    c = sweep_config(**config)
    return tuple(c[k] for k in _SHARED)


def train_points(configs: Sequence[dict], device: str = "auto", progress: bool = False) -> list[dict]:
    """Batched sweep function: train every config (all with one :func:`group_key`) as one batch
    and return one result dict per config: ``loss``, ``phi_half``, ``n_represented``,
    ``mean_sq_overlap``, ``mean_sq_overlap_represented``, ``seconds`` (the batch's wall time
    divided by its size), ``device``, and ``norms`` when ``keep_norms``."""
    cs = [sweep_config(**c) for c in configs]
    keys = {group_key(c) for c in cs}
    if len(keys) != 1:
        raise RepcapError(f"train_points got configs of {len(keys)} different groups; batch them with group_by=toy.group_key")
    c0 = cs[0]
    cfg = TrainConfig(n=c0["n"], m=c0["m"], steps=c0["steps"], batch=c0["batch"], warmup=c0["warmup"],
                      loss_window=c0["loss_window"], device=device)
    specs = [ModelSpec(alpha=c["alpha"], gamma=c["gamma"], seed=c["seed"], lr=c["lr"],
                       distribution=c["distribution"], tau=c["tau"], density=c["density"]) for c in cs]
    res = train(specs, cfg, progress=progress)
    meas = res.measurements(keep_norms=True)
    out = []
    for c, d in zip(cs, meas):
        if not c["keep_norms"]:
            d.pop("norms")
        for key, v in d.items():  # JSON has no NaN: an undefined measurement is None
            if isinstance(v, float) and not math.isfinite(v):
                d[key] = None
        d["seconds"] = res.seconds / len(cs)
        d["device"] = res.device
        out.append(d)
    return out



def models_per_batch(n: int, batch: int, budget_bytes: int | None = None, device: str = "auto") -> int:
    """How many models of ``n`` features fit one batch of ``batch`` samples in the memory budget
    (about 8 float32 tensors of shape ``(batch, n)`` per model)."""
    from .devices import memory_budget_bytes

    dev = resolve_device(device)
    budget = budget_bytes if budget_bytes is not None else memory_budget_bytes(dev)
    return max(1, int(budget // (8 * 4 * batch * n)))


def run_sweep(configs: Sequence[dict], cache: str = "toy", *, progress: bool = True, desc: str | None = None,
              max_batch: int | None = None) -> "Any":
    """Run toy configs through :func:`repcap.sweep.run`, batched by :func:`group_key`; returns a
    pandas DataFrame with one row per config (config columns + results, ``norms`` dropped unless
    asked for)."""
    import pandas as pd

    from . import sweep

    cs = [sweep_config(**c) for c in configs]
    if max_batch is None and cs:
        max_batch = min(models_per_batch(c["n"], c["batch"]) for c in cs)
    rep = sweep.run(train_points, cs, cache=cache, batched=True, group_by=group_key, max_batch=max_batch,
                    desc=desc or "toy models", progress=progress)
    rows = [{**c, **r} for c, r in zip(cs, rep.results)]
    return pd.DataFrame(rows)


__all__ = [
    "AdamState", "DISTRIBUTIONS", "ModelSpec", "SWEEP_DEFAULTS", "TrainConfig", "TrainResult",
    "adam_", "decay_", "forward", "frequencies", "group_key", "init_params",
    "loss_and_grad", "lr_schedule", "matrix_overlap", "measure", "mean_sq_overlap", "models_per_batch", "norm_histogram",
    "phi_half", "row_norms", "run_sweep", "sample_batch", "sweep_config", "train", "train_points",
    "unlearned_loss", "weak_exponent",
]
