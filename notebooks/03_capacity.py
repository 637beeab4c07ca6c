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
models = [
    "gemma-3-270m",
    "smollm2-135m",
    "qwen2.5-coder-0.5b",
    "all-minilm-l6-v2",
    "paraphrase-minilm-l3-v2",
    "all-mpnet-base-v2",
]  # offline keys (as in the ε chapter)
hub_models = []  # catalog keys or hub ids from the model hub (paper: Guha's 45 models)
synthetic = []  # synthetic stand-ins [name, V, d, mean_cos] (smoke)
tiled: "tiled" = {
    "sample": 16384
}  # the tiled pass's TiledConfig settings; sample: rows sampled for the quantile pass (null: every pair; `repcap run --list-params`)
fixed_d = None  # width of the capacity-against-ε figure; None: Guha's six-orders example (Sec. 3.5)
eps_grid_points = 200  # points on the ε axis
device = "auto"  # "auto", "cpu" or "cuda"
reference_set = "reference"  # the shipped point set whose minimax runs give the calculator our refitted law ("": none)
reference_scale = "full"  # that set's scale: full, or smoke (its seconds-long version, for the tests)
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %% tags=["remove-input"]
import numpy as np
import pandas as pd

from repcap import evidence
from repcap.book import calculator, figures, tables
from repcap.book.chapter import decided, glue, start
from repcap.book.drawings import capacity as draw
from repcap.book.figdata import reference as refdata
from repcap.book.figdata import survey as figdata
from repcap.engines import cosine, laws
from repcap.engines.cosine import Histogram
from repcap.engines.survey import scan
from repcap.evidence import findings, reference, slack
from repcap.models import catalog
from repcap.models.synthetic import source as stand_in_source

run_record = start(
    "Guha evaluates the laws on every model of Table 1 measured on a GPU; here ε comes from the "
    "offline models (exact moments), quantile thresholds from the pairs of "
    f"{tiled.get('sample') or 'all'} sampled rows, and the laws' constants are the "
    "published ones.",
    device=device,
    executor=executor,
    scheduler=scheduler,
)

# %% [markdown]
# ## The laws
#
# With the constants as published ({cite}`guha2026`, Sec. 3.2–3.3; read from
# `data/reference/guha2026_laws.csv`):

# %%
law_names = {k: laws.PUBLISHED[k].label for k in ("jl8", "jl", "adjusted", "four")}
# as text (a table cell is not typeset as math)
forms = {"jl": "√(C ln k / d)", "adjusted": "√(C ln(k/d) / d)", "four": "√(C (ln(kᵃ/d))ᵇ / dᶜ)"}
tables.show(
    pd.DataFrame(
        [
            {
                "law": law_names[k],
                "ε(k, d)": forms[laws.PUBLISHED[k].form],
                "constants": ", ".join(f"{n} = {v:.4g}" for n, v in laws.PUBLISHED[k].constants.items()),
                "where": reference.quote(f"guha2026.laws.{k}.C").cite,
            }
            for k in law_names
        ]
    )
)

# %% [markdown]
# Each is solved for $k$. The worked example of the paper, Llama 2 7B ($d$ = {glue:text}`capacity_llama_d`,
# $\varepsilon$ = {glue:text}`capacity_llama_eps`), shows how far the laws disagree:

# %%
llama_d = int(reference.value("guha2026.llama2_7b_d"))
llama_eps = reference.value("guha2026.llama2_7b_eps")
published_k = {"jl8": "guha2026.llama2_7b_k_jl8", "jl": "guha2026.llama2_7b_k_jl", "four": "guha2026.llama2_7b_k_four"}
caps = {k: laws.capacity(llama_eps, llama_d, k) for k in law_names}
logs = {k: float(laws.log10_capacity(llama_eps, llama_d, k)) for k in law_names}
ex = pd.DataFrame(
    [
        {
            "law": law_names[k],
            "capacity k (ours)": f"{caps[k]:.3g}",
            "log10 k (ours)": logs[k],
            "reported (Guha 2026)": (
                f"{reference.value(published_k[k]):.3g} ({reference.quote(published_k[k]).where})"
                if k in published_k
                else "— (not in the paper)"
            ),
        }
        for k in law_names
    ]
)
glue("capacity_llama_d", llama_d)
glue("capacity_llama_eps", llama_eps)
glue("capacity_llama_jl8", caps["jl8"])
glue("capacity_llama_jl", caps["jl"])
glue("capacity_llama_adjusted", caps["adjusted"])
glue("capacity_llama_four", caps["four"])
glue("capacity_llama_spread", max(logs.values()) - min(logs.values()))
glue("capacity_llama_four_minus_jl8", logs["four"] - logs["jl8"])
for cid, k in (("guha-jl8-llama", "jl8"), ("guha-jl-llama", "jl"), ("guha-four-llama", "four")):
    findings.record(cid, caps[k], interval="closed form")
tables.show(ex, digits={"log10 k (ours)": ".2f"})

# %% [markdown]
# The same $\varepsilon$ gives {glue:text}`capacity_llama_jl8:.1f` vectors under textbook JL,
# {glue:text}`capacity_llama_jl:.0f` under Guha's random-vector fit, {glue:text}`capacity_llama_four:.3g`
# under the four-constant law that Table 1 uses, and {glue:text}`capacity_llama_adjusted:.2g` under the
# one-constant adjusted law (our computation: the paper quotes only the four-constant value). From the
# smallest to the largest the laws span {glue:text}`capacity_llama_spread:.1f` orders of magnitude for one
# number ({glue:text}`capacity_llama_four_minus_jl8:.1f` between textbook JL and the law of Table 1).
#
# Table 1's capacities are that four-constant law at each model's $d_{\text{model}}$ and $\varepsilon$.

# %%
t1 = pd.DataFrame(
    [
        {
            "model": e.name,
            "d": e.d_model,
            "ε": e.eps_reported,
            "capacity (reported)": e.capacity_reported,
            "four-constant law (ours)": laws.capacity(e.eps_reported, e.d_model, "four"),
        }
        for e in catalog.guha_models()
        if e.capacity_reported is not None
    ]
)
t1["relative gap"] = t1["four-constant law (ours)"] / t1["capacity (reported)"] - 1
glue("capacity_table1_n", int(len(t1)))
glue("capacity_table1_gap", float(t1["relative gap"].abs().max()))
findings.record("guha-table1-law", float(t1["relative gap"].abs().max()), interval="closed form")
class2 = [
    e
    for e in catalog.guha_models()
    if e.eps_reported is not None and e.eps_reported < reference.value("guha2026.class2_eps_below")
]
findings.record(
    "guha-class2-size",
    **findings.spearman([e.d_model for e in class2], [e.eps_reported for e in class2]),
    n_of="Class-2 models of Table 1",
)
table1_rows = evidence.guha.table1(catalog.guha_models())
findings.record_all(table1_rows)
glue("capacity_class2_span_note", table1_rows["guha-class2-span"]["note"])
glue("capacity_class2_span_quote", reference.quote("guha2026.class2_capacity_span").text(".0e"))
glue("capacity_class1_tied_note", table1_rows["guha-class1-mostly-tied"]["note"])

# %% [markdown]
# All {glue:text}`capacity_table1_n` finite capacities of Table 1 agree with the law to within
# {glue:text}`capacity_table1_gap:.2%`, the rounding of three printed significant figures. Two more of
# his statements read straight off the same table (re-analyses, on the {ref}`scorecard <scorecard>`):
# Class-2 capacities span about {glue:text}`capacity_class2_span_quote` (Sec. 3.5), while
# {glue:text}`capacity_class2_span_note`, the exception his own Appendix D names; and "most"
# Class-1 models are tied (his word): {glue:text}`capacity_class1_tied_note`.

# %% [markdown]
# ### Try it: a capacity calculator
#
# Enter a width $d$ and a tolerance $\varepsilon$ (or the angle of the closest pair; $\varepsilon$ is
# its cosine). The calculator gives the capacity under each law next to the Welch and Levenshtein
# bounds, which no arrangement of vectors can beat: a law above them claims more vectors than fit.
# The last row and column give the other side: the largest explicit code known to fit at that $d$ and
# $\varepsilon$ (a polytope, a Kerdock set, a dual BCH code, or one of Sloane's best-known packings in
# small dimensions; {doc}`11_frontier`), and how many times as many vectors it holds as each law allows.
# It runs in the browser, offline, with the formulas and published constants of `repcap.engines.laws` and
# `repcap.engines.bounds` and the codes of `repcap.engines.constructions` (a test compares the two on a grid); it starts
# at the paper's worked example. Its last law is ours: the adjusted law with $C$ refitted to our minimax
# packings of his cells with $k \le 4000$ ({doc}`07_capacity_laws`), where the reference bundle holds them.

# %% tags=["remove-input"]
minimax_found = refdata.section(refdata.lookup(reference_set, "guha-minimax", reference_scale), reference_set).found
ours_law = slack.refit_law(slack.packings(minimax_found))
calculator.widget(extra_laws=[ours_law] if ours_law is not None else [])

# %% [markdown]
# ## Our models under every law
#
# Guha reports capacity only for Class 2 ($\varepsilon <$ {glue:text}`capacity_class2_boundary`): for
# Class 1 "the formula yields vacuous bounds" (Sec. 3.5). Every model we can load offline is Class 1, and
# every capacity here, like every one of his Table 1, lies far beyond the packings the laws were fitted
# to (the calculator above gives their span): an extrapolation in $k$. The table still shows them (as
# $\log_{10}k$) to make that point concrete.

# %%
tc = cosine.TiledConfig(**tiled)  # `repcap run` gives every setting; a partial mapping (papermill) the defaults
common = dict(tiled=True, **tiled, device=device)
configs = [dict(source=k, label=k, head=False, **common) for k in models + hub_models]
for name, V, d, mean_cos in synthetic:  # stand-ins built in memory (repcap.models.synthetic)
    src = stand_in_source("embedding", V=V, d=d, mean_cos=mean_cos, seed=tc.seed)
    configs.append(dict(source=src, label=name, head=False, **common))
records, failures = scan(configs)
if failures:  # one line per model that could not be read; the others go on
    display(tables.show(pd.DataFrame(failures)))

cap = pd.DataFrame(
    [
        {
            "model": r["label"],
            "d": r["d_model"],
            "ε": r["eps"],
            "class": r["class"],
            **{f"log10 k, {law_names[k]}": r["log10_capacity"][k] for k in law_names},
        }
        for r in records
    ]
)
glue("capacity_class2_boundary", reference.value("guha2026.class2_eps_below"))
logcols = [c for c in cap.columns if c.startswith("log10")]
glue("capacity_ours_log10_min", float(cap[logcols].min().min()) if len(cap) else float("nan"))
glue("capacity_ours_log10_max", float(cap[logcols].max().max()) if len(cap) else float("nan"))
tables.show(cap, digits={"ε": ".4f"} | dict.fromkeys(logcols, ".1f"))

# %% [markdown]
# Over our models and the four laws, $\log_{10} k$ runs from {glue:text}`capacity_ours_log10_min:.1f` to
# {glue:text}`capacity_ours_log10_max:.1f`: the same matrix is given a handful of directions by one law
# and an absurd number by another, which is why Guha restricts capacity to Class 2.

# %% [markdown]
# ## Capacity against ε at fixed width
#
# {numref}`fig-capacity-vs-eps` fixes $d = $ {glue:text}`capacity_fixed_d` and sweeps $\varepsilon$. Under
# the four-constant law, moving $\varepsilon$ from {glue:text}`capacity_eps_lo` to {glue:text}`capacity_eps_hi`
# multiplies the capacity by {glue:text}`capacity_jump_ratio:.2g` ({glue:text}`capacity_jump_lo:.2g` to
# {glue:text}`capacity_jump_hi:.2g`): the quantity is exponential in $d\varepsilon^2$, so the third decimal
# of $\varepsilon$ matters.

# %%
fixed_d = int(decided("fixed_d", fixed_d, int(reference.value("guha2026.sens_example_d"))))
eps_lo, eps_hi = reference.value("guha2026.sens_example_eps_lo"), reference.value("guha2026.sens_example_eps_hi")
eps_axis = np.linspace(0.02, 0.12, eps_grid_points)
curves = figdata.capacity_curves(law_names, eps_axis, fixed_d)
lo, hi = laws.capacity(eps_lo, fixed_d, "four"), laws.capacity(eps_hi, fixed_d, "four")
glue("capacity_fixed_d", fixed_d)
glue("capacity_jump_lo", lo)
glue("capacity_jump_hi", hi)
glue("capacity_jump_orders", float(np.log10(hi / lo)))
glue("capacity_jump_ratio", hi / lo)
glue("capacity_eps_lo", eps_lo)
glue("capacity_eps_hi", eps_hi)
glue("capacity_paper_lo", reference.value("guha2026.sens_d8192_eps005"))
glue("capacity_paper_hi", reference.value("guha2026.sens_d8192_eps009"))
if fixed_d == reference.value("guha2026.sens_example_d"):
    findings.record("guha-sensitivity-eps", hi / lo, interval="closed form")
d_small, d_large = (int(reference.value(f"guha2026.sens_example_d_{x}")) for x in ("lo", "hi"))
d_lo_cap, d_hi_cap = (laws.capacity(eps_hi, d_, "four") for d_ in (d_small, d_large))
glue("capacity_d_small", d_small)
glue("capacity_d_large", d_large)
glue("capacity_d_ratio", d_hi_cap / d_lo_cap)
findings.record("guha-sensitivity-d", d_hi_cap / d_lo_cap, interval="closed form")
figures.save(
    "fig-capacity-vs-eps",
    figdata.with_capacity_marks(curves, [eps_lo, eps_hi], fixed_d),
    {
        "caption": f"Capacity against ε at d = {fixed_d} under the four published laws (log scale). Dots: "
        f"ε = {eps_lo:g} and {eps_hi:g} under the four-constant law, {np.log10(hi / lo):.1f} orders of "
        "magnitude apart.",
        "seed": tc.seed,
    },
    draw=draw.capacity_vs_eps,
)

# %% [markdown]
# The jump is {glue:text}`capacity_jump_orders:.1f` orders of magnitude, as the paper states
# ({glue:text}`capacity_paper_lo:.2g` to {glue:text}`capacity_paper_hi:.2g`, Sec. 3.5); at fixed
# $\varepsilon$ = {glue:text}`capacity_eps_hi`, widening $d$ from {glue:text}`capacity_d_small` to
# {glue:text}`capacity_d_large` multiplies it by only
# {glue:text}`capacity_d_ratio:.0f`.
#
# ## How much the threshold moves the answer
#
# $\varepsilon=\mu+2\sigma$ is a heuristic: it is a quantile only if the cosines are Gaussian. The
# alternatives are $\mu+3\sigma$ (also reported by Guha), or a quantile of the pairwise $|\cos|$ read off
# the histogram. {numref}`fig-capacity-threshold` shows the thresholds side by side for each model and
# the four-constant capacity each would imply.

# %%
qs = ["0.95", "0.99", "0.999"]
thr = figdata.threshold_table(records, qs)
figures.save(
    "fig-capacity-threshold",
    thr,
    {
        "caption": "Left: ε by five rules for each model (μ+2σ and μ+3σ from the exact moments; quantiles of |cos| "
        "from the sampled histogram, ± one bin). Right: the four-constant capacity each threshold implies. "
        "The rule moves the capacity by many orders of magnitude.",
        "seed": tc.seed,
    },
    draw=draw.thresholds,
)
spread = thr.groupby("model").log10_capacity_four.agg(lambda s: s.max() - s.min())
# where μ+2σ falls in each model's own distribution (a Gaussian would put it at the 97.7% point)
at = pd.Series({r["label"]: Histogram(r["hist_counts"]).fraction_below(r["eps"]) for r in records})
glue("capacity_eps_quantile_min", float(at.min()))
glue("capacity_eps_quantile_max", float(at.max()))
glue("capacity_threshold_spread_max", float(spread.max()))
glue("capacity_threshold_spread_min", float(spread.min()))
tables.show(
    thr.pivot(index="model", columns="threshold", values="eps").reset_index(),
    digits=dict.fromkeys(thr.threshold, ".4f"),
)

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
