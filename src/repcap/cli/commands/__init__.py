"""Sub-commands of the ``repcap`` CLI: one module per command, each with ``register(subparsers)``.
Modules import their heavy dependencies inside the handler so ``repcap --help`` stays fast."""

import json
import math
import sys
from typing import Any


def strict_json(obj: Any) -> Any:
    """``obj`` with every non-finite float (numpy's too) as ``None``: JSON has no NaN or infinity."""
    if isinstance(obj, float) or type(obj).__name__ in ("float32", "float64", "float16"):
        x = float(obj)
        return x if math.isfinite(x) else None
    if isinstance(obj, dict):
        return {k: strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict_json(v) for v in obj]
    return obj


def print_json(obj: Any, **kw: Any) -> None:
    """One line of strict JSON on stdout (``null`` where a number is undefined)."""
    sys.stdout.write(json.dumps(strict_json(obj), allow_nan=False, **kw) + "\n")
