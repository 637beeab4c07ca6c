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
# # Reproducibility: the same points on two machines
#
# A result of this book is identified by *what* it computes: the engine's function, the numerics
# version of that engine, the settings and the data it reads. *Where* it ran, with which package
# versions, on which commit and in how much time is its provenance, recorded once when it was
# computed. Two runs of one point on two machines are therefore the same point twice, a *replica*,
# and the question a reader should ask is whether their numbers agree as well as two runs can: two
# devices draw their random numbers from different streams and sum in different orders, so the
# yardstick is how far a point moves when only its seed changes. This chapter compares every point
# that the shipped bundles hold on more than one machine, and says what the bundles' provenance
# says about the rest.

# %% tags=["parameters"]
primary = "data/runs/reference"  # the bundle whose points the book shows (the first computed)
others = ["data/runs/paper-gpu"]  # bundles whose shared points are compared with the primary's

# %% tags=["remove-input"]
from IPython.display import display

from repcap import RepcapError
from repcap.base.paths import project_root
from repcap.book import figures, tables
from repcap.book.chapter import glue, start
from repcap.book.drawings import reproducibility as draw
from repcap.book.figdata import reproducibility as figdata
from repcap.results import bundle

paths = {p: (project_root() / p if (project_root() / p).is_dir() else None) for p in [primary, *others]}
run_record = start(
    "This chapter computes nothing: it reads the shipped bundles "
    + ", ".join(f"`{p}`" for p, path in paths.items() if path is not None)
    + " and compares the points they share."
)

# %% [markdown]
# ## What the shipped bundles hold
#
# A point is *stale* only when its identity is not this checkout's: its engine's numerics version,
# its settings or its data differ. An engine edited since a point was computed, with its numerics
# version unchanged (its fingerprints did not move), or a point computed under other package versions,
# is reported, not discarded.

# %%
statuses = {p: bundle.status(path) for p, path in paths.items() if path is not None}
display(tables.show(figdata.status_table(statuses), first=["bundle"]))
glue("repro_n_fresh", sum(st.total("fresh") + st.total("summaries") for st in statuses.values()))
glue("repro_n_stale", sum(st.total("stale") for st in statuses.values()))
glue("repro_n_other_versions", sum(st.total("other_versions") for st in statuses.values()))

# %% [markdown]
# The shipped bundles hold {glue:text}`repro_n_fresh` fresh points and {glue:text}`repro_n_stale`
# stale ones; {glue:text}`repro_n_other_versions` of the fresh ones were computed under package
# versions other than this checkout's (the GPU image's torch, numpy, scipy and numba): they count as
# the same points, and the comparison below is how we know that is justified.
#
# ## CPU against GPU, point by point
#
# For every point both bundles hold, the difference of the logarithms of its headline numbers,
# $\ln(a/b)$ with $a$ the primary's and $b$ the other machine's, is judged against the *seed scatter*:
# the standard deviation of $\ln$ of the same number over points that differ only in their seed. The
# verdict is "agree within seed scatter" when the 95% interval of the mean difference lies inside
# $\pm$ one seed's scatter and the differences spread no more than two independent runs do (an F test
# at 95%); "differs" when the interval lies outside or the spread is larger; "inconclusive" with fewer
# than three pairs, no seed scatter, or an interval that straddles the margin. The margin is set by
# the seeds before any comparison is made.

# %%
comparisons = {}
for other in others:
    if paths.get(other) is None or paths.get(primary) is None:
        continue
    try:
        comparisons[other] = bundle.compare(paths[primary], paths[other])
    except RepcapError as exc:  # no shared point: said, not drawn
        print(exc)
for cmp in comparisons.values():
    display(
        tables.show(
            figdata.comparison_table(cmp),
            digits={
                "mean ln(a/b)": "+.4f",
                "95% interval low": "+.4f",
                "95% interval high": "+.4f",
                "sd ln(a/b)": ".4f",
                "seed sd": ".4f",
            },
            first=["function", "metric"],
            missing="no seed scatter, or too few pairs for an interval",
        )
    )

# %% tags=["remove-input"]
for cmp in comparisons.values():
    pairs = figdata.pairs_figure(cmp)
    devices = sorted({*pairs["device a"], *pairs["device b"]})
    _ = figures.save(
        "fig-repro-shared-points",
        pairs,
        {
            "caption": f"Each dot is one point computed on two machines ({' and '.join(devices)}): the log-ratio of "
            "its number in the primary bundle to the other's. Read it against the grey band, one seed's scatter "
            "of the same number: dots and the blue 95% interval of their mean inside it mean the machines agree "
            "as well as two runs of one machine do.",
        },
        draw=draw.shared_points,
    )

# %%
eps_rows = [m for cmp in comparisons.values() for m in cmp.metrics if m.metric == "eps_star"]
glue("repro_eps_pairs", eps_rows[0].n if eps_rows else 0)
glue("repro_eps_mean", eps_rows[0].mean if eps_rows else float("nan"))
glue("repro_eps_verdict", eps_rows[0].verdict if eps_rows else "no shared packing")
for cmp in comparisons.values():
    display(
        tables.show(figdata.pairs_table(cmp), digits={"a": ".6g", "b": ".6g", "ln(a/b)": "+.4f"}, first=["experiment"])
    )

# %% [markdown]
# The packings that both machines ran are Guha's small cells at his settings: the same seed, the same
# 5000 Adam steps, on two devices. Their largest |cos|, $\varepsilon^*$, differs by a mean
# $\ln(a/b)$ of {glue:text}`repro_eps_mean:+.4f` over {glue:text}`repro_eps_pairs` cells
# (verdict: {glue:text}`repro_eps_verdict`). The mean |cos| agrees to a few parts in $10^4$: the bulk of
# the packing is the same on both machines; its single worst pair, a maximum over millions, is where
# two runs part.
#
# To compare a bundle of your own: `repcap bundle compare data/runs/reference YOUR_BUNDLE --pairs`.
