"""The frontier comparisons (our computations): each against a hand computation from the published
numbers, the closed-form laws and bounds, or a brute-force search over the catalogue."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from repcap import RepcapError
from repcap.engines import bounds, laws
from repcap.engines import constructions as C
from repcap.engines import frontier as F
from repcap.evidence import reference


@pytest.fixture(scope="module")
def codes():
    return C.catalogue()


def test_law_at_the_issue_examples(codes):
    four = laws.PUBLISHED["four"]
    C_, a, b, c = (four.constants[x] for x in "Cabc")
    for m, t in ((8, 2), (12, 2)):
        code = C.dual_bch_code(m, t)
        row = F.law_at_code(code)
        n, mu = code.d, code.mu
        by_hand = (math.log(n) + (mu**2 * n**c / C_) ** (1 / b)) / a / math.log(10)
        assert row["log10_law"] == pytest.approx(by_hand, rel=1e-12)
        assert row["log10_ratio"] == pytest.approx(m * t * math.log10(2) - by_hand, rel=1e-12)
    # 65,536 vectors in R^255 at 0.1294: the law allows about 7x fewer; 16.8 million in R^4095: 187x
    assert 10 ** F.law_at_code(C.dual_bch_code(8, 2))["log10_ratio"] == pytest.approx(7.09, abs=0.01)
    assert 10 ** F.law_at_code(C.dual_bch_code(12, 2))["log10_ratio"] == pytest.approx(187.5, abs=0.5)


def test_law_against_codes_per_d(codes):
    t = F.law_against_codes(codes, [63, 64, 255, 256])
    assert set(t.d) == {63, 64, 255, 256}
    best = F.law_margin_per_d(t)
    assert list(best.d) == [63, 64, 255, 256]
    for r in best.itertuples():
        assert r.log10_ratio == t[t.d == r.d].log10_ratio.max()
    with pytest.raises(RepcapError, match="no explicit code"):
        F.law_against_codes(codes, [5])


def test_guha_cells_against_the_bound():
    g = F.guha_cells_against_bound()
    raw = reference.guha_packings("optimized")
    assert len(g) == int((raw.k > raw.d).sum())
    r = g.iloc[0]
    by_hand = max(bounds.levenshtein_bound(r.k, r.d), max(bounds.welch_bound(r.k, r.d, order=s) for s in range(1, 65)))
    assert r.bound == pytest.approx(by_hand, rel=1e-12)
    assert (g.ratio > 1).all()  # no optimised packing beats a theorem
    assert g.ratio.min() == pytest.approx(1.30, abs=0.01) and g.ratio.max() == pytest.approx(2.55, abs=0.01)


def test_per_model_picks_the_largest_code_that_fits(codes):
    pm = F.per_model(codes)
    table1 = pd.read_csv(reference.reference_dir() / "guha2026_table1.csv")
    assert len(pm) == len(table1)
    lines = F.line_codes(codes)
    for r in pm.sample(8, random_state=0).itertuples():
        fits = [c for c in [*lines, *C.family_codes(r.d)] if c.d <= r.d and c.mu <= r.eps]
        assert r.code_d <= r.d and r.code_mu <= r.eps
        assert r.log10_code == pytest.approx(max(c.log10_count for c in fits))
    llama = pm[pm.model == "Llama 2 7B"].iloc[0]
    assert llama.capacity == pytest.approx(reference.value("guha2026.llama2_7b_k_four"))
    assert llama.log10_law == pytest.approx(math.log10(laws.capacity(llama.eps, 4096)))
    assert pm[pm["class"] == 1].log10_capacity.isna().all()


def test_explicit_frontier_flags_the_dominated(codes):
    f = F.explicit_frontier(codes, 256, min_d=128)
    assert set(f.code_d) <= {255, 256}
    for r in f.itertuples():
        others = f[
            (f.log10_count >= r.log10_count) & (f.mu <= r.mu) & ((f.log10_count > r.log10_count) | (f.mu < r.mu))
        ]
        assert r.frontier == others.empty


def test_sample_cells():
    b = C.best_known()
    every = F.sample_cells(b, None)
    assert len(every) == len(b)
    s = F.sample_cells(b, 3)
    for d, g in s.groupby("d"):
        Ns = b[b.d == d].N
        assert g.N.min() == Ns.min() and g.N.max() == Ns.max() and len(g) <= 3
    with pytest.raises(RepcapError, match="whole number"):
        F.sample_cells(b, 0)


def test_optimiser_against_best():
    runs = [
        {"d": 3, "N": 6, "optimiser": "a", "eps": 0.5},
        {"d": 3, "N": 6, "optimiser": "a", "eps": 0.46},
        {"d": 3, "N": 6, "optimiser": "b", "eps": 1 / math.sqrt(5)},
        {"d": 4, "N": 12, "optimiser": "a", "eps": 0.55},
    ]
    t = F.optimiser_against_best(runs)
    a = t[(t.d == 3) & (t.optimiser == "a")].iloc[0]
    assert a.eps == 0.46 and a.ratio_best == pytest.approx(0.46 * math.sqrt(5))
    best = t[(t.d == 3) & (t.optimiser == "best of all")].iloc[0]
    assert best.ratio_best == pytest.approx(1.0) and best.ratio_bound == pytest.approx(1.0)  # Levenshtein equality
    far = F.furthest_cells(t, 1).iloc[0]
    assert (far.d, far.N) == (4, 12) and far.ratio_best == pytest.approx(1.1)
    with pytest.raises(RepcapError, match="no best-known packing"):
        F.optimiser_against_best([{"d": 3, "N": 200, "optimiser": "a", "eps": 0.1}])
    with pytest.raises(RepcapError, match="no optimiser runs"):
        F.optimiser_against_best([])
    assert np.isfinite(t.ratio_bound).all()


def test_optimiser_against_best_pools_only_the_named_settings():
    # the pooled best leaves the minimax runs out, so it is Adam's best, however good minimax is
    runs = [
        {"d": 3, "N": 6, "optimiser": "a", "eps": 0.5},
        {"d": 3, "N": 6, "optimiser": "b", "eps": 0.48},
        {"d": 3, "N": 6, "optimiser": "mm", "eps": 1 / math.sqrt(5)},
    ]
    t = F.optimiser_against_best(runs, pooled=["a", "b"], label="adam")
    assert set(t.optimiser) == {"a", "b", "mm", "adam"}
    assert t[t.optimiser == "adam"].eps.item() == 0.48
    assert F.furthest_cells(t, 1, "mm").ratio_best.item() == pytest.approx(1.0)
    from repcap.book.figdata import frontier as fd

    far, digits = fd.furthest_table(F.furthest_cells(t, 1, "adam"), t, beside="mm")
    assert far["over the best known"].item() == pytest.approx(0.48 * math.sqrt(5))
    assert far["mm"].item() == pytest.approx(1.0) and digits["mm"] == ".4f"
    assert list(fd.furthest_table(F.furthest_cells(t, 1, "adam"), t)[0].columns)[-1] == "over the bound"


# --------------------------------------------------------------------------------------------- the chapter's tables


def test_frontier_panels_hold_each_series(codes):
    from repcap.book.figdata import frontier as fd

    guha = reference.guha_packings("optimized")
    ours = pd.DataFrame({"d": [64, 64, 100], "k": [500, 1000, 500], "eps": [0.2, 0.25, 0.3], "label": ["a", "a", "a"]})
    t = fd.frontier_panels(codes, guha, ours, panels=((63, 64), (255, 256)), n_grid=20)
    b = t[(t.series == "bound") & (t.d == 64)]
    np.testing.assert_allclose(b.eps, bounds.coherence_lower_bound(10 ** b.log10_k.to_numpy(), 64.0))
    law = t[(t.series == "law") & (t.d == 256)]
    np.testing.assert_allclose(law.eps, laws.PUBLISHED["four"].eps(10 ** law.log10_k.to_numpy(), 256.0))
    ex = t[t.series == "explicit"]
    assert set(ex.name) == {c.name for c in codes if c.angle_deg is None and (63 <= c.d <= 64 or 255 <= c.d <= 256)}
    g = t[t.series == "guha"]
    assert len(g) == int(((guha.d.isin([64, 256])) & (guha.k > guha.d)).sum())
    assert list(t[t.series == "ours"].eps) == [0.2, 0.25]  # the d = 100 run is in no panel


def test_codes_table_and_our_packings(codes):
    from repcap.book.figdata import frontier as fd

    ct = fd.codes_table(C.catalogue(bch_m=(8,), bch_t=(2,), kerdock_d=(16,)))
    k16 = ct[ct.construction.str.startswith("real MUBs")].iloc[0]
    assert k16["over the bound"] == pytest.approx(1.0) and k16["vectors"] == 144
    o = fd.our_packings(
        [{"d": 8, "k": 20, "eps_star": 0.5}, {"d": 8, "k": 20, "eps_star": 0.4}, {"d": 8, "k": 30, "eps_star": 0.6}],
        "x",
    )
    assert list(o.eps) == [0.4, 0.6] and set(o.label) == {"x"}


def test_signed_runs_table():
    from repcap.book.figdata import frontier as fd

    runs = [
        {"k": 24, "d": 3, "min_angle_deg": 43.0},
        {"k": 24, "d": 3, "min_angle_deg": 42.0},
        {"k": 120, "d": 4, "min_angle_deg": 35.9},
    ]
    t = fd.signed_runs(runs, C.best_known("points")).set_index("N")
    assert t.loc[24, "runs"] == 2 and t.loc[24, "best run (deg)"] == 43.0 and t.loc[24, "worst run (deg)"] == 42.0
    assert t.loc[24, "gap (deg)"] == pytest.approx(t.loc[24, "best known (deg)"] - 43.0)
    assert t.loc[120, "gap (deg)"] == pytest.approx(0.1)
