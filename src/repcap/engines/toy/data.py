"""Feature frequencies and the data stream of the toy model (Liu, Liu & Gore 2025,
arXiv:2505.10465, Sec. 2): ``x_i = 1[u_i < p_i] v_i`` with ``v_i ~ U(0, 2)``, a fresh batch every
step, one random stream per model."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from repcap import RepcapError
from repcap.engines.settings.toy import DISTRIBUTIONS  # the settings' choices

#: E[v] and E[v^2] for v ~ U(0, 2).
V_MEAN, V_SQ_MEAN = 1.0, 4.0 / 3.0


def frequencies(
    n: int, distribution: str = "power", alpha: float = 1.0, tau: float = 400.0, density: float = 1.0
) -> torch.Tensor:
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


def sample_batch(
    p: torch.Tensor,
    batch: int,
    generators: Sequence[torch.Generator],
    out: torch.Tensor | None = None,
    mask: torch.Tensor | None = None,
) -> torch.Tensor:
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
