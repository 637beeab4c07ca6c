"""The baselines a packing is compared with: random unit vectors (Guha 2026 Sec. 3.2: the best of T
random draws) and random projections of the N standard basis vectors of R^N into R^k (Johnson &
Lindenstrauss 1984; Achlioptas 2003 for +-1 entries; Ailon & Chazelle 2009 for the subsampled
randomised Hadamard transform), with Yoder 2025's empirical constant ``C = eps^2 k / ln N``.

Every max |cos| here is the engine's :func:`repcap.engines.cosine.batched_max_abs` on unit rows.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from tqdm.auto import tqdm

from repcap import RepcapError, show_progress
from repcap.base.devices import cpu_threads, generator, memory_budget_bytes, resolve_device
from repcap.engines import cosine
from repcap.engines.settings.packing import MAX_SEED, check_k_d, check_seed

from .losses import normalise
from .stats import max_abs_cos

PROJECTIONS = ("gaussian", "rademacher", "srht")


def random_unit(k: int, d: int, batch: int = 1, seed: int = 0, device="auto") -> torch.Tensor:
    """``(batch, d, k)`` Gaussian vectors normalised to unit columns (uniform on the sphere)."""
    check_seed("seed", seed)
    dev = resolve_device(device)
    g = generator(seed, dev)
    return normalise(torch.randn(batch, d, k, generator=g, device=dev))


def random_eps_star(
    k: int,
    d: int,
    trials: int = 1000,
    *,
    seed: int = 0,
    device="auto",
    batch: int | None = None,
    progress: bool = False,
) -> dict:
    """Guha's random baseline: over ``trials`` draws of k random unit vectors in R^d, the max |cos|
    of each draw; returns ``eps_star`` (the minimum over trials, as Guha reports), ``eps_mean`` and
    ``eps_max``.  Draws come in batches of ``batch`` (default: from the memory budget); batch s
    is seeded ``(seed * 1000003 + s) mod 2^63``, so the result does not depend on the batching."""
    check_k_d(k, d)
    check_seed("seed", seed)
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise RepcapError(f"trials={trials!r} must be an integer >= 1")
    dev = resolve_device(device)
    if batch is None:
        batch = max(1, min(trials, int(memory_budget_bytes(dev, 256 << 20) // (4 * (d * k + 3 * k * min(k, 2048))))))
    out = []
    with cpu_threads(dev, batch * k * k, None):
        for s in tqdm(
            range(0, trials, batch), disable=not show_progress(progress), leave=False, desc=f"random k={k} d={d}"
        ):
            b = min(batch, trials - s)
            V = random_unit(k, d, b, seed=(seed * 1_000_003 + s) % (MAX_SEED + 1), device=dev)
            out.append(max_abs_cos(V).double().cpu().numpy())
    e = np.concatenate(out)
    return {"eps_star": float(e.min()), "eps_mean": float(e.mean()), "eps_max": float(e.max()), "trials": int(trials)}


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
    if kind not in PROJECTIONS:
        raise RepcapError(f"unknown projection {kind!r}; use gaussian, rademacher or srht")
    if not isinstance(N, (int, np.integer)) or not isinstance(k, (int, np.integer)) or N < 2 or k < 1:
        raise RepcapError(f"projection needs N >= 2 points and k >= 1 dimensions (got N={N!r}, k={k!r})")
    check_seed("seed", seed)
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


def projection_distortion(N: int, k: int, kind: str = "gaussian", seed: int = 0, tile: int = 2048) -> dict:
    """Distortion of projecting the N basis vectors e_i of R^N into R^k with :func:`projection_matrix`.

    ``eps`` = max over i < j of |(|P e_i - P e_j|^2 / |e_i - e_j|^2) - 1| and over i of
    ||P e_i|^2 - 1| (the JL distortion of the point set {0, e_1..e_N}); ``eps_cos`` = max |cos|
    between the images (the engine, float64); ``C = eps^2 k / ln N`` (Yoder's constant, compare his
    C against N/k).  Working memory O(N * tile).
    """
    P = projection_matrix(N, k, kind, seed).double()
    n2 = (P * P).sum(0)  # (N,)
    eps = float((n2 - 1).abs().max())
    for j0 in range(0, N, tile):
        j1 = min(N, j0 + tile)
        G = P.T @ P[:, j0:j1]  # (N, t)
        upper = torch.arange(N)[:, None] < torch.arange(j0, j1)[None, :]
        if not bool(upper.any()):
            continue
        dist = (n2[:, None] + n2[None, j0:j1] - 2 * G) / 2.0 - 1.0
        eps = max(eps, float(dist.abs()[upper].max()))
    U, _ = cosine.unit_batch(P.T[None])
    eps_cos = float(cosine.batched_max_abs(U, tile=tile)[0])
    return {
        "N": N,
        "k": k,
        "kind": kind,
        "seed": seed,
        "eps": eps,
        "eps_cos": eps_cos,
        "C": eps**2 * k / math.log(N),
        "C_cos": eps_cos**2 * k / math.log(N),
    }
