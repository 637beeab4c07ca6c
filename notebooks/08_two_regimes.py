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
# # Two regimes of superposition
#
# {cite}`liu2025` study the smallest model that can store more features than it has dimensions: $n$
# features are squeezed through a width-$m$ bottleneck and read back through a ReLU,
#
# $$ y = \mathrm{ReLU}\left(x\,W W^\top + b\right), \qquad W \in \mathbb{R}^{n \times m},\ m \ll n, $$
#
# in the spirit of the toy models of {cite}`elhage2022`. Row $W_i$ is the direction given to feature
# $i$. Feature $i$ fires with probability $p_i \propto i^{-\alpha}$ (normalised so that
# $\sum_i p_i = 1$) with a value drawn from $U(0, 2)$, and every step sees a fresh batch. The only
# knob that separates the two regimes is a *signed* weight decay $\gamma$, applied before each Adam
# step and never to the bias:
#
# * $\gamma \ge 0$: ordinary decoupled decay $W \leftarrow W(1 - \eta\gamma)$, which starves rarely used
#   rows: **weak superposition**, only the most frequent features get a direction;
# * $\gamma < 0$: every row is pulled toward unit norm,
#   $W_i \leftarrow W_i + \eta\gamma\, W_i (1 - 1/\lVert W_i\rVert)$: **strong superposition**, every
#   feature gets a direction and the directions overlap.
#
# This chapter trains a grid of such models (all models of one shape train together as one batch,
# see `repcap.engines.toy`) and measures which features each regime represents.

# %% tags=["parameters"]
train: "toy_train" = {}  # the toy model's TrainConfig settings (`repcap run --list-params`: each one's type, default, help)
m = 16  # hidden width of the main grid (paper's sweep: 10..100)
alphas = [1.0, 1.5]  # power-law exponents of the feature frequencies
gammas = [
    -1.0,
    -0.7778,
    -0.5556,
    -0.3333,
    -0.1111,
    0.1111,
    0.3333,
    0.5556,
    0.7778,
    1.0,
]  # signed decay (paper: linspace(-1, 1, 10))
fig3_ms = []  # widths of the paper's Fig. 3a view (φ½ against γ for several m, at fig3_alpha); [] skips it
fig3_alpha = 1.0  # the alpha of that view
seed = 0  # seed of every model's initialisation and data stream
strong_gamma = -1.0  # the strong-regime example (paper: -1)
weak_gamma = 0.3333  # the weak-regime example (a value of the paper's grid)
example_alpha = 1.5  # alpha of the histogram and feature-rank figures
cache = "toy"  # sweep cache folder (.cache/sweeps/<cache>): an interrupted run resumes
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %% tags=["remove-input"]
import numpy as np

from repcap import evidence
from repcap.book import figures
from repcap.book.chapter import glue, start
from repcap.book.drawings import regimes as draw
from repcap.book.figdata import toy as figdata
from repcap.engines import toy
from repcap.evidence import findings, reference

tc = toy.TrainConfig(**train, m=m)  # `repcap run` gives every setting; a partial mapping (papermill) gets the defaults
n, steps, batch = tc.n, tc.steps, tc.batch


run_record = start(
    f"The paper trains n = 1000 features for 20000 steps at batch 2048; this run trains n = {n} "
    f"features at width m = {m} for {steps} steps at batch {batch}, so the regimes are the same but "
    "the numbers are noisier.",
    executor=executor,
    scheduler=scheduler,
)

# %% [markdown]
# ## The represented fraction against the decay
#
# A feature counts as *represented* when its row is long, $\lVert W_i\rVert > 1/2$; $\varphi_{1/2}$ is
# the share of such rows. Every $(\alpha, \gamma)$ pair below is one model; all of them train in a
# single batch.

# %%
configs = [toy.sweep_config(**train, m=m, alpha=a, gamma=g, seed=seed, keep_norms=True) for a in alphas for g in gammas]
df = toy.run_sweep(configs, cache=cache, desc="two regimes")
df["regime"] = np.where(df["gamma"] < 0, "strong (γ < 0)", "weak (γ ≥ 0)")

_ = figures.save(
    "fig-regimes-phi",
    figdata.phi_table(df, m, n),
    {
        "caption": f"Negative decay (strong regime) represents every feature, φ½ = 1; positive decay "
        f"(weak regime) keeps only a few rows long, near m/n = {m}/{n}. n = {n}, m = {m}, "
        f"{steps} steps.",
        "seed": seed,
    },
    draw=draw.phi_and_loss,
)

# %% [markdown]
# {cite}`liu2025` show the same switch in two views (their Fig. 3): $\varphi_{1/2}$ against $\gamma$ for
# several widths at one $\alpha$, and a map over $\alpha$ and $\gamma$ at one width.
# {numref}`fig-regimes-fig3` draws both from the runs of this profile.

# %%
f3 = (
    toy.run_sweep(
        [toy.sweep_config(**train, m=m_, alpha=fig3_alpha, gamma=g, seed=seed) for m_ in fig3_ms for g in gammas],
        cache=cache,
        desc="Fig. 3 view",
    )
    if fig3_ms
    else None
)
_ = figures.save(
    "fig-regimes-fig3",
    figdata.fig3_views(df, f3, m),
    {
        "caption": "The two views of the paper's Fig. 3 from this profile's runs: (a) φ½ against γ for several "
        "widths (the drop moves to more negative γ as m shrinks in the paper); (b) φ½ over α and γ at one "
        "width: every feature is represented left of γ = 0, few to its right.",
        "seed": seed,
    },
    draw=draw.fig3,
)

# %% [markdown]
# ## Row norms in the two regimes
#
# {numref}`fig-regimes-phi` shows the switch at $\gamma = 0$. The represented fraction hides the
# shape of the distribution ({numref}`fig-regimes-norms`): in the weak regime the row norms
# split into a few long rows and many rows decayed to nearly zero; in the strong regime they all sit
# near one.


# %%
at_example = df[df["alpha"] == example_alpha].set_index("gamma")
strong, weak = at_example.loc[strong_gamma], at_example.loc[weak_gamma]
bins = np.linspace(0, 2, 41)
regimes = [(f"weak, γ = {weak_gamma:g}", weak["norms"]), (f"strong, γ = {strong_gamma:g}", strong["norms"])]
norm_hist = figdata.norm_histograms(regimes, bins)
_ = figures.save(
    "fig-regimes-norms",
    norm_hist,
    {
        "caption": f"Row-norm histograms at α = {example_alpha:g}: the weak regime piles most rows at zero "
        f"with a few long ones; the strong regime gives every row a norm near one. The dashed "
        "line is the $\\lVert W_i\\rVert = 1/2$ threshold of φ½.",
        "seed": seed,
    },
    draw=draw.norms,
)

# %% [markdown]
# ## Which features each regime represents
#
# Sorting the rows by feature frequency shows *which* features win ({numref}`fig-regimes-features`).
# In the weak regime the long rows
# are the most frequent features, about as many as there are dimensions: the model behaves like a
# width-$m$ compression that ignores the tail. In the strong regime every feature, frequent or rare,
# keeps a unit-length row; they must then share the $m$ dimensions, and their overlaps are what the
# next chapter turns into a scaling law.

# %%
feat = figdata.feature_norms(weak["norms"], strong["norms"], n, example_alpha, m)
_ = figures.save(
    "fig-regimes-features",
    feat,
    {
        "caption": f"Row norm against feature rank (α = {example_alpha:g}): the weak regime keeps long rows "
        f"only for roughly the m = {m} most frequent features; the strong regime keeps every "
        f"row near unit length.",
        "seed": seed,
    },
    draw=draw.features,
)

# %%
weak_rep = figdata.represented(weak["norms"])
phi_strong_q = reference.quote("liu2025.phi_strong")
phi_weak_q = reference.quote("liu2025.phi_weak_gamma1")
glue("regimes_alpha", example_alpha)
glue("regimes_weak_gamma", weak_gamma)
glue("regimes_strong_gamma", strong_gamma)
glue("regimes_n", n)
glue("regimes_m", m)
glue("regimes_phi_strong", float(strong["phi_half"]))
glue("regimes_phi_weak", float(weak["phi_half"]))
glue("regimes_nrep_weak", int(weak["n_represented"]))
glue("regimes_weak_top_m", int(weak_rep[:m].sum()))
glue("regimes_weak_max_rank", int(np.flatnonzero(weak_rep).max() + 1) if weak_rep.any() else 0)
glue("regimes_overlap_strong", float(strong["mean_sq_overlap"]))
glue("regimes_one_over_m", 1.0 / m)
glue("regimes_overlap_ratio", float(strong["mean_sq_overlap"]) * m)
glue("regimes_paper_phi_strong", phi_strong_q.text())
glue("regimes_paper_phi_weak", phi_weak_q.text())
glue("regimes_paper_overlap_m10", reference.value("liu2025.toy_overlap_m10"))
glue("regimes_steps", steps)
glue("regimes_n_over_m", n / m)
glue("regimes_paper_steps", int(reference.value("liu2025.main_steps")))
glue("regimes_paper_nm_min", int(reference.value("liu2025.main_n_over_m_min")))
glue("regimes_paper_nm_max", int(reference.value("liu2025.main_n_over_m_max")))
at_strong = df[df["gamma"] == strong_gamma]
at_one = df[np.isclose(df["gamma"], 1.0)]
glue("regimes_phi_weak_gamma1", float(at_one["phi_half"].max()) if len(at_one) else float("nan"))
findings.record(
    "liu-phi-strong",
    float(at_strong["phi_half"].min()) if len(at_strong) else None,
    interval="range",
    low=float(at_strong["phi_half"].min()) if len(at_strong) else None,
    high=float(at_strong["phi_half"].max()) if len(at_strong) else None,
    n=len(at_strong),
    n_of="models",
)
weak_one = at_one.assign(n=n, m=m, phi_half_over_m_n=at_one["phi_half"] * n / m)
paper_tc = toy.TrainConfig()  # the engine's defaults are the paper's main sweep
findings.record_all(
    evidence.liu.phi_weak(weak_one, undecided=evidence.liu.below_paper_size(n, steps, paper_tc.n, paper_tc.steps))
)

# %% [markdown]
# At $\alpha$ = {glue:text}`regimes_alpha` the weak model ($\gamma$ = {glue:text}`regimes_weak_gamma`) represents
# {glue:text}`regimes_nrep_weak` features for $m$ = {glue:text}`regimes_m` dimensions,
# {glue:text}`regimes_weak_top_m` of them among the $m$ most frequent, and none rarer than rank
# {glue:text}`regimes_weak_max_rank`. The strong model ($\gamma$ = {glue:text}`regimes_strong_gamma`) has
# $\varphi_{1/2}$ = {glue:text}`regimes_phi_strong:.2f` and a mean square overlap of its normalised rows of
# {glue:text}`regimes_overlap_strong:.4f`, that is {glue:text}`regimes_overlap_ratio:.2f` $\times\, 1/m$.
#
# | quantity | {cite}`liu2025` (our reading of their figures) | this page |
# |---|---|---|
# | strong regime, $\varphi_{1/2}$ | {glue:text}`regimes_paper_phi_strong` (Fig. 3a, $\gamma \le -0.56$) | {glue:text}`regimes_phi_strong:.3f` |
# | weak regime, $\varphi_{1/2}$ at $\gamma = 1$ | {glue:text}`regimes_paper_phi_weak` (Fig. 3a, $n$ = 1000) | {glue:text}`regimes_phi_weak_gamma1:.3f` (largest over $\alpha$) |
# | strong regime, $E[(\hat w_i\cdot\hat w_j)^2]$ | scales as $1/m$; about {glue:text}`regimes_paper_overlap_m10` at $m = 10$ (Fig. 6d) | {glue:text}`regimes_overlap_strong:.4f` ($1/m$ = {glue:text}`regimes_one_over_m:.4f`) |
#
# Random directions have $E[\cos^2] = 1/m$ on average, and no $n$ unit vectors in $m$ dimensions can
# do better than the Welch bound $(n-m)/(m(n-1))$ {cite}`welch1974`, which lies *below* $1/m$. So an
# overlap above $1/m$ says the trained rows overlap more than random directions would; the bound
# cannot be the reason. What makes them do so is not settled by these runs. Two candidates are the
# finite training of this profile ({glue:text}`regimes_steps` steps, against {glue:text}`regimes_paper_steps:,` in
# the paper) and its small ratio $n/m$ = {glue:text}`regimes_n_over_m:.0f` (the paper's sweep has
# {glue:text}`regimes_paper_nm_min` to {glue:text}`regimes_paper_nm_max`). The next chapter
# shows how the two regimes turn into two different laws for the loss against width.
