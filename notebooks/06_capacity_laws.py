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
steps = 300  # Adam steps per packing (Guha: 5000)
lr = 0.02  # learning rate; None -> Guha's 0.005, or 0.0025 above d of 1024
seeds = [0]  # one packing per seed and grid point (Guha: one)
random_trials = 20  # random draws per grid point; eps* is the min over them (Guha: 1000)
projection_N = [256, 1024, 2048]  # points N (basis vectors of R^N) for the random projections
projection_k = [16, 32, 64, 128]  # target dimensions of the projections
projection_seeds = [0, 1]  # seeds per projection setting
yoder_d = 12288  # the width Yoder's rule of thumb is stated for
seed = 0  # seed offset of the random baselines
device = "auto"  # "auto", "cpu" or "cuda"
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown

from repcap import figures, laws, packing, sweep
from repcap.book import glue, profile_banner
from repcap.sweep_dask import make_executor

sweep.set_default_executor(make_executor(executor, scheduler or None))  # every sweep below runs there

profile_banner("Guha's grid spans d = 32 to 4096 and k = 2000 to 32000 with 5000 Adam steps per point; "
               "the `quick` profile uses small d and k and a few hundred steps at a higher learning rate, "
               "so its packings are less converged and its fitted constants differ (see below).")

# %% [markdown]
# ## The simulated grid
#
# For every $(k, d)$ of the grid we optimise $k$ unit vectors in $\mathbb{R}^d$ with Guha's loss
# $\sum_{i\ne j}\lvert\cos\rvert^{p}$, $p = \min(\lfloor M/\ln d\rfloor, 20)$, and record
# $\varepsilon^* = \max_{i<j}\lvert\cos\rvert$. The random baseline is the best of
# several independent draws of $k$ random unit vectors: the minimum over trials of their max
# $\lvert\cos\rvert$. Each point is cached as it finishes, so an interrupted run resumes.

# %%
points = [(k_, d_) for d_ in dims for k_ in ks] + [(k_, d_) for d_ in dims_large for k_ in ks_large]
points = [(k_, d_) for k_, d_ in points if k_ > d_]
opt_cfg = [dict(k=k_, d=d_, loss="power", p=None, beta=20.0, steps=steps, lr=lr, seed=s, device=device)
           for k_, d_ in points for s in seeds]
opt = sweep.run(packing.sweep_packed, opt_cfg, cache="packing-grid", batched=True,
                group_by=packing.packed_group, desc="optimised grid")
rnd_cfg = [dict(k=k_, d=d_, trials=random_trials, seed=seed) for k_, d_ in points]
rnd = sweep.run(packing.sweep_random, rnd_cfg, cache="packing-random", desc="random grid")

grid = pd.DataFrame([{"k": r["k"], "d": r["d"], "seed": r["seed"], "eps_star": r["eps_star"], "p": r["p"],
                      "seconds": r["seconds"]} for r in opt.results])
grid = grid.groupby(["k", "d"], as_index=False).agg(eps_star=("eps_star", "mean"), p=("p", "first"),
                                                    seconds=("seconds", "sum"))
grid = grid.merge(pd.DataFrame([{"k": r["k"], "d": r["d"], "eps_random": r["eps_star"]} for r in rnd.results]),
                  on=["k", "d"])
grid["bound"] = laws.coherence_lower_bound(grid.k.to_numpy(), grid.d.to_numpy())
glue("laws_n_points", len(grid))
glue("laws_grid_seconds", float(grid.seconds.sum()))
grid.round(4)

# %% [markdown]
# ## Refitting the laws
#
# We fit each of Guha's three forms to our grid by least squares in $\varepsilon$ (scipy's
# `curve_fit`, as in the source), the JL form also to the random baseline, and report
# $R^2$, the mean absolute percentage error (MAPE) and the RMSE divided by the range of the data
# (NRMSE).

# %%
fits_opt = laws.fit_all(grid.k, grid.d, grid.eps_star)
fit_rnd = laws.fit_law("jl", grid.k, grid.d, grid.eps_random)
reported = [
    # Guha 2026, fits of the packing simulation (reference README).
    ("JL form", "random", {"C": 3.029}, 0.9985, 1.3, fit_rnd),
    ("JL form", "optimised", {"C": 0.71}, 0.963, 975.0, fits_opt["jl"]),
    ("adjusted", "optimised", {"C": 1.293}, 0.9984, 7.9, fits_opt["adjusted"]),
    ("four-constant", "optimised", dict(laws.PUBLISHED["four"].constants), 0.9998, 5.4, fits_opt["four"]),
]
rows = []
for law, data, const, r2, mape, f in reported:
    rows.append({"law": law, "data": data,
                 "constants (reported)": ", ".join(f"{n}={v:.4g}" for n, v in const.items()),
                 "constants (reproduced)": ", ".join(f"{n}={v:.4g}" for n, v in f.constants.items()),
                 "R² (reported)": r2, "R² (reproduced)": f.r2,
                 "MAPE % (reported)": mape, "MAPE % (reproduced)": f.mape, "NRMSE (reproduced)": f.nrmse})
fit_table = pd.DataFrame(rows)
C_adj = fits_opt["adjusted"].constants["C"]
glue("laws_C_adjusted", C_adj)
glue("laws_C_adjusted_ratio_pct", 100 * (C_adj / 1.293 - 1))
glue("laws_C_random", fit_rnd.constants["C"])
glue("laws_C_jl_opt", fits_opt["jl"].constants["C"])
glue("laws_mape_adjusted", fits_opt["adjusted"].mape)
glue("laws_mape_four", fits_opt["four"].mape)
glue("laws_mape_jl_opt", fits_opt["jl"].mape)
rel = C_adj / 1.293 - 1
if abs(rel) <= 0.10:
    verdict = ("within 10% of the published value, although our grid is far smaller than Guha's and each "
               "packing gets fewer steps")
elif rel > 0:
    verdict = ("more than 10% above it: our packings are less tight, because each gets a few hundred Adam steps "
               "instead of 5000 and the worst pair has not finished moving (the curves of the previous chapter "
               "still rise when they stop), and because the grid is smaller")
else:
    verdict = ("more than 10% below it: on our small grid the adjusted form bends differently; at small d and "
               "small k/d, ln(k/d) is small and the fit leans on few points")
glue("laws_C_verdict", Markdown(verdict))
small_d = int(min(grid.d))
glue("laws_small_d", small_d)
glue("laws_eps_random_small_d", float(grid[grid.d == small_d].eps_random.max()))
fit_table.round(4)

# %% [markdown]
# The published constants, held fixed, evaluated on our grid:

# %%
pub = pd.DataFrame([{"law": law.label, "data": "optimised" if name != "jl" else "random",
                     **laws.evaluate(name, grid.k, grid.d, grid.eps_star if name != "jl" else grid.eps_random)}
                    for name, law in laws.PUBLISHED.items() if name != "jl8"])
glue("laws_mape_published_adjusted", float(pub.loc[pub.law.str.startswith("adjusted"), "mape"].iloc[0]))
glue("laws_mape_published_four", float(pub.loc[pub.law.str.startswith("four"), "mape"].iloc[0]))
pub.round(4)

# %% [markdown]
# The refitted constant of the adjusted law is $C$ = {glue:text}`laws_C_adjusted:.3f`, against
# Guha's 1.293 ({glue:text}`laws_C_adjusted_ratio_pct:+.0f`%): {glue:md}`laws_C_verdict`. The
# published constants, held fixed, describe our grid with a MAPE of
# {glue:text}`laws_mape_published_adjusted:.1f`% (adjusted) and {glue:text}`laws_mape_published_four:.1f`%
# (four-constant), close to the 7.9% and 5.4% Guha reports on his own grid. The four-constant refit has
# four free constants for a dozen points, so its constants wander while its error stays small; they are
# not identified by a grid this small. The `paper` profile runs Guha's grid and settings.
#
# The JL form fits the optimised packings badly (MAPE {glue:text}`laws_mape_jl_opt:.0f`%), as Guha
# found: optimisation does not just shrink the JL constant, it changes the form. On the random
# baseline our JL constant is $C$ = {glue:text}`laws_C_random:.2f`, not 3.029. The reason is the small
# widths of this profile: at $d$ = {glue:text}`laws_small_d` the best random draw already has
# $\varepsilon^*$ up to {glue:text}`laws_eps_random_small_d:.2f`, and $\varepsilon$ cannot exceed 1 however
# large $\sqrt{C \ln k / d}$ grows, so the fit is pulled down; we also take the best of far fewer
# random draws than Guha's 1000.
#
# {numref}`fig-laws-grid` puts everything on one pair of axes: the optimised and random
# $\varepsilon^*$, the refitted adjusted law, and the rigorous lower bound on $\varepsilon$ (the
# larger of the Welch bounds of every order and the Levenshtein bound) below which no arrangement of
# $k$ vectors in $d$ dimensions can go.

# %%
rows = []
for _, r in grid.iterrows():
    rows += [{"k": r.k, "d": r.d, "series": "optimised", "eps": r.eps_star},
             {"k": r.k, "d": r.d, "series": "random (best of trials)", "eps": r.eps_random}]
kk = np.geomspace(min(grid.k), max(grid.k), 60)
for d_ in sorted(grid.d.unique()):
    rows += [{"k": x, "d": d_, "series": "adjusted law (refit)", "eps": float(fits_opt["adjusted"].law.eps(x, d_))} for x in kk]
    rows += [{"k": x, "d": d_, "series": "rigorous lower bound", "eps": float(laws.coherence_lower_bound(x, d_))} for x in kk]
grid_df = pd.DataFrame(rows)

fig, ax = plt.subplots(figsize=(figures.WIDTH_2, 3.8))
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
    Line2D([], [], color="0.3", ls=":", label="Welch / Levenshtein bound")]
ax.legend(handles=handles, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
_ = figures.save("fig-laws-grid", fig, grid_df, {
    "caption": "ε* against k for each d: optimised packings (filled), the best of several random draws (open), "
               "the adjusted law refitted to the optimised points (solid) and the rigorous lower bound on ε "
               "(dotted). Optimisation closes much of the gap between random and the bound, not all of it.",
    "seed": seed, "steps": steps, "lr": lr, "random_trials": random_trials})

# %% [markdown]
# ## Yoder's constant against N/k
#
# {cite}`yoder2025` writes the JL form as $k \ge (C/\varepsilon^2)\ln N$ (his $k$ is the dimension and
# $N$ the number of vectors) and finds that the constant $C$ falls from about 4 towards about 0.2 as
# $N/k$ grows. {numref}`fig-laws-yoder-c` computes the same $C = \varepsilon^2 k / \ln N$ from our
# packings (in this book's letters, $C = \varepsilon^{*2} d/\ln k$ against $k/d$), from the random
# baseline, and from random projections of $N$ basis vectors into $k$ dimensions (Gaussian,
# Rademacher as in Achlioptas, and the subsampled randomised Hadamard transform), where $\varepsilon$ is
# the distortion of squared distances.

# %%
proj_cfg = [dict(N=N_, k=k_, kind=kind, seed=s) for N_ in projection_N for k_ in projection_k
            for kind in ("gaussian", "rademacher", "srht") for s in projection_seeds if k_ < N_]
proj = sweep.run(packing.sweep_projection, proj_cfg, cache="packing-projection", desc="projections")
proj_df = pd.DataFrame(proj.results).groupby(["N", "k", "kind"], as_index=False)[["eps", "C"]].mean()
rows = [{"source": "optimised packing", "ratio": r.k / r.d, "C": r.eps_star**2 * r.d / math.log(r.k), "d": r.d}
        for r in grid.itertuples()]
rows += [{"source": "random vectors", "ratio": r.k / r.d, "C": r.eps_random**2 * r.d / math.log(r.k), "d": r.d}
         for r in grid.itertuples()]
rows += [{"source": f"{r.kind} projection", "ratio": r.N / r.k, "C": r.C, "d": r.k} for r in proj_df.itertuples()]
cdf = pd.DataFrame(rows)
glue("laws_C_opt_min", float(cdf[cdf.source == "optimised packing"].C.min()))
glue("laws_C_opt_max", float(cdf[cdf.source == "optimised packing"].C.max()))
glue("laws_yoder_C", laws.yoder_C())
o = cdf[cdf.source == "optimised packing"]
slope = float(np.polyfit(np.log(o.ratio), np.log(o.C), 1)[0]) if len(o) > 1 else float("nan")
glue("laws_C_slope", slope)
glue("laws_C_trend", Markdown("rises" if slope > 0 else "falls"))

fig, ax = plt.subplots(figsize=(figures.WIDTH_2, 3.4))
srcs = list(dict.fromkeys(cdf.source))
pal = dict(zip(srcs, figures.palette(len(srcs))))
marks = {"optimised packing": "o", "random vectors": "s"}
for s_ in srcs:
    g = cdf[cdf.source == s_].sort_values("ratio")
    ax.plot(g.ratio, g.C, marks.get(s_, "^"), color=pal[s_], label=s_, ms=5, alpha=0.85)
for c_, lab in [(8.0, "textbook JL, C = 8"), (laws.yoder_C(), "Yoder's rule, C ≈ 0.2")]:
    ax.axhline(c_, color="0.4", ls="--", lw=0.8)
    ax.annotate(lab, (ax.get_xlim()[1] if False else cdf.ratio.max(), c_), ha="right", va="bottom",
                fontsize=7.5, color="0.3")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("N/k: vectors per dimension (this book: k/d)")
ax.set_ylabel("C = ε² · dimension / ln(number of vectors)")
ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
_ = figures.save("fig-laws-yoder-c", fig, cdf, {
    "caption": "Yoder's constant C = ε² k / ln N against N/k (log-log). Random vectors and random projections "
               "sit near the JL constants (Gaussian projections higher, because their vector lengths also "
               "vary); optimised packings have a several times smaller C.",
    "seed": seed, "projection_seeds": projection_seeds})

# %% [markdown]
# Our optimised packings give $C$ between {glue:text}`laws_C_opt_min:.2f` and
# {glue:text}`laws_C_opt_max:.2f`, several times below random vectors and random projections, and on this
# grid $C$ {glue:md}`laws_C_trend` with $k/d$ (log-log slope {glue:text}`laws_C_slope:.2f`). Yoder
# describes $C$ falling from about 4 towards 0.2 as $N/k$ grows. A rising $C$ is what the adjusted law
# implies: if $\varepsilon^2 = C_\text{adj}\ln(k/d)/d$, then the JL constant is
# $C = C_\text{adj}\ln(k/d)/\ln k$, which climbs towards $C_\text{adj}$ as $k/d$ grows at fixed $d$. We
# could not reproduce the falling trend from the blog's description, which does not give the exact
# grid its $C$ was measured on; whichever way $C$ moves, a constant that depends on $N/k$ says that the JL
# form is the wrong shape for optimised packings.
#
# ## Yoder's rule of thumb, the laws, and the bounds
#
# Yoder's rule, $N \approx 10^{k F^2/1500}$ vectors in $k$ dimensions at $F$ degrees off orthogonal,
# is the JL form with $C \approx$ {glue:text}`laws_yoder_C:.3f`. {numref}`fig-laws-capacity` draws it at
# $d$ = 12,288 (GPT-3's width, Yoder's example) next to Guha's laws and three bounds: Welch (all orders,
# rigorous), Levenshtein (rigorous) and Kabatiansky–Levenshtein (the best known exponential rate, but
# asymptotic: exact only as $d \to \infty$ at a fixed angle).

# %%
F = np.linspace(0.05, 12, 240)
eps_F = laws.eps_from_degrees_off(F)
curves = {
    "Yoder's rule 10^(d F²/1500)": laws.yoder_log10_capacity(yoder_d, F),
    "JL, C = 3.029 (random)": laws.PUBLISHED["jl"].log10_capacity(eps_F, yoder_d),
    "adjusted, C = 1.293": laws.PUBLISHED["adjusted"].log10_capacity(eps_F, yoder_d),
    f"adjusted, refit C = {C_adj:.3f}": fits_opt["adjusted"].law.log10_capacity(eps_F, yoder_d),
    "four-constant (Guha)": laws.PUBLISHED["four"].log10_capacity(eps_F, yoder_d),
    "Welch bound (rigorous)": laws.welch_log_capacity(yoder_d, eps_F) / math.log(10),
    "Levenshtein bound (rigorous)": laws.levenshtein_log_capacity(yoder_d, eps_F) / math.log(10),
    "Kabatiansky–Levenshtein (asymptotic)": laws.kl_log_capacity(yoder_d, eps_F) / math.log(10),
}
cap_df = pd.DataFrame([{"F_deg": f, "eps": e, "curve": name, "log10_k": v}
                       for name, vals in curves.items() for f, e, v in zip(F, eps_F, np.asarray(vals))])
fig, ax = plt.subplots(figsize=(figures.WIDTH_2, 4.0))
styles = {"Welch bound (rigorous)": ("k", "-", 2.0), "Levenshtein bound (rigorous)": ("k", "--", 1.4),
          "Kabatiansky–Levenshtein (asymptotic)": ("0.5", ":", 1.6)}
pal = dict(zip([c for c in curves if c not in styles], figures.palette(len(curves) - len(styles))))
for name in curves:
    g = cap_df[(cap_df.curve == name) & np.isfinite(cap_df.log10_k)]
    c_, ls, lw = styles.get(name, (pal.get(name), "-", 1.3))
    ax.plot(g.F_deg, g.log10_k, color=c_, ls=ls, lw=lw, label=name)
for f_, v in [(1, 8), (2, 32), (3, 73), (5, 200)]:
    ax.plot(f_, v, "x", color=pal["Yoder's rule 10^(d F²/1500)"], ms=6)
ax.set_ylim(0, 500)
ax.set_xlim(0, F.max())
ax.set_xlabel(f"F: degrees off orthogonal (ε = sin F), d = {yoder_d:,}")
ax.set_ylabel("log₁₀ of the number of vectors")
ax.legend(loc="upper left", fontsize=7.5)
_ = figures.save("fig-laws-capacity", fig, cap_df, {
    "caption": f"How many vectors fit in d = {yoder_d:,} dimensions at F degrees off orthogonal, as log10: Yoder's "
               "rule (crosses: his quoted values), Guha's laws, and the bounds. Every law stays below the "
               "rigorous Welch and Levenshtein bounds here; Yoder's rule rises above the asymptotic "
               "Kabatiansky–Levenshtein rate.",
    "d": yoder_d})

# %% [markdown]
# ## Where a law claims more than geometry allows
#
# A capacity law fitted to packings is an empirical curve; a bound is a theorem. The table scans
# widths from 16 to 12,288 and tolerances from 0.01 to 0.5 and lists every law and bound where the law
# claims more vectors than the bound allows, with the range of $\varepsilon$ where it happens and the
# largest excess in orders of magnitude.

# %%
scan_d = [16, 32, 64, 100, 256, 768, 4096, 12288]
scan_eps = np.round(np.linspace(0.01, 0.5, 50), 3)
D_, E_ = np.meshgrid(scan_d, scan_eps)
law_set = {"JL, C = 3.029": laws.PUBLISHED["jl"], "adjusted, C = 1.293": laws.PUBLISHED["adjusted"],
           "four-constant (Guha)": laws.PUBLISHED["four"], "adjusted, refit": fits_opt["adjusted"].law,
           "four-constant, refit": fits_opt["four"].law, "Yoder's rule": laws.YODER}
rows = []
for name, law in law_set.items():
    v = laws.bound_violations(law, D_.ravel(), E_.ravel())
    v = v[v.violates]
    for (b, d_), g in v.groupby(["bound", "d"]):
        rows.append({"law": name, "bound": b, "rigorous": bool(g.rigorous.iloc[0]), "d": int(d_),
                     "eps from": g.eps.min(), "eps to": g.eps.max(), "points": len(g),
                     "max excess (log10 k)": float((g.log10_k_law - g.log10_k_bound).max())})
viol = pd.DataFrame(rows, columns=["law", "bound", "rigorous", "d", "eps from", "eps to", "points",
                                   "max excess (log10 k)"])
rig = viol[viol.rigorous]
kl = viol[~viol.rigorous]
glue("laws_n_rigorous_violations", int(rig.points.sum()) if len(rig) else 0)
glue("laws_rigorous_violators", Markdown("; ".join(sorted(rig.law.unique())) if len(rig) else "none"))
glue("laws_kl_violators", Markdown("; ".join(sorted(kl.law.unique())) if len(kl) else "none"))
rig.drop(columns="rigorous").sort_values(["law", "bound", "d"]).round(3)

# %% [markdown]
# Against the asymptotic Kabatiansky–Levenshtein rate, per law, the widths where the law exceeds it somewhere:

# %%
kl.groupby("law").agg(widths=("d", lambda x: ", ".join(str(v) for v in sorted(x))),
                      points=("points", "sum")).reset_index()

# %% [markdown]
# Against the rigorous bounds, the laws that overshoot somewhere on this scan are:
# {glue:md}`laws_rigorous_violators`. The excesses sit at small widths and moderate $\varepsilon$, mostly
# below about $\sqrt{3/d}$, where the Welch and Levenshtein bounds allow only between $d$ and about $d^2$ vectors
# and a smooth curve fitted elsewhere has no reason to respect that corner: there, read the bound, not the
# law. Yoder's rule was stated for $d$ = 12,288 and overshoots most at small $d$. Against the asymptotic
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
#   Guha's $C \approx 3$; optimised packings do not, which is why he changes the form. Yoder's falling $C$
#   says the same. Neither the fitted laws nor the rule of thumb are theorems, and in corners (small $d$,
#   $\varepsilon$ near $1/\sqrt{d}$) a fitted law can claim more vectors than the Welch bound allows.
# * **Between the two, the gap is large.** {numref}`fig-laws-grid` shows optimised packings sitting well
#   above the rigorous lower bound on $\varepsilon$, and {numref}`fig-laws-capacity` shows the bounds
#   allowing astronomically more vectors than the laws at realistic widths. The bounds do not tell us
#   what an optimiser (or a trained model) actually reaches; the laws do not tell us what is possible.
#   Each answers a different question, and the book keeps both on the same axes.
# * **Geometry is not information.** A capacity of $10^{8}$ directions at $\varepsilon = 0.06$ means room for
#   that many lines, not that a model stores that many features it can read back: reading them out needs
#   sparsity and a nonlinearity, which is the subject of the superposition chapters.
