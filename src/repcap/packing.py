"""Vector packing: optimise k unit vectors in R^d so that no two are nearly parallel.

References (facts in ``../shared/reference/README.md``):

* Guha 2026 (arXiv:2606.02765), packing simulation: unit columns ``V in R^{d x k}``, loss
  ``sum_{i != j} |G_ij|^p`` on the column-normalised Gram ``G = V^T V``, Adam, 5000 steps,
  lr 0.005 (d <= 1024) else 0.0025, exponent ``p = min(floor(M / ln d), 20)`` with M = 40 if
  k <= 4000, else 50 if d >= 3072, else 60.  Random baseline: min over T trials of max |cos|.
* Yoder 2025 ("Beyond Orthogonality"): 3Blue1Brown's 10,000 vectors in R^100; the loss
  ``sum relu(|cos|)`` (gradient trap, "99% solution") against ``sum exp(beta cos^2)``, beta = 20,
  which reaches a worst-pair angle of about 76.5 degrees.
* Random projections of the N standard basis vectors of R^N into R^k (Johnson & Lindenstrauss 1984;
  Achlioptas 2003 for +-1 entries; Ailon & Chazelle 2009 for the subsampled randomised Hadamard
  transform), with the empirical constant ``C = eps^2 k / ln N``.

Shapes: a batch of B independent problems is ``V: (B, d, k)`` (columns are the vectors).  The loss
and its gradient are computed column tile by column tile (:func:`loss_and_grad`), so the working
memory is O(B * tile * k) rather than O(B * k^2); the gradient of a tile is formed in the same pass
as its loss (``grad[:, :, J] = 2 V f'(V^T V_J)``), so backward costs nothing extra.  float32
compute, float64 reductions; CPU or CUDA through :func:`repcap.devices.resolve_device`.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from . import RepcapError, show_progress
from .devices import cpu_threads, device_name, generator, memory_budget_bytes, resolve_device

LOSSES = ("abs-relu", "exp", "power")
#: |cos| thresholds at which nearly-parallel pairs are counted (0.9 is 25.8 degrees from parallel).
PARALLEL_THRESHOLDS = (0.5, 0.9, 0.99)
#: |cos| below which a pair counts as orthogonal for the "99% solution" share.
ORTHOGONAL_THRESHOLD = 0.01


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


@dataclass
class PackConfig:
    """One packing problem (a batch of them shares everything but the seed)."""

    k: int                         # number of vectors
    d: int                         # dimension
    loss: str = "power"            # "power" (Guha), "exp" (Yoder), "abs-relu" (3Blue1Brown)
    beta: float = 20.0             # exp loss sum exp(beta cos^2); Yoder used 20
    p: float | None = None         # power loss sum |cos|^p; None -> guha_exponent(k, d)
    steps: int = 5000              # Adam steps (Guha)
    lr: float | None = None        # None -> guha_lr(d)
    seed: int = 0                  # initial vectors ~ N(0, I) from this seed, then normalised
    tile: int | None = None        # columns per tile; None -> from the memory budget
    record_every: int = 0          # loss-curve sampling in steps; 0 -> about 200 points
    n_bins: int = 200              # bins of the final |cos| histogram on [0, 1]
    device: str = "auto"           # "auto", "cpu", "cuda[:N]"
    threads: int | None = None     # CPU threads; None -> 1 for B k^2 <= 16 M, else torch's setting

    def __post_init__(self):
        validate(self.k, self.d, self.loss, lr=self.lr, steps=self.steps, beta=self.beta, p=self.p)

    @property
    def exponent(self) -> float:
        return float(self.p) if self.p is not None else float(guha_exponent(self.k, self.d))

    @property
    def learning_rate(self) -> float:
        return float(self.lr) if self.lr is not None else guha_lr(self.d)


def validate(k, d, loss="power", *, lr=None, steps=1, beta=20.0, p=None) -> None:
    """One clear error per bad input (the CLI prints it as one line)."""
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 2:
        raise RepcapError(f"k={k!r}: packing needs at least 2 vectors (an integer k >= 2)")
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1:
        raise RepcapError(f"d={d!r}: the dimension must be an integer >= 1")
    if loss not in LOSSES:
        raise RepcapError(f"unknown loss {loss!r}; use one of {', '.join(LOSSES)}")
    if lr is not None and (not isinstance(lr, (int, float)) or not math.isfinite(lr) or lr <= 0):
        raise RepcapError(f"learning rate {lr!r} must be a finite number > 0")
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise RepcapError(f"steps={steps!r} must be an integer >= 0")
    if not isinstance(beta, (int, float)) or not math.isfinite(beta) or beta <= 0 or beta > 80:
        raise RepcapError(f"beta={beta!r} must be finite, > 0 and <= 80 (exp(beta) must fit float32)")
    if p is not None and (not isinstance(p, (int, float)) or not math.isfinite(p) or p < 1):
        raise RepcapError(f"p={p!r} must be a finite exponent >= 1")


# ---------------------------------------------------------------------------------------------
# Loss and gradient, tile by tile


def _f_fprime(G: torch.Tensor, loss: str, beta: float, p: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Elementwise loss ``f(G)`` and derivative ``f'(G)``; may overwrite ``G``."""
    if loss == "exp":
        f = (G * G).mul_(beta).exp_()
        fp = G.mul_(f).mul_(2.0 * beta)
    elif loss == "power":
        a = G.abs()
        if p == 1:
            return a, G.sign_()
        am1 = _int_pow(a, int(p) - 1) if float(p).is_integer() and p <= 64 else a.pow(p - 1.0)
        f = am1 * a
        fp = am1.mul_(G.sign_()).mul_(p)
    else:  # abs-relu: relu(|c|) = |c|, derivative sign(c)
        f = G.abs()
        fp = G.sign_()
    return f, fp


def _int_pow(a: torch.Tensor, n: int) -> torch.Tensor:
    """``a ** n`` for a small integer n >= 1 by repeated squaring (much faster than ``pow`` on a
    CPU); may overwrite ``a``."""
    result = None
    base = a
    while n:
        if n & 1:
            result = base.clone() if result is None else result.mul_(base)
        n >>= 1
        if n:
            base = base * base
    return result


def default_tile(k: int, batch: int, device: torch.device) -> int:
    """Columns per tile.  GPU: about five (B, k, tile) float32 temporaries within the memory
    budget, at most 8192.  CPU: a (B, k, tile) tile of about 256 Ki floats (1 MiB), between 64 and
    512 columns, so the elementwise passes run in cache (measured: 2-4x faster than 512 columns at
    k = 2000..10000)."""
    if device.type == "cpu":
        return int(min(k, max(64, min(512, (1 << 18) // k))))
    budget = memory_budget_bytes(device)
    t = budget // (5 * 4 * max(1, batch) * k)
    return int(max(32, min(k, 8192, t)))


def default_block(k: int, batch: int, device: torch.device) -> int:
    """Side of the square Gram blocks of the symmetric pass: 256 on a CPU (a 256 KiB block stays in
    cache; measured fastest of 128..1024 at k = 2000 and 10000), up to 8192 within the memory
    budget on a GPU."""
    if device.type == "cpu":
        return int(min(k, 256))
    budget = memory_budget_bytes(device)
    t = int(math.sqrt(budget / (5 * 4 * max(1, batch))))
    return int(max(64, min(k, 8192, t)))


class _flush_denormal:
    """On a CPU, treat subnormal floats as zero while packing: |cos|^p of small cosines underflows
    into subnormals, which are 10-100x slower to compute with (measured 3x on the power loss).
    Their contribution to the loss (< 1e-38 each) is below float32 resolution anyway."""

    def __init__(self, device: torch.device):
        self.on = device.type == "cpu"

    def __enter__(self):
        if self.on:
            torch.set_flush_denormal(True)

    def __exit__(self, *exc):
        if self.on:
            torch.set_flush_denormal(False)


def loss_and_grad(V: torch.Tensor, loss: str = "power", *, beta: float = 20.0, p: float = 10.0,
                  tile: int | None = None, want_max: bool = False, symmetric: bool | None = None):
    """Tiled ``L_b = sum_{i != j} f(G_ij)`` and ``dL_b/dV`` for unit columns ``V: (B, d, k)``.

    Returns ``(loss: (B,) float64, grad: (B, d, k) V.dtype, maxabs: (B,) or None)`` where
    ``maxabs`` is the largest off-diagonal |cos| (only with ``want_max``).

    ``symmetric`` (default: on the CPU) visits only the blocks ``I <= J`` of the Gram and uses
    ``G_JI = G_IJ^T``: half the Gram products and half the elementwise work, working memory
    O(B * tile^2).  Otherwise whole column tiles ``V^T V_J`` (fewer, larger matmuls, better on a
    GPU), working memory O(B * tile * k).  Either way ``grad[:, :, J] = 2 sum_I V_I f'(G_IJ)``.
    """
    if V.dim() != 3:
        raise RepcapError(f"V must have shape (B, d, k), got {tuple(V.shape)}")
    B, d, k = V.shape
    if symmetric is None:
        symmetric = V.device.type == "cpu"
    total = torch.zeros(B, dtype=torch.float64, device=V.device)
    mx = torch.zeros(B, dtype=V.dtype, device=V.device) if want_max else None
    if symmetric and B > 1 and V.device.type == "cpu":
        # On a CPU a batch gains nothing from batched matmuls of small blocks (measured 0.64x of a
        # loop at B = 8, k = 1000); run the problems one after another through the same pass.
        outs = [loss_and_grad(V[b:b + 1], loss, beta=beta, p=p, tile=tile, want_max=want_max, symmetric=True)
                for b in range(B)]
        return (torch.cat([o[0] for o in outs]), torch.cat([o[1] for o in outs]),
                torch.cat([o[2] for o in outs]) if want_max else None)
    if symmetric:
        tile = int(tile or default_block(k, B, V.device))
        grad = torch.zeros_like(V)
        starts = list(range(0, k, tile))
        for i0 in starts:
            i1 = min(k, i0 + tile)
            Vi = V[:, :, i0:i1]
            ViT = Vi.transpose(1, 2)
            for j0 in starts:
                if j0 < i0:
                    continue
                j1 = min(k, j0 + tile)
                Vj = V[:, :, j0:j1]
                G = torch.matmul(ViT, Vj)  # (B, ti, tj)
                diag = j0 == i0
                if diag:
                    ar = torch.arange(i1 - i0, device=V.device)
                    G[:, ar, ar] = 0.0
                if want_max:
                    mx = torch.maximum(mx, G.abs().amax(dim=(1, 2)))
                f, fp = _f_fprime(G, loss, beta, p)
                if diag:
                    if loss == "exp":
                        f[:, ar, ar] = 0.0
                    fp[:, ar, ar] = 0.0
                    total += f.sum(dim=1).double().sum(dim=1)
                    grad[:, :, i0:i1] += torch.matmul(Vi, fp)
                else:
                    total += 2.0 * f.sum(dim=1).double().sum(dim=1)
                    grad[:, :, j0:j1] += torch.matmul(Vi, fp)
                    grad[:, :, i0:i1] += torch.matmul(Vj, fp.transpose(1, 2))
        grad.mul_(2.0)
        return total, grad, mx
    tile = int(tile or default_tile(k, B, V.device))
    grad = torch.empty_like(V)
    Vt = V.transpose(1, 2)
    for j0 in range(0, k, tile):
        j1 = min(k, j0 + tile)
        ar = torch.arange(j1 - j0, device=V.device)
        G = torch.matmul(Vt, V[:, :, j0:j1])  # (B, k, t)
        G[:, j0 + ar, ar] = 0.0
        if want_max:
            mx = torch.maximum(mx, G.abs().amax(dim=(1, 2)))
        f, fp = _f_fprime(G, loss, beta, p)
        if loss == "exp":  # f(0) = 1 on the (zeroed) diagonal: remove it
            f[:, j0 + ar, ar] = 0.0
        total += f.sum(dim=1).double().sum(dim=1)  # float32 column sums (cascade), float64 across
        fp[:, j0 + ar, ar] = 0.0
        grad[:, :, j0:j1] = torch.matmul(V, fp)
    grad.mul_(2.0)
    return total, grad, mx


class TiledPackingLoss(torch.autograd.Function):
    """Autograd wrapper of :func:`loss_and_grad`: forward forms loss and gradient in one tiled
    pass and keeps only the (B, d, k) gradient for backward (no k x k tensor is ever held)."""

    @staticmethod
    def forward(ctx, V, loss, beta, p, tile):
        total, grad, _ = loss_and_grad(V.detach(), loss, beta=beta, p=p, tile=tile)
        ctx.save_for_backward(grad)
        return total

    @staticmethod
    def backward(ctx, g):
        (grad,) = ctx.saved_tensors
        return grad * g.to(grad.dtype)[:, None, None], None, None, None, None


def dense_loss(V: torch.Tensor, loss: str = "power", *, beta: float = 20.0, p: float = 10.0) -> torch.Tensor:
    """Reference implementation: the full (B, k, k) Gram and autograd (any dtype).  O(k^2) memory."""
    G = V.transpose(-1, -2) @ V
    k = V.shape[-1]
    off = ~torch.eye(k, dtype=torch.bool, device=V.device)
    if loss == "exp":
        F = torch.exp(beta * G**2)
    elif loss == "power":
        F = G.abs() ** p
    else:
        F = torch.relu(G.abs())
    return (F * off).sum(dim=(-2, -1))


def normalise(W: torch.Tensor) -> torch.Tensor:
    """Unit columns of ``W: (..., d, k)``."""
    return W / W.norm(dim=-2, keepdim=True).clamp_min(1e-12)


# ---------------------------------------------------------------------------------------------
# Statistics of a packing


def pair_stats(V: torch.Tensor, *, tile: int | None = None, n_bins: int = 200,
               thresholds=PARALLEL_THRESHOLDS) -> dict[str, np.ndarray]:
    """Statistics over the pairs i < j of unit columns ``V: (B, d, k)``, tile by tile.

    Returns arrays with a leading batch axis: ``eps_star`` (max |cos|), ``mean_abs``,
    ``mean_sq`` (E cos^2), ``hist`` ((B, n_bins) counts of |cos| on [0, 1]), ``n_above``
    ((B, len(thresholds)) pairs with |cos| > threshold), ``n_orthogonal`` (|cos| < 0.01), ``n_pairs``.
    """
    B, d, k = V.shape
    tile = int(tile or default_tile(k, B, V.device))
    dev = V.device
    mx = torch.zeros(B, dtype=torch.float64, device=dev)
    s1 = torch.zeros(B, dtype=torch.float64, device=dev)
    s2 = torch.zeros(B, dtype=torch.float64, device=dev)
    hist = torch.zeros(B * n_bins, dtype=torch.float64, device=dev)
    th = torch.tensor(list(thresholds), dtype=V.dtype, device=dev)
    above = torch.zeros(B, len(thresholds), dtype=torch.float64, device=dev)
    ortho = torch.zeros(B, dtype=torch.float64, device=dev)
    rows = torch.arange(k, device=dev)
    offs = (torch.arange(B, device=dev) * n_bins)[:, None]
    Vt = V.transpose(1, 2)
    for j0 in range(0, k, tile):
        j1 = min(k, j0 + tile)
        A = torch.matmul(Vt, V[:, :, j0:j1]).abs_().clamp_(max=1.0)  # (B, k, t)
        upper = rows[:, None] < torch.arange(j0, j1, device=dev)[None, :]  # pairs i < j
        if not bool(upper.any()):
            continue
        a = A[:, upper]  # (B, n) the pairs of this tile
        mx = torch.maximum(mx, a.amax(dim=1).double())
        s1 += a.double().sum(dim=1)
        s2 += (a.double() ** 2).sum(dim=1)
        idx = (a * n_bins).long().clamp_(max=n_bins - 1) + offs
        hist += torch.bincount(idx.reshape(-1), minlength=B * n_bins).double()
        above += (a[:, :, None] > th).sum(dim=1).double() if len(thresholds) else 0
        ortho += (a < ORTHOGONAL_THRESHOLD).sum(dim=1).double()
    n = k * (k - 1) / 2
    return {
        "eps_star": mx.cpu().numpy(),
        "mean_abs": (s1 / n).cpu().numpy(),
        "mean_sq": (s2 / n).cpu().numpy(),
        "hist": hist.view(B, n_bins).cpu().numpy(),
        "n_above": above.cpu().numpy(),
        "n_orthogonal": ortho.cpu().numpy(),
        "n_pairs": n,
        "thresholds": np.asarray(thresholds, dtype=float),
        "bin_edges": np.linspace(0.0, 1.0, n_bins + 1),
    }


def max_abs_cos(V: torch.Tensor, tile: int | None = None) -> torch.Tensor:
    """Largest off-diagonal |cos| of unit columns ``V: (B, d, k)`` -> (B,) (tiled)."""
    B, d, k = V.shape
    tile = int(tile or default_tile(k, B, V.device))
    mx = torch.zeros(B, dtype=V.dtype, device=V.device)
    Vt = V.transpose(1, 2)
    for j0 in range(0, k, tile):
        j1 = min(k, j0 + tile)
        ar = torch.arange(j1 - j0, device=V.device)
        G = torch.matmul(Vt, V[:, :, j0:j1])
        G[:, j0 + ar, ar] = 0.0
        mx = torch.maximum(mx, G.abs().amax(dim=(1, 2)))
    return mx


def coherence(V) -> float:
    """Coherence max_{i != j} |<v_i, v_j>| / (|v_i| |v_j|) of the columns of ``V: (d, k)``,
    dense float64 (for small reference configurations)."""
    V = np.asarray(V, dtype=np.float64)
    U = V / np.linalg.norm(V, axis=0, keepdims=True)
    G = np.abs(U.T @ U)
    np.fill_diagonal(G, 0.0)
    return float(G.max())


# ---------------------------------------------------------------------------------------------
# Optimisation


@dataclass
class PackResult:
    """The outcome of :func:`optimise` for a batch of B problems (arrays have a leading B axis)."""

    config: dict
    seeds: list[int]
    V: torch.Tensor                  # (B, d, k) unit columns, float32, on the CPU
    eps_star: np.ndarray             # (B,) max |cos| over pairs
    max_angle_deg: np.ndarray        # (B,) arccos(eps_star): the angle of the worst pair
    mean_abs: np.ndarray             # (B,) mean |cos| over pairs
    mean_sq: np.ndarray              # (B,) mean cos^2 over pairs
    hist: np.ndarray                 # (B, n_bins) |cos| histogram counts over pairs i < j
    bin_edges: np.ndarray            # (n_bins + 1,)
    n_above: np.ndarray              # (B, len(thresholds)) nearly-parallel pair counts
    thresholds: np.ndarray
    n_orthogonal: np.ndarray         # (B,) pairs with |cos| < ORTHOGONAL_THRESHOLD
    n_pairs: float
    curve_steps: np.ndarray          # (T,) steps at which the curve was sampled
    loss_curve: np.ndarray           # (B, T) loss per problem
    eps_curve: np.ndarray            # (B, T) max |cos| at those steps
    loss_final: np.ndarray           # (B,) loss after the last step
    seconds: float
    device: str
    tile: int

    def summary(self, b: int = 0) -> dict:
        """JSON-able record of problem ``b``."""
        return {
            "k": self.config["k"], "d": self.config["d"], "loss": self.config["loss"],
            "p": self.config["p_used"] if self.config["loss"] == "power" else None,
            "beta": self.config["beta"] if self.config["loss"] == "exp" else None, "steps": self.config["steps"],
            "lr": self.config["lr_used"], "seed": self.seeds[b],
            "eps_star": float(self.eps_star[b]), "max_angle_deg": float(self.max_angle_deg[b]),
            "mean_abs": float(self.mean_abs[b]), "mean_sq": float(self.mean_sq[b]),
            "loss_final": float(self.loss_final[b]),
            "n_pairs": float(self.n_pairs),
            "n_orthogonal": float(self.n_orthogonal[b]),
            "n_above": {f"{t:g}": float(c) for t, c in zip(self.thresholds, self.n_above[b])},
            "seconds": float(self.seconds), "device": self.device,
        }


def optimise(cfg: PackConfig, *, seeds: list[int] | None = None, progress: bool = True,
             desc: str | None = None) -> PackResult:
    """Optimise a batch of packings (one per seed; default ``[cfg.seed]``) with Adam.

    Each step: ``V = W / |W|`` (columns), loss ``sum_{i != j} f(V^T V)`` through the tiled autograd
    function, Adam step on ``W``, then ``W`` is renormalised (the loss is scale invariant, so this
    only keeps Adam's step size meaningful).  Problem ``b`` starts from ``N(0, I)`` drawn with its
    own seed, so its result does not depend on what else is in the batch.
    """
    seeds = [int(s) for s in (seeds if seeds is not None else [cfg.seed])]
    if not seeds:
        raise RepcapError("optimise needs at least one seed")
    dev = resolve_device(cfg.device)
    k, d, B = cfg.k, cfg.d, len(seeds)
    p, lr = cfg.exponent, cfg.learning_rate
    tile = int(cfg.tile or (default_block(k, B, dev) if dev.type == "cpu" else default_tile(k, B, dev)))
    W0 = torch.stack([torch.randn(d, k, generator=torch.Generator().manual_seed(s)) for s in seeds])
    W = torch.nn.Parameter(normalise(W0.to(dev)))
    opt = torch.optim.Adam([W], lr=lr)
    every = cfg.record_every or max(1, cfg.steps // 200)
    steps_rec, losses, epss = [], [], []
    t0 = time.perf_counter()
    bar = tqdm(range(cfg.steps), desc=desc or f"pack k={k} d={d} {cfg.loss}", disable=not show_progress(progress),
               leave=False, mininterval=0.5)
    with _flush_denormal(dev), cpu_threads(dev, B * k * k, cfg.threads):
        _adam_loop(cfg, W, opt, bar, every, tile, p, steps_rec, losses, epss, progress)
        bar.close()
        with torch.no_grad():
            V = normalise(W).detach()
            final, _, mx = loss_and_grad(V, cfg.loss, beta=cfg.beta, p=p, tile=tile, want_max=True)
            stats = pair_stats(V, n_bins=cfg.n_bins)
        devname = device_name(dev)  # records the thread count actually used
    return _result(cfg, seeds, dev, V, final, stats, steps_rec, losses, epss, p, lr, tile, t0, devname)


def _adam_loop(cfg, W, opt, bar, every, tile, p, steps_rec, losses, epss, progress):
    for step in bar:
        opt.zero_grad(set_to_none=True)
        V = normalise(W)
        rec = step % every == 0
        if rec:  # sample the curve: loss and max |cos| at this step
            with torch.no_grad():
                total, grad, mx = loss_and_grad(V.detach(), cfg.loss, beta=cfg.beta, p=p, tile=tile,
                                                want_max=True)
            V.backward(grad)
            steps_rec.append(step)
            losses.append(total.cpu().numpy())
            epss.append(mx.double().cpu().numpy())
            if progress:
                bar.set_postfix(eps=f"{float(mx.max()):.4f}", refresh=False)
        else:
            total = TiledPackingLoss.apply(V, cfg.loss, cfg.beta, p, tile)
            total.sum().backward()
        opt.step()
        with torch.no_grad():
            W.copy_(normalise(W))


def _result(cfg, seeds, dev, V, final, stats, steps_rec, losses, epss, p, lr, tile, t0, devname) -> PackResult:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    seconds = time.perf_counter() - t0
    steps_rec.append(cfg.steps)
    losses.append(final.cpu().numpy())
    epss.append(stats["eps_star"])
    eps = stats["eps_star"]
    config = asdict(cfg) | {"p_used": p, "lr_used": lr}

    return PackResult(
        config=config, seeds=seeds, V=V.float().cpu(), eps_star=eps,
        max_angle_deg=np.degrees(np.arccos(np.clip(eps, 0.0, 1.0))),
        mean_abs=stats["mean_abs"], mean_sq=stats["mean_sq"], hist=stats["hist"],
        bin_edges=stats["bin_edges"], n_above=stats["n_above"], thresholds=stats["thresholds"],
        n_orthogonal=stats["n_orthogonal"], n_pairs=stats["n_pairs"],
        curve_steps=np.asarray(steps_rec), loss_curve=np.stack(losses, axis=1),
        eps_curve=np.stack(epss, axis=1), loss_final=final.cpu().numpy(), seconds=seconds,
        device=devname, tile=tile)


# ---------------------------------------------------------------------------------------------
# Random baselines


def random_unit(k: int, d: int, batch: int = 1, seed: int = 0, device="auto") -> torch.Tensor:
    """``(batch, d, k)`` Gaussian vectors normalised to unit columns (uniform on the sphere)."""
    dev = resolve_device(device)
    g = generator(seed, dev)
    return normalise(torch.randn(batch, d, k, generator=g, device=dev))


def random_eps_star(k: int, d: int, trials: int = 1000, *, seed: int = 0, device="auto",
                    batch: int | None = None, progress: bool = False) -> dict:
    """Guha's random baseline: over ``trials`` draws of k random unit vectors in R^d, the max |cos|
    of each draw; returns ``eps_star`` (the minimum over trials, as Guha reports), ``eps_mean`` and
    ``eps_max``."""
    validate(k, d)
    if not isinstance(trials, int) or trials < 1:
        raise RepcapError(f"trials={trials!r} must be an integer >= 1")
    dev = resolve_device(device)
    if batch is None:
        batch = max(1, min(trials, int(memory_budget_bytes(dev, 256 << 20) // (4 * (d * k + 3 * k * min(k, 2048))))))
    out = []
    with cpu_threads(dev, batch * k * k, None):
        for s in tqdm(range(0, trials, batch), disable=not show_progress(progress), leave=False, desc=f"random k={k} d={d}"):
            b = min(batch, trials - s)
            V = random_unit(k, d, b, seed=seed * 1_000_003 + s, device=dev)
            out.append(max_abs_cos(V).double().cpu().numpy())
    e = np.concatenate(out)
    return {"eps_star": float(e.min()), "eps_mean": float(e.mean()), "eps_max": float(e.max()),
            "trials": int(trials)}


def _hadamard_rows(rows: torch.Tensor, N: int) -> torch.Tensor:
    """Rows ``rows`` of the (unnormalised, +-1) Walsh-Hadamard matrix of order 2^ceil(log2 N),
    first N columns: ``H[r, i] = (-1)^popcount(r & i)``."""
    cols = torch.arange(N, dtype=torch.int64)
    x = rows[:, None] & cols[None, :]
    parity = torch.zeros_like(x)
    while bool((x != 0).any()):
        parity ^= x & 1
        x = x >> 1
    return 1.0 - 2.0 * parity.float()


def projection_matrix(N: int, k: int, kind: str = "gaussian", seed: int = 0) -> torch.Tensor:
    """A JL projection ``P: (k, N)`` from R^N to R^k with E|P x|^2 = |x|^2.

    ``gaussian``: N(0, 1/k) entries.  ``rademacher``: +-1/sqrt(k) (Achlioptas).  ``srht``:
    ``sqrt(1/k) S H D`` with D random signs, H the +-1 Hadamard matrix (order the next power of
    two, first N columns) and S k distinct rows chosen uniformly (subsampled randomised Hadamard).
    """
    if kind not in ("gaussian", "rademacher", "srht"):
        raise RepcapError(f"unknown projection {kind!r}; use gaussian, rademacher or srht")
    if N < 2 or k < 1:
        raise RepcapError(f"projection needs N >= 2 points and k >= 1 dimensions (got N={N}, k={k})")
    g = torch.Generator().manual_seed(int(seed))
    if kind == "gaussian":
        return torch.randn(k, N, generator=g) / math.sqrt(k)
    if kind == "rademacher":
        return (torch.randint(0, 2, (k, N), generator=g).float() * 2 - 1) / math.sqrt(k)
    order = 1 << max(0, (N - 1).bit_length())
    if k > order:
        raise RepcapError(f"srht: k={k} exceeds the Hadamard order {order} for N={N}")
    rows = torch.randperm(order, generator=g)[:k]
    signs = torch.randint(0, 2, (N,), generator=g).float() * 2 - 1
    return _hadamard_rows(rows, N) * signs[None, :] / math.sqrt(k)


def projection_distortion(N: int, k: int, kind: str = "gaussian", seed: int = 0,
                          tile: int = 2048) -> dict:
    """Distortion of projecting the N basis vectors e_i of R^N into R^k with :func:`projection_matrix`.

    ``eps`` = max over i < j of |(|P e_i - P e_j|^2 / |e_i - e_j|^2) - 1| and over i of
    ||P e_i|^2 - 1| (the JL distortion of the point set {0, e_1..e_N}); ``eps_cos`` = max |cos|
    between the images; ``C = eps^2 k / ln N`` (Yoder's constant, compare his C against N/k).
    """
    P = projection_matrix(N, k, kind, seed).double()
    n2 = (P * P).sum(0)  # (N,)
    eps = float((n2 - 1).abs().max())
    eps_cos = 0.0
    for j0 in range(0, N, tile):
        j1 = min(N, j0 + tile)
        G = P.T @ P[:, j0:j1]  # (N, t)
        i = torch.arange(N)[:, None]
        j = torch.arange(j0, j1)[None, :]
        upper = i < j
        if not bool(upper.any()):
            continue
        dist = (n2[:, None] + n2[None, j0:j1] - 2 * G) / 2.0 - 1.0
        eps = max(eps, float(dist.abs()[upper].max()))
        cos = G / torch.sqrt(n2[:, None] * n2[None, j0:j1])
        eps_cos = max(eps_cos, float(cos.abs()[upper].max()))
    return {"N": N, "k": k, "kind": kind, "seed": seed, "eps": eps, "eps_cos": eps_cos,
            "C": eps**2 * k / math.log(N), "C_cos": eps_cos**2 * k / math.log(N)}


# ---------------------------------------------------------------------------------------------
# Sweep functions (module level, JSON in and out, for repcap.sweep)


def sweep_packed(configs: list[dict]) -> list[dict]:
    """Batched sweep point: configs sharing (k, d, loss, beta, p, steps, lr) differ only in
    ``seed`` and are optimised as one batch.  Each config: ``k, d, loss, steps`` and optional
    ``beta, p, lr, seed``.  Returns per config the :meth:`PackResult.summary` plus the curves."""
    c0 = configs[0]
    shared = {x: c0.get(x) for x in ("k", "d", "loss", "beta", "p", "steps", "lr", "record_every", "n_bins")}
    for c in configs[1:]:
        if any(c.get(x) != shared[x] for x in shared):
            raise RepcapError("sweep_packed: a batch must share k, d, loss, beta, p, steps and lr")
    cfg = PackConfig(k=int(c0["k"]), d=int(c0["d"]), loss=c0.get("loss", "power"),
                     beta=float(c0.get("beta", 20.0)), p=c0.get("p"), steps=int(c0["steps"]),
                     lr=c0.get("lr"), record_every=int(c0.get("record_every", 0)),
                     n_bins=int(c0.get("n_bins", 200)), device=c0.get("device", "auto"))
    res = optimise(cfg, seeds=[int(c.get("seed", 0)) for c in configs], progress=False)
    outs = []
    for b in range(len(configs)):
        s = res.summary(b)
        s["curve_steps"] = res.curve_steps.tolist()
        s["eps_curve"] = res.eps_curve[b].tolist()
        s["loss_curve"] = res.loss_curve[b].tolist()
        s["hist"] = res.hist[b].tolist()  # n_bins counts of |cos| on [0, 1] over pairs i < j
        s["seconds"] = res.seconds / len(configs)
        outs.append(s)
    return outs



def packed_group(config: dict) -> tuple:
    """``group_by`` for :func:`sweep_packed`: everything but the seed."""
    return tuple(config.get(x) for x in ("k", "d", "loss", "beta", "p", "steps", "lr", "record_every", "n_bins"))


def sweep_random(config: dict) -> dict:
    """Sweep point for Guha's random baseline: ``k, d, trials, seed``."""
    t0 = time.perf_counter()
    out = random_eps_star(int(config["k"]), int(config["d"]), int(config.get("trials", 1000)),
                          seed=int(config.get("seed", 0)))
    return {**out, "k": int(config["k"]), "d": int(config["d"]), "seconds": time.perf_counter() - t0}



def sweep_projection(config: dict) -> dict:
    """Sweep point for a random projection: ``N, k, kind, seed``."""
    return projection_distortion(int(config["N"]), int(config["k"]), config.get("kind", "gaussian"),
                                 int(config.get("seed", 0)))

