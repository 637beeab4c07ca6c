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
# # Width scaling
#
# The previous chapter showed two ways the toy model $y = \mathrm{ReLU}(xWW^\top + b)$ can use $m$
# dimensions for $n \gg m$ features. {cite}`liu2025` show that they give two different laws for the
# loss $L$ against the width $m$, $L \propto m^{-\alpha_m}$:
#
# * **weak superposition** ($\gamma > 0$): the model represents about the $m$ most frequent features
#   and drops the rest. The loss is then what the dropped features carry,
#   $\sum_{i > m} \mathrm{Var}(x_i) \approx \tfrac43 \sum_{i>m} p_i \propto m^{-(\alpha - 1)}$ for
#   $p_i \propto i^{-\alpha}$: the exponent *inherits* the data's frequency law, $\alpha_m = \alpha - 1$.
# * **strong superposition** ($\gamma < 0$): every feature keeps a unit-length row, and the loss is the
#   interference between overlapping rows, whose mean square overlap scales as $1/m$; so
#   $\alpha_m \approx 1$ for a wide range of $\alpha$ (about 0.8–1.0 for $\alpha \le 1$ in their Fig. 6e),
#   rising towards $2(\alpha - 1)$ for steep frequency decay (about 1.1–1.4 at $\alpha = 1.5$ and
#   2.0–2.3 at $\alpha = 2$; our reading of the figure).
#
# This chapter trains the grid (width $\times$ frequency exponent $\times$ regime), fits the exponents
# with confidence intervals, and repeats the strong-regime fit for frequencies that are not a power law.

# %% tags=["parameters"]
n = None  # number of features; None: the engine's (TrainConfig: the paper's 1000)
ms = [4, 8, 16, 32]  # widths (paper: 10, 15, 25, 39, 63, 100)
alphas = [0.5, 1.0, 1.5, 2.0]  # power-law exponents (paper: 0..2 step 0.125)
strong_gamma = -1.0  # signed decay of the strong regime (paper: -1)
weak_gamma = 0.3333  # signed decay of the weak regime (a value of the paper's grid linspace(-1, 1, 10))
seeds = [0]  # one model per seed and grid point
steps = None  # optimiser steps; None: the engine's (the paper's 20000)
batch = None  # samples per step; None: the engine's (the paper's 2048)
lr = None  # peak learning rate; None: the engine's (the paper's 0.01)
gamma_grid = [-0.3333, 1.0]  # signed decays of the Fig. 6e view, besides the two regimes' (paper: linspace(-1, 1, 10))
other_n = 256  # features of the non-power-law runs (paper's large run, exp-17: see params/paper.yaml)
other_ms = [4, 8, 16, 32]  # widths of the non-power-law runs (paper: 8..1024, powers of 2)
other_steps = None  # steps of the non-power-law runs; None: the engine's
other_batch = None  # batch of the non-power-law runs; None: the engine's
other_lr_rule = (
    None  # learning rates of those runs; None: the engine's (constant), or liu-exp17 (W 0.02 (8/m)^0.25, bias 2/m)
)
other_warmup_fraction = None  # their warm-up as a fraction of the steps; None: the engine's (10%)
other_loss_window = None  # steps averaged for their final loss; None: the engine's (5% of the steps)
exp_tau_fraction = None  # tau of exp(-i / tau) as a fraction of n; None: the paper's tau / n of exp-17
other_power_alpha = None  # the power law shown next to them; None: the paper's (exp-17)
other_fit_m_min = 0  # smallest width in the power-law and linear fits (paper: 32; the exponential uses all)
reference_set = "reference"  # the shipped point set whose main-sweep models are shown ("" for none)
reference_scale = "full"  # that set's scale: full, or smoke (its seconds-long version, for the tests)
cache = "toy"  # sweep cache folder (.cache/sweeps/<cache>): an interrupted run resumes
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %% tags=["remove-input"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown

from repcap import bundle, figures, findings, reference, runs, tables, toy
from repcap import fits as fits_mod
from repcap.chapter import glue, start
from repcap.config import given
from repcap.figdata import reference as refdata
from repcap.figdata import reference_runs as rrdata
from repcap.figdata import toy as figdata
from repcap.runs import finding_profile

tc = toy.TrainConfig(**given(n=n, steps=steps, batch=batch, lr=lr))
n, steps, batch = tc.n, tc.steps, tc.batch
shared = given(n=n, steps=steps, batch=batch, lr=lr)
other_shared = given(
    n=other_n,
    steps=other_steps,
    batch=other_batch,
    lr_rule=other_lr_rule,
    warmup_fraction=other_warmup_fraction,
    loss_window=other_loss_window,
)


ref_lookup = refdata.lookup(reference_set, "liu-main", reference_scale)
drawn_lookups = (
    [
        refdata.lookup(reference_set, e.name, reference_scale)
        for e in runs.point_set(reference_set, reference_scale).experiments
        if e.name.startswith("liu-")
    ]
    if reference_set
    else []
)
run_record = start(
    f"The paper's sweep is n = 1000 features, m = 10..100, 20000 steps at batch 2048 (and n = 10240 for "
    f"the non-power-law runs); this profile trains n = {n} features at m = {ms} for {steps} steps at batch "
    f"{batch}, so the exponents carry wider intervals and finite-size bends."
    + (
        " Beside this profile's runs the chapter shows " + bundle.provenance_markdown(drawn_lookups, reference_set)
        if ref_lookup
        else ""
    ),
    executor=executor,
    scheduler=scheduler,
)

# %% [markdown]
# ## Loss against width
#
# Each point is one trained model; the lines are least-squares fits of $\log L$ against $\log m$.
# In the weak panel the dashed lines are the weak-regime ideal: the loss the dropped features alone
# would carry if exactly the $m$ most frequent ones were kept and reconstructed perfectly (each
# dropped feature's best output is its mean, leaving its variance $\tfrac43 p_i - p_i^2$). The
# crosses apply the same sum to the features each *trained* model actually left out (rows with
# $\lVert W_i\rVert \le 1/2$): if they sit on the dots, the weak-regime loss is the loss of the
# unlearned features, as the theory says.

# %%
regimes = {"weak": weak_gamma, "strong": strong_gamma}
configs = [
    toy.sweep_config(**shared, m=m, alpha=a, gamma=g, seed=s, keep_norms=True)
    for m in ms
    for a in alphas
    for g in regimes.values()
    for s in seeds
]
df = toy.run_sweep(configs, cache=cache, desc="width scaling")
df["regime"] = np.where(df["gamma"] < 0, "strong", "weak")
df["left_out_loss"] = figdata.left_out_loss(df, n)  # the loss of the features each model left out
fits = figdata.exponent_fits(df, ("regime", "alpha"))
pred, pred_fits = figdata.unlearned_prediction(n, alphas, ms)

colors = dict(zip(alphas, figures.palette(len(alphas))))
fig, axes = plt.subplots(1, 2, figsize=figures.size(3.4), sharey=True)
mm = np.geomspace(min(ms), max(ms), 50)
for ax, reg in zip(axes, ("weak", "strong")):
    for a in alphas:
        d = df[(df["regime"] == reg) & (df["alpha"] == a)]
        f = fits[(fits["regime"] == reg) & (fits["alpha"] == a)].iloc[0]
        ax.plot(d["m"], d["loss"], "o", color=colors[a], ms=4)
        ax.plot(
            mm,
            np.exp(f["log_A"]) * mm ** -f["alpha_m"],
            "-",
            color=colors[a],
            lw=1,
            label=f"α = {a:g}" if reg == "weak" else None,
        )
        if reg == "weak":
            p = pred[pred["alpha"] == a]
            ax.plot(p["m"], p["unlearned_loss"], "--", color=colors[a], lw=0.9, alpha=0.8)
            ax.plot(d["m"], d["left_out_loss"], "x", color=colors[a], ms=6, mew=1.2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ms)
    ax.set_xticklabels([str(m) for m in ms])
    ax.minorticks_off()
    ax.set_xlabel("width m")
    ax.set_title(f"{reg} regime (γ = {regimes[reg]:g})")
axes[0].set_ylabel("final loss (summed over features)")
marks = [
    plt.Line2D([], [], color="0.3", marker="o", ls="-", ms=4, lw=1, label="trained, with fit"),
    plt.Line2D([], [], color="0.3", marker="x", ls="none", ms=6, label="left-out features' loss"),
    plt.Line2D([], [], color="0.3", ls="--", lw=0.9, label="keep the m most frequent"),
]
handles = axes[0].get_legend_handles_labels()[0] + marks
fig.legend(handles=handles, loc="lower center", ncol=min(4, len(handles)), bbox_to_anchor=(0.5, 0.0))
fig.tight_layout(rect=(0, 0.06 * (1 + (len(handles) - 1) // 4), 1, 1))
sf = fits[fits["regime"] == "strong"]
_ = figures.save(
    "fig-scaling-loss",
    fig,
    figdata.loss_table(df, pred),
    {
        "caption": "Loss against width on log-log axes. Weak regime (left): the slope steepens with α; crosses, the "
        "loss of the features each model left out, sit on or below the dots; dashed, the ideal of keeping "
        f"exactly the m most frequent. Strong regime (right): slopes from {sf.alpha_m.min():.2f} to "
        f"{sf.alpha_m.max():.2f} over α = {min(alphas):g} to {max(alphas):g}.",
        "seed": seeds,
    },
)

# %% [markdown]
# ## The exponent against the frequency law
#
# {numref}`fig-scaling-loss` shows the two laws. The fitted exponents $\alpha_m$
# ({numref}`fig-scaling-exponents`), with 95 % confidence intervals, against the data's exponent
# $\alpha$. The lines are the theory of {cite}`liu2025`: $\alpha - 1$ for weak superposition, $1$ for
# strong superposition, and $2(\alpha - 1)$, the steep-decay limit the strong regime rises toward; the
# grey bars are where their strong-regime exponents lie in Fig. 6e (our reading of the figure).
# The open markers are the exponent of the dropped-feature prediction fitted over the same widths:
# with only $n$ = {glue:text}`scaling_n` features the tail sum is cut off, which steepens it above
# $\alpha - 1$.

# %%
aa = np.linspace(min(alphas), max(alphas), 50)
fig, ax = plt.subplots(figsize=figures.size(3.4))
c_weak, c_strong = figures.palette(4)[0], figures.palette(4)[3]
a1 = aa[aa >= 1]
ax.plot(a1, a1 - 1, color=c_weak, lw=1, label="theory, weak: α − 1 (α > 1)")
ax.plot(aa, np.ones_like(aa), color=c_strong, lw=1, label="theory, strong: 1")
ax.plot(a1, 2 * (a1 - 1), color="0.4", lw=1, ls=":", label="2(α − 1)")
dx = 0.012 * (max(alphas) - min(alphas) or 1)  # side by side where weak and strong share an alpha
for reg, c, mk, off in (("weak", c_weak, "o", -dx), ("strong", c_strong, "s", dx)):
    d = fits[fits["regime"] == reg]
    ax.errorbar(
        d["alpha"] + off,
        d["alpha_m"],
        yerr=[d["alpha_m"] - d["ci_low"], d["ci_high"] - d["alpha_m"]],
        fmt=mk,
        color=c,
        ms=5,
        capsize=3,
        label=f"measured, {reg}",
    )
ax.plot(
    pred_fits["alpha"] - dx,
    pred_fits["alpha_m_pred"],
    "o",
    mfc="none",
    color=c_weak,
    ms=7,
    label="dropped-feature prediction",
)
fig6e = figdata.strong_claims()  # {alpha: key} of the paper's Fig. 6e values (data/reference)
for j, (a_, key) in enumerate(fig6e.items()):
    q = reference.quote(f"liu2025.strong_alpha_m_{key}")
    ax.plot(
        [a_ + 2 * dx] * 2,
        [q.low, q.high],
        color="0.6",
        lw=4,
        alpha=0.6,
        solid_capstyle="butt",
        label="Liu et al., strong (Fig. 6e)" if j == 0 else None,
    )
ax.set_xlabel(r"frequency exponent $\alpha$  ($p_i \propto i^{-\alpha}$)")
ax.set_ylabel(r"width exponent $\alpha_m$  ($L \propto m^{-\alpha_m}$)")
ax.axhline(0, color="0.7", lw=0.6)
figures.legend_below(ax, ncol=2)
fig.tight_layout()
_ = figures.save(
    "fig-scaling-exponents",
    fig,
    figdata.exponents_table(fits, pred_fits),
    {
        "caption": "Fitted width exponents with 95 % intervals against the frequency exponent α, with the paper's "
        "strong-regime values (grey bars, Fig. 6e): a strong-regime point outside its grey bar is an "
        "exponent that differs from the paper's. Weak-regime exponents rise with α, near α − 1 "
        "for α > 1 and near the finite-n prediction (open circles); strong-regime exponents from "
        f"{sf.alpha_m.min():.2f} to {sf.alpha_m.max():.2f}.",
        "seed": seeds,
    },
)

# %% [markdown]
# ## The exponent across the signed decay
#
# The two regimes above are two values of the signed weight decay $\gamma$. Fig. 6e of {cite}`liu2025`
# fits $\alpha_m$ at every $\gamma$ of their grid and colours each point by $\gamma$:
# {numref}`fig-scaling-gamma` is the same view over this profile's $\gamma$ values
# ({glue:text}`scaling_gammas`). Negative $\gamma$ should gather near 1 (rising for steep decay),
# positive $\gamma$ near $\alpha - 1$.

# %%
gammas = sorted({float(g) for g in gamma_grid} | set(regimes.values()))
gconf = [
    toy.sweep_config(**shared, m=m, alpha=a, gamma=g, seed=s, keep_norms=True)
    for m in ms
    for a in alphas
    for g in gammas
    for s in seeds
]
gdf = toy.run_sweep(gconf, cache=cache, desc="gamma grid")
gfits = figdata.exponent_fits(gdf, ("gamma", "alpha"))

fig, ax = plt.subplots(figsize=figures.size(3.4))
cmap, norm = plt.get_cmap("coolwarm_r"), plt.Normalize(-1, 1)
gdx = 0.02 * (max(alphas) - min(alphas) or 1) * (np.arange(len(gammas)) - (len(gammas) - 1) / 2) / max(len(gammas), 1)
for g, off in zip(gammas, gdx):
    d = gfits[gfits["gamma"] == g]
    ax.errorbar(
        d["alpha"] + off,
        d["alpha_m"],
        yerr=[d["alpha_m"] - d["ci_low"], d["ci_high"] - d["alpha_m"]],
        fmt="o",
        color=cmap(norm(g)),
        ms=4.5,
        capsize=2,
        lw=0.8,
    )
ax.plot(aa, np.ones_like(aa), "k--", lw=0.8, label="1")
ax.plot(a1, a1 - 1, "k-.", lw=0.8, label="α − 1")
ax.plot(a1, 2 * (a1 - 1), "k:", lw=0.8, label="2(α − 1)")
ax.axhline(0, color="0.7", lw=0.6)
ax.set_xlabel(r"frequency exponent $\alpha$")
ax.set_ylabel(r"width exponent $\alpha_m$")
fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label="signed decay γ", pad=0.02)
figures.legend_below(ax, ncol=3)
fig.tight_layout()
_ = figures.save(
    "fig-scaling-gamma",
    fig,
    gfits,
    {
        "caption": f"Fitted width exponents against α, coloured by the signed decay γ ({len(gammas)} values "
        "from "
        f"{min(gammas):g} to {max(gammas):g}; red negative, strong superposition; blue "
        "positive, weak), the view of the paper's Fig. 6e; lines 1, α − 1 and 2(α − 1).",
        "seed": seeds,
    },
)

# %% [markdown]
# ## Overlap against width
#
# Why is the strong-regime exponent near 1 ({numref}`fig-scaling-overlap`)? Its rows are (nearly)
# unit vectors, and the loss comes from their interference, which scales with the squared overlaps.
# {cite}`liu2025` find that the mean square overlap of the normalised rows scales as $1/m$ (Fig. 6d:
# about {glue:text}`scaling_paper_ov10` at $m = 10$ and {glue:text}`scaling_paper_ov100` at $m = 100$). For
# comparison, random directions give exactly $1/m$ on average, and the Welch bound $(n-m)/(m(n-1))$
# {cite}`welch1974`, the least any $n$ unit vectors in $m$ dimensions can reach, lies just below it.

# %%
strong = figdata.strong_overlaps(df, n)
fig, ax = plt.subplots(figsize=figures.size(3.2))
for a in alphas:
    d = strong[strong["alpha"] == a]
    ax.plot(d["one_over_m"], d["mean_sq_overlap"], "o", color=colors[a], ms=4, label=f"α = {a:g}")
xx = np.geomspace(min(0.008, strong["one_over_m"].min() * 0.8), strong["one_over_m"].max() * 1.2, 20)
ax.plot(xx, xx, "k-", lw=0.8, label="1/m")
w = strong.drop_duplicates("m").sort_values("one_over_m")
ax.plot(w["one_over_m"], w["welch"], "k:", lw=0.8, label="Welch bound")
ov_q = [reference.quote("liu2025.toy_overlap_m10"), reference.quote("liu2025.toy_overlap_m100")]
ax.plot([1 / 10, 1 / 100], [q.value for q in ov_q], "x", color="0.3", ms=6, label="Liu et al., Fig. 6d (n = 1000)")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("1 / m")
ax.set_ylabel(r"mean square overlap $E[(\hat w_i \cdot \hat w_j)^2]$")
figures.legend_below(ax, ncol=3)
fig.tight_layout()
_ = figures.save(
    "fig-scaling-overlap",
    fig,
    figdata.overlap_points(strong),
    {
        "caption": "Strong regime: the mean square overlap of the normalised rows against 1/m, with the "
        "line 1/m, the Welch bound for n unit vectors (below it), and two points of the paper's "
        "Fig. 6d (our reading).",
        "seed": seeds,
    },
)

# %% [markdown]
# ## Frequencies that are not a power law
#
# If the strong-regime exponent comes from geometry rather than from the data's tail, it should not
# care whether the frequencies follow a power law at all. {cite}`liu2025` check this with an
# exponential $p_i \propto e^{-i/\tau}$ and a linear $p_i \propto (n - i)/n$ law in the strong regime
# ({numref}`fig-scaling-other`).

# %%
e17_n = int(reference.value("liu2025.exp17_n"))
e17_tau = reference.value("liu2025.exp17_tau")
exp_tau_fraction = exp_tau_fraction if exp_tau_fraction is not None else e17_tau / e17_n
other_power_alpha = other_power_alpha if other_power_alpha is not None else reference.value("liu2025.exp17_power_alpha")
tau = exp_tau_fraction * other_n
other = {
    "exp": dict(distribution="exp", tau=tau),
    "linear": dict(distribution="linear"),
    f"power α = {other_power_alpha:g}": dict(distribution="power", alpha=other_power_alpha),
}
slope_ids = {
    "exp": "liu2025.exp17_slope_exp",
    "linear": "liu2025.exp17_slope_linear",
    f"power α = {other_power_alpha:g}": "liu2025.exp17_slope_power",
}
oconf = [
    toy.sweep_config(**other_shared, m=m, gamma=strong_gamma, seed=s, **kw)
    for kw in other.values()
    for m in other_ms
    for s in seeds
]
odf = figdata.other_losses(toy.run_sweep(oconf, cache=cache, desc="other distributions"), list(other), other_ms, seeds)
# the paper's fit ranges: the exponential over every width, the power and linear laws from other_fit_m_min
ofits = pd.concat(
    [
        figdata.exponent_fits(odf[odf["law"] == name], ("law",), m_min=0 if name == "exp" else other_fit_m_min)
        for name in other
    ],
    ignore_index=True,
)
ofits["alpha_m_reported"] = [-reference.value(slope_ids[name]) for name in ofits["law"]]

fig, ax = plt.subplots(figsize=figures.size(3.2))
mo = np.geomspace(min(other_ms), max(other_ms), 50)
for (name, d), c in zip(odf.groupby("law", sort=False), figures.palette(3)):
    f = ofits[ofits["law"] == name].iloc[0]
    ax.plot(d["m"], d["loss"], "o", color=c, ms=4)
    ax.plot(
        mo,
        np.exp(f["log_A"]) * mo ** -f["alpha_m"],
        "-",
        color=c,
        lw=1,
        label=f"{name}: $\\alpha_m$ = {f['alpha_m']:.2f} (reported {f['alpha_m_reported']:.3f})",
    )
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xticks(other_ms)
ax.set_xticklabels([str(m) for m in other_ms])
ax.minorticks_off()
ax.set_xlabel("width m")
ax.set_ylabel("final loss (summed over features)")
figures.legend_below(ax, ncol=1)
fig.tight_layout()
_ = figures.save(
    "fig-scaling-other",
    fig,
    figdata.other_points(odf),
    {
        "caption": f"Strong regime (γ = {strong_gamma:g}) with exponential (τ = {tau:g}), linear and power-law "
        f"frequencies, n = {other_n}: fitted slopes in the legend, next to the slopes the paper "
        f"reports for its large run (exp-17, n = {e17_n:,}, Fig. 1d).",
        "seed": seeds,
    },
)

# %% [markdown]
# ## At the paper's settings: the reference points
#
# Everything above runs at this profile's size. The `reference` set (`repcap.runs`) trains, once, the
# toy models of the paper's main sweep that two CPU cores afford ($n$ = {glue:text}`scaling_ref_n:,` features,
# batch {glue:text}`scaling_ref_batch:,`, {glue:text}`scaling_ref_steps:,` steps, the paper's learning-rate
# schedule) and ships them with the book ({doc}`../reproduce`):
# {glue:md}`scaling_ref_provenance` {numref}`fig-scaling-reference` fits their exponents over the
# widths they cover: {glue:md}`scaling_ref_summary`

# %%
ref_section = refdata.section(ref_lookup, reference_set)
rdf = figdata.reference_points(ref_section.found)
w_names = (
    [
        e.name
        for e in runs.point_set(reference_set, reference_scale).experiments
        if e.name.startswith(rrdata.WIDTH_SWEEPS)
    ]
    if reference_set
    else []
)
w_lookups = [refdata.lookup(reference_set, n_, reference_scale) for n_ in w_names]
w_sections = [refdata.section(lk, reference_set) for lk in w_lookups]
w_found = [f for sec in w_sections for f in sec.found]
wfits = rrdata.width_exponents(w_found)
wsum = rrdata.exponent_summary(wfits)
main_overlap_finding = None  # the overlap slope of the main-sweep reference points, if they have one


#: from this many seeds on, an exponent row is judged by the seeds' mean and its t interval (how far
#: the slope over these widths moves between training runs) rather than by seed 0's regression
#: interval, which also counts the curvature of log loss against log m as noise
SEEDS_TO_DECIDE = 3
glue("scaling_seeds_to_decide", SEEDS_TO_DECIDE)


def w_fit(alpha, gamma):
    """Our seed-0 width fit at (alpha, gamma), with at least 3 widths, or None."""
    r = (
        wsum[np.isclose(wsum.alpha.astype(float), alpha) & np.isclose(wsum.gamma.astype(float), gamma)]
        if len(wsum)
        else wsum
    )
    return r.iloc[0] if len(r) and np.isfinite(float(r.iloc[0].alpha_m)) else None


paper_tc = toy.TrainConfig()  # the engine's defaults are the paper's main sweep
ref_cfg = ref_section.found[0].config if ref_section.found else {}
glue("scaling_ref_n", int(ref_cfg.get("n", paper_tc.n)))
glue("scaling_ref_batch", int(ref_cfg.get("batch", paper_tc.batch)))
glue("scaling_ref_steps", int(ref_cfg.get("steps", paper_tc.steps)))
glue("scaling_ref_provenance", Markdown(ref_section.provenance))
enough = rdf.groupby(["regime", "alpha"])["m"].transform("nunique") >= 3 if len(rdf) else pd.Series(dtype=bool)
rfits = (
    figdata.exponent_fits(rdf[enough], ("regime", "alpha"))
    if bool(enough.any())
    else pd.DataFrame(columns=["regime", "alpha", "alpha_m", "ci_low", "ci_high", "log_A"])
)
fig, axes = plt.subplots(1, 2, figsize=figures.size(3.2), sharey=True)
rcolors = dict(zip(sorted(rdf["alpha"].unique()), figures.palette(max(1, rdf["alpha"].nunique()))))
for ax, reg in zip(axes, ("weak", "strong")):
    for a_, d_ in rdf[rdf["regime"] == reg].groupby("alpha"):
        f_ = rfits[(rfits["regime"] == reg) & (rfits["alpha"] == a_)]
        ax.plot(d_["m"], d_["loss"], "o", color=rcolors[a_], ms=5, label=f"α = {a_:g}" if reg == "weak" else None)
        if len(f_):
            mm_ = np.geomspace(d_["m"].min(), d_["m"].max(), 20)
            ax.plot(mm_, np.exp(f_["log_A"].iloc[0]) * mm_ ** -f_["alpha_m"].iloc[0], "-", color=rcolors[a_], lw=1)
    if not len(rdf):
        ax.text(0.5, 0.5, "no reference points\nin this build", transform=ax.transAxes, ha="center", color="0.4")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("width m")
    ax.set_title(f"{reg} regime")
axes[0].set_ylabel("final loss (summed over features)")
if len(rdf):
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=4, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.08, 1, 1))
else:
    fig.tight_layout()
_ = figures.save(
    "fig-scaling-reference",
    fig,
    figdata.reference_figure(rdf),
    {
        "caption": f"The reference points: toy models at the paper's main-sweep settings (n = {ref_cfg.get('n', paper_tc.n):,}, "
        f"{ref_cfg.get('steps', paper_tc.steps):,} steps, batch {ref_cfg.get('batch', paper_tc.batch):,}), loss "
        "against width on log-log axes with least-squares fits, weak (left) and strong (right) regime.",
        "source": "reference bundle",
        "provenance": ref_section.sidecar_provenance,
    },
    provenance=figures.bundle_provenance(ref_lookup, reference_set),
)


def ref_fit(reg, a):
    r = rfits[(rfits["regime"] == reg) & np.isclose(rfits["alpha"].astype(float), a)] if len(rfits) else rfits
    return float(r["alpha_m"].iloc[0]) if len(r) else None


if len(rfits):
    parts = [
        f"{r.regime} α = {r.alpha:g}: α_m = {r.alpha_m:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]"
        for r in rfits.itertuples()
    ]
    rs = rdf[rdf.regime == "strong"].dropna(subset=["mean_sq_overlap"])
    rsm = (rs.mean_sq_overlap * rs.m).groupby(rs.m).mean()
    ov_text = (
        f" In the strong regime their mean square overlap is {rsm.iloc[0]:.2f} × 1/m at m = {rsm.index[0]} "
        f"and {rsm.iloc[-1]:.2f} × 1/m at m = {rsm.index[-1]} (mean over α), where the paper's Fig. 6d has "
        f"about 1 × 1/m ({ov_q[0].value:g} at m = 10); the section on Fig. 6c and 6d below finds the "
        "definition that does."
        if len(rsm)
        else ""
    )
    glue(
        "scaling_ref_summary",
        Markdown(
            "; ".join(parts)
            + f" (widths {', '.join(str(m_) for m_ in sorted(rdf.m.unique()))})."
            + ov_text
            + " The table below sets the exponents against the paper."
        ),
    )
    prov = ref_lookup.provenance_text(reference_set)
    ref_profile = finding_profile(reference_set, reference_scale)
    widths = ", ".join(str(m_) for m_ in sorted(rdf.m.unique()))

    def ci_note(reg, a):
        r = rfits[(rfits["regime"] == reg) & np.isclose(rfits["alpha"].astype(float), a)].iloc[0]
        return (
            f"the reference fit rests on {rdf.m.nunique()} widths ({widths}); its 95% interval is "
            f"[{r.ci_low:.2f}, {r.ci_high:.2f}]"
        )

    steep_ref = [a_ for a_ in rfits[rfits.regime == "weak"].alpha if a_ > 1]

    def ref_ci(reg, a):
        r = rfits[(rfits["regime"] == reg) & np.isclose(rfits["alpha"].astype(float), a)].iloc[0]
        return float(r.ci_low), float(r.ci_high)

    if steep_ref and not any(w_fit(a_, 0.3333) is not None for a_ in steep_ref):
        findings.record(
            "liu-weak-exponent",
            float(np.mean([ref_fit("weak", a_) - (a_ - 1) for a_ in steep_ref])),
            low=float(np.mean([ref_ci("weak", a_)[0] - (a_ - 1) for a_ in steep_ref])),
            high=float(np.mean([ref_ci("weak", a_)[1] - (a_ - 1) for a_ in steep_ref])),
            n=int(rdf.m.nunique()),
            n_of="widths",
            figure="fig-scaling-reference",
            profile=ref_profile,
            provenance=prov,
            note="; ".join(f"α = {a_:g}: {ci_note('weak', a_)}" for a_ in steep_ref),
        )
    for a_, key in fig6e.items():
        v = ref_fit("strong", a_)
        if v is not None and w_fit(a_, -0.7778) is None:  # the width sweeps' gamma = -0.778 fit decides it
            findings.record(
                f"liu-strong-{key}",
                v,
                low=ref_ci("strong", a_)[0],
                high=ref_ci("strong", a_)[1],
                n=int(rdf.m.nunique()),
                n_of="widths",
                figure="fig-scaling-reference",
                profile=ref_profile,
                provenance=prov,
                note=ci_note("strong", a_),
            )
    rov = rdf[rdf.regime == "strong"].groupby("m", as_index=False)["mean_sq_overlap"].mean().dropna()
    if len(rov) >= 3:  # recorded below, unless the overlap sweep (liu-overlap) decides the row
        main_overlap_finding = dict(
            value=float(np.polyfit(np.log(rov.m), np.log(rov.mean_sq_overlap), 1)[0]),
            n=len(rov),
            n_of="widths",
            figure="fig-scaling-reference",
            profile=ref_profile,
            provenance=prov,
            note=f"the reference models' overlap is {rsm.iloc[0]:.1f} × 1/m at m = {rsm.index[0]} and "
            f"{rsm.iloc[-1]:.1f} × 1/m at m = {rsm.index[-1]}, against about 1 × 1/m in the paper's "
            "Fig. 6d over all rows; the section on Fig. 6c and 6d measures it under other definitions",
        )
    at10 = rs[rs.m == 10].mean_sq_overlap
    if len(at10):
        findings.record(
            "liu-toy-overlap-level",
            float(at10.mean()),
            low=float(at10.min()),
            high=float(at10.max()),
            n=len(at10),
            n_of="models at m = 10",
            figure="fig-scaling-reference",
            profile=ref_profile,
            provenance=prov,
        )
else:
    glue(
        "scaling_ref_summary",
        Markdown(
            f"no fit: its {len(rdf)} points cover fewer than three widths per regime and α."
            if len(rdf)
            else "not shown in this build, which has no reference points."
        ),
    )

# %% [markdown]
# ## Fig. 6e's series, width by width
#
# The reference set also trains the paper's six widths at the $\gamma$ of the three strong series that
# Fig. 6e plots, its weak series and $\gamma = -1$, for each $\alpha$ of the set, with two more seeds
# at $\alpha$ = 1 and 1.5 (and at $\alpha$ = 2 for the weak series), as far as its compute has reached:
# {glue:md}`scaling_w_provenance`
# {numref}`fig-scaling-fig6e` sets each of our fits (over the widths it has, with its 95 % t interval)
# next to the digitised point of the same $(\alpha, \gamma)$: {glue:md}`scaling_w_summary`
#
# A fit's 95 % t interval over six widths counts the curvature of $\log L$ against $\log m$ as
# noise, so it stays about ±0.25 wide however many seeds are trained. What the scorecard asks is how
# far the slope over these widths moves from one training run to the next: where a series has
# {glue:text}`scaling_seeds_to_decide` or more seeds, its row is judged by the seeds' mean and the t interval of that mean; with fewer,
# by seed 0's regression interval, which cannot decide a row as narrow as the figure's error bars.
# The weak-regime row ($\alpha_m - (\alpha - 1)$ averaged over the $\alpha > 1$ of the weak series)
# takes each $\alpha$ by the same rule.

# %%
digitised = rrdata.digitised_series(
    [
        (a_, -g_, q_.value, (q_.high - q_.low) / 2)
        for a_, key in fig6e.items()
        for g_, gkey in ((0.7778, "g0778"), (0.5556, "g0556"), (0.3333, "g0333"))
        for q_ in [reference.quote(f"liu2025.fig6e_{key}_{gkey}")]
    ]
    + [  # the weak series, at the alphas > 1 where the reference set trains it
        (a_, 0.3333, q_.value, (q_.high - q_.low) / 2)
        for a_, key in fig6e.items()
        if f"liu2025.fig6e_weak_{key}" in reference.quotes()
        for q_ in [reference.quote(f"liu2025.fig6e_weak_{key}")]
    ]
)
cmp6e = rrdata.fig6e_comparison(wsum, digitised)
# where the points that exist were computed; the sweeps still missing are listed once, with their
# commands, in the summary below
w_prov = (
    " ".join(dict.fromkeys(sec.provenance for sec in w_sections if sec.found) or [w_sections[0].provenance])
    if w_sections
    else refdata.NO_SET
)
glue("scaling_w_provenance", Markdown(w_prov))
fig, ax = plt.subplots(figsize=figures.size(3.6))
gcol = {-0.7778: "C3", -0.5556: "C1", -0.3333: "C2", -1.0: "0.3", 0.3333: "C0"}


# the column of each series beside its alpha: the weak series nearest (its values sit apart from
# the strong ones), then gamma = -1 and the three strong series
gorder = (0.3333, -1.0, -0.7778, -0.5556, -0.3333)


def offset(gamma):
    """How far right of its alpha our series of ``gamma`` is drawn (the figure's, as far left): one
    column per series, side by side."""
    g4 = round(float(gamma), 4)
    return 0.03 + 0.025 * (gorder.index(g4) if g4 in gorder else 0)


for (ser, g_), d_ in cmp6e.groupby(["series", "gamma"]):
    d_ = d_.dropna(subset=["alpha_m"])
    if not len(d_):
        continue
    mine = ser == "ours"
    ax.errorbar(
        d_.alpha + (offset(g_) if mine else -offset(g_)),
        d_.alpha_m,
        yerr=[d_.alpha_m - d_.low, d_.high - d_.alpha_m],
        fmt="o" if mine else "s",
        mfc=None if mine else "none",
        color=gcol.get(round(float(g_), 4), "0.5"),
        ms=5,
        capsize=2,
        lw=1,
        label=f"{'ours' if mine else 'Fig. 6e'}, γ = {g_:+.3f}".replace("-", "−"),
    )
seeded = cmp6e[(cmp6e.series == "ours") & (cmp6e.n_seeds.fillna(0) >= SEEDS_TO_DECIDE)]
for r_ in seeded.itertuples():  # the seeds' mean and its 95 % interval, a thick bar beside seed 0's dot
    x_ = r_.alpha + offset(r_.gamma)
    ax.plot([x_, x_], [r_.seed_low, r_.seed_high], color=gcol.get(round(float(r_.gamma), 4), "0.5"), lw=3.5, alpha=0.45)
ax.plot([0.5, 2.0], [1.0, 1.0], ":", color="0.5", lw=0.8)
ax.set_xlabel("α (feature-frequency exponent)")
ax.set_ylabel(r"$\alpha_m$ (loss $\propto m^{-\alpha_m}$)")
# room for every interval of 4 or more widths; a 3-width interval runs far beyond and is cut at the axes
_wide = cmp6e[(cmp6e.series == "ours") & (cmp6e.n_widths.fillna(0) >= 4)]
ax.set_ylim(-0.4, min(4.0, max(2.8, float(_wide.high.max()) + 0.1 if len(_wide) else 2.8)))
if not len(wsum):
    ax.text(0.5, 0.9, "no reference width sweep in this build", transform=ax.transAxes, ha="center", color="0.4")
figures.legend_below(ax, ncol=3)
fig.tight_layout()
_ = figures.save(
    "fig-scaling-fig6e",
    fig,
    cmp6e,
    {
        "caption": "Width exponents α_m against α: Liu et al.'s Fig. 6e digitised from their vector figure (open "
        "squares, their error bars) and our reference fits over the widths each series has so far (dots, 95 % t "
        "interval), one colour per γ; where a series has at least "
        f"{SEEDS_TO_DECIDE} seeds, a thick pale bar shows the seeds' mean with its 95 % t interval. Where a colour "
        "has both, compare the dot with the square beside it; γ = −1 (grey) has no square, and the weak series "
        "(blue) has its squares at α = 1.5 and 2 only, where Fig. 6e plots it and we train it. The intervals of "
        "fits on three widths only run beyond the axes and are cut there.",
        "source": "reference bundle; Liu et al. 2025 Fig. 6e digitised (repcap.digitise)",
        "provenance": w_prov if w_sections else None,
    },
    provenance=figures.bundle_provenance(w_lookups, reference_set),
)


def judged(r):
    """How a series' row is judged: on the seeds' mean and the 95 % t interval of that mean where it
    has ``SEEDS_TO_DECIDE`` seeds, else on seed 0's regression interval. Returns the value, the
    interval's ends and the words that say which."""
    n_s, n_w = int(r.n_seeds), int(r.n_widths)
    if n_s >= SEEDS_TO_DECIDE:
        how = (
            f"the mean of {n_s} seeds' fits over {n_w} widths, with the 95% t interval of that mean "
            f"(sd {r.seed_sd:.3f}); seed 0's own regression interval is [{r.low:.3f}, {r.high:.3f}]"
        )
        return float(r.seed_mean), float(r.seed_low), float(r.seed_high), how
    spread = f"; over {n_s} seeds α_m = {r.seed_mean:.3f} ± {r.seed_sd:.3f}" if n_s > 1 else ""
    return (
        float(r.alpha_m),
        float(r.low),
        float(r.high),
        f"seed 0's fit over {n_w} widths, with its regression interval{spread}",
    )


ref_profile_w = finding_profile(reference_set, reference_scale)
recorded = []
for a_, key in fig6e.items():
    for g_, cid in (
        (-0.7778, f"liu-strong-{key}"),
        (-0.5556, f"liu-strong-{key}-g0556"),
        (-0.3333, f"liu-strong-{key}-g0333"),
        (0.3333, f"liu-weak-{key}"),
    ):
        r = w_fit(a_, g_)
        if r is None or cid not in reference.claims():
            continue
        value, low, high, how = judged(r)
        findings.record(
            cid,
            value,
            low=low,
            high=high,
            n=int(r.n_widths),
            n_of="widths",
            figure="fig-scaling-fig6e",
            profile=ref_profile_w,
            provenance=w_prov,
            note=f"γ = {g_:+.4f}: {how}".replace("-", "−"),
        )
        recorded.append(
            f"α = {a_:g}, γ = {g_:+.3f}: α_m = {r.alpha_m:.2f} [{r.low:.2f}, {r.high:.2f}] ({int(r.n_widths)} widths)".replace(
                "-", "−"
            )
        )
steep_w = [a_ for a_ in fig6e if a_ > 1 and w_fit(a_, 0.3333) is not None]
if steep_w:
    # each alpha is judged as its own row would be (judged); the row averages the gaps to alpha - 1
    weak_judged = {a_: judged(w_fit(a_, 0.3333)) for a_ in steep_w}
    value_w, low_w, high_w = (float(np.mean([j_[i_] - (a_ - 1) for a_, j_ in weak_judged.items()])) for i_ in range(3))
    findings.record(
        "liu-weak-exponent",
        value_w,
        low=low_w,
        high=high_w,
        n=int(min(int(w_fit(a_, 0.3333).n_widths) for a_ in steep_w)),
        n_of="widths",
        figure="fig-scaling-fig6e",
        profile=ref_profile_w,
        provenance=w_prov,
        note="; ".join(f"α = {a_:g}: {j_[3]}" for a_, j_ in weak_judged.items())
        + "; the value and interval ends are the means over α of α_m − (α − 1)",
    )
glue(
    "scaling_w_summary",
    Markdown(
        ("; ".join(recorded) + "." if recorded else "no series has three widths yet, so no exponent is fitted.")
        + (
            f" Still to compute: {sum(len(sec.lookup.missing) for sec in w_sections)} of the sweeps' points "
            f"({', '.join(f'`repcap bundle compute reference --only {n_}`' for n_, sec in zip(w_names, w_sections) if sec.lookup.missing)})."
            if w_sections and any(sec.lookup.missing for sec in w_sections)
            else ""
        )
    ),
)

# %% [markdown]
# ## Fig. 6c and 6d on the same models
#
# Fig. 6c plots the "strong rep. fraction" $\varphi_1$ against $m$, one series per $\alpha$, and
# Fig. 6d the mean square overlap at about $1/m$. Neither is defined in what we could read of the
# paper, and the authors' code has no analysis of either. We read $\varphi_1$ as the share of rows
# with $\lVert W_i\rVert > 1$, from the norms every reference model stores;
# {numref}`fig-scaling-phi1` sets ours next to the digitised series: {glue:md}`scaling_phi1_summary`
#
# For the overlap, the reference set retrains the $\alpha = 1$, $\gamma = -0.778$ models
# (`liu-overlap`, the same models by their per-model generators) and measures it under five
# definitions a reader could mean: every row, the represented rows ($\lVert W_i\rVert > 1/2$), the
# strongly represented rows ($\lVert W_i\rVert > 1$), the rows as trained (not normalised), and pairs
# weighted by their features' frequencies. {numref}`fig-scaling-overlap-defs` shows them in units of
# $1/m$: {glue:md}`scaling_overlap_defs_summary`

# %%
phi1_lookups = [lk for lk in w_lookups if lk is not None and lk.experiment.startswith("liu-strong-a")]
phi1_digitised = [
    (a_, m_, reference.value(f"liu2025.fig6c_{key}_m{m_}")) for a_, key in fig6e.items() for m_ in rrdata.FIG6C_WIDTHS
]
phi1 = rrdata.phi_one_comparison([f for lk in phi1_lookups for f in lk.found], phi1_digitised)
phi1_gamma = -0.7778  # the strongest gamma Fig. 6e plots (the figure does not name Fig. 6c's)
phi1_gamma_text = f"{phi1_gamma:.4f}".replace("-", "−")
phi1_ours = phi1[(phi1.series == "ours") & np.isclose(phi1.gamma.astype(float), phi1_gamma) & (phi1.seed == 0)]
fig, ax = plt.subplots(figsize=figures.size(3.2))
acol = dict(zip(sorted(fig6e), figures.palette(len(fig6e))))
for (ser, a_), d_ in pd.concat([phi1_ours, phi1[phi1.series != "ours"]]).groupby(["series", "alpha"]):
    mine = ser == "ours"
    if a_ not in acol:
        continue
    ax.plot(
        d_.m,
        d_.phi_one,
        "o-" if mine else "s--",
        mfc=None if mine else "none",
        color=acol[a_],
        ms=5,
        lw=1,
        label=f"{'ours, γ = ' + f'{phi1_gamma:.3f}'.replace('-', '−') if mine else 'Fig. 6c'}, α = {a_:g}",
    )
ax.set_xscale("log")
ax.set_xlabel("width m")
ax.set_ylabel(r"$\varphi_1$ (rows with norm > 1)")
ax.set_ylim(-0.02, 1.05)
if not (phi1.series == "ours").any():
    ax.text(0.5, 0.5, refdata.PLACEHOLDER, transform=ax.transAxes, ha="center", color="0.4")
figures.legend_below(ax, ncol=2)
fig.tight_layout()
_ = figures.save(
    "fig-scaling-phi1",
    fig,
    phi1,
    {
        "caption": "The strong fraction φ₁ against width: Liu et al.'s Fig. 6c digitised from their vector figure "
        "(open squares, dashed) and our reference models at γ = −0.778 (dots), one colour per α. Compare each dot "
        "with the square of its colour at the same width; φ₁ is our reading (rows with norm above 1).",
        "source": "reference bundle; Liu et al. 2025 Fig. 6c digitised (repcap.digitise)",
        "provenance": w_prov if w_sections else None,
    },
    provenance=figures.bundle_provenance(phi1_lookups, reference_set),
)
gap1, n1 = rrdata.phi_one_gap(phi1, 1.0, phi1_gamma)
if n1:
    findings.record(
        "liu-phi1-width",
        gap1,
        n=n1,
        n_of="widths",
        figure="fig-scaling-phi1",
        profile=ref_profile_w,
        provenance=w_prov,
        note=f"φ₁ at α = 1, γ = {phi1_gamma_text} over m = "
        + ", ".join(f"{int(r.m)}: {r.phi_one:.3f}" for r in phi1_ours[np.isclose(phi1_ours.alpha, 1.0)].itertuples()),
    )
glue(
    "scaling_phi1_summary",
    Markdown(
        f"at α = 1 the largest gap over the {n1} widths both have is {gap1:.3f}, against one marker's height "
        f"({reference.claims()['liu-phi1-width'].tolerance:g})."
        if n1
        else "this build has no reference width sweep, so there is nothing to compare yet."
    ),
)

ov_lookup = refdata.lookup(reference_set, "liu-overlap", reference_scale)
ov_section = refdata.section(ov_lookup, reference_set)
ovd = rrdata.overlap_definitions(ov_section.found)
fig, ax = plt.subplots(figsize=figures.size(3.2))
names_ = list(dict.fromkeys(ovd.definition))
dcol = dict(zip(names_, figures.palette(max(1, len(names_)))))
for name, d_ in ovd.groupby("definition", sort=False):
    d_ = d_.dropna(subset=["times_m"])
    if len(d_):
        ax.plot(d_.m, d_.times_m, "o-", color=dcol.get(name, "0.5"), ms=4, lw=1, label=name)
ax.axhline(1.0, color="k", ls=":", lw=0.9, label="1/m (Fig. 6d: about 1)")
ax.set_xscale("log")
ax.set_xlabel("width m")
ax.set_ylabel("mean square overlap × m")
if not len(ovd):
    ax.text(0.5, 0.5, refdata.PLACEHOLDER, transform=ax.transAxes, ha="center", color="0.4")
figures.legend_below(ax, ncol=3)
fig.tight_layout()
_ = figures.save(
    "fig-scaling-overlap-defs",
    fig,
    refdata.placeholder_if_empty(ovd),
    {
        "caption": "The retrained α = 1, γ = −0.778 models' mean square overlap in units of 1/m under five "
        "definitions: every row (what every toy point records), the represented rows (norm > 1/2), the strongly "
        "represented rows (norm > 1), the rows as trained, and pairs weighted by p_i p_j. Fig. 6d sits at about 1 "
        "(dotted); see which definition does.",
        "source": "reference bundle (liu-overlap)",
        "provenance": ov_section.sidecar_provenance,
    },
    provenance=figures.bundle_provenance(ov_lookup, reference_set),
)
strong10 = ovd[(ovd.definition == "strong") & (ovd.m == 10)].dropna(subset=["overlap"])
if len(strong10):
    findings.record(
        "liu-toy-overlap-strong",
        float(strong10.overlap.iloc[0]),
        figure="fig-scaling-overlap-defs",
        profile=ref_profile_w,
        provenance=ov_section.provenance,
        note=f"{float(strong10.phi_one.iloc[0]):.1%} of the rows are strongly represented at m = 10",
    )


def overlap_slope(definition):
    """The log-log slope of the retrained models' overlap against m under one definition, with its
    95% interval and number of widths, or None below 3 widths."""
    d_ = ovd[ovd.definition == definition].dropna(subset=["overlap"])
    if d_.m.nunique() < 3:
        return None
    f_ = fits_mod.fit_exponent(d_.m, d_.overlap)
    return -f_.alpha_m, -f_.ci_high, -f_.ci_low, int(d_.m.nunique())


# Fig. 6d's scaling, judged under the definition that gives its level (the strongly represented rows)
ov_slope_strong, ov_slope_all = overlap_slope("strong"), overlap_slope("all")
if ov_slope_strong is not None:
    findings.record(
        "liu-toy-overlap",
        ov_slope_strong[0],
        low=ov_slope_strong[1],
        high=ov_slope_strong[2],
        n=ov_slope_strong[3],
        n_of="widths",
        figure="fig-scaling-overlap-defs",
        profile=ref_profile_w,
        provenance=ov_section.provenance,
        note="over the strongly represented rows (norm > 1), the definition that gives Fig. 6d's level"
        + (
            f"; over all rows the slope is {ov_slope_all[0]:+.3f} [{ov_slope_all[1]:+.3f}, {ov_slope_all[2]:+.3f}]".replace(
                "-", "−"
            )
            if ov_slope_all is not None
            else ""
        ),
    )
elif main_overlap_finding is not None:
    findings.record("liu-toy-overlap", main_overlap_finding.pop("value"), **main_overlap_finding)
glue(
    "scaling_overlap_defs_summary",
    Markdown(
        "; ".join(
            f"{name}: {d_.sort_values('m').times_m.iloc[0]:.2f} × 1/m at m = {int(d_.m.min())} and "
            f"{d_.sort_values('m').times_m.iloc[-1]:.2f} × 1/m at m = {int(d_.m.max())}"
            for name, d_ in ovd.dropna(subset=["times_m"]).groupby("definition", sort=False)
        )
        + ". "
        + ov_section.provenance
        if len(ovd)
        else ov_section.provenance
    ),
)

# %% [markdown]
# ## Power law in, power law out
#
# Fig. 1b of {cite}`liu2025` draws the idea behind the weak regime: the loss there is the loss of the
# features a model leaves out, so it inherits the shape of the frequency law, and a law that is not a
# power law gives a loss that is not a power law of $m$. The reference set trains the paper's six
# widths on exponential frequencies $p_i \propto e^{-i/\tau}$ (`liu-contrast`, at the main sweep's $n$
# and the $\tau$ of the paper's exp-17), in the weak regime and, for contrast, the strong one.
# {numref}`fig-scaling-contrast` fits each series with a parabola in
# $\log m$: its coefficient $c_2$ is 0 for a power law and negative where the loss falls ever faster.
# {glue:md}`scaling_contrast_summary`

# %%
ct_lookup = refdata.lookup(reference_set, "liu-contrast", reference_scale)
ct_section = refdata.section(ct_lookup, reference_set)
ctp = rrdata.contrast_points(ct_section.found)
ctf = rrdata.contrast_fits(ctp)
ct_setting = f"τ = {ctp.tau.iloc[0]:g}, n = {ctp.n.iloc[0]}" if len(ctp) else "the set's τ and n"
fig, ax = plt.subplots(figsize=figures.size(3.2))
rcol = {"weak": "C0", "strong": "C3"}
for (g_, reg), d_ in ctp[ctp.seed == 0].groupby(["gamma", "regime"]):
    ax.plot(d_.m, d_.loss, "o", color=rcol[reg], ms=5, label=f"{reg}, γ = {g_:+.3f}".replace("-", "−"))
    if d_.m.nunique() >= 4:
        mm_ = np.geomspace(d_.m.min(), d_.m.max(), 40)
        ax.plot(mm_, fits_mod.fit_curvature(d_.m, d_.loss).predict(mm_), "-", color=rcol[reg], lw=1)
        ax.plot(mm_, fits_mod.fit_exponent(d_.m, d_.loss).predict(mm_), ":", color=rcol[reg], lw=1)
ax.plot([], [], "-", color="0.35", lw=1, label="parabola in log m")
ax.plot([], [], ":", color="0.35", lw=1, label="best power law")
ideal = ctp[ctp.seed == 0].drop_duplicates("m")
if len(ideal):
    ax.plot(ideal.m, ideal.ideal_loss, "--", color="0.45", lw=1, label="left-out features' loss (weak ideal)")
else:
    ax.text(0.5, 0.5, refdata.PLACEHOLDER, transform=ax.transAxes, ha="center", color="0.4")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("width m")
ax.set_ylabel("final loss (summed over features)")
figures.legend_below(ax, ncol=2)
fig.tight_layout()
_ = figures.save(
    "fig-scaling-contrast",
    fig,
    refdata.placeholder_if_empty(ctp),
    {
        "caption": f"Loss against width for exponential frequencies ({ct_setting}) on log-log axes, weak "
        "and strong regime: dots the models, solid lines a parabola in log m, dotted lines the best "
        "power law, dashed the loss of leaving out all but the m most frequent features. Where solid and dotted "
        "part, the loss is not a power law of m.",
        "source": "reference bundle (liu-contrast)",
        "provenance": ct_section.sidecar_provenance,
    },
    provenance=figures.bundle_provenance(ct_lookup, reference_set),
)


def contrast_fit(series, regime):
    """The seed-0 curvature fit of one series of the contrast (a row of ``ctf``), or None."""
    r = ctf[(ctf.series == series) & ((ctf.gamma < 0) == (regime == "strong")) & (ctf.seed == 0)]
    return r.iloc[0] if len(r) and np.isfinite(float(r.iloc[0].curvature)) else None


def signed(v):
    """``v`` to 3 decimals with its sign, the minus a true minus."""
    return f"{v:+.3f}".replace("-", "−")


cw, cs, ci = contrast_fit("model", "weak"), contrast_fit("model", "strong"), contrast_fit("ideal", "weak")
if cw is not None:
    findings.record(
        "liu-power-in-out",
        float(cw.curvature),
        low=float(cw.low),
        high=float(cw.high),
        n=int(cw.n_widths),
        n_of="widths",
        figure="fig-scaling-contrast",
        profile=ref_profile_w,
        provenance=ct_section.provenance,
        note=f"γ = {cw.gamma:+.4f}".replace("-", "−")
        + f", {ct_setting}"
        + (f"; the left-out features' loss bends by {signed(ci.curvature)}" if ci is not None else "")
        + (
            f", and the strong series (γ = {cs.gamma:+.0f}) by {signed(cs.curvature)}".replace("-", "−")
            if cs is not None
            else ""
        ),
    )


def contrast_text(name, r):
    return (
        f"{name}: c₂ = {signed(r.curvature)} [{signed(r.low)}, {signed(r.high)}] over {int(r.n_widths)} widths "
        f"(power-law slope {r.alpha_m:.2f})"
    )


glue(
    "scaling_contrast_summary",
    Markdown(
        "; ".join(
            contrast_text(name, r)
            for name, r in (
                ("In the weak regime", cw),
                ("the weak ideal (the left-out features)", ci),
                ("the strong regime", cs),
            )
            if r is not None
        )
        + ". "
        + ct_section.provenance
        if cw is not None
        else ct_section.provenance
    ),
)

# %% [markdown]
# ## Measured against the paper
#
# The table lists every fitted exponent next to what the paper says. Its main sweep publishes no table
# of per-$\alpha$ exponents: the weak-regime statement is the theory line $\alpha - 1$ (for
# $\alpha > 1$), and the strong-regime values are the points of Fig. 6e, which we read point by point
# from the authors' vector figure (`repcap.digitise`): three strong series, $\gamma$ = −0.778, −0.556
# and −0.333, about 1 for $\alpha \le 1$ and rising above 1 for steeper decay. No $\gamma = -1$ series
# is plotted, so our $\gamma = -1$ runs have no series of their own; the table gives the spread of the
# three, and the scorecard sets ours against the nearest, $\gamma$ = −0.778. The three slopes of the
# large strong-regime run are outputs of the authors' `LLMs/nonlinearfit-3.ipynb`.


# %%
def paper_value(reg, a):
    """What the paper says for one (regime, alpha): a number, a range read off Fig. 6e, or nothing."""
    if reg == "weak":
        return f"{a - 1:.3g} (theory α − 1)" if a > 1 else "— (theory needs α > 1)"
    key = fig6e.get(float(a))
    if key:
        return f"{reference.quote(f'liu2025.strong_alpha_m_{key}').text()} (Fig. 6e, three γ series)"
    return "≈ 1 (α ≤ 1)" if a <= 1 else "above 1, towards 2(α − 1) (Fig. 6e)"


tab = fits.merge(pred_fits, on="alpha")
tab = tab.assign(
    **{
        "ours α_m": tab["alpha_m"].round(3),
        "95% CI": [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(tab["ci_low"], tab["ci_high"])],
        "paper": [paper_value(r, a) for r, a in zip(tab["regime"], tab["alpha"])],
        "finite-n prediction": [f"{v:.3f}" if r == "weak" else "—" for r, v in zip(tab["regime"], tab["alpha_m_pred"])],
        "reference α_m (n = 1000)": [ref_fit(r, a) for r, a in zip(tab["regime"], tab["alpha"])],
    }
)
table = pd.concat(
    [
        tab[["regime", "alpha", "ours α_m", "95% CI", "reference α_m (n = 1000)", "paper", "finite-n prediction"]],
        pd.DataFrame(
            {
                "regime": "strong, " + ofits["law"],
                "alpha": np.nan,
                "ours α_m": ofits["alpha_m"].round(3),
                "95% CI": [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(ofits["ci_low"], ofits["ci_high"])],
                "paper": [f"{v:.3f} (reported, exp-17)" for v in ofits["alpha_m_reported"]],
                "finite-n prediction": "—",
            }
        ),
    ],
    ignore_index=True,
)
tables.show(
    table,
    digits={"alpha": ".3g", "reference α_m (n = 1000)": ".3f"},
    missing="not a power-law row, or no reference point at that (regime, α)",
)


# %%
def fit_of(reg, a):
    r = fits[(fits["regime"] == reg) & np.isclose(fits["alpha"], a)]
    return float(r["alpha_m"].iloc[0]) if len(r) else float("nan")


steep = [a for a in alphas if a > 1]
strong_mean = float(fits[fits["regime"] == "strong"]["alpha_m"].mean())
weak_dev = float(np.mean([fit_of("weak", a) - (a - 1) for a in steep])) if steep else float("nan")
wk = df[df["regime"] == "weak"]
glue("scaling_leftout_ratio", float((wk["loss"] / wk["left_out_loss"]).median()))
glue("scaling_weak_gamma", weak_gamma)
glue("scaling_gammas", ", ".join(f"{g:g}" for g in gammas))
glue("scaling_n", n)
glue("scaling_m_min", min(ms))
glue("scaling_m_max", max(ms))
glue("scaling_steps", steps)
glue("scaling_strong_mean", strong_mean)
glue("scaling_strong_min", float(fits[fits["regime"] == "strong"]["alpha_m"].min()))
glue("scaling_strong_max", float(fits[fits["regime"] == "strong"]["alpha_m"].max()))
glue("scaling_weak_dev", weak_dev)
glue("scaling_a_hi", max(alphas))
glue("scaling_weak_hi", fit_of("weak", max(alphas)))
glue("scaling_weak_hi_theory", max(alphas) - 1)
glue("scaling_strong_hi", fit_of("strong", max(alphas)))
glue("scaling_a_lo", min(alphas))
glue("scaling_strong_lo", fit_of("strong", min(alphas)))
glue("scaling_overlap_ratio", float((strong["mean_sq_overlap"] * strong["m"]).median()))
glue("scaling_paper_ov10", reference.value("liu2025.toy_overlap_m10"))
glue("scaling_paper_ov100", reference.value("liu2025.toy_overlap_m100"))
glue("scaling_e17_n", e17_n)
glue("scaling_e17_tau", e17_tau)
for _, r in ofits.iterrows():
    key = r["law"].split()[0]
    glue(f"scaling_other_{key}", float(r["alpha_m"]))
    glue(f"scaling_other_{key}_paper", float(r["alpha_m_reported"]))
glue("scaling_exp_tau", tau)


# the scorecard: weak alpha - 1, the strong regime at the alphas of Fig. 6e, the overlap slope, exp-17
def ci_of(reg, a):
    r = fits[(fits["regime"] == reg) & np.isclose(fits["alpha"], a)]
    return (float(r["ci_low"].iloc[0]), float(r["ci_high"].iloc[0])) if len(r) else (None, None)


findings.record(
    "liu-weak-exponent",
    weak_dev if steep else None,
    n=len(ms),
    n_of="widths",
    low=float(np.mean([ci_of("weak", a)[0] - (a - 1) for a in steep])) if steep else None,
    high=float(np.mean([ci_of("weak", a)[1] - (a - 1) for a in steep])) if steep else None,
)
for a_, key in fig6e.items():
    v = fit_of("strong", a_)
    findings.record(
        f"liu-strong-{key}",
        v if np.isfinite(v) else None,
        low=ci_of("strong", a_)[0],
        high=ci_of("strong", a_)[1],
        n=len(ms),
        n_of="widths",
    )
ovs = strong.groupby("m", as_index=False)["mean_sq_overlap"].mean()
findings.record(
    "liu-toy-overlap",
    float(np.polyfit(np.log(ovs.m), np.log(ovs.mean_sq_overlap), 1)[0]) if len(ovs) >= 2 else None,
    n=len(ovs),
    n_of="widths",
)
wk_ratio = wk["loss"] / wk["left_out_loss"]
findings.record(
    "liu-weak-leftout",
    float(wk_ratio.median()) if len(wk) else None,
    low=float(wk_ratio.min()) if len(wk) else None,
    high=float(wk_ratio.max()) if len(wk) else None,
    n=len(wk),
    n_of="models",
)
for name, cid in zip(other, ("liu-exp17-exp", "liu-exp17-linear", "liu-exp17-power")):
    r = ofits[ofits["law"] == name]
    findings.record(
        cid,
        -float(r["alpha_m"].iloc[0]) if len(r) else None,
        low=-float(r["ci_high"].iloc[0]) if len(r) else None,
        high=-float(r["ci_low"].iloc[0]) if len(r) else None,
        n=int(odf[odf["law"] == name].m.nunique()),
        n_of="widths",
    )

# %% [markdown]
# **Closing note: measured against the paper.** On this profile ($n$ = {glue:text}`scaling_n`,
# $m$ = {glue:text}`scaling_m_min`…{glue:text}`scaling_m_max`, {glue:text}`scaling_steps` steps)
# the strong-regime exponents run from {glue:text}`scaling_strong_min:.2f` to
# {glue:text}`scaling_strong_max:.2f` (mean {glue:text}`scaling_strong_mean:.2f`): at $\alpha$ =
# {glue:text}`scaling_a_lo` it is {glue:text}`scaling_strong_lo:.2f` and at $\alpha$ = {glue:text}`scaling_a_hi`
# {glue:text}`scaling_strong_hi:.2f`, to be read against Fig. 6e's ranges in the table, not against a flat 1.
# The mean square overlap is {glue:text}`scaling_overlap_ratio:.2f` $\times\,1/m$ (median). In the weak
# regime the exponent at $\alpha$ = {glue:text}`scaling_a_hi` is {glue:text}`scaling_weak_hi:.2f` against the
# theory's {glue:text}`scaling_weak_hi_theory:.2f`; over the $\alpha > 1$ points the measured exponents differ
# from $\alpha - 1$ by {glue:text}`scaling_weak_dev:+.2f` on average, and the weak models' losses are
# {glue:text}`scaling_leftout_ratio:.2f` times (median) the loss of the features they left out, so the
# weak-regime loss is indeed the loss of the unlearned features ($\gamma$ = {glue:text}`scaling_weak_gamma`).
# The non-power-law runs give {glue:text}`scaling_other_exp:.2f` (exponential, $\tau$ =
# {glue:text}`scaling_exp_tau:.3g`; paper {glue:text}`scaling_other_exp_paper:.3f`) and
# {glue:text}`scaling_other_linear:.2f` (linear; paper {glue:text}`scaling_other_linear_paper:.3f`), and the
# power law {glue:text}`scaling_other_power:.2f` (paper {glue:text}`scaling_other_power_paper:.3f`).
#
# The non-power-law fits are the least comparable: the paper's large run has $n$ =
# {glue:text}`scaling_e17_n:,` and widths up to 1024, so its exponential law ($\tau$ =
# {glue:text}`scaling_e17_tau:.0f`) spans many widths below $\tau$, while here $\tau$ is only
# {glue:text}`scaling_exp_tau:.3g` and the widest models already cover most of the frequent features; that
# plausibly steepens the exponential fit and flattens the linear one.
#
# Why the numbers differ from the paper's: the widths span one decade less, so each fit rests on fewer
# points; fewer steps leave rare features under-trained; and in the weak regime the tail sum
# $\sum_{i>m} p_i$ is cut off at $n$, which steepens the finite-size law above $\alpha - 1$ (the open
# markers). The strong-regime overlap sits above $1/m$, the value of random directions; the Welch bound
# lies below $1/m$, so it cannot be the reason. The section on Fig. 6c and 6d above measures, on the
# reference models, which definition of the overlap gives the paper's level. The `paper` profile runs
# the paper's sweep.
