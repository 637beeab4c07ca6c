"""The tables chapters 6 and 7 ship with their figures carry the lines and marks drawn over the data as
rows of their own (repcap.book.figdata.packing_figures, repcap.book.figdata.laws): what each adds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from repcap.book.figdata import laws as flaws
from repcap.book.figdata import packing as fpack
from repcap.book.figdata import packing_figures as ftables

RUN = {"curve_steps": [0, 10], "eps_curve": [0.5, 0.3], "loss_curve": [4.0, 2.0], "n_pairs": 45}


def test_curves_figure_adds_the_law_row_and_yoders_only_when_given():
    t = ftables.curves_figure({"exp": RUN}, law_angle=60.0, k=300, d=12)
    assert len(t) == 3 and t.loss.tolist() == ["exp", "exp", ftables.LAW_LINE]
    law = t.iloc[-1]
    assert (law.angle_deg, law.k, law.d) == (60.0, 300, 12)
    t = ftables.curves_figure({"exp": RUN}, law_angle=60.0, k=300, d=12, yoder=(76.5, 10))
    yoder = t[t.loss == ftables.YODER_LINE].iloc[0]
    assert (yoder.angle_deg, yoder.step) == (76.5, 10)


def test_reference_figure_numbers_the_runs_and_adds_the_lines_and_the_flattening_step():
    curve = fpack.curves({"exp": RUN})
    angles = {"yoder_angle": 76.5, "law_angle": 76.2, "bound_angle": 82.0}
    t = ftables.reference_figure(curve, [curve, curve], flat=10.0, **angles)
    assert t[t.line.isna()].run.tolist() == [0, 0, 1, 1, 2, 2]
    marks = t[t.line.notna()]
    assert marks.line.tolist() == [*ftables.REFERENCE_LINES.values(), ftables.FLATTENING]
    assert marks.angle_deg.iloc[:3].tolist() == [76.5, 76.2, 82.0] and marks.step.iloc[-1] == 10.0
    empty = ftables.reference_figure(None, [], flat=None, **angles)
    assert len(empty) == 3 and "run" in empty and empty.run.isna().all()


def test_parallel_counts_carry_each_runs_number_of_pairs():
    run = {"n_orthogonal": 3, "n_pairs": 45, "n_above": {"0.5": 2, "0.9": 1, "0.99": 0}}
    assert set(fpack.parallel_counts({"r": run}).n_pairs) == {45}


def test_the_law_figures_add_the_marked_constants_and_the_quoted_values():
    cdf = pd.DataFrame({"source": ["optimised packing"], "ratio": [2.0], "C": [0.4], "d": [8]})
    t = flaws.yoder_C_figure(cdf)
    marked = t[t.source == flaws.C_LINE]
    assert list(zip(marked.C, marked.label)) == flaws.yoder_C_lines() and len(t) == 1 + len(marked)
    cap = pd.DataFrame({"F_deg": [1.0], "eps": [math.sin(math.radians(1.0))], "curve": ["x"], "log10_k": [3.0]})
    t = flaws.yoder_capacity_figure(cap, 12_288)
    quoted = t[t.curve == flaws.RULE_QUOTED]
    assert dict(zip(quoted.F_deg, quoted.log10_k)) == flaws.yoder_rule_points() and set(t.d) == {12_288}
    assert np.allclose(quoted.eps, np.sin(np.radians(quoted.F_deg)))
