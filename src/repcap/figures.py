"""One figure style, and :func:`save`: every figure of the book goes through here.

``save(fig_id, fig, data, meta)`` writes, into :func:`repcap.paths.figure_dir`:

* ``<fig_id>.png`` (raster, 200 dpi), ``<fig_id>.svg`` and ``<fig_id>.pdf`` (vector);
* ``<fig_id>.csv``: the data behind the figure, as a tidy table;
* ``<fig_id>.json``: the sidecar: caption, notebook, profile, parameters, git revision, package
  version, device, seed, wall time.

Under the notebook runner it then emits the MyST ``{figure}`` directive (numbered, named
``fig_id`` so that ``{numref}`` finds it, captioned once, here) as the cell's output; the figure
index page is generated from the sidecars.  Pattern: showyourwork / cebra-figures (compute apart
from plotting, data next to every figure).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd

from . import RepcapError, __version__
from . import io as rio
from .context import current, git_revision, run_context
from .paths import figure_dir, project_root

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

FIG_ID = re.compile(r"^fig-[a-z0-9]+(?:-[a-z0-9]+)+$")
_T0 = time.time()
_last_save = _T0

#: The width (inches) every figure is drawn at: the book's text column, where it is shown at 100%.
#: At the column's width (about 700 px on a desktop) 1 pt of the figure is about 1.5 px, so the
#: 9.5-10 pt labels below read at 14-15 px next to 16 px body text.
WIDTH = 6.4
#: The colour cycle: the Okabe-Ito colour-blind palette reordered so that its two close hues,
#: orange and vermilion, are never both among the first five series.
COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000", "#999999")

#: One shared style for every figure (seaborn "whitegrid" with the palette above).
STYLE: dict[RcKeyType, Any] = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "xtick.labelsize": 9.5,
    "ytick.labelsize": 9.5,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "svg.fonttype": "path",  # text as outlines: renders the same everywhere (math such as 1/√d included)
    "pdf.fonttype": 42,  # TrueType fonts embedded
    "axes.spines.top": False,
    "axes.spines.right": False,
}


class Sidecar(dict):
    """The sidecar dict that :func:`save` returns; it displays as nothing, so a ``save`` call at
    the end of a notebook cell adds no output to the book."""

    def _ipython_display_(self) -> None:
        pass


def use_style() -> None:
    """Apply the book's style; called on import."""
    import seaborn as sns
    from cycler import cycler

    sns.set_theme(context="paper", style="whitegrid", palette=list(COLORS))
    matplotlib.rcParams.update(STYLE)
    matplotlib.rcParams["axes.prop_cycle"] = cycler(color=list(COLORS))


def palette(n: int) -> list:
    """``n`` colours of the book's cycle (repeating past its length)."""
    return [COLORS[i % len(COLORS)] for i in range(n)]


def size(height: float = 3.4) -> tuple[float, float]:
    """``figsize`` of a book figure: the column's width and ``height`` inches."""
    return (WIDTH, height)


def legend_below(ax, ncol: int = 2, pad: float = 4.0, **kw: Any):
    """A legend centred under ``ax``, below its tick labels and axis label whatever their size: the
    offset is measured in points, so a later ``tight_layout`` (which makes room for the legend)
    keeps it clear of the label."""
    from matplotlib.transforms import offset_copy

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    below = ax.bbox.y0 - ax.get_tightbbox(renderer).y0  # pixels taken by tick labels and the label
    anchor = offset_copy(ax.transAxes, fig=fig, y=-(below * 72.0 / fig.dpi + pad), units="points")
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor, ncol=ncol, **kw)


def log_tick_label(v: float, _pos: Any = None) -> str:
    """The book's log-axis tick label: plain numbers from 0.001 to 99,999 (0.2, 1000), powers of
    ten outside (10⁻⁵, 10⁸)."""
    import math as _m

    if v <= 0 or not _m.isfinite(v):
        return ""
    if 1e-3 <= v < 1e5:
        return f"{v:g}"
    e = _m.floor(_m.log10(v) + 1e-9)
    mant = v / 10**e
    return f"$10^{{{e}}}$" if abs(mant - 1) < 1e-6 else f"${mant:g}\\times10^{{{e}}}$"


def plain_log_ticks(ax, axis: str = "both") -> None:
    """On log axes whose labels were not set by hand, label ticks with :func:`log_tick_label`."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogFormatter, LogLocator, NullFormatter

    fmt = FuncFormatter(log_tick_label)
    for name in ("x", "y") if axis == "both" else (axis,):
        a = getattr(ax, f"{name}axis")
        if a.get_scale() != "log" or not isinstance(a.get_major_formatter(), (LogFormatter, FuncFormatter)):
            continue
        if isinstance(a.get_major_locator(), FixedLocator):  # ticks placed by hand: label them, add none
            if isinstance(a.get_major_formatter(), LogFormatter):  # (hand-set labels are a FuncFormatter)
                a.set_major_formatter(fmt)
            continue
        a.set_major_formatter(fmt)
        lo, hi = ax.get_xlim() if name == "x" else ax.get_ylim()
        if hi / lo < 150:  # ranges of about two decades or less: label 2 and 5 minor ticks too
            a.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
            a.set_minor_formatter(fmt)
        else:
            a.set_minor_formatter(NullFormatter())


def save(
    fig_id: str,
    fig: matplotlib.figure.Figure,
    data: pd.DataFrame | Mapping[str, Any],
    meta: Mapping[str, Any] | None = None,
    *,
    caption: str | None = None,
    show: bool = True,
) -> Sidecar:
    """Save ``fig`` and ``data`` under the stable id ``fig_id``; return the sidecar dict.

    ``meta`` may hold ``caption`` (what to see, one or two sentences), ``seed``, ``device``,
    ``wall_time_s`` (default: seconds since the previous save) and anything else worth recording.
    """
    global _last_save
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

    out = figure_dir()
    out.mkdir(parents=True, exist_ok=True)
    now = time.time()
    ctx = run_context()
    sidecar = Sidecar(
        {
            "fig_id": fig_id,
            "caption": caption,
            **ctx,
            "git_revision": git_revision(),
            "repcap_version": __version__,
            "wall_time_s": round(float(meta.pop("wall_time_s", now - _last_save)), 3),
            "created_unix": round(now, 3),
            "files": {ext: f"{fig_id}.{ext}" for ext in ("png", "svg", "pdf", "csv", "json")},
        }
    )
    if "device" not in meta:  # the device the chapter actually used (its run record)
        rec = current()
        if rec is not None:
            meta["device"] = rec.device
        else:
            from .devices import device_name, resolve_device

            meta["device"] = device_name(resolve_device("auto"))
    sidecar.update(meta)

    finish_axes(fig)
    for ext in ("png", "svg", "pdf"):
        with rio.atomic_path(out / f"{fig_id}.{ext}") as tmp:
            fig.savefig(tmp, format=ext, metadata=_file_metadata(ext, fig_id, caption, sidecar))
    with rio.atomic_path(out / f"{fig_id}.csv") as tmp:
        data.to_csv(tmp, index=False)
    rio.write_json(out / f"{fig_id}.json", sidecar)
    _last_save = time.time()

    if show:
        _display(fig_id, fig, caption, sidecar)
    plt.close(fig)
    return sidecar


def _file_metadata(ext: str, fig_id: str, caption: str, side: Mapping[str, Any]) -> dict[str, Any]:
    """Metadata carried inside each image file, so a figure pasted into slides still says what it is
    and where it came from: caption, profile, source notebook, git revision."""
    origin = (
        f"repcap {__version__}, notebook {side.get('notebook')}, profile {side.get('profile')}, "
        f"git {side.get('git_revision')}"
    )
    if ext == "png":
        return {"Title": fig_id, "Description": caption, "Source": origin, "Software": f"repcap {__version__}"}
    if ext == "pdf":
        return {"Title": fig_id, "Subject": caption, "Keywords": origin, "Creator": f"repcap {__version__}"}
    return {"Title": fig_id, "Description": caption, "Source": origin, "Creator": f"repcap {__version__}"}


def finish_axes(fig: matplotlib.figure.Figure) -> None:
    """One tick-label style for every log axis of the book (:func:`plain_log_ticks`)."""
    for ax in fig.axes:
        if getattr(ax, "get_xscale", None) and (ax.get_xscale() == "log" or ax.get_yscale() == "log"):
            plain_log_ticks(ax)


def alt_text(caption: str, limit: int = 300) -> str:
    """A figure's alt text: its caption as plain text (markup and line breaks removed, shortened at a
    sentence or word boundary)."""
    text = " ".join(re.sub(r"[`*_{}$]", "", caption).split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return (cut[: end + 1] if end > limit // 2 else cut.rsplit(" ", 1)[0] + " …").strip()


def reproduce_command(side: Mapping[str, Any]) -> str | None:
    """The command that rebuilds a figure: its chapter under its profile, with ``-p`` for every
    parameter that differs from that profile's (None outside the runner)."""
    nb, profile = side.get("notebook"), side.get("profile")
    if not nb or nb == "interactive" or profile not in ("smoke", "quick", "paper", "reference"):
        return None
    args = [f"repcap run {nb} --profile {profile}"]
    try:
        from .params import resolve_parameters

        base = resolve_parameters(project_root() / str(nb), str(profile), {})
    except (RepcapError, OSError):
        base = {}
    for k, v in (side.get("parameters") or {}).items():
        if base.get(k, object()) != v:
            args.append(f"-p {shlex.quote(f'{k}={json.dumps(v)}')}")
    return " ".join(args)


def figure_directive(
    fig_id: str, caption: str, side: Mapping[str, Any] | None = None, rel_dir: str = "figures", width: str = "100%"
) -> str:
    """The MyST markup of a numbered figure named ``fig_id``: the image (opens full size when
    clicked), its caption, and under it the files behind it, the notebook source at the revision
    that built it, and the command that rebuilds it."""
    side = dict(side or {})
    files = " · ".join(
        f"{{download}}`{label} <{rel_dir}/{fig_id}.{ext}>`"
        for ext, label in (
            ("csv", "data (CSV)"),
            ("svg", "SVG"),
            ("pdf", "PDF"),
            ("png", "PNG"),
            ("json", "parameters (JSON)"),
        )
    )
    nb = str(side.get("notebook") or "")
    source = ""
    if nb.startswith("notebooks/"):
        source = f" · {{download}}`source <../../{nb}>` (git `{side.get('git_revision', '?')}`)"
    cmd = reproduce_command(side)
    rebuild = f"\n\nRebuild: `{cmd}`" if cmd else ""
    return (
        f"```{{figure}} {rel_dir}/{fig_id}.svg\n:name: {fig_id}\n:width: {width}\n:alt: {alt_text(caption)}\n"
        f":target: ../../_images/{fig_id}.svg\n:class: repcap-figure\n:figclass: repcap-figure\n\n"
        f"{caption}\n\n{files}{source}, profile `{side.get('profile', '?')}`.{rebuild}\n```\n"
    )


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
