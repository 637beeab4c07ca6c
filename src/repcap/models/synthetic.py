"""Synthetic stand-in embedding matrices for tests and the smoke profile (no download): Gaussian
rows plus a common direction, whose weight sets the mean pairwise cosine.

Reference: for rows ``x = g + a c`` with ``g ~ N(0, I/d)`` and a unit ``c``, ``E cos ~ a^2 / (1 + a^2)``
(the common component's share of the squared norm), so ``a = sqrt(m / (1 - m))`` gives mean ``m``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from repcap import RepcapError


def stand_in(
    V: int, d: int, *, mean_cos: float = 0.2, seed: int = 0, noise_of: np.ndarray | None = None, noise: float = 0.02
) -> np.ndarray:
    """A synthetic stand-in ``(V, d)`` float32 matrix: Gaussian rows plus a common direction whose
    weight gives pairwise cosines of mean about ``mean_cos``.  With ``noise_of`` it returns that
    matrix plus relative Gaussian noise (a re-quantised copy)."""
    rng = np.random.default_rng(seed)
    if noise_of is not None:
        base = np.asarray(noise_of, dtype=np.float32)
        return (base + noise * base.std() * rng.standard_normal(base.shape)).astype(np.float32)
    if not 0 <= mean_cos < 1:
        raise RepcapError(f"mean_cos={mean_cos} must be in [0, 1)")
    common = rng.standard_normal(d)
    common /= np.linalg.norm(common)
    a = math.sqrt(mean_cos / (1 - mean_cos))
    X = rng.standard_normal((V, d)) / math.sqrt(d) + a * common * rng.uniform(0.5, 1.5, size=(V, 1))
    return X.astype(np.float32)


def stand_in_layers(
    *,
    n_layers: int = 2,
    vocab: int = 400,
    d_model: int = 32,
    d_ff: int = 96,
    attn_dim: int | None = None,
    mean_cos: float = 0.3,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """The tensors of a tiny stand-in model with llama.cpp's names and layouts, as loaded
    (``token_embd.weight`` ``(vocab, d_model)``; per layer ``blk.N.ffn_down.weight``
    ``(d_model, d_ff)``, ``blk.N.attn_output.weight`` ``(d_model, attn_dim)``,
    ``blk.N.ffn_up.weight`` ``(d_ff, d_model)``).  The embedding's rows share a common direction
    (mean cosine about ``mean_cos``); the layers' directions are Gaussian with a common direction of a
    tenth of that weight, so the layers sit nearer random than the embedding."""
    attn_dim = attn_dim or d_model
    out = {"token_embd.weight": stand_in(vocab, d_model, mean_cos=mean_cos, seed=seed)}
    for i in range(n_layers):
        s = seed + 1 + 3 * i
        out[f"blk.{i}.ffn_down.weight"] = np.ascontiguousarray(
            stand_in(d_ff, d_model, mean_cos=mean_cos / 10, seed=s).T
        )
        out[f"blk.{i}.attn_output.weight"] = np.ascontiguousarray(
            stand_in(attn_dim, d_model, mean_cos=mean_cos / 10, seed=s + 1).T
        )
        out[f"blk.{i}.ffn_up.weight"] = stand_in(d_ff, d_model, mean_cos=mean_cos / 10, seed=s + 2)
    return out


# --------------------------------------------------------------------------- the synthetic: scheme
#: A model source ``synthetic:KIND,name=value,...`` is built in memory instead of read from a file,
#: so a chapter's smoke profile needs no temporary folder: :func:`source` spells one, and
#: :func:`repcap.models.embeddings.load` / ``list_tensors`` read it like any other source.
SCHEME = "synthetic:"

#: Each kind's parameters (all integers but ``mean_cos``), in the order a source spells them.
KINDS: dict[str, tuple[str, ...]] = {
    "embedding": ("V", "d", "mean_cos", "seed"),  # stand_in(V, d, mean_cos=, seed=)
    "copy": ("V", "d", "mean_cos", "seed", "copy_seed"),  # that matrix re-quantised (noise_of, copy_seed)
    "gaussian": ("V", "d", "seed"),  # i.i.d. Gaussian rows: random directions
    "layers": ("n_layers", "vocab", "d_model", "d_ff", "seed"),  # stand_in_layers(...)
}
_FLOATS = {"mean_cos"}


def source(kind: str, **params: Any) -> str:
    """The source string of a synthetic matrix or model, e.g. ``source("embedding", V=1500, d=32,
    mean_cos=0.3, seed=0)`` -> ``"synthetic:embedding,V=1500,d=32,mean_cos=0.3,seed=0"``."""
    if kind not in KINDS:
        raise RepcapError(f"unknown synthetic kind {kind!r}; use one of {', '.join(KINDS)}")
    names = KINDS[kind]
    if set(params) != set(names):
        raise RepcapError(f"synthetic {kind} needs exactly {', '.join(names)}; got {', '.join(sorted(params))}")
    values = {k: float(params[k]) if k in _FLOATS else int(params[k]) for k in names}
    parse(SCHEME + ",".join([kind] + [f"{k}={v!r}" for k, v in values.items()]))  # refuse bad values now
    return SCHEME + ",".join([kind] + [f"{k}={v!r}" for k, v in values.items()])


def parse(spec: str) -> tuple[str, dict[str, Any]]:
    """``(kind, params)`` of a ``synthetic:`` source; one clear line for a malformed one."""
    if not spec.startswith(SCHEME):
        raise RepcapError(f"{spec[:80]!r} is not a synthetic: source")
    kind, *items = spec[len(SCHEME) :].split(",")
    if kind not in KINDS:
        raise RepcapError(f"{spec[:80]!r}: unknown synthetic kind {kind!r}; use one of {', '.join(KINDS)}")
    params: dict[str, Any] = {}
    for item in items:
        name, eq, text = item.partition("=")
        if not eq or name not in KINDS[kind] or name in params:
            raise RepcapError(f"{spec[:80]!r}: synthetic {kind} takes {', '.join(KINDS[kind])} once each")
        try:
            params[name] = float(text) if name in _FLOATS else int(text, 10)
        except ValueError:
            raise RepcapError(f"{spec[:80]!r}: {name}={text!r} is not a number") from None
    missing = [n for n in KINDS[kind] if n not in params]
    if missing:
        raise RepcapError(f"{spec[:80]!r}: synthetic {kind} needs {', '.join(missing)}")
    if any(params[n] < (0 if n in ("seed", "copy_seed", "n_layers") else 1) for n in params if n not in _FLOATS):
        raise RepcapError(f"{spec[:80]!r}: sizes must be >= 1 and seeds >= 0")
    return kind, params


def tensors(spec: str) -> dict[str | None, np.ndarray]:
    """The arrays a ``synthetic:`` source holds: ``{None: matrix}`` for one matrix, the named
    tensors of :func:`stand_in_layers` for ``layers``."""
    kind, p = parse(spec)
    if kind == "layers":
        named: dict[str | None, np.ndarray] = {}
        named.update(stand_in_layers(**p))
        return named
    if kind == "gaussian":
        return {None: np.random.default_rng(p["seed"]).standard_normal((p["V"], p["d"])).astype(np.float32)}
    X = stand_in(p["V"], p["d"], mean_cos=p["mean_cos"], seed=p["seed"])
    return {None: X if kind == "embedding" else stand_in(p["V"], p["d"], noise_of=X, seed=p["copy_seed"])}
