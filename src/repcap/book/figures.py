"""One figure style, and :func:`save`: every figure of the book goes through here.

``save(fig_id, table, meta, draw=drawing)`` writes, into :func:`repcap.base.paths.figure_dir`:

* ``<fig_id>.png`` (raster, 200 dpi), ``<fig_id>.svg`` and ``<fig_id>.pdf`` (vector);
* ``<fig_id>.csv``: the data behind the figure, as a tidy table;
* ``<fig_id>.json``: the sidecar: caption, notebook, profile and the overrides given with it
  (``overrides``; ``run`` says both in one line, "quick + n_vectors=3000"), parameters, git revision,
  package version, device, seed, computing time (``compute_s``).

A figure drawn from a results bundle (the ``reference`` set) passes ``provenance=``
:func:`bundle_provenance`: its sidecar then carries the run's own configuration, machine, commit
and computing time, and the command that recomputes it; ``drawn_by`` says which chapter run drew it.

With ``draw=`` (a function of :mod:`repcap.book.drawings` taking the table, and ``options=`` its
keyword arguments: labels and sizes, never data) the library writes the CSV first, reads it back and
draws the figure from what it read: the picture shows what the CSV holds, by construction, and the
sidecar's ``drawing`` names the function and its options so that :func:`redraw` draws it again from
the CSV alone.  The older ``save(fig_id, fig, data, meta)`` (a figure drawn by the caller) still works.

Under the notebook runner it then emits the MyST ``{figure}`` directive (numbered, named
``fig_id`` so that ``{numref}`` finds it, captioned once, here) as the cell's output; the figure
index page is generated from the sidecars.  Pattern: showyourwork / cebra-figures (compute apart
from plotting, data next to every figure).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd

from repcap import RepcapError, __version__
from repcap.base import io as rio
from repcap.base.context import current, git_revision, run_context, run_label
from repcap.base.paths import figure_dir

from .labels import place_labels, replace_labels
from .narrow import file_metadata, save_narrow
from .provenance import alt_text, bundle_provenance, engine_settings, figure_directive
from .style import (
    COLORS,
    NARROW_BREAKPOINT,
    NARROW_WIDTH,
    STYLE,
    WIDTH,
    finish_axes,
    label_axes,
    legend_below,
    log_tick_label,
    palette,
    plain_log_ticks,
    size,
    use_style,
)

__all__ = [
    "COLORS",
    "NARROW_BREAKPOINT",
    "NARROW_WIDTH",
    "STYLE",
    "WIDTH",
    "Sidecar",
    "alt_text",
    "bundle_provenance",
    "figure_directive",
    "finish_axes",
    "label_axes",
    "legend_below",
    "log_tick_label",
    "palette",
    "place_labels",
    "plain_log_ticks",
    "redraw",
    "save",
    "size",
    "with_codepoints",
]

FIG_ID = re.compile(r"^fig-[a-z0-9]+(?:-[a-z0-9]+)+$")
_T0 = time.time()
_last_save = _T0


class Sidecar(dict):
    """The sidecar dict that :func:`save` returns; it displays as nothing, so a ``save`` call at
    the end of a notebook cell adds no output to the book."""

    def _ipython_display_(self) -> None:
        pass


def with_codepoints(text: str, limit: int = 6) -> str:
    """``text`` followed by the code points of its characters outside Latin-1 and common
    punctuation, e.g. ``'▁дом' [U+2581 U+0434 U+043E U+043C]``: a token in a script the reader's font
    lacks still says what it is.  Text without such characters is returned unchanged."""
    s = str(text)
    odd = list(dict.fromkeys(ch for ch in s if ord(ch) > 0x24F and ch not in "–—‘’“”…•·−×"))
    if not odd:
        return s
    cps = " ".join(f"U+{ord(ch):04X}" for ch in odd[:limit]) + (" …" if len(odd) > limit else "")
    return f"{s} [{cps}]"


def save(
    fig_id: str,
    fig: matplotlib.figure.Figure | pd.DataFrame | Mapping[str, Any],
    data: pd.DataFrame | Mapping[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    *,
    draw: Callable[..., matplotlib.figure.Figure] | None = None,
    options: Mapping[str, Any] | None = None,
    caption: str | None = None,
    show: bool = True,
    provenance: Mapping[str, Any] | None = None,
) -> Sidecar:
    """Save a figure and its table under the stable id ``fig_id``; return the sidecar dict.

    ``save(fig_id, table, meta, draw=drawing, options=...)``: the figure is ``drawing(table read back
    from its CSV, **options)``.  ``save(fig_id, fig, data, meta)``: a figure the caller drew.

    ``meta`` may hold ``caption`` (what to see, one or two sentences), ``seed``, ``device``,
    ``compute_s`` (default: the seconds the chapter spent since its previous figure, computing and
    drawing) and anything else worth recording.  ``provenance`` (:func:`bundle_provenance`) marks
    a figure drawn from bundled results: their configuration becomes the sidecar's ``parameters``,
    their computing time its ``compute_s``, their machine and commit its ``device`` and ``computed``.
    """
    global _last_save
    if draw is not None:
        if meta is not None:
            raise RepcapError(f"figure {fig_id}: with draw=, pass (fig_id, table, meta)")
        fig, data, meta = None, fig, data
    elif options is not None:
        raise RepcapError(f"figure {fig_id}: options= goes with draw=")
    caption, frame, meta = _checked(fig_id, data, meta, caption)
    out = figure_dir()
    out.mkdir(parents=True, exist_ok=True)
    with rio.atomic_path(out / f"{fig_id}.csv") as tmp:
        frame.to_csv(tmp, index=False)
    if draw is not None:
        meta["drawing"] = _drawing_record(fig_id, draw, options)
        fig = _draw(meta["drawing"], out / f"{fig_id}.csv")
    assert isinstance(fig, matplotlib.figure.Figure)
    sidecar = _sidecar(fig_id, caption, meta, provenance)
    _finish(fig)
    for ext in ("png", "svg", "pdf"):
        with rio.atomic_path(out / f"{fig_id}.{ext}") as tmp:
            fig.savefig(tmp, format=ext, metadata=file_metadata(ext, fig_id, caption, sidecar))
    under_runner = bool(os.environ.get("REPCAP_NOTEBOOK"))
    if show and not under_runner:
        _display(fig_id, fig, caption, sidecar)  # (before the figure is re-laid out for a phone)
    narrow = save_narrow(fig, out / f"{fig_id}.narrow.svg", fig_id, caption, sidecar)
    if narrow:
        sidecar["files"]["narrow_svg"] = f"{fig_id}.narrow.svg"
    rio.write_json(out / f"{fig_id}.json", sidecar)
    _last_save = time.time()

    if show and under_runner:
        _display(fig_id, fig, caption, sidecar)
    plt.close(fig)
    return sidecar


def _finish(fig: matplotlib.figure.Figure) -> None:
    """What :func:`save` does to every figure before writing it: one log-tick style, and the point
    labels placed for the figure as laid out."""
    finish_axes(fig)
    replace_labels(fig)


def _drawing_record(fig_id: str, draw: Callable[..., Any], options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The sidecar's ``drawing``: the function (``module:name``, which must be importable) and its options."""
    name = f"{draw.__module__}:{draw.__qualname__}"
    if not draw.__module__.startswith("repcap.book.drawings") or "<" in draw.__qualname__:
        raise RepcapError(f"figure {fig_id}: draw= takes a function of repcap.book.drawings, not {name}")
    return {"function": name, "options": dict(options or {})}


def _draw(record: Mapping[str, Any], csv: Path) -> matplotlib.figure.Figure:
    """The figure the drawing ``record`` draws from the table in ``csv``."""
    module, _, name = str(record["function"]).partition(":")
    func = getattr(importlib.import_module(module), name)
    return func(pd.read_csv(csv, keep_default_na=False, na_values=[""]), **dict(record.get("options") or {}))


def redraw(csv: str | os.PathLike[str]) -> matplotlib.figure.Figure:
    """Draw a figure again from its CSV alone (and the drawing its sidecar names), as :func:`save`
    drew it, ready to write; :class:`RepcapError` for a figure saved without ``draw=``."""
    csv = Path(csv)
    side = json.loads(csv.with_suffix(".json").read_text(encoding="utf-8"))
    if not side.get("drawing"):
        raise RepcapError(f"{csv.stem}: drawn by its chapter, not by a drawing save() can call again")
    fig = _draw(side["drawing"], csv)
    _finish(fig)
    return fig


def _checked(
    fig_id: str, data: pd.DataFrame | Mapping[str, Any], meta: Mapping[str, Any] | None, caption: str | None
) -> tuple[str, pd.DataFrame, dict[str, Any]]:
    """The caption, the data as a table and the rest of ``meta`` of a figure :func:`save` is given,
    or one clear :class:`RepcapError` on a bad id, no caption or no data."""
    if not isinstance(fig_id, str) or not FIG_ID.match(fig_id):
        raise RepcapError(f"figure id {fig_id!r} must look like 'fig-<chapter>-<what>' (lower case, digits, dashes)")
    meta = dict(meta or {})
    caption = caption or meta.pop("caption", None)
    if not caption:
        raise RepcapError(f"figure {fig_id}: give a caption that says what to see")
    if not isinstance(data, pd.DataFrame):
        try:
            data = pd.DataFrame(data)
        except ValueError as exc:
            raise RepcapError(f"figure {fig_id}: data must be a DataFrame or a dict of equal-length columns") from exc
    if data.empty:
        raise RepcapError(f"figure {fig_id}: the data behind a figure cannot be empty")
    return caption, data, meta


def _sidecar(fig_id: str, caption: str, meta: dict[str, Any], provenance: Mapping[str, Any] | None) -> Sidecar:
    """The sidecar of a figure: its caption, the run that drew it, and where its numbers came from."""
    now = time.time()
    ctx = run_context()
    rec = current()
    since = max(_last_save, rec.started_unix) if rec is not None else _last_save
    compute_s = meta.pop("compute_s", meta.pop("wall_time_s", now - since))
    sidecar = Sidecar(
        {
            "fig_id": fig_id,
            "caption": caption,
            **ctx,
            "git_revision": git_revision(),
            "repcap_version": __version__,
            "compute_s": round(float(compute_s), 3),
            "compute_what": "the chapter's time since its previous figure (computing and drawing)",
            "created_unix": round(now, 3),
            "files": {ext: f"{fig_id}.{ext}" for ext in ("png", "svg", "pdf", "csv", "json")},
        }
    )
    if "device" not in meta:  # the device the chapter actually used (its run record)
        if rec is not None:
            meta["device"] = rec.device
        else:
            from repcap.base.devices import device_name, resolve_device

            meta["device"] = device_name(resolve_device("auto"))
    sidecar.update(meta)
    sidecar["run"] = run_label(ctx["profile"], ctx.get("overrides"))
    sidecar["drawn_by"] = {
        "notebook": ctx["notebook"],
        "profile": ctx["profile"],
        "overrides": ctx.get("overrides") or {},
        "git_revision": sidecar["git_revision"],
        "device": sidecar.get("device"),
        "parameters": ctx["parameters"],
    }
    # the engine configs as they ran: every default, and each value a rule decided, filled in (provenance.py)
    settings, by_rule = engine_settings(ctx["notebook"], ctx["parameters"])
    chosen = dict(rec.decided) if rec is not None else {}  # parameters the chapter set from a source (decided)
    if chosen:
        by_rule = {**by_rule, "chapter": sorted(chosen)}
    if settings or chosen:
        sidecar["drawn_by"]["parameters"] = {**ctx["parameters"], **settings, **chosen}
        sidecar["parameters"] = sidecar["drawn_by"]["parameters"]
        sidecar["drawn_by"]["decided_by_rule"] = by_rule
    if provenance:
        prov = dict(provenance)
        sidecar["computed"] = prov
        sidecar["parameters"] = prov.get("settings", prov.get("configuration", {}))
        sidecar["device"] = ", ".join(prov.get("devices") or []) or "unknown device"
        sidecar["compute_s"] = round(float(prov.get("compute_s") or 0.0), 3)
        sidecar["compute_what"] = f"the computing time of the {prov.get('points', 0)} bundled point(s) drawn"
    return sidecar


def _display(fig_id: str, fig, caption: str, side: Mapping[str, Any]) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:
        return
    if get_ipython() is None:
        return
    if os.environ.get("REPCAP_NOTEBOOK"):
        # Under the runner: the book renders this output as a numbered MyST figure.
        display(Markdown(figure_directive(fig_id, caption, side)))
    else:
        display(fig)


use_style()
