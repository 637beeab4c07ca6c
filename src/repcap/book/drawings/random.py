"""Chapter 1's figures (random vectors on the sphere), each drawn from the one table
:mod:`repcap.book.figdata.random` computes and :func:`repcap.book.figures.save` ships beside it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from repcap.engines import random_geometry as rg
from repcap.engines.laws import PUBLISHED

from .. import figures
from ..figdata import random as figdata


def cosine_density(dens: pd.DataFrame) -> Figure:
    """Measured histograms (shaded) and the exact density (lines) of a random cosine, per dimension,
    on linear and log scales."""
    dims = list(dict.fromkeys(dens.d))
    fig, (ax_lin, ax_log) = plt.subplots(1, 2, figsize=figures.size(3.3))
    edges = np.linspace(-1, 1, 121)
    for c, d in zip(figures.palette(len(dims)), dims):
        hist = dens[(dens.d == d) & (dens.kind == "measured")].density.to_numpy()
        exact = dens[(dens.d == d) & (dens.kind == "exact")]
        for ax in (ax_lin, ax_log):
            ax.stairs(hist, edges, color=c, alpha=0.4, fill=True)
            ax.plot(exact.t, exact.density, color=c, lw=1.3, label=f"d = {d}")
    top = max(rg.cosine_density(0.0, d) for d in dims)
    xlabel = r"cosine $t$ of a random pair"
    ax_lin.set(xlabel=xlabel, ylabel="density", xlim=(-1, 1), ylim=(0, 1.08 * top), title="linear scale")
    ax_log.set(xlabel=xlabel, xlim=(-1, 1), yscale="log", ylim=(1e-3, 2 * top), title="log scale: the tails")
    ax_lin.legend(title="dimension", loc="upper right")
    fig.tight_layout()
    return fig


def sigma(sdf: pd.DataFrame, *, vectors: int) -> Figure:
    """Measured standard deviation of a random cosine against 1/√d, on the identity line."""
    fig, ax = plt.subplots(figsize=figures.size(3.4))
    x = np.array([sdf.inv_sqrt_d.min() * 0.8, sdf.inv_sqrt_d.max() * 1.2])
    ax.plot(x, x, color="0.3", lw=1, ls="--", label=r"exact: $\sigma = 1/\sqrt{d}$")
    ax.plot(sdf.inv_sqrt_d, sdf.measured_std, "o", label=f"measured ({vectors} vectors)")
    for _, r in sdf.iloc[[0, -1]].iterrows():
        ax.annotate(f"d = {int(r.d)}", (r.inv_sqrt_d, r.measured_std), textcoords="offset points", xytext=(6, -10))
    ax.set(xscale="log", yscale="log", xlabel=r"$1/\sqrt{d}$", ylabel=r"standard deviation $\sigma$ of the cosine")
    figures.plain_log_ticks(ax)
    figures.legend_below(ax, ncol=2)
    return fig


def max_cos(mdf: pd.DataFrame) -> Figure:
    """The largest |cos| among k random vectors (mean, min to max of the trials) against k, with the
    asymptote √(4 ln k / d) (dashed) and Guha's fit (dotted) per dimension."""
    agg = figdata.max_cos_summary(mdf)
    max_k, max_dims = sorted(set(mdf.k)), list(dict.fromkeys(mdf.d))
    fig, ax = plt.subplots(figsize=figures.size(3.6))
    kk = np.geomspace(min(max_k), max(max_k), 50)
    jl = PUBLISHED["jl"]
    for c, d in zip(figures.palette(len(max_dims)), max_dims):
        a = agg[agg.d == d]
        yerr = [a["mean"] - a["min"], a["max"] - a["mean"]]
        ax.errorbar(a.k, a["mean"], yerr=yerr, fmt="o", color=c, capsize=2, label=f"measured, d = {d}")
        ax.plot(kk, rg.max_abs_cosine_asymptote(kk, d), color=c, lw=1, ls="--")
        ax.plot(kk, jl.eps(kk, d), color=c, lw=1, ls=":")
    ax.plot([], [], color="0.3", ls="--", label=r"$\sqrt{4 \ln k / d}$")
    ax.plot([], [], color="0.3", ls=":", label=rf"Guha: $\sqrt{{{jl.constants['C']:g} \ln k / d}}$")
    ax.set(xscale="log", yscale="log", xlabel="number of random vectors k", ylabel=r"largest $|\cos|$ over all pairs")
    figures.plain_log_ticks(ax)
    figures.legend_below(ax, ncol=2)
    fig.tight_layout()
    return fig


def jl_distortion(jdf: pd.DataFrame) -> Figure:
    """Measured distortions of squared distances (worst, 99th percentile, mean) under a Gaussian
    projection to k dimensions, against the JL guarantee."""
    fig, ax = plt.subplots(figsize=figures.size(3.4))
    ax.plot(jdf.k, jdf.jl_guarantee, "-", color="0.3", label="JL guarantee (Dasgupta–Gupta)")
    ax.plot(jdf.k, jdf.worst_distortion, "o-", label="measured: worst pair")
    ax.plot(jdf.k, jdf.q99_distortion, "s-", ms=4, label="measured: 99th percentile")
    ax.plot(jdf.k, jdf.mean_distortion, "^-", ms=4, label="measured: mean")
    ylabel = r"distortion $|\,\|Px-Py\|^2/\|x-y\|^2 - 1|$"
    ax.set(xscale="log", yscale="log", xlabel="target dimension k", ylabel=ylabel)
    figures.plain_log_ticks(ax)
    figures.legend_below(ax, ncol=2)
    return fig
