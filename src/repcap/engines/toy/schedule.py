"""Learning rates of the toy model's training (Liu, Liu & Gore 2025, arXiv:2505.10465): the peak
rate of ``W`` and of ``b`` for a model of width ``m``, and the schedule that scales them each step.

Rules for the peak rates (:data:`LR_RULES`):

* ``"constant"``: ``1e-2`` for ``W`` and ``b`` at every width (the paper's main sweep);
* ``"liu-exp17"``: the paper's large run (exp-17), per width: ``W`` ``0.02 (8/m)^(1/4)``, ``b``
  ``2/m`` (a separate parameter group).

Schedule (:func:`lr_schedule`): linear warm-up to the peak, then cosine decay to ``final_frac``
(0.05) x peak at the last step.  The main sweep warms up over ``steps // 10`` steps (2000 of
20000), the large run over 5% of them.
"""

from __future__ import annotations

import math

from repcap import RepcapError
from repcap.engines.settings.toy import LR_RULES  # the settings' choices

#: The main sweep's peak learning rate (W and b).
CONSTANT_LR = 1e-2


def rule_lrs(rule: str, m: int) -> tuple[float, float | None]:
    """The rule's peak learning rates ``(W, b)`` at width ``m`` (``b`` None: the same as ``W``)."""
    if rule == "constant":
        return CONSTANT_LR, None
    if rule == "liu-exp17":
        return 0.02 * (8.0 / m) ** 0.25, 2.0 / m
    raise RepcapError(f"lr_rule={rule!r}: use one of {', '.join(LR_RULES)}")


def peak_lrs(
    rule: str, m: int, lr: float | None = None, model_lr: float | None = None, model_bias_lr: float | None = None
) -> tuple[float, float]:
    """One model's peak learning rates ``(W, b)``, the most specific value first.

    ``W``: the model's own ``model_lr``, else the batch's ``lr``, else the rule's.  ``b``: the
    model's own ``model_bias_lr``, else the rule's bias rate, else the model's ``W`` rate.
    """
    rule_w, rule_b = rule_lrs(rule, m)
    w = model_lr if model_lr is not None else lr if lr is not None else rule_w
    b = model_bias_lr if model_bias_lr is not None else rule_b if rule_b is not None else w
    return float(w), float(b)


def lr_schedule(step: int, steps: int, warmup: int, final_frac: float = 0.05) -> float:
    """Multiplier of the peak lr at 0-based ``step``: linear warm-up over ``warmup`` steps
    (``(step+1)/warmup``), then cosine from 1 down to ``final_frac`` at the last step."""
    if step < warmup:
        return (step + 1) / warmup
    span = max(1, steps - warmup - 1)
    t = min(1.0, (step - warmup) / span)
    return final_frac + (1.0 - final_frac) * 0.5 * (1.0 + math.cos(math.pi * t))


def schedule(steps: int, warmup: int, final_frac: float = 0.05) -> list[float]:
    """:func:`lr_schedule` at every step ``0..steps-1``."""
    return [lr_schedule(t, steps, warmup, final_frac) for t in range(steps)]
