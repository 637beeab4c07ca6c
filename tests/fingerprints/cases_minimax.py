"""Fingerprint cases of the minimax method (:mod:`repcap.engines.packing.minimax`, its own numerics
version :data:`repcap.engines.packing.numerics.MINIMAX`): a small dense problem through every step,
and one above MAX_DENSE_K whose stages run through the tiled float32 loss."""

from __future__ import annotations

from harness import Case

CASES = [
    Case(
        "minimax",
        "minimax",
        point={
            "fn": "packing.minimax",
            "configs": [{"k": 6, "d": 3, "restarts": 3, "refine": 2, "steps": 40, "n_bins": 20}],
            "legacy_fn": None,  # new since the format-1 bundles
        },
    ),
    Case(
        "minimax",
        "minimax-tiled",  # above MAX_DENSE_K: the stages run through the tiled float32 loss
        point={
            "fn": "packing.minimax",
            "configs": [
                {"k": 520, "d": 6, "restarts": 1, "refine": 0, "schedule": [8.0, 16.0], "steps": 3, "n_bins": 20}
            ],
            "legacy_fn": None,  # new since the format-1 bundles
        },
    ),
]
