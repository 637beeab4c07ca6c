"""Tables of the toy model's sweeps (DataFrames from :func:`repcap.engines.toy.run_sweep`): width exponents
per regime and frequency exponent, and the weak-regime prediction from the unlearned features."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from repcap.engines import toy
from repcap.engines.fits import fit_exponent
from repcap.engines.toy.measurements import REPRESENTED_NORM


def left_out_loss(df: pd.DataFrame, n: int, threshold: float | None = None) -> list[float]:
    """For each trained model (a row with ``norms``), the loss its left-out features carry: those
    with ``||W_i|| <= threshold`` (default the engine's represented norm, 1/2; Liu, Liu & Gore 2025's
    weak-regime account of the loss)."""
    threshold = REPRESENTED_NORM if threshold is None else threshold
    return [
        toy.unlearned_loss(toy.frequencies(n, "power", a), np.asarray(nr) > threshold)
        for a, nr in zip(df["alpha"], df["norms"])
    ]


def exponent_fits(df: pd.DataFrame, by: Sequence[str] = ("regime", "alpha"), m_min: float = 0) -> pd.DataFrame:
    """``loss ~ A m^-alpha_m`` fitted per group of ``by`` over the widths ``m >= m_min``, with the 95%
    interval (:func:`repcap.engines.fits.fit_exponent`)."""
    rows = []
    for key, d in df.groupby(list(by), sort=False):
        d = d[d["m"] >= m_min]
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key)), **fit_exponent(d["m"], d["loss"]).as_dict()})
    return pd.DataFrame(rows)


def unlearned_prediction(n: int, alphas: Sequence[float], ms: Sequence[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The weak-regime ideal (keep exactly the m most frequent features): its loss at each (alpha, m)
    and the width exponent fitted to it over the same widths."""
    pred = pd.DataFrame(
        [
            {"alpha": a, "m": m, "unlearned_loss": toy.unlearned_loss(toy.frequencies(n, "power", a), m)}
            for a in alphas
            for m in ms
        ]
    )
    slopes = pd.DataFrame(
        [
            {"alpha": a, "alpha_m_pred": fit_exponent(d["m"], d["unlearned_loss"]).alpha_m}
            for a, d in pred.groupby("alpha")
        ]
    )
    return pred, slopes


# ------------------------------------------------------------------------------ chapter 08 (two regimes)


def phi_table(df: pd.DataFrame, m: int, n: int) -> pd.DataFrame:
    """The represented fraction phi_1/2, the loss and the represented count of each (alpha, gamma),
    with the width ``m`` and the feature count ``n`` (the figure's m/n line)."""
    return df[["alpha", "gamma", "phi_half", "loss", "n_represented"]].assign(m=m, n=n)


def fig3_views(df: pd.DataFrame, by_width: pd.DataFrame | None, m: int) -> pd.DataFrame:
    """The two views of Liu et al.'s Fig. 3: phi_1/2 over alpha and gamma at width ``m`` (``view="map"``)
    and, where run, against gamma for several widths (``view="φ½ against γ"``)."""
    parts = [df[["alpha", "gamma", "phi_half"]].assign(m=m, view="map")]
    if by_width is not None:
        parts.append(by_width[["alpha", "gamma", "phi_half", "m"]].assign(view="φ½ against γ"))
    return pd.concat(parts, ignore_index=True)


def norm_histograms(models: Sequence[tuple[str, Sequence[float]]], bins: Sequence[float]) -> pd.DataFrame:
    """The row-norm histogram (:func:`repcap.engines.toy.norm_histogram`) of each ``(label, norms)``."""
    rows = []
    for label, norms in models:
        counts, edges = toy.norm_histogram(norms, bins=bins)
        rows += [
            {"regime": label, "bin_left": lo, "bin_right": hi, "count": int(k)}
            for lo, hi, k in zip(edges[:-1], edges[1:], counts)
        ]
    return pd.DataFrame(rows)


def feature_norms(weak: Sequence[float], strong: Sequence[float], n: int, alpha: float, m: int) -> pd.DataFrame:
    """Row norm and frequency p_i of every feature, by frequency rank, in the weak and strong model,
    with the width ``m`` (the figure's i = m line)."""
    rank = np.arange(1, n + 1)
    return pd.DataFrame(
        {
            "rank": np.concatenate([rank, rank]),
            "regime": ["weak"] * n + ["strong"] * n,
            "norm": np.concatenate([weak, strong]),
            "p": np.concatenate([toy.frequencies(n, "power", alpha).numpy()] * 2),
        }
    ).assign(m=m)


def represented(norms: Sequence[float]) -> np.ndarray:
    """Which rows count as represented: ``||W_i|| > 1/2`` (the engine's :data:`REPRESENTED_NORM`)."""
    return np.asarray(norms) > REPRESENTED_NORM


# ------------------------------------------------------------------------------ chapter 09 (width scaling)


def strong_claims() -> dict[float, str]:
    """``{alpha: claim key}`` of the strong-regime exponents Liu et al.'s Fig. 6e gives (the claims
    ``liu-strong-<key>`` and quotes ``liu2025.strong_alpha_m_<key>``), read from data/reference."""
    from repcap.base import quotes

    prefix = "liu2025.strong_alpha_m_"
    keys = sorted(q[len(prefix) :] for q in quotes.quotes() if q.startswith(prefix))
    return {int(k[1:]) / 10: k for k in keys}


def fig6e_spread() -> dict[float, tuple[float, float]]:
    """``{alpha: (low, high)}``: where Fig. 6e's three strong series lie at each alpha (quotes
    ``liu2025.strong_alpha_m_<key>``)."""
    from repcap.base import quotes

    out = {}
    for a, key in strong_claims().items():
        q = quotes.quote(f"liu2025.strong_alpha_m_{key}")
        if q.low is not None and q.high is not None:
            out[a] = (q.low, q.high)
    return out


def loss_table(df: pd.DataFrame, prediction: pd.DataFrame) -> pd.DataFrame:
    """Each model's loss and left-out loss next to the weak-regime ideal at its (alpha, m)."""
    cols = ["regime", "gamma", "alpha", "m", "seed", "loss", "left_out_loss"]
    return df[cols].merge(prediction, on=["alpha", "m"], how="left")


def exponents_table(fits: pd.DataFrame, prediction_fits: pd.DataFrame) -> pd.DataFrame:
    """The fitted width exponents (:func:`exponent_fits`) next to the weak-regime prediction's."""
    return fits.merge(prediction_fits, on="alpha", how="left")


def strong_overlaps(df: pd.DataFrame, n: int) -> pd.DataFrame:
    """The strong-regime models' mean square overlap against 1/m, with the Welch bound on the mean
    square overlap of n unit vectors in R^m, ``(n - m) / (m (n - 1))`` (:func:`repcap.engines.bounds.welch_bound`
    squared)."""
    from repcap.engines.bounds import welch_bound

    strong = df[df["regime"] == "strong"].copy()
    strong["one_over_m"] = 1.0 / strong["m"]
    strong["welch"] = [float(welch_bound(n, m)) ** 2 for m in strong["m"]]
    return strong


def overlap_points(strong: pd.DataFrame) -> pd.DataFrame:
    """The points of the overlap figure (rows of :func:`strong_overlaps`)."""
    return strong[["alpha", "m", "one_over_m", "mean_sq_overlap", "welch"]]


def other_losses(df: pd.DataFrame, laws: Sequence[str], ms: Sequence[int], seeds: Sequence[int]) -> pd.DataFrame:
    """The runs with other frequency laws, each row named by its law (configs in law, m, seed order)."""
    out = df.copy()
    out["law"] = [name for name in laws for _ in ms for _ in seeds]
    return out


def other_points(df: pd.DataFrame) -> pd.DataFrame:
    """The points of the other-distributions figure (rows of :func:`other_losses`)."""
    return df[["law", "m", "seed", "loss", "mean_sq_overlap"]]


def reference_fits(rdf: pd.DataFrame) -> pd.DataFrame:
    """:func:`exponent_fits` of the reference points by regime and alpha, over the (regime, alpha)
    with at least 3 widths (an empty frame with the fit's columns where none has)."""
    enough = rdf.groupby(["regime", "alpha"])["m"].transform("nunique") >= 3 if len(rdf) else pd.Series(dtype=bool)
    if not bool(enough.any()):
        return pd.DataFrame(columns=["regime", "alpha", "alpha_m", "ci_low", "ci_high", "log_A"])
    return exponent_fits(rdf[enough], ("regime", "alpha"))


def other_fits(odf: pd.DataFrame, slope_ids: dict[str, str], m_min: float = 0) -> pd.DataFrame:
    """:func:`exponent_fits` per frequency law of :func:`other_losses`, over the paper's fit ranges
    (the exponential over every width, the others from ``m_min``), with the exp-17 slope the paper
    reports for each law (``alpha_m_reported``; ``slope_ids``: ``{law: quote id}``)."""
    from repcap.base import quotes

    out = pd.concat(
        [
            exponent_fits(odf[odf["law"] == law], ("law",), m_min=0 if law == "exp" else m_min)
            for law in dict.fromkeys(odf["law"])
        ],
        ignore_index=True,
    )
    out["alpha_m_reported"] = [-quotes.value(slope_ids[law]) for law in out["law"]]
    return out


def paper_table(
    fits: pd.DataFrame, pred_fits: pd.DataFrame, rfits: pd.DataFrame, ofits: pd.DataFrame, fig6e: dict[float, str]
) -> pd.DataFrame:
    """Chapter 9's table: this profile's exponent per (regime, alpha) with its interval, the
    reference models' exponent at the same (regime, alpha) where there is one, what the paper says
    (the theory line alpha - 1 for the weak regime, the spread of Fig. 6e's strong series, read from
    ``data/reference``) and the weak regime's finite-n prediction; then the other frequency laws
    against the reported exp-17 slopes (``ofits`` with ``alpha_m_reported``)."""
    from repcap.base import quotes

    def paper(reg: str, a: float) -> str:
        if reg == "weak":
            return f"{a - 1:.3g} (theory α − 1)" if a > 1 else "— (theory needs α > 1)"
        key = fig6e.get(float(a))
        if key:
            return f"{quotes.quote(f'liu2025.strong_alpha_m_{key}').text()} (Fig. 6e, three γ series)"
        return "≈ 1 (α ≤ 1)" if a <= 1 else "above 1, towards 2(α − 1) (Fig. 6e)"

    tab = fits.merge(pred_fits, on="alpha")
    ref = rfits.set_index(["regime", "alpha"]).alpha_m if len(rfits) else pd.Series(dtype=float)
    main = pd.DataFrame(
        {
            "regime": tab.regime,
            "alpha": tab.alpha,
            "ours α_m": tab.alpha_m,
            "95% CI": [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(tab.ci_low, tab.ci_high, strict=True)],
            "reference α_m (n = 1000)": [ref.get((r, a), np.nan) for r, a in zip(tab.regime, tab.alpha, strict=True)],
            "paper": [paper(r, float(a)) for r, a in zip(tab.regime, tab.alpha, strict=True)],
            "finite-n prediction": [
                f"{v:.3f}" if r == "weak" else "—" for r, v in zip(tab.regime, tab.alpha_m_pred, strict=True)
            ],
        }
    )
    others = pd.DataFrame(
        {
            "regime": "strong, " + ofits["law"],
            "ours α_m": ofits["alpha_m"],
            "95% CI": [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(ofits["ci_low"], ofits["ci_high"], strict=True)],
            "paper": [f"{v:.3f} (reported, exp-17)" for v in ofits["alpha_m_reported"]],
            "finite-n prediction": "—",
        }
    )
    return pd.concat([main, others], ignore_index=True)


REFERENCE_COLUMNS = ["n", "m", "alpha", "gamma", "seed", "steps", "loss", "mean_sq_overlap"]


def reference_points(found: Sequence[Any]) -> pd.DataFrame:
    """The reference toy models (bundle points) with their regime: ``n, m, alpha, gamma, seed, steps,
    loss, mean_sq_overlap, regime``."""
    rdf = pd.DataFrame(
        [
            {
                **{k: f.config[k] for k in ("n", "m", "alpha", "gamma", "seed", "steps")},
                "loss": f.result["loss"],
                "mean_sq_overlap": f.result.get("mean_sq_overlap"),
            }
            for f in found
        ],
        columns=REFERENCE_COLUMNS,
    )
    rdf["regime"] = np.where(rdf["gamma"] < 0, "strong", "weak")
    return rdf
