"""The chapters' tables (repcap.book.figdata) against values computed independently here: closed forms,
direct float64 sums, and pair counts of small matrices."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

from repcap.book.figdata import packing as fpack
from repcap.book.figdata import scaling as fscaling
from repcap.book.figdata import survey as fsurvey
from repcap.book.figdata import toy as ftoy
from repcap.engines import packing
from repcap.engines.cosine import Histogram


# --- toy ---------------------------------------------------------------------------------------
def _power(n, a):
    p = np.arange(1, n + 1, dtype=np.float64) ** -a
    return p / p.sum()


def test_left_out_loss_sums_the_variance_of_the_rows_left_out():
    n = 6
    norms = [[1.0, 0.9, 0.2, 0.7, 0.5, 0.0], [0.0] * n]
    df = pd.DataFrame({"alpha": [1.0, 2.0], "norms": norms})
    got = ftoy.left_out_loss(df, n)
    p1, p2 = _power(n, 1.0), _power(n, 2.0)
    out1 = p1[[2, 4, 5]]  # norms <= 1/2
    assert got[0] == pytest.approx(float(np.sum(4 / 3 * out1 - out1**2)), rel=1e-12)
    assert got[1] == pytest.approx(float(np.sum(4 / 3 * p2 - p2**2)), rel=1e-12)


def test_exponent_fits_recover_exact_power_laws_per_group():
    ms = np.array([4, 8, 16, 32, 64])
    df = pd.concat(
        [
            pd.DataFrame({"regime": r, "alpha": a, "m": ms, "loss": 3.0 * ms**-e})
            for r, a, e in (("weak", 1.5, 0.5), ("strong", 1.5, 1.0), ("strong", 2.0, 1.25))
        ]
    )
    fits = ftoy.exponent_fits(df)
    assert list(zip(fits.regime, fits.alpha)) == [("weak", 1.5), ("strong", 1.5), ("strong", 2.0)]
    np.testing.assert_allclose(fits.alpha_m, [0.5, 1.0, 1.25], rtol=1e-10)
    np.testing.assert_allclose(np.exp(fits.log_A), 3.0, rtol=1e-10)
    # m_min drops the narrow widths: a bend below m = 16 no longer counts
    bent = df.assign(loss=np.where(df.m < 16, df.loss * 5, df.loss))
    np.testing.assert_allclose(ftoy.exponent_fits(bent, m_min=16).alpha_m, [0.5, 1.0, 1.25], rtol=1e-10)


def test_unlearned_prediction_is_the_tail_variance_and_tends_to_alpha_minus_one():
    n, alphas, ms = 200_000, [1.5, 2.0], [8, 16, 32, 64]
    pred, slopes = ftoy.unlearned_prediction(n, alphas, ms)
    p = _power(n, 2.0)
    tail = p[16:]
    got = pred[(pred.alpha == 2.0) & (pred.m == 16)].unlearned_loss.item()
    assert got == pytest.approx(float(np.sum(4 / 3 * tail - tail**2)), rel=1e-10)
    # for n >> m the tail sum of i^-alpha from m falls as m^-(alpha - 1)
    np.testing.assert_allclose(slopes.alpha_m_pred, [0.5, 1.0], atol=0.03)


# --- survey ------------------------------------------------------------------------------------
def _record(label, X, bins=2000):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    c = (U @ U.T)[np.triu_indices(len(U), 1)]
    counts, _ = np.histogram(c, bins=bins, range=(-1, 1))
    return {
        "label": label,
        "d_model": X.shape[1],
        "mean": c.mean(),
        "var": c.var(),
        "mean_sq": np.mean(c**2),
        "hist_counts": counts.tolist(),
        "quant": "f32",
        "tied": True,
        "tensor": "w",
        "vocab_size": len(X),
    }


def test_overlap_table_splits_the_mean_square_into_variance_and_squared_mean():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 8)) + 0.7
    t = fsurvey.overlap_table([_record("a", X)], {})
    r = t.iloc[0]
    assert r["E[cos²]"] == pytest.approx(r["Var(cos)"] + r["μ²"], rel=1e-12)
    assert r["m E[cos²]"] == pytest.approx(8 * r["E[cos²]"]) and r["kind"] == "LM head"


def test_histogram_density_integrates_to_one_and_keeps_the_mean():
    rng = np.random.default_rng(1)
    rec = _record("a", rng.standard_normal((80, 16)))
    h = fsurvey.histogram_density(rec, bins_out=200)
    assert len(h) == 200
    width = 2.0 / 200
    assert float(h.density.sum() * width) == pytest.approx(1.0, rel=1e-12)
    assert float((h.cos * h.density).sum() * width) == pytest.approx(rec["mean"], abs=width / 2)
    assert Histogram(rec["hist_counts"], -1.0, 1.0).bins == 2000


def test_loglog_slope_and_its_refusal_with_two_widths():
    assert fsurvey.loglog_slope([10, 20, 40], [0.1, 0.05, 0.025]) == pytest.approx(-1.0)
    assert fsurvey.loglog_slope([10, 20, 20], [0.1, 0.05, 0.05]) is None


# --- packing -----------------------------------------------------------------------------------
def test_packing_tables_match_direct_pair_counts():
    rng = np.random.default_rng(2)
    V = rng.standard_normal((3, 40))
    V /= np.linalg.norm(V, axis=0, keepdims=True)
    stats = packing.pair_stats(torch.from_numpy(V[None]), n_bins=50)
    run = stats.to_dict()  # in the shape of a sweep result
    c = np.abs((V.T @ V)[np.triu_indices(40, 1)])
    assert run["eps_star"] == pytest.approx(c.max(), abs=1e-6)
    assert run["max_angle_deg"] == pytest.approx(math.degrees(math.acos(c.max())), abs=1e-3)
    assert run["n_pairs"] == 40 * 39 / 2
    assert run["n_above"]["0.9"] == (c > 0.9).sum()
    runs = {"random": run}
    s = fpack.summary(runs).iloc[0]
    assert s["mean |cos|"] == pytest.approx(c.mean(), rel=1e-5)
    h = fpack.angle_histograms(runs)
    assert h.share_of_pairs.sum() == pytest.approx(1.0)
    counts = fpack.parallel_counts(runs)
    assert counts[counts.level == "|cos| > 0.9"].pairs.item() == (c > 0.9).sum()


def test_flattening_step_finds_where_the_angle_stops_improving():
    steps = np.arange(0, 1001, 10)
    angles = np.minimum(steps / 5.0, 100.0)  # rises until step 500, flat after
    assert fpack.flattening_step(steps, angles) == 500.0
    assert fpack.flattening_step(steps, steps / 5.0) is None


# --- every figure's data comes from a figdata function ----------------------------------------
import ast  # noqa: E402
from pathlib import Path  # noqa: E402

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.py"))
#: Figures whose data may come from elsewhere, each with its reason.  Empty: every figure's table is
#: made by a tested repcap.book.figdata function.
FIGDATA_ALLOWED: dict[str, str] = {}


def _figdata_aliases(tree: ast.Module) -> set[str]:
    """Names bound to repcap.book.figdata or one of its modules by the notebook's imports."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("repcap.book.figdata"):
            out |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "repcap":
            out |= {a.asname or a.name for a in node.names if a.name == "figdata"}
    return out


def _is_figdata_call(node: ast.AST, aliases: set[str]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    while isinstance(f, ast.Attribute):
        f = f.value
    return isinstance(f, ast.Name) and f.id in aliases


def _bindings(tree: ast.Module) -> dict[str, list[ast.AST]]:
    """Every value assigned to each plain name (tuple targets give the whole call)."""
    out: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                names = [t] if isinstance(t, ast.Name) else (t.elts if isinstance(t, ast.Tuple) else [])
                for n in names:
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, []).append(node.value)
    return out


def figure_data_sources(source: str) -> dict[str, bool]:
    """``{fig id: whether its data is a figdata call, or a name only ever bound to figdata calls}``."""
    tree = ast.parse(source)
    aliases, binds = _figdata_aliases(tree), _bindings(tree)
    out = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "save"):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "figures") or len(node.args) < 3:
            continue
        fid = node.args[0]
        if not (isinstance(fid, ast.Constant) and str(fid.value).startswith("fig-")):
            continue
        # save(fig_id, table, meta, draw=...) draws from the table; save(fig_id, fig, data, meta) ships data
        data = node.args[1] if any(k.arg == "draw" for k in node.keywords) else node.args[2]
        ok = _is_figdata_call(data, aliases) or (
            isinstance(data, ast.Name)
            and bool(binds.get(data.id))
            and all(_is_figdata_call(v, aliases) for v in binds[data.id])
        )
        out[str(fid.value)] = ok
    return out


def test_the_figure_data_rule_sees_ad_hoc_tables():
    src = (
        "from repcap.book import figures\nfrom repcap.book.figdata import survey as fd\nimport pandas as pd\n"
        "a = fd.model_table(r)\nfigures.save('fig-a', fig, a, {})\n"
        "figures.save('fig-b', fig, fd.histogram_panels(r), {})\n"
        "figures.save('fig-c', fig, pd.DataFrame(rows), {})\n"
        "b = fd.model_table(r)\nb = b[['x']]\nfigures.save('fig-d', fig, b, {})\n"
        "figures.save('fig-e', fig, a[['x']], {})\n"
        "figures.save('fig-f', a, {}, draw=d.x)\nfigures.save('fig-g', pd.DataFrame(rows), {}, draw=d.x)\n"
    )
    found = figure_data_sources(src)
    assert found == {"fig-a": True, "fig-b": True, "fig-c": False, "fig-d": False, "fig-e": False} | {
        "fig-f": True,
        "fig-g": False,
    }


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_takes_its_data_from_a_figdata_function(nb):
    found = figure_data_sources(nb.read_text(encoding="utf-8"))
    assert found, f"{nb.name} saves no figure"
    bad = sorted(f for f, ok in found.items() if not ok and f not in FIGDATA_ALLOWED)
    assert not bad, f"{nb.name}: figure tables assembled in the notebook, not by repcap.book.figdata: {bad}"


def test_every_figure_is_counted():
    ids = [f for nb in NOTEBOOKS for f in figure_data_sources(nb.read_text(encoding="utf-8"))]
    # fig-scaling-contrast: Fig. 1b's idea on the reference models (liu-contrast); fig-frontier-eps-vs-k and
    # fig-frontier-best-known: the achievable frontier (chapter 11); fig-repro-shared-points: one point on two
    # machines (chapter 12); fig-scaling-seeds: the seed sets searched for single-model outliers (issue 36)
    assert len(ids) == len(set(ids)) == 41


# --- the tables moved out of the chapters ------------------------------------------------------
def test_random_vector_tables_against_their_closed_forms():
    from scipy import stats

    from repcap.book.figdata import random as frand

    dens = frand.cosine_densities([5, 40], 300, seed=1, device="cpu", bins=40, points=11)
    for d in (5, 40):
        ex = dens[(dens.d == d) & (dens.kind == "exact")]
        # (1 + t) / 2 ~ Beta((d-1)/2, (d-1)/2): f(t) = beta.pdf((1+t)/2) / 2
        np.testing.assert_allclose(ex.density, stats.beta.pdf((1 + ex.t) / 2, (d - 1) / 2, (d - 1) / 2) / 2, rtol=1e-9)
        me = dens[(dens.d == d) & (dens.kind == "measured")]
        assert len(me) == 40 and me.density.sum() * (2 / 40) == pytest.approx(1.0)
    sig = frand.sigma_table([16, 256], 400, seed=0, device="cpu")
    np.testing.assert_allclose(sig.measured_std, 1 / np.sqrt(sig.d), rtol=0.05)  # sigma = 1/sqrt(d) exactly
    np.testing.assert_allclose(sig.eps_mu_2sigma, sig.measured_mean + 2 * sig.measured_std)
    tr = frand.max_cos_trials([32], [50, 200], 3, seed=0, device="cpu")
    assert len(tr) == 6 and tr.max_abs_cos.between(0, 1).all()
    summ = frand.max_cos_summary(tr)
    assert summ.loc[summ.k == 200, "mean"].item() == pytest.approx(tr[tr.k == 200].max_abs_cos.mean())
    jl = frand.jl_distortions(40, 200, [32, 128], seed=0, device="cpu")
    assert (jl.worst_distortion >= jl.q99_distortion).all() and (jl.q99_distortion >= jl.mean_distortion).all()
    assert jl.worst_distortion.iloc[1] < jl.jl_guarantee.iloc[1]  # below the guarantee where there is one
    assert np.isnan(jl.jl_guarantee.iloc[0])  # k = 32 is too few dimensions for any guarantee at N = 40


def _record(label, X, **extra):
    from repcap.engines.survey import describe

    return {**describe(label, embedding=_emb(X), tiled=True, device="cpu", progress=False), "label": label, **extra}


def _emb(X):
    from repcap.models.matrix import Embedding

    return Embedding(torch.as_tensor(X, dtype=torch.float32), "x", "npy", None, None, "F32")


def test_survey_tables_moved_out_of_the_chapters():
    from repcap.engines import laws

    rng = np.random.default_rng(0)
    a, b = _record("a", rng.standard_normal((80, 6))), _record("a (head)", rng.standard_normal((80, 6)) + 0.3)
    panels = fsurvey.histogram_panels([a, b])
    for _, g in panels.groupby("model"):
        assert g.density.sum() * 0.01 == pytest.approx(1.0)  # 200 bins of width 0.01
    assert set(panels.eps) == {a["eps"], b["eps"]}
    heads = fsurvey.head_histograms(
        {"a": a, "a (head)": b}, [("a", "a (head)")], {"a": "embedding", "a (head)": "head"}
    )
    assert list(dict.fromkeys(heads.matrix)) == ["embedding (F32)", "head (F32)"]
    thr = fsurvey.threshold_table([a], ["0.95", "0.99"])
    assert list(thr.threshold) == ["μ+2σ", "μ+3σ", "q0.95 of |cos|", "q0.99 of |cos|"]
    C, A, B, Cc = (laws.PUBLISHED["four"].constants[x] for x in "Cabc")
    for r in thr.itertuples():  # log10 k = (ln d + (eps^2 d^c / C)^(1/b)) / a / ln 10, by hand
        want = (math.log(6) + (r.eps**2 * 6**Cc / C) ** (1 / B)) / A / math.log(10)
        assert r.log10_capacity_four == pytest.approx(want, rel=1e-12)
    curves = fsurvey.capacity_curves({"four": "four"}, [0.05, 0.1], 100)
    assert curves.log10_capacity.tolist() == pytest.approx(
        [(math.log(100) + (e**2 * 100**Cc / C) ** (1 / B)) / A / math.log(10) for e in (0.05, 0.1)]
    )
    ho = fsurvey.head_overlaps([a, {**b, "source_kind": "synthetic"}])
    assert ho.source.tolist() == ["stand-in (random)", "stand-in (random)"]
    np.testing.assert_allclose(ho.m_times_overlap, [a["mean_sq"] * 6, b["mean_sq"] * 6])
    both = fsurvey.toy_and_heads(pd.DataFrame({"m": [10], "mean_sq_overlap": [0.1]}), ho)
    assert both.model.tolist() == ["toy", "a", "a (head)"]
    ov = fsurvey.overlap_table([a], {})
    pts = fsurvey.overlap_points(ov, 5.0, 100.0)
    assert pts.paper_low.item() == pytest.approx(5 / 6) and pts.paper_high.item() == pytest.approx(100 / 6)


def test_packing_tables_moved_out_of_the_chapters():
    from types import SimpleNamespace as P

    from repcap.engines import bounds, laws

    guha = pd.DataFrame({"k": [100, 200], "d": [8, 8], "eps_star": [0.5, 0.6]})
    found = [
        P(config={"k": 200, "d": 8, "steps": 5, "loss": "power"}, result={"eps_star": 0.66, "p": 12.0}),
        P(config={"k": 300, "d": 8, "steps": 5, "loss": "power"}, result={"eps_star": 0.7}),
    ]
    cells = fpack.reference_cells(found, guha)
    assert cells["relative gap"].iloc[0] == pytest.approx(0.66 / 0.6 - 1) and np.isnan(cells["relative gap"].iloc[1])
    assert fpack.reference_cells_figure(cells.iloc[:0], guha)["ε* (Guha's data)"].tolist() == [0.5, 0.6]
    grid = pd.DataFrame({"k": [100], "d": [8], "eps_star": [0.5], "eps_random": [0.7]})
    gp = fpack.grid_points(grid, laws.PUBLISHED["adjusted"], n_k=3)
    lb = gp[gp.series == "rigorous lower bound"]
    assert lb.eps.tolist() == pytest.approx([float(bounds.coherence_lower_bound(100, 8))] * 3)  # one k: geomspace of 1
    proj = pd.DataFrame({"N": [1000], "k": [50], "kind": ["gaussian"], "C": [3.0]})
    cdf = fpack.yoder_constants(grid, proj)
    assert cdf.C.tolist() == pytest.approx([0.5**2 * 8 / math.log(100), 0.7**2 * 8 / math.log(100), 3.0])
    assert cdf.ratio.tolist() == pytest.approx([12.5, 12.5, 20.0])
    cap = fpack.capacity_by_angle(100, [1.0, 5.0], laws.PUBLISHED["adjusted"])
    welch = cap[cap.curve == "Welch bound (rigorous)"]
    eps = np.sin(np.radians([1.0, 5.0]))
    np.testing.assert_allclose(welch.eps, eps)
    np.testing.assert_allclose(welch.log10_k, bounds.welch_log_capacity(100, eps) / math.log(10))
    assert fpack.shown_widths([*range(12, 0, -1), 5]) == [1, 3, 5, 7, 9, 11]  # every (12 // 5)-th distinct width
    runs = [P(config={"loss": "exp", "steps": 10}, result={}), P(config={"loss": "exp", "steps": 40}, result={})]
    assert fpack.longest_exp_run(runs + [P(config={"loss": "power", "steps": 99}, result={})]) is runs[1]
    assert fpack.longest_exp_run([]) is None
    # two reference runs: each curve named by its loss, the power run's exponent kept, the best angle
    # the largest along the curve (cos 0.5 is 60 degrees, cos 0.25 is 75.52 degrees)
    curve = {"curve_steps": [0, 10, 20], "loss_curve": [4.0, 2.0, 1.0]}
    pw = P(
        config={"loss": "power", "steps": 20, "k": 9, "d": 3, "lr": 0.005},
        result=curve | {"eps_curve": [0.5, 0.25, 0.3], "p": 8, "max_angle_deg": math.degrees(math.acos(0.3))},
    )
    ex = P(
        config={"loss": "exp", "steps": 20, "k": 9, "d": 3, "lr": 0.001},
        result=curve | {"eps_curve": [0.5, 0.4, 0.35], "p": None, "max_angle_deg": math.degrees(math.acos(0.35))},
    )
    rc = fpack.reference_curves([ex, pw])
    assert rc.groupby("loss").size().to_dict() == {"exp": 3, "power": 3}
    assert rc[rc.loss == "power"].p.tolist() == [8, 8, 8] and rc[rc.loss == "exp"].p.isna().all()
    assert rc[rc.loss == "power"].loss_relative.tolist() == pytest.approx([1.0, 0.5, 0.25])
    ba = fpack.best_angles([ex, pw]).set_index("loss")
    assert ba.loc["power", "best_angle_deg"] == pytest.approx(math.degrees(math.acos(0.25)))
    assert ba.loc["power", "best_step"] == 10
    assert ba.loc["power", "final_angle_deg"] == pytest.approx(72.542, abs=1e-3)
    assert ba.loc["exp", "best_angle_deg"] == pytest.approx(math.degrees(math.acos(0.35)))
    assert fpack.reference_curves([]).empty
    assert ba.schedule.tolist() == ["fixed", "fixed"]
    decayed = P(config=ex.config | {"lr_floor": 0.0, "lr": 0.005}, result=ex.result)
    assert fpack.best_angles([decayed]).schedule.tolist() == ["cosine to 0"]
    assert fpack.best_angles([]).final_angle_deg.tolist() == []
    assert fpack.rate_schedule({"lr_floor": 0.1}) == "cosine to 0.1×"


def test_toy_tables_moved_out_of_the_chapters():
    from types import SimpleNamespace as P

    from repcap.evidence import reference

    n = 50
    df = pd.DataFrame(
        {
            "regime": ["strong", "strong", "weak"],
            "m": [5, 10, 5],
            "alpha": [1.0] * 3,
            "mean_sq_overlap": [0.2, 0.1, 0.3],
        }
    )
    st = ftoy.strong_overlaps(df, n)
    np.testing.assert_allclose(st.welch, [(n - m) / (m * (n - 1)) for m in (5, 10)])  # Welch's mean-square bound
    claims = ftoy.strong_claims()
    assert claims == {0.5: "a05", 1.0: "a10", 1.5: "a15", 2.0: "a20"}
    ids = set(reference.claims())
    assert all(f"liu-strong-{k}" in ids for k in claims.values())
    h = ftoy.norm_histograms([("w", [0.1, 0.2, 1.0]), ("s", [0.9, 1.0, 1.1])], np.linspace(0, 2, 5))
    assert h.groupby("regime", sort=False)["count"].sum().tolist() == [3, 3]
    f = ftoy.feature_norms([1.0] * 4, [0.5] * 4, 4, 1.0, 2)
    assert f.m.tolist() == [2] * 8
    np.testing.assert_allclose(f.p[:4], _power(4, 1.0), rtol=1e-6)
    assert ftoy.represented([0.5, 0.51]).tolist() == [False, True]
    ref = ftoy.reference_points(
        [P(config=dict(n=9, m=3, alpha=1.0, gamma=-1.0, seed=0, steps=5), result={"loss": 0.1})]
    )
    assert ref.regime.tolist() == ["strong"] and ref.mean_sq_overlap.iloc[0] is None
    assert fscaling.reference_figure(ref.iloc[:0], pd.DataFrame()).note.tolist() == ["no reference points"]
    other = ftoy.other_losses(pd.DataFrame({"loss": range(4)}), ["exp", "linear"], [5, 10], [0])
    assert other.law.tolist() == ["exp", "exp", "linear", "linear"]


def test_the_reference_section_says_where_its_points_come_from():
    from types import SimpleNamespace as P

    from repcap.book.figdata import reference as fref

    empty = fref.section(None, "")
    assert empty.empty and empty.provenance == fref.NO_SET and empty.sidecar_provenance is None
    lookup = P(
        found=[P(config={"k": 1}, result={})],
        provenance_text=lambda s: f"points of the {s} set",
        provenance_markdown=lambda s: f"points of the {s} set, escaped",
    )
    sec = fref.section(lookup, "reference")
    assert not sec.empty and sec.sidecar_provenance == "points of the reference set"
    assert sec.provenance == "points of the reference set, escaped"  # the Markdown the chapter pastes
    assert sec.frame(lambda f: {"k": f.config["k"]}, ["k"]).k.tolist() == [1]
    assert empty.frame(lambda f: {}, ["k"]).columns.tolist() == ["k"]
    assert fref.placeholder().note.tolist() == [fref.PLACEHOLDER]
    assert fref.placeholder(line=["a"], angle_deg=[1.0]).columns.tolist() == ["line", "angle_deg"]


def test_layer_capacity_points():
    from repcap.book.figdata import layers as flayers

    recs = [
        {"label": "m", "kind": "embedding", "log10_capacity": {"four": 9.0}, "n_directions": 1000},
        {"label": "m", "kind": "mlp_out", "layer": 0},
    ]
    bl = pd.DataFrame(
        {
            "model": ["m"],
            "kind": ["mlp_out"],
            "layer": [0],
            "n": [100],
            "log10_capacity_four": [3.0],
            "log10_capacity_four_random": [2.5],
        }
    )
    pts = flayers.capacity_points(recs, bl, ["mlp_out", "attn_out"])
    assert pts.matrix.tolist() == ["embedding", "mlp_out"]
    assert pts.log10_n.tolist() == pytest.approx([3.0, 2.0])
    assert pts.log10_capacity_four.tolist() == [9.0, 3.0]
