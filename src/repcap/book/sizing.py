"""A chapter's size, before its kernel starts: the memory its resolved parameters ask for, from the
engines' own estimates, against what this machine can give (:mod:`repcap.base.memory`).

A kernel that allocates past the machine's memory is killed (a container's cap) or ends in an
allocator's error deep in a cell; a run whose parameters cannot fit is refused instead, in one line
with the figure and the machine's memory.  The estimates:

* the toy model (chapters 8-10): the weights, the optimiser's copies and one batch, as
  ``repcap toy`` checks them (:func:`toy_bytes`);
* the packing optimiser (chapters 6 and 7, ``repcap pack``): the vectors, gradient and Adam state
  and the tiled Gram (:func:`packing_bytes`), with the cost model's time (:mod:`repcap.engines.packing.cost`);
* the random-vector chapter's dense cosine pass: the rows and every pair (:func:`pair_pass_bytes`);
* the stand-in matrices of the smoke profile (rows x width).

Chapters that read model files (2-5) are sized by the files, which are not known before the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from repcap.base import memory

#: A kernel may use at most this share of the machine's memory (the rest: Python, torch, the book).
SHARE = 0.8


def toy_bytes(n: int, m: int, batch: int) -> float:
    """Memory of one toy model of ``n`` features, width ``m``, ``batch`` samples (float32: W is
    n x m, a batch is batch x n; the optimiser keeps about four copies of W)."""
    return 4.0 * (5.0 * n * m + 3.0 * batch * n)


def packing_bytes(k: int, d: int, seeds: int = 1) -> float:
    """Memory of optimising ``seeds`` packings of ``k`` vectors in R^``d``: the vectors, their
    normalised copy, the gradient and Adam's two moments (float32), plus the Gram's tiles (at most
    the engine's memory budget, :func:`repcap.base.devices.memory_budget_bytes`: 1 GiB on a CPU)."""
    return 4.0 * 6 * d * k * seeds + min(8.0 * k * k * seeds, float(1 << 30))


def pair_pass_bytes(rows: int, d: int) -> float:
    """Memory of a dense pass over every pair of ``rows`` unit vectors in R^``d``
    (:func:`repcap.engines.random_geometry.pair_cosines`): the rows, the float32 Gram and its float64 copy,
    and the upper triangle's indices and values."""
    pairs = rows * (rows - 1) / 2.0
    return 4.0 * rows * d + 12.0 * rows * rows + 24.0 * pairs


def _gib(n: float) -> str:
    return memory.gib(n)


def _ints(v: Any) -> list[int]:
    """The whole numbers of ``v`` (one value or a list); anything else is left to the chapter's checks."""
    vals = v if isinstance(v, list) else [v]
    return [int(x) for x in vals if isinstance(x, (int, float)) and not isinstance(x, bool) and float(x).is_integer()]


def _toy(p: dict, config: str, ms: list[str]) -> list[tuple[float, str]]:
    """The largest toy model of the engine config ``config`` (its resolved ``n`` and ``batch``, the
    runner's :func:`repcap.book.params.resolve_parameters`) at the widest of the grids ``ms``."""
    from repcap.base import config as settings
    from repcap.engines.settings.toy import TrainConfig

    given = p.get(config)
    cfg = {**settings.defaults(TrainConfig), **(given if isinstance(given, dict) else {})}
    ns, bs = _ints(cfg.get("n")), _ints(cfg.get("batch"))
    widths = [w for name in ms for w in _ints(p.get(name, []))]
    if not widths or not ns or not bs:
        return []
    nn, bb, m = ns[0], bs[0], max(widths)
    return [(toy_bytes(nn, m, bb), f"a toy model of {config}.n = {nn:,} features at width {m}, batch {bb:,}")]


def _pack(k: int, d: int, steps: int | None, seeds: int, what: str) -> tuple[float, str]:
    from repcap.base import config
    from repcap.engines.packing.cost import estimate_cost
    from repcap.engines.settings.packing import PackConfig

    st = steps if steps is not None else int(config.defaults(PackConfig)["steps"])
    est = estimate_cost(k, d, st, batch=seeds)
    return packing_bytes(k, d, seeds), f"{what} ({est.describe()} by the cost model)"


def _ch01(p: dict) -> list[tuple[float, str]]:
    out = []
    dims = _ints(p.get("dims", []))
    if dims and _ints(p.get("n_vectors")):
        n = int(p["n_vectors"])
        out.append((pair_pass_bytes(n, max(dims)), f"every pair of n_vectors = {n:,} vectors in R^{max(dims)}"))
    sd = _ints(p.get("sigma_dims", []))
    if sd and _ints(p.get("sigma_vectors")):
        n = int(p["sigma_vectors"])
        out.append((pair_pass_bytes(n, max(sd)), f"every pair of sigma_vectors = {n:,} vectors in R^{max(sd)}"))
    if _ints(p.get("jl_points")) and _ints(p.get("jl_ambient")):
        n, a = int(p["jl_points"]), int(p["jl_ambient"])
        out.append((pair_pass_bytes(n, a), f"every pair of jl_points = {n:,} points in R^{a:,}"))
    ks, md = _ints(p.get("max_k", [])), _ints(p.get("max_dims", []))
    if ks and md:
        out.append((4.0 * max(ks) * max(md) * 3, f"max_k = {max(ks):,} vectors in R^{max(md)}"))
    return out


def _config_steps(p: dict, config: str = "pack") -> int | None:
    """The steps of the packing config ``config`` (the runner's resolved mapping), None: the engine's."""
    cfg = p.get(config)
    steps = _ints(cfg.get("steps")) if isinstance(cfg, dict) else []
    return steps[0] if steps else None


def _ch06(p: dict) -> list[tuple[float, str]]:
    if not (_ints(p.get("k")) and _ints(p.get("d"))):
        return []
    k, d = int(p["k"]), int(p["d"])
    return [_pack(k, d, _config_steps(p), 1, f"a packing of k = {k:,} vectors in R^{d:,}")]


def _ch07(p: dict) -> list[tuple[float, str]]:
    out = []
    seeds = max(1, len(p.get("seeds") or [0]))
    steps = _config_steps(p)
    for dn, kn in (("dims", "ks"), ("dims_large", "ks_large")):
        dims, ks = _ints(p.get(dn, [])), _ints(p.get(kn, []))
        if dims and ks:
            k, d = max(ks), max(dims)
            out.append(_pack(k, d, steps, seeds, f"{seeds} packing(s) of {kn} = {k:,} vectors in R^{d:,}"))
    pn, pk = _ints(p.get("projection_N", [])), _ints(p.get("projection_k", []))
    if pn and pk:
        out.append((4.0 * max(pn) * (max(pn) + 2 * max(pk)), f"a projection of projection_N = {max(pn):,} points"))
    return out


def _stand_ins(p: dict) -> list[tuple[float, str]]:
    out = []
    for s in p.get("synthetic") or []:
        if isinstance(s, list) and len(s) >= 3 and _ints(s[1]) and _ints(s[2]):
            V, d = int(s[1]), int(s[2])
            out.append((4.0 * V * d * 3, f"the stand-in {str(s[0])[:40]} of {V:,} x {d:,}"))
    return out


def _ch10(p: dict) -> list[tuple[float, str]]:
    out = _toy(p, "train", ["toy_ms"])
    widths = _ints(p.get("stand_in_widths", []))
    if widths and _ints(p.get("stand_in_rows")):
        V = int(p["stand_in_rows"])
        out.append((4.0 * V * max(widths) * 3, f"a stand-in of stand_in_rows = {V:,} x {max(widths):,}"))
    return out


#: Per chapter: its parameters -> ``[(bytes, what needs them)]``.
ESTIMATES: dict[str, Callable[[dict], list[tuple[float, str]]]] = {
    "01_random_vectors": _ch01,
    "02_embedding_eps": _stand_ins,
    "03_capacity": _stand_ins,
    "04_lm_head_overlap": _stand_ins,
    "06_packing": _ch06,
    "07_capacity_laws": _ch07,
    "08_two_regimes": lambda p: _toy(p, "train", ["m", "fig3_ms"]),
    "09_width_scaling": lambda p: _toy(p, "train", ["ms"]) + _toy(p, "other_train", ["other_ms"]),
    "10_toys_to_llms": _ch10,
}


def chapter_refusal(stem: str, params: dict) -> str | None:
    """Why chapter ``stem`` cannot run with ``params`` on this machine (its largest need, in GiB,
    against the machine's memory), or None."""
    est = ESTIMATES.get(stem)
    if est is None:
        return None
    try:
        needs = est(params)
    except (TypeError, ValueError, OverflowError):  # a value the chapter itself will refuse
        return None
    if not needs:
        return None
    need, what = max(needs)
    if not memory.too_big(need, SHARE):
        return None
    return (
        f"{what} needs about {_gib(need)} of memory, more than a kernel can have of {memory.machine_text()}; "
        "refused before it starts - ask for less"
    )


def check_chapter(stem: str, params: dict, label: str) -> None:
    """Raise the refusal of :func:`chapter_refusal` as one :class:`RepcapError` naming ``label``."""
    from repcap import RepcapError

    why = chapter_refusal(stem, params)
    if why is not None:
        raise RepcapError(f"{label}: {why}")
