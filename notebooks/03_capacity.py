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
# # Capacity of real models
#
# {cite}`guha2026` turns a model's $\varepsilon$ into a *representational capacity*: the number $k$ of
# unit vectors that fit in $d_{\text{model}}$ dimensions with every pairwise $|\cos|\le\varepsilon$,
# read off a law fitted to optimised packings. This chapter applies the published laws to the
# $\varepsilon$ of the previous chapter, shows how violently the answer depends on $\varepsilon$, and
# how much it moves with the choice of threshold ($\mu+2\sigma$, $\mu+3\sigma$, or a quantile).

# %% tags=["parameters"]
models = ["gemma-3-270m", "smollm2-135m", "qwen2.5-coder-0.5b", "all-minilm-l6-v2", "paraphrase-minilm-l3-v2", "all-mpnet-base-v2"]  # offline keys (as in the ε chapter)
hub_models = []  # catalog keys or hub ids from the model hub (paper: Guha's 45 models)
synthetic = []  # synthetic stand-ins [name, V, d, mean_cos] (smoke)
sample_rows = 16384  # rows sampled for the quantile pass; None -> every pair
bins = 2000  # histogram bins on [-1, 1]
top_k = 12  # most similar pairs kept per model
fixed_d = 8192  # width of the capacity-against-ε figure (Guha's six-orders example)
eps_grid_points = 200  # points on the ε axis
seed = 0  # row-sample seed
device = "auto"  # "auto", "cpu" or "cuda"
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %%
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from repcap import catalog, embeddings, figures, laws
from repcap.book import glue, profile_banner
from repcap import sweep
from repcap.sweep_dask import make_executor

sweep.set_default_executor(make_executor(executor, scheduler or None))  # the model scan runs there
from repcap.cosine import fraction_below, scan

profile_banner("Guha evaluates the laws on every model of Table 1 measured on a GPU; here ε comes from the "
               "offline models (exact moments), quantile thresholds from the pairs of "
               f"{sample_rows if sample_rows else 'all'} sampled rows, and the laws' constants are the "
               "published ones.")

# %% [markdown]
# ## The laws
#
# With the constants as published (`repcap.laws.PUBLISHED`):
#
# | law | $\varepsilon(k, d)$ | constants |
# |---|---|---|
# | JL, textbook | $\sqrt{C\ln k / d}$ | $C = 8$ |
# | JL, Guha's fit to random vectors | $\sqrt{C\ln k / d}$ | $C = 3.029$ |
# | adjusted | $\sqrt{C\ln(k/d)/d}$ | $C = 1.293$ |
# | four-constant (Table 1) | $\sqrt{C\ln(k^a/d)^b / d^c}$ | $C=0.458,\ a=1.067,\ b=1.447,\ c=0.972$ |
#
# Each is solved for $k$. The worked example of the paper, Llama 2 7B ($d = 4096$,
# $\varepsilon = 0.0645$), shows how far the laws disagree:

# %%
law_names = {"jl8": "JL, C = 8", "jl": "JL, C = 3.029", "adjusted": "adjusted, C = 1.293", "four": "four-constant"}
llama = catalog.get("llama-2-7b-hf")
ex = pd.DataFrame([{"law": law_names[k], "capacity k": laws.capacity(llama.eps_reported, llama.d_model, k),
                    "log10 k": float(laws.log10_capacity(llama.eps_reported, llama.d_model, k))} for k in law_names])
ex["reported (Guha 2026)"] = ["8.4", "277", "2.2e9", "3.99e7 (Table 1)"]
ex["capacity k"] = ex["capacity k"].map(lambda v: f"{v:.3g}")
glue("capacity_llama_jl8", laws.capacity(llama.eps_reported, llama.d_model, "jl8"))
glue("capacity_llama_jl", laws.capacity(llama.eps_reported, llama.d_model, "jl"))
glue("capacity_llama_adjusted", laws.capacity(llama.eps_reported, llama.d_model, "adjusted"))
glue("capacity_llama_four", laws.capacity(llama.eps_reported, llama.d_model, "four"))
glue("capacity_llama_orders", float(laws.log10_capacity(llama.eps_reported, llama.d_model, "four")
                                    - laws.log10_capacity(llama.eps_reported, llama.d_model, "jl8")))
ex

# %% [markdown]
# The same $\varepsilon$ gives {glue:text}`capacity_llama_jl8:.1f` vectors under textbook JL,
# {glue:text}`capacity_llama_jl:.0f` under Guha's random-vector fit, and
# {glue:text}`capacity_llama_four:.3g` under the four-constant law that Table 1 uses:
# {glue:text}`capacity_llama_orders:.1f` orders of magnitude between laws, for one number.
#
# ## Our models under every law
#
# Guha reports capacity only for Class 2 ($\varepsilon < 0.1$). Every model we can load offline is
# Class 1, so the laws are evaluated outside the range they were fitted for. The table below still shows
# them (as $\log_{10}k$) because the size of the numbers is itself the point: at
# $\varepsilon \approx 0.4$ every law allows astronomically many directions.

# %%
common = dict(tiled=True, sample=sample_rows, bins=bins, top_k=top_k, seed=seed, device=device)
configs = [dict(source=k, label=k, head=False, **common) for k in models + hub_models]
tmp = Path(tempfile.mkdtemp(prefix="repcap-capacity-"))
for name, V, d, mean_cos in synthetic:
    np.save(tmp / f"{name}.npy", embeddings.synthetic(V, d, mean_cos=mean_cos, seed=seed))
    configs.append(dict(source=str(tmp / f"{name}.npy"), label=name, head=False, **common))
records, failures = scan(configs)
if failures:  # one line per model that could not be read; the others go on
    with pd.option_context("display.max_colwidth", None):
        display(pd.DataFrame(failures))

cap = pd.DataFrame([{"model": r["label"], "d": r["d_model"], "ε": r["eps"], "class": r["class"],
                     **{f"log10 k, {law_names[k]}": r["log10_capacity"][k] for k in law_names}} for r in records])
cap.round(3)

# %% [markdown]
# ## Capacity against ε at fixed width
#
# {numref}`fig-capacity-vs-eps` fixes $d = $ {glue:text}`capacity_fixed_d` and sweeps $\varepsilon$. Under
# the four-constant law, moving $\varepsilon$ from 0.05 to 0.09 multiplies the capacity by about
# $10^{6}$ ({glue:text}`capacity_jump_lo:.2g` to {glue:text}`capacity_jump_hi:.2g`): the quantity is
# exponential in $d\varepsilon^2$, so the third decimal of $\varepsilon$ matters.

# %%
eps_axis = np.linspace(0.02, 0.12, eps_grid_points)
fig, ax = plt.subplots(figsize=(figures.WIDTH_1 * 1.25, 3.2))
rows = []
for k, name in law_names.items():
    y = laws.log10_capacity(eps_axis, fixed_d, k)
    ax.plot(eps_axis, y, label=name)
    rows += [{"law": name, "eps": e, "log10_capacity": v, "d": fixed_d} for e, v in zip(eps_axis, y)]
lo, hi = laws.capacity(0.05, fixed_d, "four"), laws.capacity(0.09, fixed_d, "four")
ax.plot([0.05, 0.09], [np.log10(lo), np.log10(hi)], "ko", ms=4)
ax.annotate(f"{lo:.1e}", (0.05, np.log10(lo)), xytext=(-10, 8), textcoords="offset points", fontsize=7.5, ha="right")
ax.annotate(f"{hi:.1e}", (0.09, np.log10(hi)), xytext=(-6, 8), textcoords="offset points", fontsize=7.5, ha="right")
ax.set_xlabel("ε")
ax.set_ylabel("log10 capacity k")
ax.set_title(f"d = {fixed_d}", fontsize=9)
ax.legend(fontsize=7.5)
glue("capacity_fixed_d", fixed_d)
glue("capacity_jump_lo", lo)
glue("capacity_jump_hi", hi)
glue("capacity_jump_orders", float(np.log10(hi / lo)))
figures.save("fig-capacity-vs-eps", fig, pd.DataFrame(rows), {
    "caption": f"Capacity against ε at d = {fixed_d} under the four published laws (log scale). Dots: "
               "ε = 0.05 and 0.09 under the four-constant law, about six orders of magnitude apart.",
    "seed": seed})

# %% [markdown]
# The jump is {glue:text}`capacity_jump_orders:.1f` orders of magnitude, as the paper states
# (2.4e8 to 2.0e14).
#
# ## How much the threshold moves the answer
#
# $\varepsilon=\mu+2\sigma$ is a heuristic: it is a quantile only if the cosines are Gaussian. The
# alternatives are $\mu+3\sigma$ (also reported by Guha), or a quantile of the pairwise $|\cos|$ read off
# the histogram. {numref}`fig-capacity-threshold` shows the thresholds side by side for each model and
# the four-constant capacity each would imply.

# %%
qs = ["0.95", "0.99", "0.999"]
thr_rows = []
for r in records:
    cand = {"μ+2σ": r["eps"], "μ+3σ": r["eps3"], **{f"q{q} of |cos|": r["quantiles_abs"][q] for q in qs}}
    for name, val in cand.items():
        thr_rows.append({"model": r["label"], "d": r["d_model"], "threshold": name, "eps": val,
                         "log10_capacity_four": float(laws.log10_capacity(val, r["d_model"], "four")),
                         "quantile_error": r["quantile_error"] if name.startswith("q") else 0.0})
thr = pd.DataFrame(thr_rows)
fig, axes = plt.subplots(1, 2, figsize=(figures.WIDTH_2, 3.2))
names = list(dict.fromkeys(thr.threshold))
for i, (m, grp) in enumerate(thr.groupby("model", sort=False)):
    x = np.arange(len(names)) + (i - len(records) / 2) * 0.06
    axes[0].plot(x, grp.eps, "o-", ms=3.5, lw=0.8, label=m)
    axes[1].plot(x, grp.log10_capacity_four, "o-", ms=3.5, lw=0.8, label=m)
for ax in axes:
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=25, ha="right", fontsize=8)
axes[0].set_ylabel("threshold ε")
axes[1].set_ylabel("log10 capacity (four-constant law)")
axes[0].legend(fontsize=6.5, loc="upper left")
fig.tight_layout()
figures.save("fig-capacity-threshold", fig, thr, {
    "caption": "Left: ε by five rules for each model (μ+2σ and μ+3σ from the exact moments; quantiles of |cos| "
               "from the sampled histogram, ± one bin). Right: the four-constant capacity each threshold implies. "
               "The rule moves the capacity by many orders of magnitude.", "seed": seed})
spread = thr.groupby("model").log10_capacity_four.agg(lambda s: s.max() - s.min())
# where μ+2σ falls in each model's own distribution (a Gaussian would put it at the 97.7% point)
at = pd.Series({r["label"]: fraction_below(r["hist_counts"], r["eps"]) for r in records})
glue("capacity_eps_quantile_min", float(at.min()))
glue("capacity_eps_quantile_max", float(at.max()))
glue("capacity_threshold_spread_max", float(spread.max()))
glue("capacity_threshold_spread_min", float(spread.min()))
thr.pivot(index="model", columns="threshold", values="eps").round(4)

# %% [markdown]
# Depending on the rule, the implied capacity of one model moves by between
# {glue:text}`capacity_threshold_spread_min:.0f` and {glue:text}`capacity_threshold_spread_max:.0f`
# orders of magnitude. A capacity quoted to three significant figures, as in Table 1, carries far more
# precision than the choice of threshold supports.
#
# For a Gaussian, $\mu+2\sigma$ would be the 97.7% point of the cosines. These distributions are skewed,
# with heavy right tails (previous chapter), and $\mu+2\sigma$ falls between the
# {glue:text}`capacity_eps_quantile_min:.3f` and the {glue:text}`capacity_eps_quantile_max:.3f` quantile
# of each model's own sampled cosines: the same rule is a different quantile for each model.
# The quantiles come from the sampled pairs (bin error 0.001; their sampling error is in the previous
# chapter's table).
