"""The tables behind the reference runs' figures (the shipped ``reference`` bundle), by the chapter
and figure they serve, under the one name the chapters import them by:

* :mod:`.reference_packing` -- chapter 7: Guha's cells at two exponent rules against his stored
  values, and Yoder's C against N/k at small d;
* :mod:`.reference_widths` -- chapter 9, Fig. 6e: Liu et al.'s width exponents per (gamma, alpha)
  with their intervals, the seed spread and the single-model outliers;
* :mod:`.reference_overlaps` -- chapter 9, Fig. 6c and 6d: the strong fraction phi_1 and the overlap
  under each candidate definition;
* :mod:`.reference_contrast` -- chapter 9, Fig. 1b's contrast: frequency laws that are not a power
  law, their matched power-law controls, and the weak-regime models.

Each function takes plain records (a bundle lookup's ``found``: objects with ``config`` and
``result``) or the frames made there, and returns a tidy frame.
"""

from __future__ import annotations

from .reference_contrast import (
    contrast_controls,
    contrast_figure,
    contrast_fits,
    contrast_points,
    matched_control,
    weak_models,
)
from .reference_overlaps import (
    FIG6C_WIDTHS,
    fig6c_digitised,
    overlap_definitions,
    overlap_summary,
    phi_one_comparison,
    phi_one_gap,
)
from .reference_packing import (
    C_CEILING_EPS,
    c_curve,
    c_curve_peaks,
    c_curve_seed_sd,
    c_curve_shape,
    c_curve_summary,
    guha_cells,
)
from .reference_widths import (
    OUTLIER_FACTOR,
    OUTLIER_MIN_SEEDS,
    WIDTH_SWEEPS,
    digitised_series,
    experiments_by_series,
    exponent_summary,
    fig6e_comparison,
    fig6e_digitised,
    fig6e_table,
    outlier_summary,
    seed_outliers,
    width_exponents,
    width_points,
    width_sweep_names,
)

__all__ = [
    "C_CEILING_EPS",
    "FIG6C_WIDTHS",
    "OUTLIER_FACTOR",
    "OUTLIER_MIN_SEEDS",
    "WIDTH_SWEEPS",
    "c_curve",
    "c_curve_peaks",
    "c_curve_seed_sd",
    "c_curve_shape",
    "c_curve_summary",
    "contrast_controls",
    "contrast_figure",
    "contrast_fits",
    "contrast_points",
    "digitised_series",
    "experiments_by_series",
    "exponent_summary",
    "fig6c_digitised",
    "fig6e_comparison",
    "fig6e_digitised",
    "fig6e_table",
    "guha_cells",
    "matched_control",
    "outlier_summary",
    "overlap_definitions",
    "overlap_summary",
    "phi_one_comparison",
    "phi_one_gap",
    "seed_outliers",
    "weak_models",
    "width_exponents",
    "width_points",
    "width_sweep_names",
]
