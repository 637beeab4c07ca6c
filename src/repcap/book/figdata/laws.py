"""Chapter 7's tables and findings (the capacity laws of Guha 2026 and Yoder 2025 against the
spherical-code bounds), under the one name the chapter imports them by:

* :mod:`.laws_guha` -- the refit of Guha's stored packings, his cells re-run at his settings, the
  simulated grid and its fits, and the published constants on our grid;
* :mod:`.laws_yoder` -- Yoder's constant and his rule against the values he quotes;
* :mod:`.laws_bounds` -- where a law claims more vectors than a bound allows.

Each function takes the frames the chapter already has and returns a frame, a dict of the numbers
it glues (``{suffix: value}``) or, for a finding, ``{claim id: keyword arguments of
repcap.evidence.findings.record}`` (as :mod:`repcap.evidence` does)."""

from __future__ import annotations

from .laws_bounds import (
    VIOLATION_COLUMNS,
    asymptotic_table,
    rigorous_table,
    rule_bound_finding,
    scan_grid,
    scanned_laws,
    violations,
    violators,
)
from .laws_guha import (
    ABOVE_WIDTH,
    GUHA_PUBLISHED,
    GUHA_REFITS,
    Finding,
    adjusted_verdict,
    cell_gap_finding,
    grid_cells,
    grid_fit_table,
    grid_numbers,
    grid_table,
    guha_findings,
    guha_numbers,
    guha_refit_table,
    guha_refits,
    m60_summary,
    mape_above_width,
    published_mape,
    published_on_grid,
    random_fit_finding,
    reference_summary,
)
from .laws_yoder import (
    C_LINE,
    RULE_DEGREES,
    RULE_QUOTED,
    projection_configs,
    projection_means,
    yoder_C_figure,
    yoder_C_lines,
    yoder_C_numbers,
    yoder_capacity_figure,
    yoder_quoted,
    yoder_rule_gap,
    yoder_rule_points,
)

__all__ = [
    "ABOVE_WIDTH",
    "C_LINE",
    "GUHA_PUBLISHED",
    "GUHA_REFITS",
    "RULE_DEGREES",
    "RULE_QUOTED",
    "VIOLATION_COLUMNS",
    "Finding",
    "adjusted_verdict",
    "asymptotic_table",
    "cell_gap_finding",
    "grid_cells",
    "grid_fit_table",
    "grid_numbers",
    "grid_table",
    "guha_findings",
    "guha_numbers",
    "guha_refit_table",
    "guha_refits",
    "m60_summary",
    "mape_above_width",
    "projection_configs",
    "projection_means",
    "published_mape",
    "published_on_grid",
    "random_fit_finding",
    "reference_summary",
    "rigorous_table",
    "rule_bound_finding",
    "scan_grid",
    "scanned_laws",
    "violations",
    "violators",
    "yoder_C_figure",
    "yoder_C_lines",
    "yoder_C_numbers",
    "yoder_capacity_figure",
    "yoder_quoted",
    "yoder_rule_gap",
    "yoder_rule_points",
]
