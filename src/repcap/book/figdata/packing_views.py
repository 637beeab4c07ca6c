"""Chapter 6's tables and sentences beside its figures: the source's numbers against ours, the
reference runs at Yoder's size in words, and our number for his 76 degrees.  Each takes packing
results (:func:`repcap.engines.packing.sweep_packed`, one dict per loss), reference points (``config`` and
``result``) or the tables of :mod:`.packing`; angles are in degrees."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .packing import rate_words


def _deg(eps: float) -> float:
    return math.degrees(math.acos(eps))


def _side(x: float, of: float) -> str:
    return "below" if x < of else "above"


def yoder_exp_point(found: Sequence[Any], k: int, d: int) -> Any | None:
    """The exp-loss reference point of size (``k``, ``d``) with the most steps (None if none)."""
    return max(
        (f for f in found if f.config.get("loss") == "exp" and (f.config.get("k"), f.config.get("d")) == (k, d)),
        key=lambda f: f.config["steps"],
        default=None,
    )


def reported_vs_reproduced(
    runs: Mapping[str, Mapping[str, Any]],
    *,
    k: int,
    d: int,
    law_eps: float,
    yoder_k: int,
    yoder_d: int,
    yoder_angle: Any,
    law_eps_yoder: float,
    reference_exp: Any | None = None,
) -> pd.DataFrame:
    """Yoder's reported worst-pair angle (``yoder_angle``: a quote, its ``value`` and ``cite``) at his
    size next to ours: this profile's exp run where it ran his size, else ``reference_exp`` (a
    reference point, :func:`yoder_exp_point`), else NaN; the four-constant law's angle at his size
    and at ours (``law_eps*``); each of our runs' worst-pair angle at (``k``, ``d``)."""
    full_size = (k, d) == (yoder_k, yoder_d)
    ours = (
        runs["exp"]["max_angle_deg"]
        if "exp" in runs and full_size
        else reference_exp.result["max_angle_deg"]
        if reference_exp is not None
        else np.nan
    )
    law = "— (our evaluation of Guha's law)"
    return pd.DataFrame(
        [
            {
                "what": "exp loss, worst-pair angle (deg)"
                + ("" if full_size or reference_exp is None else " (the reference run, below)"),
                "k x d": f"{yoder_k:,} x {yoder_d}",
                "source's value": f"{yoder_angle.value:g} (reported, {yoder_angle.cite})",
                "ours": ours,
            },
            {"what": "four-constant law angle (deg)", "k x d": f"{yoder_k:,} x {yoder_d}", "source's value": law}
            | {"ours": _deg(law_eps_yoder)},
            {"what": "four-constant law angle (deg)", "k x d": f"{k:,} x {d}", "source's value": law}
            | {"ours": _deg(law_eps)},
            *[
                {
                    "what": f"{loss} loss, worst-pair angle (deg)",
                    "k x d": f"{k:,} x {d}",
                    "source's value": "—",
                    "ours": r["max_angle_deg"],
                }
                for loss, r in runs.items()
            ],
        ]
    )


def exp_gap_to_law(runs: Mapping[str, Mapping[str, Any]], law_eps: float) -> float:
    """The exp run's worst-pair angle minus the law's angle ``arccos law_eps`` (NaN without it)."""
    return runs["exp"]["max_angle_deg"] - _deg(law_eps) if "exp" in runs else float("nan")


def gap_words(gap: float) -> str:
    """``gap`` (:func:`exp_gap_to_law`) in words: how many degrees below or above."""
    return f"{abs(gap):.1f} degrees {_side(gap, 0)}" if math.isfinite(gap) else "an unknown number of degrees from"


def abs_relu_points(found: Sequence[Any]) -> list:
    """The abs-relu reference points among ``found``, in their order."""
    return [p for p in found if p.config.get("loss") == "abs-relu"]


def trap_words(point: Any | None, set_name: str) -> str:
    """Yoder's 99% solution and its trap at one abs-relu reference point's size: its share of
    orthogonal pairs against 1 - 1/d and its nearly parallel pairs against a collapse onto d
    directions, d C(k/d, 2); without a point, how to compute it (``set_name``: the point set)."""
    if point is None:
        return (
            "the abs-relu run at this size is not in this build's bundle yet "
            f"(`repcap bundle compute {set_name} --only yoder-losses`)"
        )
    r, k, d = point.result, int(point.config["k"]), int(point.config["d"])
    return (
        f"under the abs-relu loss {r['n_orthogonal'] / r['n_pairs']:.2%} of the pairs end orthogonal "
        f"(|cos| < 0.01) against Yoder's 1 − 1/d = {1 - 1 / d:.2%}, and {r['n_above']['0.9']:,.0f} pairs "
        f"end with |cos| > 0.9 against the {d * math.comb(k // d, 2):,} of a collapse onto d directions"
    )


def loss_sentences(best: pd.DataFrame, yoder_angle: float, bound_angle: float) -> str:
    """One clause per reference run (a row of :func:`repcap.book.figdata.packing.best_angles`): its loss,
    rate and steps, the angle it ends at and the best it reached, against Yoder's angle and the bound."""
    return "; ".join(
        f"under the {r.loss} loss{f' (p = {r.p:g})' if r.loss == 'power' else ''}, Adam {rate_words(r)} "
        f"for {r.steps:,} steps, the worst pair ends at {r.final_angle_deg:.2f}° (best "
        f"{r.best_angle_deg:.2f}°, at step {r.best_step:,}), {abs(r.best_angle_deg - yoder_angle):.2f}° "
        f"{_side(r.best_angle_deg, yoder_angle)} Yoder's {yoder_angle:g}° and "
        f"{bound_angle - r.best_angle_deg:.2f}° below the rigorous bound"
        for r in best.itertuples()
    )


def reference_summary(
    curve: pd.DataFrame | None,
    final_angle: float,
    flat: float | None,
    *,
    yoder_angle: float,
    law_angle: float,
    bound_angle: float,
) -> str:
    """The exp reference run in one sentence: its start and end (``curve``:
    :func:`repcap.book.figdata.packing.reference_curve`; ``final_angle``: its result's worst-pair angle)
    against Yoder's angle, the law and the bound, and where it flattens (``flat``:
    :func:`repcap.book.figdata.packing.flattening_step`).  Without a curve: that it is not shown."""
    if curve is None:
        return "not shown in this build, which has no reference run."
    gap = final_angle - yoder_angle
    return (
        f"from {curve.angle_deg.iloc[0]:.1f}° at the random start it reaches {final_angle:.2f}° after "
        f"{int(curve.step.iloc[-1]):,} steps, {abs(gap):.2f}° {_side(gap, 0)} Yoder's "
        f"{yoder_angle:g}° and {abs(final_angle - law_angle):.2f}° "
        f"{_side(final_angle, law_angle)} the four-constant law's "
        f"{law_angle:.1f}°, while no packing of this size can exceed {bound_angle:.1f}° (the "
        "Welch and Levenshtein bounds); "
        + (
            f"the curve flattens (less than 0.05° gained over the next tenth of the run) from step {flat:,.0f}."
            if flat is not None
            else "it is still rising at the end of the run."
        )
    )


def yoder_76_degrees(
    final_angle: float,
    curve: pd.DataFrame,
    flat: float | None,
    annealed: pd.DataFrame,
    others: pd.DataFrame,
    *,
    lr: float,
    yoder_angle: float,
    bound_angle: float,
    **where: Any,
) -> dict[str, dict[str, Any]]:
    """``yoder-76-degrees`` from the reference runs at his size (keyword arguments of
    :func:`repcap.evidence.findings.record`): our best exp packing, the fixed-rate run (``final_angle``, its
    ``curve`` and rate ``lr``) or a decaying-rate one (``annealed``:
    :func:`repcap.book.figdata.packing.best_angles`) where it ends higher.  Where the fixed-rate run
    flattens (``flat``), the note says where it then jitters, what the decaying rate and the other
    losses (``others``, best angles; the abs-relu run's collapse is the trap's) reach."""
    note = ""
    if flat is not None:
        late = curve.angle_deg[curve.step >= flat]
        aimed = [r for r in others.itertuples() if r.loss != "abs-relu"]  # abs-relu collapses: the trap's rows
        annealed_words = "; ".join(
            f"with the rate decaying from {r.lr:g} ({r.schedule}) over {r.steps:,} steps it ends at "
            f"{r.final_angle_deg:.2f}°"
            for r in annealed.itertuples()
        )
        note = (
            f"our fixed-rate run flattens from step {flat:,.0f} and then only jitters between {late.min():.1f}° and "
            f"{late.max():.1f}° (Adam at a fixed rate {lr:g}), {yoder_angle - late.max():.1f}° "
            f"short of his angle, which the bound ({bound_angle:.1f}°) allows; Yoder gives no step count, rate or "
            "schedule; "
            + (annealed_words or "a decaying rate is not computed here yet")
            + "; "
            + (
                "; ".join(f"the {r.loss} loss at this size reaches {r.best_angle_deg:.2f}°" for r in aimed)
                if aimed
                else "the power loss at this size is not computed here yet"
            )
        )
    return {
        "yoder-76-degrees": {
            "value": max([float(final_angle), *annealed.final_angle_deg.tolist()]),
            "figure": "fig-packing-reference",
            "interval": "one run",
            "n": 1 + len(annealed),
            "n_of": "runs, the larger shown",
            "note": note,
            **where,
        }
    }


def zoom_words(
    final_angle: float | None,
    others: pd.DataFrame,
    *,
    yoder_angle: float,
    law_angle: float,
    bound_angle: float,
    zoom: tuple[float, float],
) -> str:
    """What panel (b) of the reference figure enlarges (the band ``zoom``): where the exp run ends
    (``final_angle``; None without it) and the other losses' runs (``others``, best angles; not the
    collapsed abs-relu one), against Yoder's angle, the bound and the law."""
    band = f" Panel (b) enlarges {zoom[0]:g}–{zoom[1]:g}°"
    if final_angle is None:
        return band + ", where Yoder's angle, the law and the bound lie."
    others_end = "".join(
        f"; the {r.loss} run ends at {r.final_angle_deg:.2f}°" for r in others.itertuples() if r.loss != "abs-relu"
    )
    return (
        f"{band}: the exp run ends at {final_angle:.2f}°, "
        f"{yoder_angle - final_angle:.2f}° short of Yoder's {yoder_angle:g}°{others_end}; "
        "Yoder's angle lies "
        f"{'above' if yoder_angle > bound_angle else 'below'} the rigorous bound "
        f"({bound_angle:.2f}°) and {abs(yoder_angle - law_angle):.2f}° "
        f"{'above' if yoder_angle > law_angle else 'below'} the law ({law_angle:.2f}°)."
    )


__all__ = [
    "abs_relu_points",
    "exp_gap_to_law",
    "gap_words",
    "loss_sentences",
    "reference_summary",
    "reported_vs_reproduced",
    "trap_words",
    "yoder_76_degrees",
    "yoder_exp_point",
    "zoom_words",
]


def minimax_words(found: Sequence[Any], yoder_angle: float, bound_angle: float, adam_angle: float | None) -> str:
    """Our minimax method's run at Yoder's size (the reference set's ``yoder-minimax``) in one clause:
    its worst-pair angle against Yoder's, the best Adam run's (``adam_angle``, None where the bundle
    holds none) and the rigorous bound; or that the bundle does not hold it yet."""
    if not found:
        return (
            "our minimax method's run at his size is not in this bundle yet "
            "(`repcap bundle compute reference --only yoder-minimax`)"
        )
    r = found[0].result
    angle = _deg(float(r["eps_star"]))
    adam = f", {abs(angle - adam_angle):.2f}° {_side(angle, adam_angle)} the best Adam run's" if adam_angle else ""
    steps = len(r["schedule"]) * int(r["steps"])
    return (
        f"our minimax method (ours: {r['restarts']} start, {steps:,} steps of the continuation in p) reaches "
        f"{angle:.2f}°, {abs(angle - yoder_angle):.2f}° {_side(angle, yoder_angle)} Yoder's {yoder_angle:g}°{adam} "
        f"and {bound_angle - angle:.2f}° below the rigorous bound"
    )
