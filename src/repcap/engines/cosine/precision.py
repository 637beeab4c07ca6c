"""The precision of a tiled pass's products (``TiledConfig.precision``): the rows' values rounded to the
inputs of a GPU's tensor cores before they are multiplied, the same on every device.

* ``fp32``: float32 products, nothing rounded (the default; on a GPU without TF32);
* ``tf32``: each value rounded to nearest (ties to even) at 10 mantissa bits, as TF32 holds it;
* ``bf16``: each value rounded to bfloat16 (7 mantissa bits).

A product of two rounded values is exact in float32 and the products accumulate in float32, so the
CPU (which rounds the rows, then multiplies in float32) and a GPU's tensor cores (fed the same rounded
rows) compute the same cosines up to float32 summation order.  Against exact arithmetic each cosine of
unit rows errs by at most ``2u + u²`` (``u`` the unit roundoff of the rounded values:
``|sum a_i b_i - sum ã_i b̃_i| <= sum |a_i b_i| (2u + u²) <= 2u + u²`` by Cauchy-Schwarz), plus the
float32 accumulation (at most ``d 2^-24``, typically ``sqrt(d) 2^-24``): tf32 9.8e-4, under one bin of
0.001 (the default 2000 bins), bf16 7.8e-3, eight bins.  The tests hold the pass to these bounds
against float64, pair by pair and through the histogram; the typical error is far smaller
(measured on the CPU's emulation, 4096 rows x 640 of ``benchmarks/cosine_stats.py``'s matrix: tf32 /
bf16 put 0.058% / 0.15% of the pairs in another bin, move quantiles by at most 1.1e-5 / 2.9e-6 and
the top 10 pairs' cosines by 1.7e-5 / 1.9e-4, with the same 10 pairs; the benchmark prints it).
"""

from __future__ import annotations

import torch

from repcap import RepcapError
from repcap.engines.settings.cosine import PRECISIONS  # the setting's choices

#: The unit roundoff of each precision's rounded inputs (fp32: float32's own).
UNIT_ROUNDOFF = {"fp32": 2.0**-24, "tf32": 2.0**-11, "bf16": 2.0**-8}

#: The largest error of one cosine of unit rows whose inputs are rounded, against exact arithmetic:
#: ``|sum a_i b_i - sum ã_i b̃_i| <= sum |a_i b_i| (2u + u²) <= 2u + u²`` (Cauchy-Schwarz), before the
#: float32 accumulation (``d 2^-24`` at most, far less in practice).
PRECISION_BOUND = {p: 2 * u + u * u for p, u in UNIT_ROUNDOFF.items()}


def rounded(U: torch.Tensor, precision: str) -> torch.Tensor:
    """``U`` (float32) with its values rounded to the precision's inputs, to nearest even, kept as
    float32: ``fp32`` unchanged, ``tf32`` the low 13 mantissa bits cleared, ``bf16`` through bfloat16."""
    if precision == "fp32":
        return U
    if precision == "bf16":
        return U.to(torch.bfloat16).to(torch.float32)
    if precision == "tf32":
        bits = U.contiguous().view(torch.int32)
        bits = (bits + 0xFFF + ((bits >> 13) & 1)) & -8192
        return bits.view(torch.float32)
    raise RepcapError(f"precision {precision!r}: use one of {', '.join(PRECISIONS)}")
