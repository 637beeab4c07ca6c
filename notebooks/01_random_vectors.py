# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Random vectors are nearly orthogonal
#
# Everything in this book rests on one fact about high-dimensional space: directions drawn at
# random are almost perpendicular. This chapter measures that fact exactly, before the three
# sources put it to work. {cite}`guha2026` asks how many nearly orthogonal directions a language
# model's embedding can hold; {cite}`yoder2025` asks how far an optimiser can push the packing beyond
# random; {cite}`liu2025` shows that when a model stores more features than it has dimensions, the
# leftover overlap between them sets how the loss falls with width.

# %% tags=["parameters"]
dims = [3, 10, 100, 1000]  # dimensions d compared in the cosine-distribution figure
n_vectors = 2000  # random unit vectors per d for the histograms (n(n-1)/2 pairs each)
sigma_dims = [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]  # d values for sigma against 1/sqrt(d)
sigma_vectors = 1000  # vectors per d for the sigma estimate
max_k = [100, 300, 1000, 3000]  # numbers of vectors k for the largest |cos|
max_dims = [64, 256, 1024]  # dimensions for the largest |cos|
max_trials = 5  # independent draws per (k, d)
jl_points = 200  # points N projected in the JL experiment
jl_ambient = 1000  # their ambient dimension
jl_dims = [16, 32, 64, 128, 256, 512, 1024]  # target dimensions k of the projection
seed = 0  # base random seed
device = "auto"  # "auto", "cpu" or "cuda"

# %% tags=["remove-input"]
import numpy as np

from repcap.book import figures
from repcap.book.chapter import glue, start
from repcap.book.drawings import random as draw
from repcap.book.figdata import random as figdata
from repcap.engines import random_geometry as rg
from repcap.engines.laws import PUBLISHED

run_record = start(
    "Every profile runs in seconds on a CPU; `paper` only takes more vectors per dimension.", device=device
)

# %% [markdown]
# ## The law of a random cosine
#
# For two independent directions $u, v$ drawn uniformly on the sphere $S^{d-1}$, the cosine
# $t = \langle u, v\rangle$ has the exact density
#
# $$ f_d(t) = \frac{(1-t^2)^{(d-3)/2}}{B\left(\tfrac12, \tfrac{d-1}{2}\right)}, \qquad t \in [-1, 1], $$
#
# that is, $(1+t)/2$ follows a $\mathrm{Beta}\left(\tfrac{d-1}{2}, \tfrac{d-1}{2}\right)$ law, with mean 0 and
# variance exactly $1/d$. The histograms below are all pairs among random vectors; the lines are $f_d$.

# %%
dens = figdata.cosine_densities(dims, n_vectors, seed=seed, device=device)
figures.save(
    "fig-random-cosine-density",
    dens,
    {
        "caption": "Pairwise cosines of random unit vectors (shaded histograms) against the exact density "
        "(lines), on linear and log scales. As d grows the mass collapses onto 0: at d = 1000 almost every "
        "pair lies within ±0.1 of orthogonal, and the measured histograms sit on the exact curves.",
        "seed": seed,
        "n_vectors": n_vectors,
    },
    draw=draw.cosine_density,
)
glue("random_std_1000", rg.cosine_std(1000))

# %% [markdown]
# ## The spread falls as $1/\sqrt{d}$
#
# The standard deviation of a random cosine is exactly $1/\sqrt d$ — at $d = 1000$ it is
# {glue:text}`random_std_1000:.4f`. {numref}`fig-random-sigma` checks it over three decades of $d$.
# This is the $\sigma$ in Guha's tolerance $\varepsilon = \mu + 2\sigma$: for an embedding whose
# directions were *random*, $\varepsilon \approx 2/\sqrt{d}$.

# %%
sdf = figdata.sigma_table(sigma_dims, sigma_vectors, seed=seed, device=device)
figures.save(
    "fig-random-sigma",
    sdf,
    {
        "caption": "Standard deviation of the pairwise cosine of random unit vectors against 1/√d (log-log). "
        "The points lie on the identity line: σ = 1/√d exactly, from d = 4 to d = 2048.",
        "seed": seed,
    },
    draw=draw.sigma,
    options={"vectors": sigma_vectors},
)
rel_err = float(np.max(np.abs(sdf.measured_std * np.sqrt(sdf.d) - 1)))
glue("random_sigma_relerr", 100 * rel_err)

# %% [markdown]
# Across these dimensions the measured $\sigma\sqrt d$ stays within
# {glue:text}`random_sigma_relerr:.1f`% of 1.
#
# ## The worst pair among $k$ vectors
#
# Nearly orthogonal on average is not the same as nearly orthogonal *for every pair*. Among $k$
# random vectors the largest $|\cos|$ grows like $\sqrt{4\ln k / d}$ {cite}`cai2013`. Guha's fit to the
# random baseline, $\varepsilon = \sqrt{C \ln k / d}$ with $C$ = {glue:text}`random_guha_C` {cite}`guha2026`, is the
# finite-size version of the same law. {numref}`fig-random-max-cos` compares both with the measured
# maxima.

# %%
mdf = figdata.max_cos_trials(max_dims, max_k, max_trials, seed=seed, device=device)
agg = figdata.max_cos_summary(mdf)
jl = PUBLISHED["jl"]
figures.save(
    "fig-random-max-cos",
    mdf,
    {
        "caption": "Largest |cos| among k random unit vectors (mean of independent draws; bars span min to max) "
        "against k, for three dimensions. Dashed: the asymptote √(4 ln k / d); dotted: Guha's random-"
        f"vector fit with C = {jl.constants['C']:g}. The worst pair is several σ out and grows only like √(ln k).",
        "seed": seed,
        "trials": max_trials,
    },
    draw=draw.max_cos,
)
ratio = agg["mean"] / jl.eps(agg.k, agg.d)
glue("random_guha_C", jl.constants["C"])
glue("random_guha_ratio_min", float(ratio.min()))
glue("random_guha_ratio_max", float(ratio.max()))

# %% [markdown]
# The measured maxima sit between {glue:text}`random_guha_ratio_min:.2f` and
# {glue:text}`random_guha_ratio_max:.2f` times Guha's fitted value over this grid.
#
# ## Random projections and the Johnson–Lindenstrauss guarantee
#
# The JL lemma {cite}`johnson1984` turns the same concentration into a statement about maps: a
# Gaussian projection of $N$ points to $k \geq 4\ln N / (\varepsilon^2/2 - \varepsilon^3/3)$ dimensions
# distorts no squared distance by more than a factor $1\pm\varepsilon$ {cite}`dasgupta2003`.
# {numref}`fig-random-jl` projects {glue:text}`random_jl_points` random points and measures the worst
# distortion against that guarantee.

# %%
glue("random_jl_points", jl_points)
jdf = figdata.jl_distortions(jl_points, jl_ambient, jl_dims, seed=seed, device=device)
figures.save(
    "fig-random-jl",
    jdf,
    {
        "caption": f"Distortion of squared distances among {jl_points} random points under a Gaussian projection "
        f"from {jl_ambient} to k dimensions. The worst pair stays below the JL guarantee, which is "
        "conservative by a roughly constant factor; all curves fall like 1/√k.",
        "seed": seed,
    },
    draw=draw.jl_distortion,
)
slack = float(np.nanmedian(jdf.jl_guarantee / jdf.worst_distortion))
glue("random_jl_slack", slack)

# %% [markdown]
# The guarantee is loose by a factor of about {glue:text}`random_jl_slack:.1f` here, but it has the
# right shape. What the chapters ahead ask is the converse: not how few dimensions keep $N$ given
# points apart, but how many directions fit in $d$ dimensions at a given tolerance — and whether
# trained models come anywhere near it.
