"""The tables chapter 6's figures of worst-pair curves ship: the runs' curves (:mod:`.packing`) with
the reference lines and marks drawn over them as rows of their own, so that a figure drawn from its
CSV alone (:func:`repcap.book.figures.save` with ``draw=``) shows every line it showed before."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .packing import curves

#: The ``loss`` of the rows of :func:`curves_figure` that are lines, not runs: the four-constant law's
#: angle at the run's size (with its ``k`` and ``d``) and Yoder's reported angle (at the run's last ``step``).
LAW_LINE = "four-constant law"
YODER_LINE = "Yoder (reported)"
#: The ``line`` of the rows of :func:`reference_figure` that are its reference lines and its mark.
REFERENCE_LINES = {
    "yoder_angle": "Yoder (reported)",
    "law_angle": "four-constant law (our evaluation)",
    "bound_angle": "rigorous bound",
}
FLATTENING = "flattening step"


def curves_figure(
    runs: Mapping[str, Mapping[str, Any]],
    *,
    law_angle: float,
    k: int,
    d: int,
    yoder: tuple[float, float] | None = None,
) -> pd.DataFrame:
    """:func:`repcap.book.figdata.packing.curves` of ``runs`` with a :data:`LAW_LINE` row (``angle_deg``
    the law's angle at ``k``, ``d``) and, given ``yoder = (angle, last step)``, a :data:`YODER_LINE` row."""
    rows = [{"loss": LAW_LINE, "angle_deg": law_angle, "k": k, "d": d}]
    if yoder is not None:
        rows.append({"loss": YODER_LINE, "step": yoder[1], "angle_deg": yoder[0]})
    return pd.concat([curves(runs), pd.DataFrame(rows)], ignore_index=True)


def reference_figure(
    exp_curve: pd.DataFrame | None,
    others: Sequence[pd.DataFrame],
    *,
    flat: float | None,
    yoder_angle: float,
    law_angle: float,
    bound_angle: float,
) -> pd.DataFrame:
    """The reference figure's table: the exp run's :func:`repcap.book.figdata.packing.reference_curve`
    (``run`` 0; None: there is none) and the others' (``run`` 1, 2, ...), then one row per reference
    line (``line``: :data:`REFERENCE_LINES`, at ``angle_deg``) and, given ``flat``, the exp run's
    :data:`FLATTENING` step (``line`` and ``step``)."""
    parts = [exp_curve.assign(run=0)] if exp_curve is not None else []
    parts += [c.assign(run=i) for i, c in enumerate(others, start=1)]
    angles = {"yoder_angle": yoder_angle, "law_angle": law_angle, "bound_angle": bound_angle}
    lines = [{"line": REFERENCE_LINES[key], "angle_deg": v, "run": math.nan} for key, v in angles.items()]
    if flat is not None:
        lines.append({"line": FLATTENING, "step": flat, "run": math.nan})
    return pd.concat([*parts, pd.DataFrame(lines)], ignore_index=True)


__all__ = ["FLATTENING", "LAW_LINE", "REFERENCE_LINES", "YODER_LINE", "curves_figure", "reference_figure"]
