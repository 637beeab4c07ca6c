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
# # From toys to LLMs
#
# The toy model's strong regime has a fingerprint: every feature keeps a unit-length direction, and
# the directions overlap with a mean square overlap close to $1/m$. {cite}`liu2025` look for the same
# fingerprint in real language models. A model's LM head has one row per token; read as the
# directions the model gives its output "features", its normalised rows should overlap like the
# toy's strong regime if the model is in strong superposition. This chapter puts the toy's overlaps
# (from the previous chapter's runs) next to the LM-head overlaps of the models this book can load.

# %% tags=["parameters"]
toy_n = 256  # features of the toy runs (same grid as the width-scaling chapter)
toy_ms = [4, 8, 16, 32]  # toy widths
toy_alphas = [0.5, 1.0, 1.5, 2.0]  # toy frequency exponents
toy_gamma = -1.0  # strong regime
toy_seeds = [0]  # toy seeds
toy_steps = 1500  # toy optimiser steps
toy_batch = 256  # toy batch size
toy_lr = 0.01  # toy peak learning rate
models = ["smollm2-135m", "gemma-3-270m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]  # LM heads (offline keys, catalog keys or hub ids)
stand_in_widths = []  # widths of random Gaussian stand-in matrices (smoke tests only)
stand_in_rows = 2000  # rows of each stand-in matrix
max_rows = 20000  # rows sampled per LM head for E[cos^2] (None: every row, exact)
seed = 0  # seed of the row sample
cache = "toy"  # sweep cache folder shared with the width-scaling chapter
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %%
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

from repcap import RepcapError, catalog, embeddings, figures, toy
from repcap.book import glue, profile_banner
from repcap import sweep
from repcap.sweep_dask import make_executor

sweep.set_default_executor(make_executor(executor, scheduler or None))  # every sweep below runs there

profile_banner(
    "The paper measures the LM heads of 27 open models (OPT, Qwen2.5, GPT-2, Pythia) from the model hub; "
    f"this profile measures {len(models)} head(s) that install offline, on a sample of {max_rows} rows each, "
    f"and compares them with the n = {toy_n} toy runs of the width-scaling chapter."
)

# %% [markdown]
# ## The toy's overlaps
#
# The strong-regime models of the width-scaling chapter, read back from the sweep cache (a cold
# cache trains them here).

# %%
configs = [toy.sweep_config(n=toy_n, m=m, alpha=a, gamma=toy_gamma, seed=s, steps=toy_steps, batch=toy_batch,
                            lr=toy_lr, keep_norms=True)
           for m in toy_ms for a in toy_alphas for s in toy_seeds]
tdf = toy.run_sweep(configs, cache=cache, desc="toy (strong)")
tdf = tdf[["m", "alpha", "seed", "mean_sq_overlap"]].assign(source="toy", one_over_m=lambda d: 1.0 / d["m"])

# %% [markdown]
# ## LM-head overlaps
#
# For each model we load the output head (for a tied model, the input embedding, which is the same
# matrix) and compute the mean over pairs of tokens of $\cos^2$ between their rows, as is and after
# subtracting the mean row (*centred*: trained embeddings share a common direction that every
# cosine picks up). Zero rows are dropped. The chapter *LM-head overlap* measures the same heads
# exactly over all pairs and splits $E[\cos^2]$ into its mean and variance parts; here a seeded
# sample of rows is enough to place each head next to the toys. For the GGUF Qwen models, only the real-token rows are used (their padding rows after the
# last real token are excluded).

# %%
heads = []
sources = list(models)
tmp = None
if stand_in_widths:
    tmp = tempfile.TemporaryDirectory()
    rng = np.random.default_rng(seed)
    for d in stand_in_widths:
        path = Path(tmp.name) / f"gaussian-{d}.npy"
        np.save(path, rng.standard_normal((stand_in_rows, d)).astype(np.float32))
        sources.append(str(path))
for src in sources:
    try:
        # stand-ins are single .npy matrices (a "tied head"); real models: the output head
        emb = embeddings.load(src, head=not (tmp is not None and src.startswith(tmp.name)))
    except RepcapError as exc:
        print(f"skipped {src}: {exc}")
        continue
    X = emb.matrix
    real = emb.meta.get("real_vocab") if isinstance(emb.meta, dict) else None
    if real and real < X.shape[0]:
        X = X[:real]
    ov = toy.matrix_overlap(X, max_rows=max_rows, seed=seed)
    ovc = toy.matrix_overlap(X, max_rows=max_rows, seed=seed, center=True)
    label = Path(src).stem if src.endswith(".npy") else src
    heads.append({"source": "stand-in (random)" if src.endswith(".npy") else "LM head", "model": label,
                  "m": ov["d"], "vocab_rows": ov["n_rows"], "rows_used": ov["rows_used"], "tied": emb.tied,
                  "quant": emb.quant, "mean_sq_overlap": ov["mean_sq"],
                  "mean_sq_overlap_centred": ovc["mean_sq"], "one_over_m": 1.0 / ov["d"]})
    del emb, X
hdf = pd.DataFrame(heads)
if len(hdf):
    hdf["ratio_to_1_over_m"] = hdf["mean_sq_overlap"] * hdf["m"]
    hdf["centred_ratio_to_1_over_m"] = hdf["mean_sq_overlap_centred"] * hdf["m"]
hdf

# %% [markdown]
# ## Side by side
#
# {numref}`fig-toyllm-overlap` plots both against $1/m$. Points on the line $E[\cos^2] = 1/m$ overlap
# as much as random directions do, and as little as $n \gg m$ unit vectors can (the Welch bound
# {cite}`welch1974`).

# %%
fig, ax = plt.subplots(figsize=(figures.WIDTH_1 + 0.4, 3.4))
colors = figures.palette(len(toy_alphas) + 2)
for c, a in zip(colors, toy_alphas):
    d = tdf[tdf["alpha"] == a]
    ax.plot(d["one_over_m"], d["mean_sq_overlap"], "o", color=c, ms=4, label=f"toy, α = {a:g}")
for kind, mk, c in (("LM head", "D", "k"), ("stand-in (random)", "^", "0.5")):
    d = hdf[hdf["source"] == kind] if len(hdf) else hdf
    if len(d):
        ax.plot(d["one_over_m"], d["mean_sq_overlap"], mk, color=c, ms=5, label=kind)
        ax.plot(d["one_over_m"], d["mean_sq_overlap_centred"], mk, color=c, mfc="none", ms=5,
                label=f"{kind}, centred")
        ax.vlines(d["one_over_m"], d["mean_sq_overlap_centred"], d["mean_sq_overlap"], color=c, lw=0.5)
        for j, (_, r) in enumerate(d.sort_values("one_over_m").iterrows()):  # labels alternate above / below
            above = j % 2 == 0
            ax.annotate(r["model"], (r["one_over_m"], r["mean_sq_overlap" if above else "mean_sq_overlap_centred"]),
                        fontsize=6, xytext=(0, 5 if above else -5), textcoords="offset points", ha="center",
                        rotation=90, va="bottom" if above else "top")
allx = np.concatenate([tdf["one_over_m"].to_numpy(), hdf["one_over_m"].to_numpy() if len(hdf) else []])
xx = np.geomspace(allx.min() * 0.7, allx.max() * 1.4, 20)
ax.plot(xx, xx, "k-", lw=0.8, label="1/m")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("1 / m  (m = width)")
ax.set_ylabel("mean square overlap E[cos²]")
ax.legend(fontsize=7, loc="lower right")
if len(hdf):
    ax.set_ylim(min(hdf["mean_sq_overlap_centred"].min(), tdf["mean_sq_overlap"].min(), xx.min()) / 8,
                max(hdf["mean_sq_overlap"].max(), tdf["mean_sq_overlap"].max()) * 8)
fig.tight_layout()
plot_df = pd.concat([tdf.assign(model="toy"),
                     hdf.drop(columns=["ratio_to_1_over_m", "centred_ratio_to_1_over_m"], errors="ignore")],
                    ignore_index=True)
_ = figures.save("fig-toyllm-overlap", fig, plot_df,
             {"caption": "Mean square overlap of normalised rows against 1/m: toy models in the strong regime "
                         "(coloured) lie near the line 1/m; the LM heads (black diamonds, filled as is, open after "
                         "removing the mean row) lie above it.",
              "seed": seed, "max_rows": max_rows})

# %% [markdown]
# ## What the paper fits, as reported
#
# {cite}`liu2025` fit the losses of 27 models (four families, several datasets) with
# $L = A/m^{\alpha_m} + B(\text{family}, \text{dataset})$ and report
# $\alpha_m = 0.91 \pm 0.04$ ($A = 476.08$): close to the strong-regime value 1 of the toy. We state
# this fit **as reported**; the per-model losses behind it are not public, so it cannot be refitted
# here. The models it uses:

# %%
ref = pd.DataFrame([{"family": e.family, "hub id": e.hub_id, "m": e.width_m, "tied": e.tied}
                    for e in catalog.liu_models()]).sort_values(["family", "m"], ignore_index=True)
ref["1/m"] = (1.0 / ref["m"]).round(5)
ref

# %%
lm = hdf[hdf["source"] == "LM head"] if len(hdf) else hdf


def span(col):
    return f"{lm[col].min():.1f}–{lm[col].max():.1f} × 1/m" if len(lm) else "no head loaded"


reported = pd.DataFrame([
    {"quantity": "LLM width exponent α_m", "reported": "0.91 ± 0.04 (27 models)",
     "reproduced": "not refittable (losses not public)"},
    {"quantity": "LM-head E[cos²]", "reported": "scatters around 1/m (27 models)",
     "reproduced": f"{span('ratio_to_1_over_m')} ({len(lm)} offline heads)"},
    {"quantity": "LM-head E[cos²], mean row removed", "reported": "—",
     "reproduced": f"{span('centred_ratio_to_1_over_m')}"},
    {"quantity": "toy strong-regime E[cos²]", "reported": "≈ 1/m",
     "reproduced": f"{(tdf['mean_sq_overlap'] * tdf['m']).min():.2f}–{(tdf['mean_sq_overlap'] * tdf['m']).max():.2f} × 1/m"},
])
reported

# %%
glue("toyllm_n_heads", int(len(lm)))
glue("toyllm_ratio_min", float(lm["ratio_to_1_over_m"].min()) if len(lm) else float("nan"))
glue("toyllm_ratio_max", float(lm["ratio_to_1_over_m"].max()) if len(lm) else float("nan"))
glue("toyllm_cratio_min", float(lm["centred_ratio_to_1_over_m"].min()) if len(lm) else float("nan"))
glue("toyllm_cratio_max", float(lm["centred_ratio_to_1_over_m"].max()) if len(lm) else float("nan"))
glue("toyllm_toy_ratio", float((tdf["mean_sq_overlap"] * tdf["m"]).median()))
glue("toyllm_alpha_m_reported", 0.91)
glue("toyllm_alpha_m_se_reported", 0.04)
if tmp is not None:
    tmp.cleanup()

# %% [markdown]
# The toy's strong-regime models have a median $m\,E[\cos^2]$ of {glue:text}`toyllm_toy_ratio:.2f`:
# their rows overlap like $1/m$, as {cite}`liu2025` report. The {glue:text}`toyllm_n_heads` LM heads
# measured here do **not** sit on that line: their $m\,E[\cos^2]$ runs from
# {glue:text}`toyllm_ratio_min:.0f` to {glue:text}`toyllm_ratio_max:.0f`, and still from
# {glue:text}`toyllm_cratio_min:.1f` to {glue:text}`toyllm_cratio_max:.1f` after the mean row is
# removed. This differs from the paper's statement that LM-head overlaps scatter around $1/m$. Why they
# may differ: none of the paper's 27 models installs offline, so these are other (small, tied,
# quantised, partly code-tuned) models; trained embeddings are anisotropic, so that
# $E[\cos^2] \approx 1/d_\text{eff}$ with an effective dimension $d_\text{eff}$ well below $m$; and the
# paper's exact overlap statistic (for instance a centring or a restriction to frequent tokens) is not
# spelled out in the sources we have. The `paper` profile measures the paper's own 27 heads from the
# model hub, which is the comparison that settles it.
#
# The paper's loss fit over those 27 models, $\alpha_m$ = {glue:text}`toyllm_alpha_m_reported`
# $\pm$ {glue:text}`toyllm_alpha_m_se_reported`, is close to the toy's strong-regime value of 1; it
# is stated here as reported. Caveats: an overlap near $1/m$ is necessary for the strong-regime story,
# not proof of it (random directions have it too), and tied heads are the input embeddings, trained
# under both roles.
