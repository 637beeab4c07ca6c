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
# # Capacity laws
#
# How many unit vectors fit in $d$ dimensions if no two may have $\lvert\cos\rvert$ above
# $\varepsilon$? {cite}`guha2026` answers with laws fitted to optimised packings and uses them to turn
# an embedding's $\varepsilon$ into a capacity; {cite}`yoder2025` answers with a rule of thumb. This
# chapter rebuilds the simulated grid, refits the laws, and then sets them against the rigorous
# bounds of the spherical-code literature {cite}`welch1974,levenshtein1983,kabatiansky1978,conway1999`,
# which neither source compares with.

# %% tags=["parameters"]
dims = [16, 32, 64]  # dimensions d of the simulated grid (Guha: 32 to 768, then 1024 to 4096)
ks = [250, 500, 1000, 2000]  # numbers of vectors k per d (Guha: 2000 to 32000 in steps of 2000)
dims_large = []  # a second block of dimensions with its own k values (Guha: 1024 to 4096)
ks_large = []  # k values for dims_large (Guha: 2000 to 32000 in steps of 2000)
steps = None  # Adam steps per packing; None: the engine's (PackConfig: Guha's 5000)
lr = None  # learning rate; None: Guha's rule (0.005, or 0.0025 above d of 1024)
seeds = [0]  # one packing per seed and grid point (Guha: one)
random_trials = 20  # random draws per grid point; eps* is the min over them (Guha: 1000)
projection_N = [256, 1024, 2048]  # points N (basis vectors of R^N) for the random projections
projection_k = [16, 32, 64, 128]  # target dimensions of the projections
projection_seeds = [0, 1]  # seeds per projection setting
yoder_d = None  # the width of the rule-of-thumb figure; None: the width Yoder states it for (GPT-3's)
seed = 0  # seed offset of the random baselines
device = "auto"  # "auto", "cpu" or "cuda"
reference_set = "reference"  # the shipped point set whose re-runs of Guha's cells are shown ("" for none)
reference_scale = "full"  # that set's scale: full, or smoke (its seconds-long version, for the tests)
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %% tags=["remove-input"]

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown

from repcap import bounds, bundle, evidence, figures, findings, fits, laws, packing, reference, sweep, tables
from repcap.chapter import glue, start
from repcap.config import given
from repcap.figdata import packing as figdata
from repcap.figdata import reference as refdata
from repcap.figdata import reference_runs as rrdata
from repcap.runs import finding_profile

ref_lookup = refdata.lookup(reference_set, "guha-small", reference_scale)
drawn_lookups = [ref_lookup] + [refdata.lookup(reference_set, n_, reference_scale) for n_ in ("guha-m60", "c-curve")]
run_record = start(
    "Guha's grid spans d = 32 to 4096 and k = 2000 to 32000 with 5000 Adam steps per point; "
    "the `quick` profile uses small d and k and a few hundred steps at a higher learning rate, "
    "so its packings are less converged and its fitted constants differ (see below)."
    + (
        " Beside this profile's runs the chapter shows " + bundle.provenance_markdown(drawn_lookups, reference_set)
        if ref_lookup
        else ""
    ),
    device=device,
    executor=executor,
    scheduler=scheduler,
)

# %% [markdown]
# ## Guha's own data, refitted
#
# Guha's repository stores the results behind his fits: the best of 1000 random draws for every
# $(k, d)$ of his grid (Sec. 3.2) and the optimised $\varepsilon^*$ of every packing (Sec. 3.3). Before
# building our own grid we refit his data with the code that fits ours (`repcap.fits.fit_law`,
# least squares in $\varepsilon$ as his `vector_packing_graphs.py`). These are our computations on
# his data; the published values stand next to them.

# %%
g_rand = reference.guha_packings("random")
g_opt = reference.guha_packings("optimized")
guha_fits = {
    "JL form, random": fits.fit_law("jl", g_rand.k, g_rand.d, g_rand.eps_star),
    "JL form, optimised": fits.fit_law("jl", g_opt.k, g_opt.d, g_opt.eps_star),
    "adjusted, optimised": fits.fit_law("adjusted", g_opt.k, g_opt.d, g_opt.eps_star),
    "four-constant, optimised": fits.fit_law("four", g_opt.k, g_opt.d, g_opt.eps_star),
}
published = {"JL form, random": "jl", "adjusted, optimised": "adjusted", "four-constant, optimised": "four"}
rows = []
for name, f in guha_fits.items():
    law = published.get(name)
    pub = {c: getattr(reference.quotes().get(f"guha2026.laws.{law}.{c}"), "value", np.nan) for c in ("R2", "MAPE_pct")}

    rows.append(
        {
            "fit": name,
            "points": f.n,
            "constants, reported": (
                ", ".join(f"{n}={v:.4g}" for n, v in laws.PUBLISHED[law].constants.items()) if law else "not published"
            ),
            "constants, our refit": ", ".join(f"{n}={v:.4g}" for n, v in f.constants.items()),
            "R², reported": pub["R2"],
            "R², our refit": f.r2,
            "MAPE %, reported": reference.value("guha2026.jl_mape_optimised")
            if name == "JL form, optimised"
            else pub["MAPE_pct"],
            "MAPE %, our refit": f.mape,
        }
    )
guha_table = pd.DataFrame(rows)
# his published MAPE comes from the cells with k <= d; on the cells with k > d alone:
kd = g_opt.k > g_opt.d
mape_kd = {
    name: fits.error_metrics(g_opt.eps_star[kd], guha_fits[name].law.eps(g_opt.k[kd], g_opt.d[kd]))["mape"]
    for name in ("JL form, optimised", "adjusted, optimised")
}
glue("laws_guha_n_small_k", int((~kd).sum()))
glue("laws_guha_jl_mape_kd", mape_kd["JL form, optimised"])
glue("laws_guha_adj_mape_kd", mape_kd["adjusted, optimised"])
glue("laws_guha_C_jl_opt", guha_fits["JL form, optimised"].constants["C"])
glue("laws_guha_r2_jl_opt", guha_fits["JL form, optimised"].r2)
glue("laws_guha_mape_jl_opt", guha_fits["JL form, optimised"].mape)
glue("laws_guha_mape_published", reference.value("guha2026.jl_mape_optimised"))
glue("laws_guha_C_adj", guha_fits["adjusted, optimised"].constants["C"])
glue("laws_guha_C_rand", guha_fits["JL form, random"].constants["C"])
# his constants refitted on his data: the same deterministic fit, so no interval (exact); a and c: is
# the data's exponent distinguishable from 1? that takes the fit's 95% interval
for cid, name in (("guha-jl-random-refit", "JL form, random"), ("guha-adjusted-refit", "adjusted, optimised")):
    findings.record(
        cid, guha_fits[name].constants["C"], interval="deterministic", n=guha_fits[name].n, n_of="of his cells"
    )
f4_ = guha_fits["four-constant, optimised"]
for cid, what in (("guha-four-a", "a"), ("guha-four-c", "c")):
    findings.record(
        cid,
        **findings.interval(f4_.constants[what], f4_.stderr[what], dof=f4_.n - len(f4_.constants), kind="fit"),
        n=f4_.n,
        n_of="of his cells",
    )
findings.record(
    "guha-jl-mape",
    guha_fits["JL form, optimised"].mape,
    interval="deterministic",
    n=guha_fits["JL form, optimised"].n,
    n_of="of his cells",
)
findings.record("guha-four-refit", f4_.mape, interval="deterministic", n=f4_.n, n_of="of his cells")
findings.record(
    "guha-two-orders",
    math.log10(guha_fits["JL form, optimised"].mape / guha_fits["adjusted, optimised"].mape),
    interval="deterministic",
    n=guha_fits["JL form, optimised"].n,
    n_of="of his cells",
)
findings.record(
    "guha-two-orders-kd",
    math.log10(mape_kd["JL form, optimised"] / mape_kd["adjusted, optimised"]),
    interval="deterministic",
    n=int(kd.sum()),
    n_of="of his cells with k > d",
    note=f"MAPE on k > d: JL form {mape_kd['JL form, optimised']:.1f}%, adjusted law {mape_kd['adjusted, optimised']:.1f}%",
)
tables.show(
    guha_table,
    digits={"R², reported": ".4f", "R², our refit": ".4f", "MAPE %, reported": ".1f", "MAPE %, our refit": ".2f"},
    missing="the paper does not publish this number",
)

# %% [markdown]
# The refits return his published constants: $C$ = {glue:text}`laws_guha_C_rand:.4f` for the JL form on
# random vectors and {glue:text}`laws_guha_C_adj:.4f` for the adjusted law, and the four-constant fit his
# four constants. The JL form refitted to the optimised packings gives $C$ =
# {glue:text}`laws_guha_C_jl_opt:.3f` with $R^2$ = {glue:text}`laws_guha_r2_jl_opt:.3f` and a MAPE of
# {glue:text}`laws_guha_mape_jl_opt:.0f`%; the paper publishes only the MAPE
# ({glue:text}`laws_guha_mape_published:.0f`%), so $C$ and $R^2$ here are ours. That MAPE comes almost
# entirely from his {glue:text}`laws_guha_n_small_k` cells with $k \le d$, where optimisation reaches
# $\varepsilon^* \approx 10^{-4}$ and the JL form predicts a large $\varepsilon$: on the cells with $k > d$
# alone the JL form's MAPE is {glue:text}`laws_guha_jl_mape_kd:.0f`% and the adjusted law's
# {glue:text}`laws_guha_adj_mape_kd:.1f`%. {numref}`fig-laws-guha-data` shows both data sets with the fits.

# %%
fig, (axr, axo) = plt.subplots(1, 2, figsize=figures.size(3.8))
panels = [
    ("random baseline (Sec. 3.2)", g_rand, ["JL form, random"]),
    ("optimised packings (Sec. 3.3)", g_opt, ["adjusted, optimised", "JL form, optimised"]),
]
guha_points = figdata.fit_points(panels, guha_fits)
for ax, (title, data, fits_) in zip((axr, axo), panels):
    show = figdata.shown_widths(data.d)
    pal_ = dict(zip(show, figures.palette(len(show))))
    for d_ in show:
        g = data[data.d == d_].sort_values("k")
        ax.plot(g.k, g.eps_star, "o", ms=3.5, color=pal_[d_], label=f"d = {d_}")
        for j, name in enumerate(fits_):
            ax.plot(g.k, guha_fits[name].law.eps(g.k, d_), "-" if j == 0 else ":", color=pal_[d_], lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of vectors k")
    ax.set_title(title)
axr.set_ylabel("ε* = max |cos| (Guha's stored values)")
h_, l_ = axo.get_legend_handles_labels()
fig.legend(
    h_,
    l_,
    loc="lower center",
    ncol=len(h_),
    bbox_to_anchor=(0.5, 0.0),  # one row, in order of d
    columnspacing=1.0,
    handletextpad=0.3,
)
fig.tight_layout(rect=(0, 0.08, 1, 1))
_ = figures.save(
    "fig-laws-guha-data",
    fig,
    guha_points,
    {
        "caption": "Guha's stored results (points, every fifth width) with our refits: left, the best of 1000 random draws "
        "and the JL form (C refitted); right, the optimised packings with the adjusted law (solid) and "
        "the JL form (dotted). The adjusted law tracks the optimised points; the JL form is too flat.",
        "source": "github.com/Alex-Guha/representational-capacity, code/vector_packing/*.json (MIT)",
    },
)

# %% [markdown]
# ## The simulated grid
#
# For every $(k, d)$ of the grid we optimise $k$ unit vectors in $\mathbb{R}^d$ with Guha's loss
# $\sum_{i\ne j}\lvert\cos\rvert^{p}$ and record $\varepsilon^* = \max_{i<j}\lvert\cos\rvert$. The text of the
# paper gives $p \in [40, 60]$ (Sec. 3.3); his code, and ours, use $p = \min(\lfloor M/\ln d\rfloor, 20)$
# with $M \in \{40, 50, 60\}$, that is $p$ = {glue:text}`laws_p_min` to {glue:text}`laws_p_max` on this
# grid. The random baseline is the best of several independent draws of $k$ random unit vectors: the
# minimum over trials of their max $\lvert\cos\rvert$. Each point is cached as it finishes, so an
# interrupted run resumes.

# %%
points = [(k_, d_) for d_ in dims for k_ in ks] + [(k_, d_) for d_ in dims_large for k_ in ks_large]
points = [(k_, d_) for k_, d_ in points if k_ > d_]
opt_cfg = [
    dict(k=k_, d=d_, loss="power", **given(steps=steps, lr=lr), seed=s, device=device)
    for k_, d_ in points
    for s in seeds
]
opt = sweep.run(
    packing.sweep_packed,
    opt_cfg,
    cache="packing-grid",
    batched=True,
    group_by=packing.packed_group,
    desc="optimised grid",
)
rnd_cfg = [dict(k=k_, d=d_, trials=random_trials, seed=seed) for k_, d_ in points]
rnd = sweep.run(packing.sweep_random, rnd_cfg, cache="packing-random", desc="random grid")

grid = pd.DataFrame(
    [
        {"k": r["k"], "d": r["d"], "seed": r["seed"], "eps_star": r["eps_star"], "p": r["p"], "seconds": r["seconds"]}
        for r in opt.results
    ]
)
grid = grid.groupby(["k", "d"], as_index=False).agg(
    eps_star=("eps_star", "mean"), p=("p", "first"), seconds=("seconds", "sum")
)
grid = grid.merge(
    pd.DataFrame([{"k": r["k"], "d": r["d"], "eps_random": r["eps_star"]} for r in rnd.results]), on=["k", "d"]
)
grid["bound"] = bounds.coherence_lower_bound(grid.k.to_numpy(), grid.d.to_numpy())
glue("laws_n_points", len(grid))
glue("laws_grid_seconds", float(grid.seconds.sum()))
glue("laws_p_min", int(grid.p.min()))
glue("laws_p_max", int(grid.p.max()))
tables.show(grid, digits={"eps_star": ".4f", "eps_random": ".4f", "bound": ".4f", "seconds": ".1f", "p": ".0f"})

# %% [markdown]
# ## Guha's cells at his settings: the reference run
#
# This profile's grid is small and short. The `reference` set (`repcap.runs`) re-runs nine of Guha's
# own cells, $d \in \{32, 64, 128\}$ and $k \in \{2000, 4000, 8000\}$, at his settings (the `power`
# loss with his exponent and learning-rate rules, {glue:text}`laws_ref_steps:,` Adam steps), once, and
# ships the results with the book ({doc}`../reproduce`): {glue:md}`laws_ref_provenance`
# {numref}`fig-laws-reference` sets each cell's $\varepsilon^*$ next to the one he stores for it
# (`code/vector_packing/optimized_packing.json`): {glue:md}`laws_ref_summary`
#
# {glue:md}`laws_ref_m60`

# %%
ref_section = refdata.section(ref_lookup, reference_set)
ref_cells = figdata.reference_cells(ref_section.found, g_opt)
m60_lookup = refdata.lookup(reference_set, "guha-m60", reference_scale)
m60_section = refdata.section(m60_lookup, reference_set)
m60_cells = figdata.reference_cells(m60_section.found, g_opt)
by_rule = figdata.reference_cells_by_rule(ref_cells, m60_cells)
gap40, n40 = figdata.worst_gap(ref_cells, 4000)
gap60, n60 = figdata.worst_gap(m60_cells, 4000)
glue(
    "laws_ref_m60",
    Markdown(
        f"At k ≤ 4000 his code takes M = 40 in the exponent rule p = min(⌊M / ln d⌋, 20); run so, our ε* lie up to "
        f"{gap40:.1%} from his stored values over {n40} cells, while the same cells run with M = 60 (the top of the "
        f"40 to 60 his text gives) land within {gap60:.1%} over {n60} cells: his stored cells follow M = 60. "
        + m60_section.provenance
        if gap40 is not None and gap60 is not None
        else "The k ≤ 4000 cells at M = 60 are not in this build: " + m60_section.provenance
    ),
)
if gap60 is not None:
    findings.record(
        "guha-cells-m60",
        gap60,
        figure="fig-laws-reference",
        profile=finding_profile(reference_set, reference_scale),
        experiments=m60_section.experiments,
        interval="one run",
        n=n60,
        n_of="cells",
    )
glue("laws_ref_steps", int(ref_cells.steps.max()) if len(ref_cells) else int(reference.value("guha2026.packing_steps")))
glue("laws_ref_provenance", Markdown(ref_section.provenance))
fig, ax = plt.subplots(figsize=figures.size(3.0))
if ref_cells["relative gap"].notna().any():
    worst = ref_cells.loc[ref_cells["relative gap"].abs().idxmax()]
    for c_, (d_, g_) in zip(figures.palette(3), ref_cells.groupby("d")):
        ax.plot(g_.k, g_["ε* (Guha's data)"], "s", mfc="none", color=c_, ms=7)
        ax.plot(g_.k, g_["ε* (ours)"], "o-", color=c_, ms=4, lw=1, label=f"d = {d_}")
        m60_d = m60_cells[m60_cells.d == d_]
        ax.plot(m60_d.k, m60_d["ε* (ours)"], "^", color=c_, ms=5, mfc="white")
    ax.plot([], [], "s", mfc="none", color="0.3", label="Guha's stored ε*")
    ax.plot([], [], "o-", color="0.3", ms=4, lw=1, label="ours, his code's rule (M = 40 at k ≤ 4000)")
    ax.plot([], [], "^", color="0.3", ms=5, mfc="white", label="ours, M = 60")
    glue(
        "laws_ref_summary",
        Markdown(
            f"over the {int(ref_cells['relative gap'].notna().sum())} cells ours lies from {ref_cells['relative gap'].min():+.1%} to "
            f"{ref_cells['relative gap'].max():+.1%} of his, the largest gap at k = {int(worst.k):,}, d = {int(worst.d)}."
        ),
    )
    findings.record(
        "guha-cells",
        float(ref_cells["relative gap"].abs().max()),
        figure="fig-laws-reference",
        profile=finding_profile(reference_set, reference_scale),
        experiments=ref_section.experiments,
        interval="one run",
        n=int(ref_cells["relative gap"].notna().sum()),
        n_of="cells",
    )
else:
    ax.text(0.5, 0.5, refdata.PLACEHOLDER, transform=ax.transAxes, ha="center", color="0.4")
    glue(
        "laws_ref_summary",
        Markdown(
            f"none of its {len(ref_cells)} cells is among those Guha stores, so there is nothing to compare."
            if len(ref_cells)
            else "not shown in this build, which has no reference run."
        ),
    )
ax.set_xscale("log")
ax.set_xticks([2000, 4000, 8000])
ax.set_xticklabels(["2000", "4000", "8000"])
ax.minorticks_off()
ax.set_xlabel("number of vectors k")
ax.set_ylabel("ε* = max |cos|")
figures.legend_below(ax, ncol=3)
fig.tight_layout()
_ = figures.save(
    "fig-laws-reference",
    fig,
    figdata.reference_cells_figure(by_rule, g_opt),
    {
        "caption": "Guha's cells re-run (the reference run): the ε* he stores (open squares), ours with his code's "
        "exponent rule (dots: M = 40 at k ≤ 4000) and ours with M = 60 (triangles), per dimension. At k ≤ 4000 the "
        "triangles sit on his squares and the dots above them: his stored cells follow M = 60.",
        "source": "reference bundle; Guha's data: code/vector_packing/optimized_packing.json (MIT)",
        "provenance": ref_section.sidecar_provenance,
    },
    provenance=figures.bundle_provenance([ref_lookup, m60_lookup], reference_set),
)
tables.show(
    by_rule,
    digits={"ε* (ours)": ".4f", "ε* (Guha's data)": ".4f", "relative gap": "+.1%", "p": ".0f"},
    missing="Guha's data has no packing at this (k, d)",
)

# %% [markdown]
# ## Refitting the laws to our grid
#
# We fit each of Guha's three forms to our grid, the JL form also to our random baseline, and report
# $R^2$, the mean absolute percentage error (MAPE) and the RMSE divided by the range of the data
# (NRMSE). "Reported" marks the values the paper prints; the JL form on optimised packings has no
# published constant, so the comparison there is with our refit of his data (above).

# %%
fits_opt = fits.fit_all(grid.k, grid.d, grid.eps_star)
fit_rnd = fits.fit_law("jl", grid.k, grid.d, grid.eps_random)
compare_to = [
    ("JL form", "random", "jl", fit_rnd, guha_fits["JL form, random"]),
    ("JL form", "optimised", None, fits_opt["jl"], guha_fits["JL form, optimised"]),
    ("adjusted", "optimised", "adjusted", fits_opt["adjusted"], guha_fits["adjusted, optimised"]),
    ("four-constant", "optimised", "four", fits_opt["four"], guha_fits["four-constant, optimised"]),
]
rows = []
for law, data, pub_law, f, g in compare_to:
    rows.append(
        {
            "law": law,
            "data": data,
            "Guha's constants": (
                ", ".join(f"{n}={v:.4g}" for n, v in laws.PUBLISHED[pub_law].constants.items()) + " (reported)"
            )
            if pub_law
            else ", ".join(f"{n}={v:.3g}" for n, v in g.constants.items()) + " (our refit of his data)",
            "constants, our grid": ", ".join(f"{n}={v:.4g}" for n, v in f.constants.items()),
            "R², our grid": f.r2,
            "MAPE %, our grid": f.mape,
            "NRMSE, our grid": f.nrmse,
        }
    )
fit_table = pd.DataFrame(rows)
C_adj = fits_opt["adjusted"].constants["C"]
C_adj_pub = laws.PUBLISHED["adjusted"].constants["C"]
glue("laws_C_adjusted", C_adj)
glue("laws_C_adjusted_published", C_adj_pub)
glue("laws_C_adjusted_ratio_pct", 100 * (C_adj / C_adj_pub - 1))
glue("laws_C_random", fit_rnd.constants["C"])
glue("laws_C_random_published", laws.PUBLISHED["jl"].constants["C"])
glue("laws_C_jl_opt", fits_opt["jl"].constants["C"])
glue("laws_mape_adjusted", fits_opt["adjusted"].mape)
glue("laws_mape_four", fits_opt["four"].mape)
glue("laws_mape_jl_opt", fits_opt["jl"].mape)
glue("laws_mape_published_adj_value", reference.value("guha2026.laws.adjusted.MAPE_pct"))
glue("laws_mape_published_four_value", reference.value("guha2026.laws.four.MAPE_pct"))
glue("laws_random_trials_guha", int(reference.value("guha2026.random_trials")))
findings.record(
    "guha-jl-random-ours",
    **findings.interval(fit_rnd.constants["C"], fit_rnd.stderr["C"], dof=fit_rnd.n - 1, kind="fit"),
    figure="fig-laws-grid",
    n=fit_rnd.n,
    n_of="cells",
)
rel = C_adj / C_adj_pub - 1
if abs(rel) <= 0.10:
    verdict = (
        "within 10% of the published value, although our grid is far smaller than Guha's and each "
        "packing gets fewer steps"
    )
elif rel > 0:
    verdict = (
        "more than 10% above it: our packings are less tight, because each gets a few hundred Adam steps "
        "instead of 5000 and the worst pair has not finished moving (the curves of the previous chapter "
        "still rise when they stop), and because the grid is smaller"
    )
else:
    verdict = (
        "more than 10% below it: on our small grid the adjusted form bends differently; at small d and "
        "small k/d, ln(k/d) is small and the fit leans on few points"
    )
glue("laws_C_verdict", Markdown(verdict))
small_d = int(min(grid.d))
glue("laws_small_d", small_d)
glue("laws_eps_random_small_d", float(grid[grid.d == small_d].eps_random.max()))
glue("laws_grid_has_small_k", Markdown("has some" if bool((grid.k <= grid.d).any()) else "has no"))
tables.show(fit_table, digits={"R², our grid": ".4f", "MAPE %, our grid": ".2f", "NRMSE, our grid": ".4f"})

# %% [markdown]
# The published constants, held fixed, evaluated on our grid:

# %%
pub = pd.DataFrame(
    [
        {
            "law": law.label,
            "data": "optimised" if name != "jl" else "random",
            **fits.evaluate(name, grid.k, grid.d, grid.eps_star if name != "jl" else grid.eps_random),
        }
        for name, law in laws.PUBLISHED.items()
        if name != "jl8"
    ]
)
glue("laws_mape_published_adjusted", float(pub.loc[pub.law.str.startswith("adjusted"), "mape"].iloc[0]))
glue("laws_mape_published_four", float(pub.loc[pub.law.str.startswith("four"), "mape"].iloc[0]))
tables.show(
    pub.rename(columns={"r2": "R²", "mape": "MAPE %", "nrmse": "NRMSE", "rmse": "RMSE"}),
    digits={"R²": ".4f", "MAPE %": ".2f", "NRMSE": ".4f", "RMSE": ".4f"},
)

# %% [markdown]
# The refitted constant of the adjusted law is $C$ = {glue:text}`laws_C_adjusted:.3f`, against
# Guha's {glue:text}`laws_C_adjusted_published` ({glue:text}`laws_C_adjusted_ratio_pct:+.0f`%):
# {glue:md}`laws_C_verdict`. The published constants, held fixed, describe our grid with a MAPE of
# {glue:text}`laws_mape_published_adjusted:.1f`% (adjusted) and {glue:text}`laws_mape_published_four:.1f`%
# (four-constant); on his own grid he reports {glue:text}`laws_mape_published_adj_value`% and
# {glue:text}`laws_mape_published_four_value`%. The four-constant refit has four free constants for a
# dozen points, so its constants wander while its error stays small; they are not identified by a grid
# this small. The `paper` profile runs Guha's grid and settings.
#
# The JL form fits our optimised packings with a MAPE of {glue:text}`laws_mape_jl_opt:.0f`%. That is not
# comparable with the paper's {glue:text}`laws_guha_mape_published:.0f`%: his MAPE is dominated by cells with
# $k \le d$, and our grid {glue:md}`laws_grid_has_small_k` such cells. The like-for-like number is his data
# restricted to $k > d$, where the JL form's MAPE is {glue:text}`laws_guha_jl_mape_kd:.0f`% and the
# adjusted law's {glue:text}`laws_guha_adj_mape_kd:.1f`%: on both grids the adjusted form fits several
# times better, so optimisation does not just shrink the JL constant, it changes the form.
#
# On our random baseline the JL constant is $C$ = {glue:text}`laws_C_random:.2f`, not
# {glue:text}`laws_C_random_published`. The reason is the small widths of this profile: at
# $d$ = {glue:text}`laws_small_d` the best random draw already has $\varepsilon^*$ up to
# {glue:text}`laws_eps_random_small_d:.2f`, and $\varepsilon$ cannot exceed 1 however large
# $\sqrt{C \ln k / d}$ grows, so the fit is pulled down; we also take the best of far fewer random draws
# than Guha's {glue:text}`laws_random_trials_guha`. His own stored baseline gives his constant back (above).
#
# {numref}`fig-laws-grid` puts everything on one pair of axes: the optimised and random
# $\varepsilon^*$, the refitted adjusted law, and the rigorous lower bound on $\varepsilon$ (the
# larger of the Welch bounds of every order and the Levenshtein bound) below which no arrangement of
# $k$ vectors in $d$ dimensions can go.

# %%
grid_df = figdata.grid_points(grid, fits_opt["adjusted"].law)

fig, ax = plt.subplots(figsize=figures.size(4.6))
ds = sorted(grid.d.unique())
cols = dict(zip(ds, figures.palette(len(ds))))
for d_ in ds:
    g = grid_df[grid_df.d == d_]
    s = g[g.series == "optimised"]
    ax.plot(s.k, s.eps, "o", color=cols[d_], label=f"d = {d_}")
    s = g[g.series == "random (best of trials)"]
    ax.plot(s.k, s.eps, "o", mfc="none", color=cols[d_])
    s = g[g.series == "adjusted law (refit)"]
    ax.plot(s.k, s.eps, "-", color=cols[d_], lw=1)
    s = g[g.series == "rigorous lower bound"]
    ax.plot(s.k, s.eps, ":", color=cols[d_], lw=1.2)
ax.set_xscale("log")
ax.set_xlabel("number of vectors k")
ax.set_ylabel("ε* = max |cos| over pairs")
from matplotlib.lines import Line2D

handles = [Line2D([], [], color=cols[d_], marker="o", ls="", label=f"d = {d_}") for d_ in ds] + [
    Line2D([], [], color="0.3", marker="o", ls="", label="optimised"),
    Line2D([], [], color="0.3", marker="o", mfc="none", ls="", label="random, best of trials"),
    Line2D([], [], color="0.3", ls="-", label="adjusted law, refit"),
    Line2D([], [], color="0.3", ls=":", label="Welch / Levenshtein bound"),
]
figures.legend_below(ax, handles=handles, ncol=3)
_ = figures.save(
    "fig-laws-grid",
    fig,
    grid_df,
    {
        "caption": "ε* against k for each d: optimised packings (filled), the best of several random draws (open), "
        "the adjusted law refitted to the optimised points (solid) and the rigorous lower bound on ε "
        "(dotted). Optimisation closes much of the gap between random and the bound, not all of it.",
        "seed": seed,
        "steps": steps,
        "lr": lr,
        "random_trials": random_trials,
    },
)

# %% [markdown]
# ## Yoder's constant against N/k
#
# {cite}`yoder2025` writes the JL form as $k \ge (C/\varepsilon^2)\ln N$ (his $k$ is the dimension and
# $N$ the number of vectors). Textbook proofs give $C$ = {glue:text}`laws_yoder_C_textbook_lo:g` to
# {glue:text}`laws_yoder_C_textbook_hi:g` and random or Hadamard projections reach about
# {glue:text}`laws_yoder_C_random_lo:g` to {glue:text}`laws_yoder_C_random_hi:g`; on his optimised packings
# $C$ *rises* with $N$ to a maximum of about {glue:text}`laws_yoder_C_peak:g` and then falls gradually, to
# {glue:text}`laws_yoder_C_high:g` or below at high $N/k$. {numref}`fig-laws-yoder-c` computes the same
# $C = \varepsilon^2 k / \ln N$ from our packings (in this book's letters, $C = \varepsilon^{*2} d/\ln k$
# against $k/d$), from the random baseline, and from random projections of $N$ basis vectors into $k$
# dimensions (Gaussian, Rademacher as in Achlioptas, and the subsampled randomised Hadamard transform),
# where $\varepsilon$ is the distortion of squared distances. {glue:md}`laws_C_reference`

# %%
proj_cfg = [
    dict(N=N_, k=k_, kind=kind, seed=s)
    for N_ in projection_N
    for k_ in projection_k
    for kind in ("gaussian", "rademacher", "srht")
    for s in projection_seeds
    if k_ < N_
]
proj = sweep.run(packing.sweep_projection, proj_cfg, cache="packing-projection", desc="projections")
proj_df = pd.DataFrame(proj.results).groupby(["N", "k", "kind"], as_index=False)[["eps", "C"]].mean()
cc_lookups = [refdata.lookup(reference_set, e, reference_scale) for e in ("c-curve", "c-curve-wide")]
cc_sections = [refdata.section(lk, reference_set) for lk in cc_lookups]
cc_curve = rrdata.c_curve([f for sec in cc_sections for f in sec.found])
cc_peaks = rrdata.c_curve_peaks(cc_curve)
cc_experiments = {k: v for sec in cc_sections for k, v in sec.experiments.items()}
cc_provenance = " ".join(sec.provenance for sec in cc_sections)
cdf = figdata.yoder_constants(grid, proj_df, cc_curve)
glue("laws_C_opt_min", float(cdf[cdf.source == "optimised packing"].C.min()))
glue("laws_C_opt_max", float(cdf[cdf.source == "optimised packing"].C.max()))
glue("laws_yoder_C", laws.yoder_C())
o = cdf[cdf.source == "optimised packing"]
slope = float(np.polyfit(np.log(o.ratio), np.log(o.C), 1)[0]) if len(o) > 1 else float("nan")
glue("laws_C_slope", slope)
glue("laws_C_trend", Markdown("rises" if slope > 0 else "falls"))
glue("laws_ratio_min", float(o.ratio.min()))
glue("laws_ratio_max", float(o.ratio.max()))
for key, qid in (
    ("textbook_lo", ("C_textbook", "low")),
    ("textbook_hi", ("C_textbook", "high")),
    ("random_lo", ("C_random", "low")),
    ("random_hi", ("C_random", "high")),
):
    glue(f"laws_yoder_C_{key}", getattr(reference.quote(f"yoder2025.{qid[0]}"), qid[1]))
glue("laws_yoder_C_peak", reference.value("yoder2025.C_optimised_peak"))
glue("laws_yoder_C_high", reference.value("yoder2025.C_optimised_high_ratio"))
findings.record_all(evidence.yoder.c_ceiling())  # his "0.2 or below" is the ceiling d / ln N: arithmetic
cc_where = {"profile": finding_profile(reference_set, reference_scale), "figure": "fig-laws-yoder-c"}
findings.record_all(evidence.yoder.c_peak(cc_peaks, experiments=cc_experiments, **cc_where))
glue("laws_C_reference", Markdown(rrdata.c_curve_summary(cc_peaks) + " " + cc_provenance))
proj_undecided = (
    "" if run_record.profile == "paper" else "this profile's projections are smaller than the paper profile's"
)
findings.record_all(evidence.yoder.projections(proj_df, undecided=proj_undecided))

fig, ax = plt.subplots(figsize=figures.size(4.4))
srcs = list(dict.fromkeys(cdf.source))
pal = dict(zip(srcs, figures.palette(len(srcs))))
marks = {"optimised packing": "o", "random vectors": "s", figdata.REFERENCE_C_SERIES: "D"}
marks |= {figdata.REFERENCE_C_CEILING: "d", figdata.C_CEILING_SERIES: "_"}
for s_ in srcs:
    g = cdf[cdf.source == s_].sort_values("ratio")
    ax.plot(g.ratio, g.C, marks.get(s_, "^"), color=pal[s_], label=s_, ms=5, alpha=0.85)
c8 = laws.PUBLISHED["jl8"].constants["C"]
for c_, lab in [
    (c8, f"textbook JL, C = {c8:g}"),
    (laws.yoder_C(), f"Yoder's rule, C = {laws.yoder_C():.2f}"),
    (reference.value("yoder2025.C_optimised_peak"), "Yoder's optimised packings: peak C"),
]:
    ax.axhline(c_, color="0.4", ls="--", lw=0.8)
    ax.annotate(lab, (cdf.ratio.max(), c_), ha="right", va="bottom", fontsize=8.5, color="0.3")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("N/k: vectors per dimension (this book: k/d)")
ax.set_ylabel("C = ε² · dimension / ln(number of vectors)")
figures.legend_below(ax, ncol=2)
_ = figures.save(
    "fig-laws-yoder-c",
    fig,
    cdf,
    {
        "caption": "Yoder's constant C = ε² k / ln N against N/k (log-log). Random vectors and random projections "
        "sit near the JL constants (Gaussian projections higher, because their vector lengths also "
        "vary); optimised packings (dots) have a several times smaller C. The diamonds are the reference run's "
        "packings at d = 2 to 16, which reach the large N/k where Yoder's curve peaks and falls; thin diamonds are "
        "its cells at the ceiling (ε* ≥ 0.99), where C is d / ln k whatever the packing (dashes: that ceiling), "
        "dropped when the curve is judged one dimension at a time.",
        "seed": seed,
        "projection_seeds": projection_seeds,
    },
)

# %% [markdown]
# Our optimised packings give $C$ between {glue:text}`laws_C_opt_min:.2f` and
# {glue:text}`laws_C_opt_max:.2f`, several times below random vectors and random projections, and on this
# grid ($k/d$ from {glue:text}`laws_ratio_min:.0f` to {glue:text}`laws_ratio_max:.0f`) $C$
# {glue:md}`laws_C_trend` with $k/d$ (log-log slope {glue:text}`laws_C_slope:.2f`). A rise over a small range
# of $N/k$ is the rising branch of Yoder's curve, not a contradiction of it: his $C$ climbs to about
# {glue:text}`laws_yoder_C_peak:g` before it falls, and the fall needs far larger $N/k$ than this grid has (the
# `paper` profile's grid reaches further). The adjusted law predicts the rise: if
# $\varepsilon^2 = C_\text{adj}\ln(k/d)/d$, the JL constant is $C = C_\text{adj}\ln(k/d)/\ln k$, which climbs
# towards $C_\text{adj}$ as $k/d$ grows at fixed $d$. Either way, a constant that depends on $N/k$ says that
# the JL form is the wrong shape for optimised packings.
#
# ## Yoder's rule of thumb, the laws, and the bounds
#
# Yoder's rule, $N \approx 10^{k F^2/D}$ vectors in $k$ dimensions at $F$ degrees off orthogonal with
# $D$ = {glue:text}`laws_yoder_divisor:.0f`, is the JL form with $C$ = {glue:text}`laws_yoder_C:.3f` (he
# says about {glue:text}`laws_yoder_rule_C:g`). {numref}`fig-laws-capacity` draws it at $d$ =
# {glue:text}`laws_yoder_d:,` (GPT-3's width, Yoder's example) next to Guha's laws and three bounds:
# Welch (all orders, rigorous), Levenshtein (rigorous) and Kabatiansky–Levenshtein (the best known
# exponential rate, but asymptotic: exact only as $d \to \infty$ at a fixed angle).

# %%
yoder_d = int(yoder_d or reference.value("yoder2025.rule_d"))
rule_points = {F_: reference.quote(f"yoder2025.rule_log10_F{F_}") for F_ in (1, 2, 3, 5)}
rule_at = {F_: float(laws.yoder_log10_capacity(reference.value("yoder2025.rule_d"), F_)) for F_ in rule_points}
# his 89, 88 and 87 degree values are approximate values; the 85 degree one is a lower bound ("more than")
gaps = [abs(rule_at[F_] - q.value) if F_ != 5 else max(0.0, q.value - rule_at[F_]) for F_, q in rule_points.items()]
glue("laws_yoder_divisor", laws.YODER_DIVISOR)
glue("laws_yoder_rule_C", reference.value("yoder2025.rule_C"))
glue("laws_yoder_d", yoder_d)
glue("laws_yoder_rule_gap", max(gaps))
findings.record("yoder-rule-points", max(gaps), interval="closed form")
findings.record("yoder-rule-C", laws.yoder_C(), interval="closed form")
cap_df = figdata.capacity_by_angle(yoder_d, np.linspace(0.05, 12, 240), fits_opt["adjusted"].law)
curves = list(dict.fromkeys(cap_df.curve))
fig, ax = plt.subplots(figsize=figures.size(5.2))
styles = {
    "Welch bound (rigorous)": ("k", "-", 2.0),
    "Levenshtein bound (rigorous)": ("k", "--", 1.4),
    "Kabatiansky–Levenshtein (asymptotic)": ("0.5", ":", 1.6),
}
pal = dict(zip([c for c in curves if c not in styles], figures.palette(len(curves) - len(styles))))
for name in curves:
    g = cap_df[(cap_df.curve == name) & np.isfinite(cap_df.log10_k)]
    c_, ls, lw = styles.get(name, (pal.get(name), "-", 1.3))
    ax.plot(g.F_deg, g.log10_k, color=c_, ls=ls, lw=lw, label=name)
rule_name = next(c for c in curves if c.startswith("Yoder's rule"))
for f_, q in rule_points.items():  # his quoted values (at his width)
    ax.plot(f_, q.value, "x", color=pal[rule_name], ms=6)
ax.set_ylim(0, 500)
ax.set_xlim(0, cap_df.F_deg.max())
ax.set_xlabel(f"F: degrees off orthogonal (ε = sin F), d = {yoder_d:,}")
ax.set_ylabel("log₁₀ of the number of vectors")
figures.legend_below(ax, ncol=2)
_ = figures.save(
    "fig-laws-capacity",
    fig,
    cap_df,
    {
        "caption": f"How many vectors fit in d = {yoder_d:,} dimensions at F degrees off orthogonal, as log10: Yoder's "
        "rule (crosses: his quoted values), Guha's laws, and the bounds. Every law stays below the "
        "rigorous Welch and Levenshtein bounds here; Yoder's rule rises above the asymptotic "
        "Kabatiansky–Levenshtein rate.",
        "d": yoder_d,
    },
)

# %% [markdown]
# ## Where a law claims more than geometry allows
#
# A capacity law fitted to packings is an empirical curve; a bound is a theorem. The table scans
# widths from 16 to {glue:text}`laws_yoder_d:,` and tolerances from 0.01 to 0.5 and lists every law and bound where the law
# claims more vectors than the bound allows, with the range of $\varepsilon$ where it happens and the
# largest excess in orders of magnitude.

# %%
scan_d = [16, 32, 64, 100, 256, 768, 4096, yoder_d]
scan_eps = np.round(np.linspace(0.01, 0.5, 50), 3)
D_, E_ = np.meshgrid(scan_d, scan_eps)
law_set = {
    laws.PUBLISHED["jl"].label: laws.PUBLISHED["jl"],
    laws.PUBLISHED["adjusted"].label: laws.PUBLISHED["adjusted"],
    "four-constant (Guha)": laws.PUBLISHED["four"],
    "adjusted, refit": fits_opt["adjusted"].law,
    "four-constant, refit": fits_opt["four"].law,
    "Yoder's rule": laws.YODER,
}
rows = []
for name, law in law_set.items():
    v = bounds.bound_violations(law, D_.ravel(), E_.ravel())
    v = v[v.violates]
    for (b, d_), g in v.groupby(["bound", "d"]):
        rows.append(
            {
                "law": name,
                "bound": b,
                "rigorous": bool(g.rigorous.iloc[0]),
                "d": int(d_),
                "eps from": g.eps.min(),
                "eps to": g.eps.max(),
                "points": len(g),
                "max excess (log10 k)": float((g.log10_k_law - g.log10_k_bound).max()),
            }
        )
viol = pd.DataFrame(
    rows, columns=["law", "bound", "rigorous", "d", "eps from", "eps to", "points", "max excess (log10 k)"]
)
rig = viol[viol.rigorous]
kl = viol[~viol.rigorous]
glue("laws_n_rigorous_violations", int(rig.points.sum()) if len(rig) else 0)
glue("laws_rigorous_violators", Markdown("; ".join(sorted(rig.law.unique())) if len(rig) else "none"))
glue("laws_kl_violators", Markdown("; ".join(sorted(kl.law.unique())) if len(kl) else "none"))
rule_rig = rig[rig.law == "Yoder's rule"]
findings.record(
    "yoder-rule-bound",
    float(rule_rig["max excess (log10 k)"].max()) if len(rule_rig) else 0.0,
    interval="closed form",
    n=int(D_.size),
    n_of="(d, ε) points",
    note=(
        f"the rule exceeds a rigorous bound at d = {', '.join(str(v) for v in sorted(rule_rig.d.unique()))}"
        if len(rule_rig)
        else "the rule stays below the rigorous bounds over the scan"
    ),
)
tables.show(
    rig.drop(columns="rigorous").sort_values(["law", "bound", "d"]),
    digits={"eps from": ".3f", "eps to": ".3f", "max excess (log10 k)": ".2f"},
)

# %% [markdown]
# Against the asymptotic Kabatiansky–Levenshtein rate, per law, the widths where the law exceeds it somewhere:

# %%
tables.show(
    kl.groupby("law")
    .agg(widths=("d", lambda x: ", ".join(str(v) for v in sorted(x))), points=("points", "sum"))
    .reset_index()
)

# %% [markdown]
# Against the rigorous bounds, the laws that overshoot somewhere on this scan are:
# {glue:md}`laws_rigorous_violators`. The excesses sit at small widths and moderate $\varepsilon$, mostly
# below about $\sqrt{3/d}$, where the Welch and Levenshtein bounds allow only between $d$ and about $d^2$ vectors
# and a smooth curve fitted elsewhere has no reason to respect that corner: there, read the bound, not the
# law. Yoder's rule was stated for $d$ = {glue:text}`laws_yoder_d:,` and overshoots most at small $d$. Against the asymptotic
# Kabatiansky–Levenshtein rate the list is longer ({glue:md}`laws_kl_violators`), but that comparison is
# only a hint: its hidden $o(1)$ term is large at the widths of real models, and for small $\varepsilon$ it
# even "allows" fewer vectors than the $d$ of an orthonormal basis.
#
# ## The spherical-codes critique, in plain language
#
# The critique says: asking how many nearly orthogonal directions fit in $d$ dimensions is the classical
# problem of spherical codes, which has theorems (Welch, Levenshtein, Kabatiansky–Levenshtein); the
# Johnson–Lindenstrauss lemma is about something else (keeping distances when projecting given points);
# and geometric room is not the same as information a model can store. Our answer, from the figures
# above:
#
# * **The critique is right about the question.** The packing question is a spherical-code question. The
#   bounds answer it from above (no arrangement can do better) and are exact in some cases: the simplex
#   and the orthonormal basis meet Welch, the icosahedron's diagonals meet Levenshtein (these are unit
#   tests of this book).
# * **The laws are not bounds, and the JL form is only a shape.** Random vectors obey the JL form with
#   Guha's $C \approx 3$; optimised packings do not, which is why he changes the form. Yoder's $C$, which
#   depends on $N/k$ (rising, then falling), says the same, and so does the rise of ours. Neither the fitted laws nor the rule of thumb are theorems, and in corners (small $d$,
#   $\varepsilon$ near $1/\sqrt{d}$) a fitted law can claim more vectors than the Welch bound allows.
# * **Between the two, the gap is large.** {numref}`fig-laws-grid` shows optimised packings sitting well
#   above the rigorous lower bound on $\varepsilon$, and {numref}`fig-laws-capacity` shows the bounds
#   allowing astronomically more vectors than the laws at realistic widths. The bounds do not tell us
#   what an optimiser (or a trained model) actually reaches; the laws do not tell us what is possible.
#   Each answers a different question, and the book keeps both on the same axes.
# * **Geometry is not information.** A capacity of about $10^{8}$ directions at $\varepsilon \approx 0.06$ means room for
#   that many lines, not that a model stores that many features it can read back: reading them out needs
#   sparsity and a nonlinearity, which is the subject of the superposition chapters.
