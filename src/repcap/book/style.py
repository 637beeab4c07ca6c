"""The book's figure style: the column's widths, the colour cycle, the Matplotlib settings, and the
helpers every figure shares (a legend under its axes, plain labels on log axes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import matplotlib

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

#: The width (inches) every figure is drawn at: the book's text column, where it is shown at 100%.
#: At the column's width (about 700 px on a desktop) 1 pt of the figure is about 1.5 px, so the
#: 9.5-10 pt labels below read at 14-15 px next to 16 px body text.
WIDTH = 6.4
#: The width (inches) of a figure's phone layout (``<fig_id>.narrow.svg``, beside the other files so that the runner moves it with them), shown in a 368 px column:
#: about 100 px an inch, so the same 9.5-10 pt labels read at 13-14 px.
NARROW_WIDTH = 3.6
#: Below this page width (CSS px) the book shows the phone layout (``book/static/repcap.css``).
NARROW_BREAKPOINT = 720
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
    leg = ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor, ncol=ncol, **kw)
    leg._repcap_below = (pad, kw)  # so that save_narrow can redo it
    return leg


def label_axes(ax, xlabel: str, ylabel: str, *, log: str = "", ncol: int = 2, tight: bool = True):
    """The strokes most drawings end with: log scales on the axes ``log`` names (``"x"``, ``"y"``,
    ``"xy"``), the two axis labels, the legend under the axes (:func:`legend_below`, ``ncol``
    columns) and, with ``tight``, the figure's layout.  Returns the figure."""
    if "x" in log:
        ax.set_xscale("log")
    if "y" in log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    legend_below(ax, ncol=ncol)
    if tight:
        ax.figure.tight_layout()
    return ax.figure


def log_tick_label(v: float, _pos: Any = None, plain_below: float = 1e5) -> str:
    """The book's log-axis tick label: plain numbers from 0.001 to 99,999 (0.2, 1000), powers of
    ten outside (10⁻⁵, 10⁸).  ``plain_below`` lowers the upper limit of plain numbers, so that one
    axis never mixes 10000 with 10⁵ (:func:`plain_log_ticks` sets it to 10 on such axes)."""
    import math as _m

    if v <= 0 or not _m.isfinite(v):
        return ""
    if 1e-3 <= v < plain_below:
        return f"{v:g}"
    e = _m.floor(_m.log10(v) + 1e-9)
    mant = v / 10**e
    return f"$10^{{{e}}}$" if abs(mant - 1) < 1e-6 else f"${mant:g}\\times10^{{{e}}}$"


def _align_minor_labels(a) -> None:
    """Minor tick labels as far from the axis as the major ones (a minor tick is shorter, so its
    label otherwise sits closer: 2 and 5 a few pixels off the line of 1 and 10)."""
    major, minor = a.get_major_ticks(), a.get_minor_ticks()
    if major and minor:
        gap = major[0].get_tick_padding() + major[0].get_pad() - minor[0].get_tick_padding()
        a.set_tick_params(which="minor", pad=max(gap, 0.0))


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
        base = getattr(a.get_transform(), "base", 10)
        if base != 10:  # a log-2 axis (widths 512, 2048): its own ticks only, no decimal minor labels
            a.set_minor_formatter(NullFormatter())
            continue
        lo, hi = ax.get_xlim() if name == "x" else ax.get_ylim()
        fmt = (
            FuncFormatter(lambda v, p: log_tick_label(v, p, 10.0))
            if max(lo, hi) >= 1e5
            else FuncFormatter(log_tick_label)
        )
        a.set_major_formatter(fmt)
        if hi / lo < 150:  # ranges of about two decades or less: label 2 and 5 minor ticks too
            a.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
            a.set_minor_formatter(fmt)
            _align_minor_labels(a)
        else:
            a.set_minor_formatter(NullFormatter())


def finish_axes(fig: matplotlib.figure.Figure) -> None:
    """One tick-label style for every log axis of the book (:func:`plain_log_ticks`)."""
    for ax in fig.axes:
        if getattr(ax, "get_xscale", None) and (ax.get_xscale() == "log" or ax.get_yscale() == "log"):
            plain_log_ticks(ax)
