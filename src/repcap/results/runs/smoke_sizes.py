"""The sizes of the sets' ``scale="smoke"`` variants: every set in seconds on a CPU."""

from __future__ import annotations

#: Yoder's packing shrunk to 300 vectors in R^12, every packing run to 15 steps.
SMOKE_YODER: dict[str, int] = {"k": 300, "d": 12}
SMOKE_STEPS = 15
#: Guha's cells.
SMOKE_GUHA_KS, SMOKE_GUHA_DIMS = (60, 120), (8, 16)
#: The toy models: their size and training, and the grids of the sweeps.
SMOKE_TOY: dict[str, int] = {"n": 24, "steps": 12, "batch": 16}
SMOKE_MS: tuple[int, ...] = (3, 6)
SMOKE_REFERENCE_MS: tuple[int, ...] = (3, 6, 12)  # three widths: a chapter can fit an exponent to them
SMOKE_ALPHAS: tuple[float, ...] = (0.5, 1.5)
SMOKE_GAMMAS: tuple[float, ...] = (-1.0, 0.3333)
