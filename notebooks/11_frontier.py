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
# # What fits, what gradient descent finds, what is proven
#
# The two previous chapters looked at the packing question from two sides. The rigorous bounds of
# the spherical-code literature {cite}`welch1974,levenshtein1983` say what no packing can beat. The
# optimisers of {cite}`guha2026` and {cite}`yoder2025`, and the capacity laws fitted to them, say what
# gradient descent finds. The side a geometer would ask for first is missing: **what is actually
# achievable**, by packings whose coherence is known exactly. One of the comments Yoder's post quotes
# makes the same point: the post cites none of the spherical-code literature, and neither does Guha.
#
# Both sources measure $\lvert\cos\rvert$, so the classical problem behind them is packing *lines*
# (antipodal spherical codes): $N$ lines through the origin of $\mathbb{R}^d$ whose largest
# $\lvert\cos\rvert$, the coherence $\mu$, is as small as possible {cite}`conway1996`. That problem has
# explicit constructions that meet the bounds exactly. This chapter puts them, the bounds, Guha's stored
# optimised packings, our own optimiser and his capacity law on one plane. **Every comparison here is our
# computation, not a claim of the sources.**

# %% tags=["parameters"]
cells_per_d = 5  # cells of the best-known table per dimension that our optimiser runs on; None: every cell
optimisers = ["guha", "exp", "text-p"]  # Guha's rule (power loss, his code's p), Yoder's exp loss, p of Guha's text
table: "pack_grid" = {}  # PackConfig settings of the table runs (`repcap run --list-params`); the optimisers set loss and p
seeds = [0]  # random starts per cell and optimiser (the best of them is compared)
minimax_settings = {}  # our minimax method on the same cells: MinimaxConfig fields off its defaults; None: not run
minimax_wide = {
    "restarts": 256
}  # its second setting (over minimax_settings) on the cells the first leaves over 1% short; None: not run
signed_pack: "pack_grid" = {}  # PackConfig settings of the signed runs (points, not lines); the power loss
signed_seeds = [0, 1, 2, 3]  # random starts of each signed run
panel_dims = [64]  # dimensions of the frontier figure at which this profile packs vectors itself
panel_ks = [250, 500, 1000, 2000]  # numbers of vectors of those packings (Guha: 2000 to 32000)
panel: "pack_grid" = {}  # PackConfig settings of those packings (the power loss)
bch_max_work = None  # operations one dual BCH code's exact maximum may take; None: the library's (above: the bound)
device = "auto"  # "auto", "cpu" or "cuda"
reference_set = "reference"  # the shipped point set whose runs of Guha's cells are drawn ("" for none)
reference_scale = "full"  # that set's scale: full, or smoke (its seconds-long version, for the tests)
executor = "local"  # where sweep points run: local (this process) or dask
scheduler = ""  # with the dask executor: a tcp address, local or local:N, or a jobqueue YAML file

# %% tags=["remove-input"]

import pandas as pd
from IPython.display import Markdown

from repcap import RepcapError, sweep
from repcap.book import figures, tables
from repcap.book.chapter import decided, glue, start
from repcap.book.drawings import frontier as draw
from repcap.book.figdata import frontier as figdata
from repcap.book.figdata import reference as refdata
from repcap.engines import constructions, frontier, packing
from repcap.engines.packing import signed
from repcap.evidence import findings, reference
from repcap.results.runs.points import minimax_point

ref_lookup = refdata.lookup(reference_set, "guha-small", reference_scale)
best = constructions.best_known()
cells = frontier.sample_cells(best, cells_per_d)
run_record = start(
    f"Guha runs each packing for 5000 Adam steps; this profile runs our optimiser on {len(cells)} of the "
    f"{len(best)} cells of Sloane's table"
    + (f" for {table['steps']} steps" if "steps" in table else "")
    + ", and its own packings of the frontier figure at "
    + ", ".join(f"d = {d_}" for d_ in panel_dims)
    + (f" for {panel['steps']} steps." if "steps" in panel else "."),
    device=device,
    executor=executor,
    scheduler=scheduler,
)
bch_max_work = decided("bch_max_work", bch_max_work, constructions.DEFAULT_MAX_WORK)
book_codes = constructions.catalogue(bch_t=constructions.BCH_T, max_work=bch_max_work)
all_codes = constructions.catalogue(max_work=bch_max_work)

# %% [markdown]
# ## Codes that meet the bounds
#
# Each construction below is a few lines of `repcap.engines.constructions`, and the tests build every one and
# check its coherence against an independent reference (a dense Gram matrix, a brute-force enumeration
# of the codewords, or a closed form):
#
# * the **simplex** ($d+1$ vectors at $1/d$), the **cross-polytope** (an orthonormal basis), the
#   **icosahedron**'s 6 diagonals ($1/\sqrt 5$), the **24-cell** (12 lines at $1/2$), the **600-cell**
#   (60 lines at $\cos 36°$) and the **E8** roots (120 lines at $1/2$) {cite}`conway1999`;
# * **real mutually unbiased bases** from a Kerdock set {cite}`calderbank1997`, $d = 4^m$: the standard
#   basis and $2^{2m-1}$ bases $(-1)^{Q_s(v) + b\cdot v}/\sqrt d$, where the binary quadratic forms $Q_s$
#   differ pairwise by forms of full rank. That gives $d(d+2)/2$ vectors at exactly $1/\sqrt d$, which meets
#   Levenshtein's bound with equality;
# * **dual BCH codes** of length $n = 2^m - 1$ and designed distance $2t+1$ {cite}`macwilliams1977`,
#   mapped to $\pm 1/\sqrt n$ vectors: $2^{mt}$ of them. The code is linear, so the largest
#   $\lvert\cos\rvert$ over all pairs is the largest $\lvert 1 - 2\,\mathrm{wt}(c)/n\rvert$ over its
#   nonzero codewords. The library reads it off Walsh spectra of the code's trace functions, never off the
#   $2^{mt} \times n$ matrix. Where even that is too costly here, it takes the Carlitz–Uchiyama bound
#   $(2(t-1)2^{m/2}+1)/n$ instead, and the table says so (*bound*).
#
# The last two columns set each coherence against the rigorous lower bound at the same size (the larger
# of Welch's and Levenshtein's): 1 means the construction is provably optimal.

# %%
codes_df = figdata.codes_table(book_codes)
ex8, ex12 = (frontier.law_at_code(constructions.dual_bch_code(m_, 2, max_work=bch_max_work)) for m_ in (8, 12))
for name, ex in (("8", ex8), ("12", ex12)):
    glue(f"frontier_bch{name}_count", 10 ** ex["log10_code"])
    glue(f"frontier_bch{name}_d", ex["d"])
    glue(f"frontier_bch{name}_mu", ex["mu"])
    glue(f"frontier_bch{name}_law", 10 ** ex["log10_law"])
    glue(f"frontier_bch{name}_ratio", 10 ** ex["log10_ratio"])
tables.show(
    codes_df.drop(columns=["vectors"]),
    digits={"log10 vectors": ".2f", "max |cos|": ".4f", "rigorous bound": ".4f", "over the bound": ".3f"},
)

# %% [markdown]
# Two numbers from the table. The dual BCH code with $m = 8$, $t = 2$ is
# {glue:text}`frontier_bch8_count:,.0f` vectors in $\mathbb{R}^{255}$ at $\lvert\cos\rvert \le$
# {glue:text}`frontier_bch8_mu:.4f`; at that $\varepsilon$, Guha's four-constant law allows
# {glue:text}`frontier_bch8_law:,.0f`, {glue:text}`frontier_bch8_ratio:.1f` times fewer. With $m = 12$ it is
# {glue:text}`frontier_bch12_count:,.0f` vectors in $\mathbb{R}^{4095}$ at {glue:text}`frontier_bch12_mu:.4f`,
# where the law allows {glue:text}`frontier_bch12_law:,.0f` ({glue:text}`frontier_bch12_ratio:.0f` times
# fewer).
#
# ## The frontier
#
# {numref}`fig-frontier-eps-vs-k` draws the whole picture for four widths: the rigorous lower bound on
# $\varepsilon$ (nothing lies below it), the explicit codes of the catalogue at their coherence (filled:
# exact; open: the Carlitz–Uchiyama bound, so the true coherence lies at or below the marker), Guha's
# stored optimised packings {cite}`guha2026`, our own packings, and his four-constant law. The catalogue
# here also holds the dual BCH codes with $t$ up to {glue:text}`frontier_t_max`, labelled the same way.

# %%
guha = reference.guha_packings("optimized")
glue("frontier_t_max", max(constructions.CATALOGUE_BCH_T))
panel_cfg = [
    dict(panel, k=k_, d=d_, loss="power", seed=0, device=device) for d_ in panel_dims for k_ in panel_ks if k_ > d_
]
panel_runs = sweep.run(
    packing.sweep_packed,
    panel_cfg,
    cache="packing-grid",
    batched=True,
    group_by=packing.packed_group,
    desc="frontier packings",
)
ref_section = refdata.section(ref_lookup, reference_set)
ours = figdata.our_packings(panel_runs.results, "ours (this profile)")
if ref_section.found:
    ours = pd.concat(
        [ours, figdata.our_packings([f.result for f in ref_section.found], "ours, his settings (reference)")]
    )
panels_df = figdata.frontier_panels(all_codes, guha, ours)

_ = figures.save(
    "fig-frontier-eps-vs-k",
    panels_df,
    {
        "caption": "ε against the number of vectors k in four widths (log k): the rigorous lower bound (solid; no "
        "packing lies below it), explicit codes (filled: exact coherence; open: the Carlitz–Uchiyama bound), Guha's "
        "stored optimised packings (crosses), our packings and his four-constant law (dashed). At the same ε the "
        "explicit codes hold orders of magnitude more vectors than the law: it describes the optimisers, not the "
        "geometry.",
        "source": "code/vector_packing/optimized_packing.json of github.com/Alex-Guha/representational-capacity (MIT)",
    },
    draw=draw.eps_vs_k,
)

# %%
law_rows = frontier.law_against_codes(all_codes, sorted({x for p_ in frontier.PANELS for x in p_}))
for n_, d_ in frontier.PANELS:
    sub = law_rows[law_rows.d.isin([n_, d_])]
    top = sub.loc[sub.log10_ratio.idxmax()]
    glue(f"frontier_margin_{d_}", 10**top.log10_ratio)
    glue(f"frontier_margin_{d_}_code", Markdown(top.code))
    findings.record(
        f"frontier-law-below-code-{d_}",
        top.log10_ratio,
        figure="fig-frontier-eps-vs-k",
        interval="deterministic",
        note=f"{top.code}: 10^{top.log10_code:.2f} vectors in R^{top.d} at max |cos| {top.mu:.4f} "
        f"({top.mu_status}, {top.mu_from}); the law allows 10^{top.log10_law:.2f} there",
    )
margins = frontier.law_margin_per_d(law_rows)
tables.show(
    margins[["d", "code", "mu", "mu_status", "log10_code", "log10_law", "log10_ratio"]].rename(
        columns={
            "mu": "max |cos|",
            "mu_status": "known as",
            "log10_code": "log10 vectors (code)",
            "log10_law": "log10 k (law at that ε)",
            "log10_ratio": "log10 (code / law)",
        }
    ),
    digits={
        "max |cos|": ".4f",
        "log10 vectors (code)": ".2f",
        "log10 k (law at that ε)": ".2f",
        "log10 (code / law)": ".2f",
    },
)

# %% [markdown]
# The table lists, per width, the code with the largest margin over the law at its own coherence. In
# $\mathbb{R}^{63}$/$\mathbb{R}^{64}$ it is {glue:md}`frontier_margin_64_code`, which holds
# {glue:text}`frontier_margin_64:.1f` times as many vectors as the law allows; in
# $\mathbb{R}^{4095}$/$\mathbb{R}^{4096}$ it is {glue:md}`frontier_margin_4096_code`, with
# {glue:text}`frontier_margin_4096:.3g` times as many. The law's capacity is not an upper bound on what fits.
#
# ## Guha's cells against the bound
#
# How far from optimal are the packings the laws were fitted to? The rigorous bound gives a floor. On
# every one of Guha's stored cells with $k > d$, his $\varepsilon^*$ sits between
# {glue:text}`frontier_guha_min:.2f` and {glue:text}`frontier_guha_max:.2f` times above it. The best-known
# line packings of Sloane's table {cite}`sloane1997` (small dimensions, $d$ = 3 to 16, up to 100 lines,
# found by long numerical searches) sit between {glue:text}`frontier_best_min:.2f` and
# {glue:text}`frontier_best_max:.2f` times above it.

# %%
gcells = frontier.guha_cells_against_bound()
bk = frontier.best_known_against_bound(best)
glue("frontier_guha_min", float(gcells.ratio.min()))
glue("frontier_guha_max", float(gcells.ratio.max()))
glue("frontier_best_min", float(bk.ratio.min()))
glue("frontier_best_max", float(bk.ratio.max()))
closest = gcells.loc[gcells.ratio.idxmin()]
findings.record(
    "frontier-guha-cells-over-bound",
    float(gcells.ratio.min()),
    interval="deterministic",
    n=len(gcells),
    n_of="cells with k > d",
    note=f"his {len(gcells)} cells with k > d sit {gcells.ratio.min():.2f}–{gcells.ratio.max():.2f}× above the "
    f"bound (closest: k = {int(closest.k)}, d = {int(closest.d)}); Sloane's best-known packings "
    f"{bk.ratio.min():.2f}–{bk.ratio.max():.2f}×",
)

# %% [markdown]
# ## Our optimiser against the best known
#
# The same question for our own packing engine, on the cells of Sloane's table where the best known is
# known: three settings of it, each from {glue:text}`frontier_n_seeds` random start(s) per cell. *Guha's rule*
# is his code's power loss $\sum\lvert\cos\rvert^p$ with $p = \min(\lfloor M/\ln d\rfloor, 20)$; *exp* is
# Yoder's $\sum \exp(20\cos^2)$; *text p* is the power loss at $p$ = {glue:text}`frontier_text_p`, the low
# end of the $p \in [40, 60]$ his paper's text states. {numref}`fig-frontier-best-known` shows, cell by cell,
# the best of them as a multiple of the best-known coherence, beside our *minimax* method
# (`repcap.engines.packing.minimax`, ours): {glue:text}`frontier_mm_restarts` random starts as one batch, Adam on
# $\sum(\lvert\cos\rvert/m)^p$ with $p$ rising and $m$ the current worst pair, then linear programs that lower the
# worst pair itself, the kind of search aimed at the worst pair that Sloane's table comes from.

# %%
text_p = reference.quote("guha2026.power_p_text").low
SETTINGS = {
    "guha": ("Guha's rule", dict(loss="power")),
    "exp": ("exp (Yoder)", dict(loss="exp")),
    "text-p": (f"power, p = {text_p:g} (his text)", dict(loss="power", p=text_p)),
}
unknown = [o for o in optimisers if o not in SETTINGS]
if unknown:
    raise RepcapError(f"optimisers {unknown}: use some of {', '.join(SETTINGS)}")
table_cfg = [
    dict(table, k=int(c.N), d=int(c.d), **SETTINGS[o][1], seed=s, device=device)
    for c in cells.itertuples()
    for o in optimisers
    for s in seeds
]
table_runs = sweep.run(
    packing.sweep_packed,
    table_cfg,
    cache="frontier-best-known",
    batched=True,
    group_by=packing.packed_group,
    desc="best-known cells",
)
label_of = {(v[1].get("loss"), v[1].get("p")): v[0] for v in SETTINGS.values()}
runs = [
    {
        "d": r["d"],
        "N": r["k"],
        "optimiser": label_of[(c["loss"], c.get("p"))],
        "eps": r["eps_star"],
    }
    for c, r in zip(table_cfg, table_runs.results)
]
ADAM, MINIMAX = "Adam, best of its settings", "minimax (ours)"
series: tuple[str, ...] = (ADAM,)
if minimax_settings is not None:
    mm_cfg = [dict(minimax_point(int(c.N), int(c.d), **minimax_settings), device=device) for c in cells.itertuples()]
    mm = sweep.run(packing.sweep_minimax, mm_cfg, cache="frontier-best-known", desc="minimax cells")
    runs += [dict(d=r["d"], N=r["k"], optimiser=MINIMAX, eps=r["eps_star"]) for r in mm.results]
    series += (MINIMAX,)
    glue("frontier_mm_restarts", packing.MinimaxConfig(**mm_cfg[0]).restarts)
    short = frontier.short_cells(frontier.optimiser_against_best(runs, best), MINIMAX)
    wide_cfg = [
        dict(minimax_point(n, d, **(minimax_settings | minimax_wide)), device=device)
        for d, n in (short if minimax_wide is not None else [])
    ]
    wide = sweep.run(packing.sweep_minimax, wide_cfg, cache="frontier-best-known", desc="minimax, wider setting")
    # the same method at another setting: per cell the series keeps the better of the two
    runs += [dict(d=r["d"], N=r["k"], optimiser=MINIMAX, eps=r["eps_star"]) for r in wide.results]
vs_best = frontier.optimiser_against_best(runs, best, pooled=[v[0] for v in SETTINGS.values()], label=ADAM)
ratio_df = figdata.ratio_points(vs_best)
glue("frontier_n_seeds", len(seeds))
glue("frontier_text_p", text_p)

_ = figures.save(
    "fig-frontier-best-known",
    ratio_df,
    {
        "caption": "Our optimisers on the cells of Sloane's table of best-known line packings: Adam's best over its "
        "settings and starts (circles) and our minimax method (crosses) as a multiple of the best-known coherence, "
        "colour by dimension (1: as good as the best known; above 1: short of it by that factor).",
        "minimax": minimax_settings,
        "minimax_wide": minimax_wide,
        "seeds": seeds,
        "source": "Sloane's table of Grassmannian packings (data/reference/best_known_packings.csv)",
    },
    draw=draw.against_best_known,
    options={"series": list(series)},
)

# %%
allbest = vs_best[vs_best.optimiser == ADAM]
within = float((allbest.ratio_best <= 1.05).mean())
far = frontier.furthest_cells(vs_best, 5, ADAM)
glue("frontier_opt_median", float(allbest.ratio_best.median()))
glue("frontier_opt_within_pct", 100 * within)
glue("frontier_opt_cells", len(allbest))
glue("frontier_opt_worst", float(allbest.ratio_best.max()))
glue("frontier_far_simplex", int(far.N.eq(far.d + 1).sum()))
glue("frontier_far_n", len(far))
findings.record(
    "frontier-optimiser-best-known",
    float(allbest.ratio_best.median()),
    figure="fig-frontier-best-known",
    interval="one run",  # per cell and setting: the median over cells has no interval of its own
    n=len(allbest),
    n_of="cells of Sloane's table",
    note=f"{100 * within:.0f}% of the {len(allbest)} cells within 5%; furthest: "
    + "; ".join(f"d = {int(r.d)}, N = {int(r.N)}: {r.ratio_best:.3f}×" for r in far.head(3).itertuples())
    + (f" ({table['steps']} Adam steps, lr {table['lr']:g})" if table.get("lr") is not None else ""),
)
tables.show(
    figdata.per_d_summary(vs_best),
    digits={"median ratio to best known": ".3f", "largest ratio": ".3f"},
)

# %% [markdown]
# Over the {glue:text}`frontier_opt_cells` cells this profile ran, the median cell lands
# {glue:text}`frontier_opt_median:.3f` times above the best known, and {glue:text}`frontier_opt_within_pct:.0f`%
# land within 5% of it; the worst is {glue:text}`frontier_opt_worst:.2f` times. The cells furthest away are
# listed below; {glue:text}`frontier_far_simplex` of these {glue:text}`frontier_far_n` have $N = d + 1$,
# where the best known is the simplex, at Welch's bound $1/d$ itself, and where most pairs of an optimum
# are nearly orthogonal. Sloane's packings come from many starts of searches aimed at the worst pair; a
# gradient run on a smooth loss from one random start is a different, cheaper thing, and on these cells it
# stops well short. Our minimax method, a search of that kind, on the same cells: {glue:md}`frontier_mm_text`.

# %%
mm_text = "this profile did not run it (`minimax_settings = None`)"
if minimax_settings is not None:
    mrow = vs_best[vs_best.optimiser == MINIMAX]
    wide_restarts = packing.MinimaxConfig(**wide_cfg[0]).restarts if wide_cfg else 0
    mm_text, misses = figdata.minimax_words(vs_best, MINIMAX, len(wide_cfg), wide_restarts)
    findings.record(
        "frontier-minimax-best-known",
        float(mrow.ratio_best.median()),
        figure="fig-frontier-best-known",
        interval="one run",
        n=len(mrow),
        n_of="cells of Sloane's table",
        note=f"{(mrow.ratio_best <= frontier.NEAR_BEST).sum()} of {len(mrow)} cells within 1%; furthest: {misses}",
    )
glue("frontier_mm_text", Markdown(mm_text))

# %%
far_df, far_digits = figdata.furthest_table(far, vs_best, MINIMAX if minimax_settings is not None else None)
tables.show(far_df, digits=far_digits)

# %% [markdown]
# ## Points instead of lines
#
# Sloane's table is about lines. For points, the classical question is the smallest *angle* between any two
# of $N$ points on the sphere, with the sign of the cosine kept. The engine's signed mode
# (`repcap.engines.packing.signed`: Guha's power loss of $\max(\cos, 0)$ instead of $\lvert\cos\rvert$, with his
# exponent rule, rate and steps) asks that question.
# Two answers are known exactly and proven optimal, and Cohn's table of spherical codes {cite}`cohn_codes`
# lists them: the snub cube (24 points in $\mathbb{R}^3$) and the 600-cell (120 points in $\mathbb{R}^4$).
# From {glue:text}`frontier_signed_seeds` random start(s) each, our runs reach:

# %%
pts = constructions.best_known("points")
signed_cfg = [
    dict(signed_pack, k=int(r.N), d=int(r.d), loss="power", seed=s, device=device)
    for r in pts.itertuples()
    for s in signed_seeds
]
signed_res = sweep.run(
    signed.sweep_signed,
    signed_cfg,
    cache="frontier-signed",
    batched=True,
    group_by=packing.packed_group,
    desc="signed codes",
)
signed_df = figdata.signed_runs(signed_res.results, pts)
glue("frontier_signed_seeds", len(signed_seeds))
for _, r in signed_df.iterrows():
    glue(f"frontier_signed_gap_{int(r['N'])}", float(r["gap (deg)"]))
tables.show(
    signed_df,
    digits={"best run (deg)": ".3f", "worst run (deg)": ".3f", "best known (deg)": "g", "gap (deg)": ".3f"},
)

# %% [markdown]
# The best run lands {glue:text}`frontier_signed_gap_120:.3f` degrees short of the 600-cell and
# {glue:text}`frontier_signed_gap_24:.3f` short of the snub cube (Cohn's table prints its angle to two
# decimals). The unit tests hold the engine to within 2% of both from two random starts at the engine's
# settings: the runs minimise a smooth surrogate, not the smallest angle itself.

# %% [markdown]
# ## Guha's Table 1 against explicit codes
#
# For each model of his Table 1: his $\varepsilon$ and capacity {cite}`guha2026` (published; he gives a
# capacity only for Class 2), and the largest code of our catalogue that fits in the model's width at
# coherence at most his $\varepsilon$ (our computation; a code of a smaller dimension fits by padding with
# zeros). Where the code's coherence is the Carlitz–Uchiyama bound, the true coherence is at most that.

# %%
pm = frontier.per_model(all_codes)
show_pm = pm[
    ["model", "d", "eps", "capacity", "code", "code_mu", "code_mu_status", "log10_code", "log10_code_over_capacity"]
]
c2 = pm[pm.capacity.notna()]
above = c2[c2.log10_code_over_capacity > 0]
glue("frontier_models_c2", len(c2))
glue("frontier_models_above", len(above))
glue(
    "frontier_models_below",
    Markdown(", ".join(c2[c2.log10_code_over_capacity <= 0].model) or "none"),
)
tables.show(
    show_pm.rename(
        columns={
            "eps": "ε (his)",
            "capacity": "capacity (his)",
            "code": "largest explicit code at ≤ ε",
            "code_mu": "its max |cos|",
            "code_mu_status": "known as",
            "log10_code": "log10 vectors",
            "log10_code_over_capacity": "log10 (code / capacity)",
        }
    ),
    digits={
        "ε (his)": ".5f",
        "capacity (his)": ".3g",
        "its max |cos|": ".4f",
        "log10 vectors": ".2f",
        "log10 (code / capacity)": "+.2f",
    },
    missing="his Table 1 gives no capacity for Class 1 (ε > 0.2)",
)

# %% [markdown]
# For {glue:text}`frontier_models_above` of his {glue:text}`frontier_models_c2` models with a capacity, an
# explicit code holds more vectors at his $\varepsilon$ than his capacity says fit. For the others
# ({glue:md}`frontier_models_below`), the next larger code of our catalogue that fits their width has a
# coherence above their $\varepsilon$: that is a gap in our catalogue (it holds no code between the dual BCH
# codes of one length), not evidence that his capacity is an upper bound there.
#
# ## What this does and does not mean
#
# The constant $C$ that the capacity laws fit describes the optimisers, not the geometry. At the
# $\varepsilon$ of most of Table 1's embeddings, directions exist in far greater numbers than the law says
# fit, written down explicitly, with their coherence proven. This is our finding, not the sources'.
#
# It does not mean a language model can use them. These directions exist; whether training can find them,
# and whether a network can read features written along them, is another question, and two things bear on
# it. Gradient descent on a smooth surrogate, the optimiser of Guha, of Yoder and ours, lands well short of
# them (the sections above). And the toy models of {cite}`liu2025` pay for superposition through the *mean*
# squared overlap of their feature directions, about $1/m$ in their strong regime, not through the worst
# pair. For $N \gg m$ unit vectors in $\mathbb{R}^m$ no arrangement brings the mean of $\cos^2$ below
# Welch's $(N-m)/(m(N-1))$, close to $1/m$, the value of random directions: the codes of this chapter, which
# shrink the worst pair, leave that mean where it is (a union of orthonormal bases meets Welch's bound
# exactly). So what fits by the worst pair and what a model can afford by the average are different
# questions; this chapter answers the first. This reading is ours.
