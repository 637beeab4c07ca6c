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
# # Inside the model
#
# The previous chapters measured $\varepsilon = \mu + 2\sigma$ on the input embedding, as
# {cite}`guha2026` does. His capacity, though, is meant for the whole latent space: the embeddings
# "reside in $\mathbb{R}^{d_{\text{model}}}$, the same space occupied by all subsequent latent
# representations", and so "we therefore hypothesize that the near-orthogonality observed in
# embeddings reflects properties of the broader latent space, with one qualification": models with
# tied embedding and unembedding matrices "exhibit different structural properties, suggesting their
# embeddings may not be representative" (Sec. 2.1). He argues that the weights of the attention and
# MLP layers act on the same space by inner products, and still calls the step from embeddings to
# features "an empirical hypothesis" (Sec. 2.4; again "a hypothesis rather than a proven
# relationship", Sec. 2.6). None of the three sources tests it.
#
# The weights can. Every GGUF file of the offline decoders holds every layer, not only the
# embedding. This chapter takes, in each layer, the directions that layer writes into the residual
# stream, measures them exactly as the embedding was measured, and asks three questions: is their
# $\varepsilon$ the embedding's, is their class the embedding's, and what capacity would the laws
# give if it were read from the layers instead?

# %% tags=["parameters"]
models = [
    "smollm2-135m",
    "gemma-3-270m",
    "qwen2.5-coder-0.5b",
    "qwen2.5-coder-1.5b",
]  # offline decoders (GGUF files holding every weight)
hub_models = []  # catalog keys or hub ids read from the model hub (paper: the bf16 originals and larger untied models)
synthetic = []  # tiny stand-in GGUF models [name, n_layers, vocab, d_model, d_ff] written here (smoke: no download)
layer: "layers" = {}  # the layer survey's LayerConfig settings: kinds (the matrices read) and seed (`repcap run --list-params`)
device = "auto"  # "auto", "cpu" or "cuda"
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %% tags=["remove-input"]
import numpy as np
import pandas as pd
from IPython.display import Markdown

from repcap import evidence
from repcap.book import figures, tables
from repcap.book.chapter import glue, start
from repcap.book.drawings import layers as draw
from repcap.book.figdata import layers as figdata
from repcap.engines import laws, layers
from repcap.evidence import findings, reference
from repcap.models.synthetic import source as stand_in_source

C1 = reference.value("guha2026.class1_eps_above")  # Class 1: eps above this (Guha 2026, Sec. 2.5)
C2 = reference.value("guha2026.class2_eps_below")  # Class 2: eps below this

run_record = start(
    "Guha measures embeddings only; here every layer's output directions of each model are "
    "measured exactly (all pairs, from the d×d Gram), from the offline GGUF files, whose layer "
    "weights are 4- to 6-bit quantised (the `paper` profile reads the bf16 originals and larger "
    "untied models from the hub).",
    device=device,
    executor=executor,
    scheduler=scheduler,
)

# %% [markdown]
# ## What a layer writes
#
# A block adds $W a$ to the residual stream, where $a$ is its hidden activation: the MLP's $d_{ff}$
# neurons, or the $n_{\text{heads}}\cdot d_{\text{head}}$ outputs of the attention heads. Unit $j$ firing
# alone writes $W e_j$, the $j$-th *column* of $W$ in the layout of a torch `Linear`, which stores
# $(\text{out}, \text{in}) = (d_{\text{model}}, d_{ff})$. Those $d_{ff}$ columns are the MLP's output
# directions in $\mathbb{R}^{d_{\text{model}}}$, and the attention output projection's columns are the
# attention's. Which axis of a stored tensor holds them depends on the format and on the layer class:
# GGUF lists dimensions fastest first, and GPT-2's `Conv1D` stores the transpose of a `Linear`. The
# table is `repcap.engines.layers.PATTERNS`; the tests plant known columns in tiny GGUF and safetensors models
# and check the directions against what a running layer writes. The up-projection (*reads*, one
# row per neuron: the "feature probes" of Guha's Sec. 2.4) can be added with `layer.kinds`.

# %%
tables.show(
    pd.DataFrame(layers.conventions()),
    first=[
        "family",
        layers.KINDS["mlp_out"],
        layers.KINDS["attn_out"],
        "written directions are",
        layers.KINDS["mlp_in"],
        "read directions are",
    ],
)

# %% [markdown]
# Each direction matrix is measured as the embeddings were: $\mu$, $\sigma$, $\varepsilon$ and
# $E[\cos^2]$ over all pairs, exactly, from the $d\times d$ Gram of the unit rows, the class and the
# capacity under each law ({ref}`methods-moments`). Next to each goes a baseline: as many Gaussian
# directions in the same width, for which $E[\cos] = 0$ and $E[\cos^2] = 1/d$ exactly, so
# $d\,E[\cos^2] = 1$ and $\varepsilon \approx 2/\sqrt{d}$.

# %%
configs = [dict(source=k, label=k, device=device) for k in models + hub_models]
for i, (name, n_layers, vocab, d_model, d_ff) in enumerate(synthetic):  # stand-in models built in memory
    src = stand_in_source("layers", n_layers=n_layers, vocab=vocab, d_model=d_model, d_ff=d_ff, seed=i)
    configs.append(dict(source=src, label=name, device=device))
lc = layers.LayerConfig(**layer)  # `repcap run` gives every setting; a partial mapping (papermill) the defaults
records, failures = layers.records(configs, kinds=lc.kinds, seed=lc.seed)
seed_used = lc.seed
if failures:  # one line per model that could not be read; the others go on
    display(tables.show(pd.DataFrame(failures)))

rng = figdata.range_table(records)
short = figdata.SHORT
kinds_here = [k for k in layers.KINDS if any(r["kind"] == k for r in records)]
eps_cols = {c: ".3f" for c in rng.columns if c.startswith("ε")}
tables.show(rng, digits=eps_cols, missing="no head stored apart from the embedding (tied)")

# %% [markdown]
# ## ε layer by layer
#
# {numref}`fig-layers-eps` shows $\varepsilon$ for every layer of every model against its embedding's
# $\varepsilon$ (black) and against Gaussian directions of the same shape (dashed). Over the
# {glue:text}`layers_n_models` models and {glue:text}`layers_n_matrices` layer matrices, the layers'
# $\varepsilon$ runs from {glue:text}`layers_eps_min:.3f` to {glue:text}`layers_eps_max:.3f`; the
# embeddings' from {glue:text}`layers_emb_eps_min:.3f` to {glue:text}`layers_emb_eps_max:.3f`. The median
# layer has {glue:text}`layers_ratio_median:.2f` times its embedding's $\varepsilon$, and
# {glue:text}`layers_ratio_random_median:.2f` times that of random directions at its shape.

# %%
bl = figdata.by_layer(records)
labels = list(dict.fromkeys(r["label"] for r in records))
figures.save(
    "fig-layers-eps",
    figdata.eps_figure(records, C2, C1),
    {
        "caption": "ε = μ + 2σ of the directions each layer writes into the residual stream (MLP down-projection "
        "columns, attention output projection columns), by layer, for each model (log scale). Black: the "
        "model's embedding; dashed: Gaussian directions of the same count and width; grey band: between "
        "Guha's classes. The layers sit far below their embeddings, near the random level.",
        "seed": seed_used,
    },
    draw=draw.eps_by_layer,
)

ratio_rand = bl.eps / bl.eps_random
glue("layers_n_models", len(labels))
glue("layers_n_matrices", int(len(bl)))
glue("layers_eps_min", float(bl.eps.min()))
glue("layers_eps_max", float(bl.eps.max()))
embs = [r for r in records if r["kind"] == "embedding"]
glue("layers_emb_eps_min", min(r["eps"] for r in embs))
glue("layers_emb_eps_max", max(r["eps"] for r in embs))
ratio = figdata.median_eps_ratio(records)
glue("layers_ratio_median", ratio)
glue("layers_ratio_random_median", float(ratio_rand.median()))
glue("layers_ratio_random_max", float(ratio_rand.max()))
findings.record("guha-layers-eps", ratio, interval="deterministic", n=int(len(bl)), n_of="layer matrices")

# %% [markdown]
# How far from random, matrix kind by matrix kind: $d\,E[\cos^2]$ is exactly 1 in expectation for
# Gaussian directions, so it counts the excess overlap directly. The MLP outputs stay within a small
# factor of random, the attention outputs somewhat further; no layer matrix is farther than
# {glue:text}`layers_ratio_random_max:.1f` times the random $\varepsilon$.

# %%
ex = figdata.excess_table(records)
tables.show(
    ex,
    digits={
        "ε random": ".4f",
        "ε / ε random, median": ".2f",
        "ε / ε random, max": ".2f",
        "d E[cos²], median": ".2f",
        "d E[cos²], max": ".2f",
        "d E[cos²], random": ".3f",
    },
)

# %% [markdown]
# ## Does the embedding's class predict the layers' class?
#
# Guha sorts models into Class 1 ($\varepsilon >$ {glue:text}`layers_c1`) and Class 2
# ($\varepsilon <$ {glue:text}`layers_c2`) by their embedding, and found no embedding in between
# (Sec. 2.5). {numref}`fig-layers-vs-embedding` puts each layer matrix's $\varepsilon$ against its
# embedding's: the hypothesis is the diagonal. Of the {glue:text}`layers_n_matrices` layer matrices,
# {glue:text}`layers_same_class` share their embedding's class (a share of
# {glue:text}`layers_share_same:.2f`), {glue:text}`layers_n_between` fall in the band between the classes
# that Guha found empty for embeddings, and {glue:text}`layers_n_class2` are Class 2 although
# {glue:text}`layers_n_emb_class1` of the {glue:text}`layers_n_models` embeddings are Class 1.

# %%
ct = figdata.class_table(records)
tables.show(ct, digits={"share in the embedding's class": ".2f"})

figures.save(
    "fig-layers-vs-embedding",
    figdata.vs_embedding_figure(records, bl, C2, C1),
    {
        "caption": "Each layer matrix's ε against its model's embedding ε (log-log). If the embedding's "
        "near-orthogonality stood for the latent space, the points would lie on the dashed diagonal; "
        "they lie far below it, near the Gaussian baseline of their shape (bars), most of them in "
        "Class 2 or in the band between the classes (grey).",
        "seed": seed_used,
    },
    draw=draw.vs_embedding,
)

share = figdata.share_same_class(records)
glue("layers_c1", C1)
glue("layers_c2", C2)
glue("layers_same_class", int(ct["same class as the embedding"].sum()))
glue("layers_share_same", share if share is not None else float("nan"))
glue("layers_n_between", int(ct["between"].sum()))
glue("layers_n_class2", int(ct["Class 2"].sum()))
glue("layers_n_emb_class1", sum(1 for r in embs if r["class"] == 1))
d_random_c2, d_random_c1 = 4 / C2**2, 4 / C1**2  # widths where 2/sqrt(d) crosses the boundaries
glue("layers_d_random_c2", d_random_c2)
glue("layers_d_random_c1", d_random_c1)
findings.record("guha-layers-class", share, interval="deterministic")
findings.record("guha-layers-tied", figdata.share_same_class(records, tied_only=True), interval="deterministic")
findings.record_all(evidence.guha.layers_latent(records))  # the scoped row: untied Class-2 models only

# %% [markdown]
# The classes are partly a statement about width. Gaussian directions have
# $\varepsilon \approx 2/\sqrt{d}$, which is Class 2 above $d$ = {glue:text}`layers_d_random_c2:.0f` and
# in the band between {glue:text}`layers_d_random_c1:.0f` and {glue:text}`layers_d_random_c2:.0f`: a layer
# whose directions are nearly random is Class 2 at these widths for that reason alone. What separates
# the embeddings from their layers is the embeddings' large common component (their mean cosine
# $\mu$ is far from zero, previous chapters), which none of the layers share. All the offline decoders
# tie their embedding to the LM head, the case Guha himself sets apart (Sec. 2.1 and Appendix C);
# the `paper` profile adds untied models, whose embeddings his Table 1 puts in Class 2.
#
# ## Capacity read from the layers
#
# Guha reports capacity only for Class 2 embeddings, because for Class 1 "the formula yields vacuous
# bounds" (Sec. 3.5). Read from the layers, most of these models would be Class 2 or near it.
# {numref}`fig-layers-capacity` gives the capacity under the four-constant law (the law of Table 1) at
# each matrix's $\varepsilon$ and $d_{\text{model}}$: from the embeddings, $\log_{10}k$ =
# {glue:text}`layers_emb_log10k_min:.1f` to {glue:text}`layers_emb_log10k_max:.1f`; from the layers,
# {glue:text}`layers_log10k_min:.1f` to {glue:text}`layers_log10k_max:.1f`; from Gaussian directions of the
# same shapes, {glue:text}`layers_rand_log10k_min:.1f` to {glue:text}`layers_rand_log10k_max:.1f`. The law
# credits a matrix of random directions with {glue:text}`layers_rand_over_n_min:.1f` to
# {glue:text}`layers_rand_over_n_max:.1f` times as many directions as it holds: $\mu + 2\sigma$ is a
# statistic of the bulk, not the largest cosine the packing laws bound.

# %%
law_names = {k: laws.PUBLISHED[k].label for k in ("jl8", "jl", "adjusted", "four")}
cap = figdata.capacity_table(records, law="four")
logcols = [c for c in cap.columns if c.startswith("log10")]
tables.show(cap, digits=dict.fromkeys(logcols, ".1f") | {c: ".3f" for c in cap.columns if c.startswith("ε")})

figures.save(
    "fig-layers-capacity",
    figdata.capacity_figure(records, bl, kinds_here),
    {
        "caption": "Capacity under the four-constant law (log10 k) read from each model's embedding ε (stars) and "
        "from each layer matrix's ε instead (open markers), next to the law at Gaussian directions of the "
        "same shape (grey bars) and the number of directions the layer matrix actually holds (dotted). "
        "Read from the layers, the capacity falls by many orders of magnitude, to about what the law gives "
        "random directions.",
        "seed": seed_used,
    },
    draw=draw.capacity,
)

lay = bl.dropna(subset=["log10_capacity_four"])
glue("layers_emb_log10k_min", min(r["log10_capacity"]["four"] for r in embs))
glue("layers_emb_log10k_max", max(r["log10_capacity"]["four"] for r in embs))
glue("layers_log10k_min", float(lay.log10_capacity_four.min()))
glue("layers_log10k_max", float(lay.log10_capacity_four.max()))
glue("layers_rand_log10k_min", float(lay.log10_capacity_four_random.min()))
glue("layers_rand_log10k_max", float(lay.log10_capacity_four_random.max()))
over_n = 10 ** (lay.log10_capacity_four_random - np.log10(lay.n))
glue("layers_rand_over_n_min", float(over_n.min()))
glue("layers_rand_over_n_max", float(over_n.max()))

# %% [markdown]
# Under every law, read at the median $\varepsilon$ of each kind of layer matrix instead of the
# embedding's (the table holds $\log_{10}k$):

# %%
every = pd.concat([figdata.capacity_table(records, law=k).assign(law=law_names[k]) for k in law_names])
keep = ["model", "law", "log10 k, embedding"] + [
    c for c in every.columns if c.startswith("log10 k, ") and "median" in c
]
tables.show(every[keep], digits={c: ".1f" for c in keep if c.startswith("log10")})

# %%
parts = []
for _, r in rng.iterrows():
    spans = [
        f"{short[k]} {r[f'ε {short[k]} min']:.3f}–{r[f'ε {short[k]} max']:.3f}"
        for k in kinds_here
        if np.isfinite(r.get(f"ε {short[k]} min", np.nan))
    ]
    parts.append(
        f"{r['model']}: {', '.join(spans)} against its embedding's {r['ε embedding']:.3f} "
        f"(random: {r[f'ε random ({short[kinds_here[0]]})']:.3f})"
        if kinds_here
        else r["model"]
    )
glue("layers_ranges_text", Markdown("; ".join(parts) if parts else "no model was read"))

# %% [markdown]
# ## Closing note
#
# Per model, the range of $\varepsilon$ over its layers next to its embedding's:
# {glue:md}`layers_ranges_text`.
#
# The layers do not carry their embedding's geometry. In the offline decoders, all small and tied,
# the embedding is Class 1, with a large shared direction, while every layer writes directions much
# nearer to Gaussian ones of the same shape than to the embedding: the median layer matrix has
# {glue:text}`layers_ratio_median:.2f` times its embedding's $\varepsilon$ and
# {glue:text}`layers_ratio_random_median:.2f` times the random one (at most
# {glue:text}`layers_ratio_random_max:.1f`). So the embedding's class does not predict the layers' class
# here (a share of {glue:text}`layers_share_same:.2f` agree), as Guha's own qualification for tied models
# allows, and a capacity read from the layers would be orders of magnitude smaller than one read from
# the embedding, and close to what the same law gives random directions. Whether untied Class 2
# models, for which the hypothesis was made, carry their embedding's $\varepsilon$ into their layers
# is what the `paper` profile checks. Two limits: the offline layers are 4- to 6-bit quantised, whose
# rounding noise is independent of the weights and pulls cosines slightly towards zero (the `paper`
# profile reads the bf16 originals); and the cosines are taken in the residual stream's own
# coordinates, before the next layer's normalisation gain.
