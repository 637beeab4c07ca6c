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
# # LM-head overlap
#
# {cite}`liu2025` argue that language models represent more tokens than they have dimensions by
# superposition, and check it on the output head: if the $V$ token directions of an LM head of width
# $m$ are spread like random unit vectors, the mean square overlap of normalised rows is
# $E[\cos^2]\approx 1/m$. They find the 27 heads of four families (OPT, Qwen2.5, GPT-2, Pythia) scatter
# around $1/m$. This chapter measures $E[\cos^2]$ exactly, over all pairs, on every head we can load.

# %% tags=["parameters"]
models = ["smollm2-135m", "gemma-3-270m", "qwen2.5-coder-0.5b"]  # offline decoders (their tied heads)
encoders = ["all-minilm-l6-v2", "paraphrase-minilm-l3-v2", "all-mpnet-base-v2"]  # offline encoders: input embeddings, for comparison
hub_models = []  # catalog keys or hub ids of LM heads from the hub (paper: Liu's 27)
synthetic = []  # synthetic stand-ins [name, V, d, mean_cos] (smoke)
device = "auto"  # "auto", "cpu" or "cuda"
seed = 0  # seed of the synthetic stand-ins
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %%
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from repcap import catalog, embeddings, figures
from repcap.book import glue, profile_banner
from repcap import sweep
from repcap.sweep_dask import make_executor

sweep.set_default_executor(make_executor(executor, scheduler or None))  # the model scan runs there
from repcap.cosine import scan

profile_banner("Liu et al. read 27 LM heads from the hub; offline we have three small tied decoders (whose head "
               "is the embedding) and three encoders, so the figure shows the method and where these models fall, "
               "and the `paper` profile adds Liu's models.")

# %% [markdown]
# ## The measurement
#
# For the normalised rows $u_i$ of the head, $E[\cos^2]$ over $i\neq j$ is
# $(\lVert U^\top U\rVert_F^2 - n)/(n(n-1))$, from the $d\times d$ Gram (exact, $O(Vd^2)$). It mixes two
# things: the spread of the directions and their common offset, since
# $E[\cos^2] = \operatorname{Var}(\cos) + \mu^2$. A head whose rows share a mean direction sits above
# $1/m$ even if the remaining directions are random, so we show both parts.

# %%
configs = [dict(source=k, label=k, head=True, device=device) for k in models]
configs += [dict(source=k, label=k, head=False, device=device) for k in encoders]
configs += [dict(source=k, label=k, head=True, device=device) for k in hub_models]
tmp = Path(tempfile.mkdtemp(prefix="repcap-overlap-"))
for name, V, d, mean_cos in synthetic:
    np.save(tmp / f"{name}.npy", embeddings.synthetic(V, d, mean_cos=mean_cos, seed=seed))
    configs.append(dict(source=str(tmp / f"{name}.npy"), label=name, head=False, device=device))
records, failures = scan(configs)
if failures:  # one line per model that could not be read; the others go on
    with pd.option_context("display.max_colwidth", None):
        display(pd.DataFrame(failures))

ov = pd.DataFrame([{
    "model": r["label"], "kind": "encoder embedding" if r["label"] in encoders else
    ("synthetic" if r["source_kind"] == "npy" else "LM head"),
    "tied": r["tied"], "tensor": r["tensor"], "storage": r["quant"], "V": r["vocab_size"], "m": r["d_model"],
    "E[cos^2]": r["mean_sq"], "mu^2": r["mean"] ** 2, "Var(cos)": r["var"], "1/m": 1.0 / r["d_model"],
    "E[cos^2] * m": r["mean_sq"] * r["d_model"], "Var(cos) * m": r["var"] * r["d_model"]} for r in records])
ov.round(5)

# %% [markdown]
# ## Against 1/m
#
# {numref}`fig-overlap-vs-width` plots $E[\cos^2]$ (filled) and its centred part $\operatorname{Var}(\cos)$
# (hollow) against the width $m$, with the line $1/m$.

# %%
fig, ax = plt.subplots(figsize=(figures.WIDTH_1 * 1.2, 3.4))
mgrid = np.geomspace(ov.m.min() / 1.5, ov.m.max() * 1.5, 50)
ax.plot(mgrid, 1 / mgrid, color="0.3", lw=1, ls="--", label="1/m")
markers = {"LM head": "o", "encoder embedding": "s", "synthetic": "^"}
for i, (_, r) in enumerate(ov.iterrows()):
    c = f"C{i % 10}"
    mk = markers[r["kind"]]
    ax.scatter(r["m"], r["E[cos^2]"], color=c, marker=mk, s=30, label=f"{r['model']} ({r['kind']})")
    ax.scatter(r["m"], r["Var(cos)"], facecolors="none", edgecolors=c, marker=mk, s=30)
    ax.plot([r["m"], r["m"]], [r["Var(cos)"], r["E[cos^2]"]], color=c, lw=0.6)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("width m (log scale)")
ax.set_ylabel("mean square overlap (log scale)")
ax.legend(fontsize=6.5, loc="lower left")
plot_rows = ov[["model", "kind", "m", "E[cos^2]", "Var(cos)", "1/m"]]
figures.save("fig-overlap-vs-width", fig, plot_rows, {
    "caption": "Mean square overlap E[cos²] of normalised rows (filled) and its centred part Var(cos) (hollow, joined "
               "by a line) against width m, with the random-direction value 1/m (dashed). Raw overlaps of "
               "the tied decoder heads sit far above 1/m because their rows share a common direction; "
               "the centred parts come much closer.", "seed": seed})
heads = ov[ov.kind == "LM head"]
glue("overlap_n_heads", int(len(heads)))
glue("overlap_ratio_min", float(heads["E[cos^2] * m"].min()) if len(heads) else float("nan"))
glue("overlap_ratio_max", float(heads["E[cos^2] * m"].max()) if len(heads) else float("nan"))
glue("overlap_var_ratio_min", float(heads["Var(cos) * m"].min()) if len(heads) else float("nan"))
glue("overlap_var_ratio_max", float(heads["Var(cos) * m"].max()) if len(heads) else float("nan"))

# %% [markdown]
# For the {glue:text}`overlap_n_heads` heads loaded here, $m\,E[\cos^2]$ lies between
# {glue:text}`overlap_ratio_min:.1f` and {glue:text}`overlap_ratio_max:.1f` (1 would be "random"), and
# the centred $m\operatorname{Var}(\cos)$ between {glue:text}`overlap_var_ratio_min:.1f` and
# {glue:text}`overlap_var_ratio_max:.1f`. These small tied decoders are Class 1 models (previous
# chapters): their token directions share a large common component, which the raw overlap counts.
# Whether Liu's larger, mostly untied heads behave differently is what the `paper` profile checks.
#
# ## Liu's models, ready for the hub
#
# The catalog holds Liu's 27 heads with their width $m$ and head tensor; `repcap stats HUB_ID --head`
# reads one (only the shard holding the head is downloaded), and the `paper` profile runs them all.

# %%
liu = pd.DataFrame([{"family": e.family, "hub id": e.hub_id, "m (Liu 2025)": e.width_m, "expected vocab": e.vocab,
                     "tied": e.tied, "note": e.note,
                     "loaded here": any(r["label"] in (e.key, e.hub_id) for r in records)} for e in catalog.liu_models()])
liu
