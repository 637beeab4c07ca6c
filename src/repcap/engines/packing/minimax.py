"""The minimax method: line packings optimised for their coherence, the largest |cos| (our method,
beside the sources' Adam on a smooth loss, :mod:`.optimiser`).

Adam on ``sum |cos|^p`` at one p (Guha 2026) or on ``sum exp(beta cos^2)`` (Yoder 2025) minimises a
surrogate: its optimum is not the packing with the smallest worst pair, and a fixed rate leaves a
noise floor.  This method aims at the worst pair itself, in three steps the Grassmannian-packing
literature uses (Conway, Hardin & Sloane 1996; Dhillon, Heath, Strohmer & Tropp 2008):

1. **Random restarts**, ``restarts`` problems ``W: (R, d, k)`` drawn from N(0, I) with seeds
   ``seed, seed + 1, ...``, optimised as one batch.
2. **Continuation in the sharpness.**  Stage by stage, Adam on ``sum_{i<j} (|cos_ij| / m)^p`` with
   p rising along ``schedule`` (the p-norm of the pairs tends to their maximum as p grows); ``m`` is
   the problem's current worst pair, held fixed within a step, so that the terms stay in range at
   any p (Adam does not see the constant factor ``m^-p``).  Within a stage the rate falls along a
   cosine to ``lr_floor`` of its start; each stage starts at half the previous rate.  Up to
   :data:`~repcap.engines.settings.packing.MAX_DENSE_K` vectors the Gram is dense and float64;
   above, the engine's tiled loss (:func:`.losses.loss_and_grad`) in float32.
3. **Minimax refinement** of the ``refine`` best starts: sequential linear programming.  Each
   program moves every vector within a box of side ``2r`` in its tangent space, minimising the
   largest linearised |cos| over the pairs that could become the worst; a step is kept when the
   true worst pair falls, and ``r`` grows after a good step and halves after a bad one.

The result's coherence is computed in float64 from the final vectors.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np
import torch
from tqdm.auto import tqdm

from repcap import show_progress
from repcap.base import memory
from repcap.base.devices import cpu_threads, device_name, resolve_device
from repcap.engines.settings.packing import MinimaxConfig

from .losses import default_block, default_tile, flush_denormal, loss_and_grad, normalise
from .stats import PackingStats, max_abs_cos, pair_stats

#: The largest box of a refinement program (entrywise, on a unit column): it starts at a fifth of it.
#: A pair moves by at most 2 r sqrt(d) in a program, so the box sets how many pairs a program holds;
#: the continuation leaves the worst pair within a few tenths of a per cent of a minimax point.
MAX_RADIUS = 0.05
#: The refinement stops when its box has shrunk to this: HiGHS meets a program's rows to 1e-7 (its
#: primal feasibility tolerance), so a smaller step is below what a program resolves.
MIN_RADIUS = 1e-7
#: The refinement stops when its last :data:`STALL_PROGRAMS` steps taken together lowered the worst pair
#: by less than this fraction (a table of best-known packings gives about 6 digits; the polishing of
#: the 9th and 10th took most of the programs on cells of 70 lines and more).
STALL_FALL = 1e-9
STALL_PROGRAMS = 10
#: A program that promises less than this relative fall of the worst pair ends the refinement.
STATIONARY = 1e-13
#: Simplex iterations one program may take, per row and column of the program (a degenerate program can
#: cycle; the ones that end take a small multiple of their size). A program stopped there counts as failed.
LP_ITERATIONS_PER_ROW = 10
#: Bytes per Gram entry the dense stage holds at once (the Gram, its powers and their gradients).
DENSE_BYTES_PER_ENTRY = 64


@dataclass
class MinimaxResult:
    """The outcome of :func:`solve`: the best packing's vectors and coherence, what each step
    reached, and the settings used."""

    config: dict
    V: np.ndarray  # (d, k) float64 unit columns: the best packing
    eps_star: float  # its coherence, float64
    eps_sharpened: np.ndarray  # (R,) coherence of each start after the continuation
    eps_refined: list[float]  # coherence of each refined start
    programs: int  # linear programs solved in the refinement
    stats: PackingStats  # pair statistics of the best packing (the cosine engine)
    seconds: float
    device: str

    def summary(self) -> dict:
        """JSON-able record: the settings, the coherence after each step and the pair statistics."""
        c = self.config
        stats = self.stats.to_dict(0)
        stats["eps_star"] = self.eps_star  # float64 from the vectors (the engine's is float32)
        return {
            "k": c["k"],
            "d": c["d"],
            "method": "minimax",
            "restarts": c["restarts"],
            "schedule": list(c["schedule"]),
            "steps": c["steps"],
            "seed": c["seed"],
            **stats,
            "eps_sharpened": float(np.min(self.eps_sharpened)),
            "eps_sharpened_median": float(np.median(self.eps_sharpened)),
            "eps_refined": self.eps_refined,
            "programs": self.programs,
            "seconds": self.seconds,
            "device": self.device,
        }


def starts(cfg: MinimaxConfig, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """The random unit starts ``(R, d, k)``: start r is N(0, I) from the seed ``cfg.seed + r``."""
    W = torch.stack(
        [torch.randn(cfg.d, cfg.k, generator=torch.Generator().manual_seed(cfg.seed + r)) for r in range(cfg.restarts)]
    )
    return normalise(W.to(dtype=dtype, device=device))


def coherences(V: torch.Tensor) -> torch.Tensor:
    """Largest off-diagonal |cos| of each problem of unit columns ``V: (B, d, k)``, dense."""
    G = V.transpose(1, 2) @ V
    G.diagonal(dim1=1, dim2=2).zero_()
    return G.abs().amax(dim=(1, 2))


def stage_rate(lr: float, step: int, steps: int, floor: float) -> float:
    """The rate at ``step`` of a stage of ``steps``: a cosine from ``lr`` to ``floor x lr``."""
    return lr * (floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * step / steps)))


def _dense_grad(V: torch.Tensor, p: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Gradient of ``sum_{i != j} (|G_ij| / m)^p`` (``m``: each problem's worst pair, held fixed)
    with respect to ``V``, and ``m``."""
    G = V.transpose(1, 2) @ V
    G.diagonal(dim1=1, dim2=2).zero_()
    m = G.abs().amax(dim=(1, 2)).clamp_min(1e-300)
    X = G / m[:, None, None]
    F = p * X.abs().pow(p - 1) * X.sign() / m[:, None, None]  # d/dG of (|G| / m)^p
    return 2.0 * (V @ F), m


def _tiled_grad(V: torch.Tensor, p: float, m: torch.Tensor, tile: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The same through the engine's tiled loss: columns scaled by ``m^-1/2`` give the Gram over
    ``m``; returns the gradient with respect to ``V`` and the new worst pair."""
    s = m.clamp_min(1e-30).rsqrt()[:, None, None]
    _, grad, mx = loss_and_grad(V * s, "power", p=p, tile=tile, want_max=True)
    return grad * s, mx * m


def sharpen(cfg: MinimaxConfig, W: torch.Tensor, bar, tile: int) -> torch.Tensor:
    """The continuation (step 2 of the module docstring) on the batch ``W: (R, d, k)``."""
    W = torch.nn.Parameter(W.clone())
    m = max_abs_cos(W.detach(), tile) if not cfg.dense else torch.ones(W.shape[0], dtype=W.dtype)  # dense: unused
    lr = cfg.lr
    for p in cfg.schedule:
        opt = torch.optim.Adam([W], lr=lr)
        for step in range(cfg.steps):
            for g in opt.param_groups:
                g["lr"] = stage_rate(lr, step, cfg.steps, cfg.lr_floor)
            opt.zero_grad(set_to_none=True)
            V = normalise(W)
            with torch.no_grad():
                grad, m = _dense_grad(V.detach(), p) if cfg.dense else _tiled_grad(V.detach(), p, m, tile)
            V.backward(grad.to(V.dtype))
            opt.step()
            with torch.no_grad():
                W.copy_(normalise(W))
            bar.update(1)
            if step % 50 == 0:
                bar.set_postfix(p=f"{p:g}", eps=f"{float(m.min()):.5f}", refresh=False)
        lr /= 2
    return W.detach()


def _linear_program(V: np.ndarray, c: np.ndarray, pairs: tuple[np.ndarray, np.ndarray], r: float):
    """The step ``D: (d, k)`` of one program and the linearised worst pair it predicts (None where
    the solver failed): minimise t over ``|c_ij + v_j.D_i + v_i.D_j| <= t`` on the given pairs,
    ``v_i.D_i = 0`` and ``|D| <= r`` entrywise."""
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    d, k = V.shape
    ii, jj = pairs
    s = np.sign(c)
    n, q = k * d + 1, len(ii)
    cols_i = ii[:, None] * d + np.arange(d)[None, :]  # unknowns of D_i (column-major blocks)
    cols_j = jj[:, None] * d + np.arange(d)[None, :]
    rows = np.repeat(np.arange(q), d)
    data = np.concatenate([(s[:, None] * V[:, jj].T).ravel(), (s[:, None] * V[:, ii].T).ravel(), -np.ones(q)])
    A = coo_matrix(
        (
            data,
            (np.concatenate([rows, rows, np.arange(q)]), np.concatenate([cols_i.ravel(), cols_j.ravel(), [n - 1] * q])),
        ),
        shape=(q, n),
    ).tocsr()
    eq_cols = np.arange(k * d)
    Aeq = coo_matrix((V.T.ravel(), (np.repeat(np.arange(k), d), eq_cols)), shape=(k, n)).tocsr()
    cost = np.zeros(n)
    cost[-1] = 1.0
    res = linprog(
        cost,
        A_ub=A,
        b_ub=-np.abs(c),
        A_eq=Aeq,
        b_eq=np.zeros(k),
        bounds=[(-r, r)] * (k * d) + [(None, None)],
        # the interior-point method: 3.6 times faster than the dual simplex on the 72 lines in R^11 (17
        # iterations against 4,400 at the median program) and the same coherence to 2e-9; the cap counts
        # iterations, not seconds, so the result does not depend on the machine (near a minimax point the
        # simplex was seen to cycle on a degenerate program for a quarter of an hour)
        method="highs-ipm",
        options={"maxiter": LP_ITERATIONS_PER_ROW * (q + n)},
    )
    if res.status != 0:
        return None, None
    return res.x[:-1].reshape(k, d).T, float(res.x[-1])


def refine(V: np.ndarray, steps: int, *, radius: float = MAX_RADIUS / 5, bar=None) -> tuple[np.ndarray, float, int]:
    """Minimax refinement (step 3 of the module docstring) of the unit columns ``V: (d, k)``, in
    float64: returns the refined columns, their coherence and the programs solved."""
    V = V / np.linalg.norm(V, axis=0, keepdims=True)
    d, k = V.shape
    iu = np.triu_indices(k, 1)

    def worst(X: np.ndarray) -> float:
        return float(np.abs((X.T @ X)[iu]).max())

    cur, r, done = worst(V), radius, 0
    history = [cur]
    while done < steps and r > MIN_RADIUS:
        if len(history) > STALL_PROGRAMS and history[-STALL_PROGRAMS - 1] - cur <= STALL_FALL * cur:
            break
        c = (V.T @ V)[iu]
        # a pair moves by at most 2 r sqrt(d) in one program: the others cannot become the worst
        near = np.nonzero(np.abs(c) >= cur - 2.0 * r * math.sqrt(d) - 1e-12)[0]
        D, predicted = _linear_program(V, c[near], (iu[0][near], iu[1][near]), r)
        done += 1
        if bar is not None:
            bar.update(1)
        if D is None:
            r /= 2
            continue
        if cur - predicted <= STATIONARY * cur:  # no direction lowers the worst pair: a minimax point
            break
        X = V + D
        X /= np.linalg.norm(X, axis=0, keepdims=True)
        new = worst(X)
        if new < cur:
            gain, promised = cur - new, cur - predicted
            V, cur = X, new
            history.append(cur)  # the stall window counts the steps taken (a refused step shrinks the box)
            if promised > 0 and gain > 0.5 * promised:
                r = min(2 * r, MAX_RADIUS)
        else:
            r /= 2
    return V, cur, done


def _restart_chunk(cfg: MinimaxConfig, device: torch.device) -> int:
    """How many starts the dense stage holds at once within the memory budget."""
    per = cfg.k * cfg.k * DENSE_BYTES_PER_ENTRY
    chunk = cfg.restarts
    while chunk > 1 and memory.too_big(chunk * per, 0.5):
        chunk //= 2
    return chunk


def solve(cfg: MinimaxConfig, *, progress: bool = True, desc: str | None = None) -> MinimaxResult:
    """Solve one packing problem by the minimax method (see the module docstring)."""
    dev = resolve_device(cfg.device)
    dtype = torch.float64 if cfg.dense else torch.float32
    tile = int(
        cfg.tile
        or (default_block(cfg.k, cfg.restarts, dev) if dev.type == "cpu" else default_tile(cfg.k, cfg.restarts, dev))
    )
    n_ref = min(cfg.refine, cfg.restarts) if cfg.refinable else 0
    bar = tqdm(
        total=len(cfg.schedule) * cfg.steps + n_ref * cfg.refine_steps,
        desc=desc or f"minimax k={cfg.k} d={cfg.d}, {cfg.restarts} starts",
        disable=not show_progress(progress),
        leave=False,
        mininterval=0.5,
    )
    t0 = time.perf_counter()
    with flush_denormal(dev), cpu_threads(dev, cfg.restarts * cfg.k * cfg.k, cfg.threads):
        try:
            W0 = starts(cfg, dtype, dev)
            chunk = _restart_chunk(cfg, dev) if cfg.dense else cfg.restarts
            Ws = [sharpen(cfg, W0[i : i + chunk], bar, tile) for i in range(0, cfg.restarts, chunk)]
            Vs = torch.cat([normalise(W) for W in Ws]).double().cpu()
            # float64 where the Gram is small; the engine's tiled pass (float32) above
            eps = (coherences(Vs) if cfg.dense else max_abs_cos(Vs.float(), tile).double()).numpy()
            order = np.argsort(eps, kind="stable")
            best_V, best, refined, programs = Vs[order[0]].numpy(), float(eps[order[0]]), [], 0
            for b in order[:n_ref]:
                V, e, n = refine(Vs[b].numpy(), cfg.refine_steps, bar=bar)
                refined.append(e)
                programs += n
                if e < best:
                    best_V, best = V, e
        finally:
            bar.close()
        stats = pair_stats(torch.as_tensor(best_V, dtype=torch.float32)[None], n_bins=cfg.n_bins)
        devname = device_name(dev)
    return MinimaxResult(
        config=asdict(cfg),
        V=best_V,
        eps_star=best,
        eps_sharpened=eps,
        eps_refined=refined,
        programs=programs,
        stats=stats,
        seconds=time.perf_counter() - t0,
        device=devname,
    )
