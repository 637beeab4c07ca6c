"""The book's capacity calculator: the constants it computes with, and the element a chapter puts
on its page.

The calculator itself is plain JavaScript shipped with the book (``book/static/capacity.js``, loaded
on every page by ``_config.yml``); it implements the formulas of :mod:`repcap.engines.laws` and
:mod:`repcap.engines.bounds`, and picks the largest known explicit code at the reader's (d, eps) from the list
:func:`explicit_codes` writes into the page (:func:`repcap.engines.constructions.largest_code` in Python).  Its constants are not typed into the script: :func:`config` takes them from
the published values (``data/reference/``) and :func:`widget` writes them into the page, so the
script and the Python functions always use the same numbers (``tests/unit/test_capacity_calculator.py``
checks that they agree).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

from repcap.base.quotes import guha_packings, reference_dir, value
from repcap.engines import laws
from repcap.engines.constructions import Code, best_known, catalogue
from repcap.engines.frontier import line_codes

#: The files of ``data/reference`` this module reads (see :func:`repcap.sweep.codehash.data_digest`).
DATA_FILES = ("guha2026_table1.csv",)

#: The laws the calculator shows, in order (keys of :data:`repcap.engines.laws.PUBLISHED`).
LAWS = ("jl8", "jl", "adjusted", "four")
#: Largest dimension the calculator accepts.
MAX_D = 10_000_000


def config(
    default_d: int | None = None, default_eps: float | None = None, extra_laws: Sequence[laws.Law] = ()
) -> dict[str, Any]:
    """Everything the script computes with: each law's form and constants (the published ones, then
    ``extra_laws``, such as a refit of ours, labelled by their ``label``), Yoder's divisor, Guha's
    class boundaries, and the starting values (default: the paper's worked example, Llama 2 7B)."""
    shown = [laws.PUBLISHED[k] for k in LAWS] + list(extra_laws)
    return {
        "laws": [{"name": x.name, "label": x.label, "form": x.form, "constants": dict(x.constants)} for x in shown],
        "yoder": {"label": f"Yoder's rule 10^(d F²/{laws.YODER_DIVISOR:g})", "divisor": laws.YODER_DIVISOR},
        "classes": {
            "class1_above": value("guha2026.class1_eps_above"),
            "class2_below": value("guha2026.class2_eps_below"),
        },
        "fitted": fitted_range(),
        "embeddings": embedding_widths(),
        "default_d": int(default_d if default_d is not None else value("guha2026.llama2_7b_d")),
        "default_eps": float(default_eps if default_eps is not None else value("guha2026.llama2_7b_eps")),
        "limits": {"max_d": MAX_D},
        "codes": [
            [c.d, c.log10_count, c.mu, c.name, c.mu_status] for c in explicit_codes() if c.family != "best known"
        ],
        "best_known": [[int(r.d), int(r.N), float(r.mu)] for r in best_known().itertuples()],
    }


def explicit_codes() -> list[Code]:
    """The codes the calculator knows: the catalogue of :mod:`repcap.engines.constructions` (line codes, with
    their coherence exact or a theorem's bound) and the best-known packings of Sloane's table (family
    ``best known``); the page adds the orthonormal basis and the simplex of the reader's d."""
    out = list(line_codes(catalogue()))
    out += [
        Code(
            "best known",
            f"best known: {r.N} lines (Sloane's table)",
            int(r.d),
            int(r.N),
            float(r.mu),
            "exact",
            "published packing",
        )
        for r in best_known().itertuples()
    ]
    return out


def fitted_range() -> dict[str, float]:
    """Where Guha's laws were fitted: the span of his stored optimised packings
    (``guha2026_optimized_packing.csv``, :func:`repcap.evidence.reference.guha_packings`), largest k, largest
    k/d and the range of their ε*.  A capacity beyond it is an extrapolation of the fit."""
    df = guha_packings("optimized")
    return {
        "k_max": float(df.k.max()),
        "kd_max": float((df.k / df.d).max()),
        "d_max": float(df.d.max()),
        "eps_min": float(df.eps_star.min()),
        "eps_max": float(df.eps_star.max()),
    }


def embedding_widths() -> dict[str, float]:
    """The smallest and largest width of the models of Guha's Table 1 (``guha2026_table1.csv``): the
    population his classes describe."""
    import csv

    with (reference_dir() / "guha2026_table1.csv").open(newline="") as fh:
        ds = [float(r["d_model"]) for r in csv.DictReader(fh)]
    return {"d_min": min(ds), "d_max": max(ds)}


class Widget:
    """The calculator's element: renders as HTML in the book, as one line in a terminal."""

    def __init__(self, cfg: dict[str, Any]):
        self.config = cfg

    def _repr_html_(self) -> str:
        data = html.escape(json.dumps(self.config, allow_nan=False), quote=True)
        return (
            f'<div class="repcap-capcalc" data-config="{data}">'
            "<noscript><p>The capacity calculator needs JavaScript; in Python, "
            "<code>repcap.engines.laws.capacity(eps, d, law)</code> and <code>repcap.engines.bounds</code> compute "
            "the same numbers.</p></noscript></div>"
        )

    def __repr__(self) -> str:
        return f"capacity calculator (d = {self.config['default_d']}, ε = {self.config['default_eps']})"


def widget(
    default_d: int | None = None, default_eps: float | None = None, extra_laws: Sequence[laws.Law] = ()
) -> Widget:
    """The calculator for a chapter's page (``display(widget())`` or as a cell's last value)."""
    return Widget(config(default_d, default_eps, extra_laws))
