"""Tables as a reader wants them: no index column, missing values as "—" with a note saying why,
numbers to the precision that matters, the key columns first, and wide tables scrolling inside
their own box (the book's CSS) instead of pushing the page sideways.

``show(df, digits={...}, first=[...], missing="why a cell is empty")`` in a chapter returns an
object that renders as that HTML table (and as plain text outside a notebook).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

MISSING = "—"


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    try:
        return (isinstance(v, float) and math.isnan(v)) or (isinstance(v, np.floating) and bool(np.isnan(v)))
    except TypeError:
        return False


_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_E_NOTATION = __import__("re").compile(r"^([-+−]?\d+(?:\.\d*)?)e([-+]?)0*(\d+)$")


def times_ten(text: str) -> str:
    """A number Python wrote in e-notation as the book writes it: ``1.2e-05`` -> ``1.2 × 10⁻⁵``,
    ``3e+13`` -> ``3 × 10¹³``; any other text is returned unchanged."""
    m = _E_NOTATION.match(text.strip())
    if not m:
        return text
    mant, sign, exp = m.groups()
    exp = ("-" if sign == "-" else "") + exp
    if mant.lstrip("-+−") in ("1", "1.0"):
        return f"{'-' if mant[0] in '-−' else ''}10{exp.translate(_SUP)}"
    return f"{mant} × 10{exp.translate(_SUP)}"


def grouped(text: str) -> str:
    """Thousands separators in the integer part of a plain decimal number (``12345.6`` ->
    ``12,345.6``); other text, and numbers under 1,000, unchanged."""
    import re

    m = re.fullmatch(r"([-+−]?)(\d{4,})(\.\d+)?", text.strip())
    if not m:
        return text
    sign, whole, frac = m.groups()
    return f"{sign}{int(whole):,}{frac or ''}"


def format_value(v: Any, spec: str | None = None) -> str:
    """One cell: missing as "—", numbers with ``spec`` (default: 4 significant digits for floats),
    in the book's one number style (thousands separators from 1,000 on, powers of ten as
    ``× 10ⁿ``, never e-notation, also in a text cell that is such a number), booleans as yes/no,
    the rest as text."""
    if _is_missing(v):
        return MISSING
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return format(int(v), spec or ",d")
    if isinstance(v, (float, np.floating)):
        x = float(v)
        if not math.isfinite(x):
            return "∞" if x > 0 else "−∞"
        if spec:
            return grouped(times_ten(format(x, spec)))
        if x != 0 and (abs(x) >= 1e6 or abs(x) < 1e-3):
            return times_ten(f"{x:.3g}")
        if abs(x) >= 1000:
            return f"{x:,.0f}"
        return f"{x:.4g}"
    return times_ten(str(v))  # a number a chapter formatted itself ("2.17e+09") in the same style


class Table:
    """A rendered table: ``_repr_html_`` for the book, ``__repr__`` for a terminal."""

    def __init__(self, df: pd.DataFrame, cells: list[list[str]], note: str | None, caption: str | None):
        self.df = df
        self.cells = cells
        self.note = note
        self.caption = caption

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in self.df.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in row) + "</tr>" for row in self.cells)
        cap = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        note = f'<p class="repcap-table-note">{MISSING} {html.escape(self.note)}</p>' if self.note else ""
        return (
            f'<div class="repcap-table"><table class="repcap">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>{note}</div>"
        )

    def __repr__(self) -> str:
        width = [
            max(len(str(c)), *(len(r[i]) for r in self.cells)) if self.cells else len(str(c))
            for i, c in enumerate(self.df.columns)
        ]
        lines = ["  ".join(str(c).ljust(w) for c, w in zip(self.df.columns, width))]
        lines += ["  ".join(x.ljust(w) for x, w in zip(r, width)) for r in self.cells]
        return "\n".join(lines) + (f"\n{MISSING} {self.note}" if self.note else "")


def show(
    df: pd.DataFrame,
    *,
    digits: Mapping[str, str] | None = None,
    first: Sequence[str] = (),
    drop: Sequence[str] = (),
    missing: str | None = None,
    caption: str | None = None,
) -> Table:
    """``df`` as a book table.  ``digits``: a format spec per column (e.g. ``{"ε": ".4f"}``);
    ``first``: columns to put first (the key ones); ``missing``: the note that explains a "—" (shown
    only when some cell is missing)."""
    df = df.drop(columns=[c for c in drop if c in df.columns]).reset_index(drop=True)
    order = [c for c in first if c in df.columns] + [c for c in df.columns if c not in first]
    df = df[order]
    specs = dict(digits or {})
    cells = [[format_value(v, specs.get(c)) for c, v in zip(df.columns, row)] for row in df.itertuples(index=False)]
    any_missing = any(x == MISSING for row in cells for x in row)
    return Table(df, cells, (missing or "no value for this row") if any_missing else None, caption)
