"""Helpers a chapter notebook calls: numbers for the prose (``glue``), the profile banner, and
tables.  Numbers quoted in the prose are glued, never retyped (QuantEcon lectures): in a markdown
cell write ``{glue:text}`name:.3f``` (the format spec is optional).
"""

from __future__ import annotations

from typing import Any

from .figures import run_context


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


def glue(name: str, value: Any, display: bool = False) -> None:
    """Make ``value`` available to the prose as ``{glue:text}`name```.  Outside a kernel (or
    without myst-nb) this is a no-op that returns ``value``.  numpy scalars are converted to
    Python numbers so that format specs work.  Returns ``None`` so that a ``glue`` call at the end
    of a cell prints nothing."""
    try:
        import numpy as np

        if isinstance(value, np.generic):
            value = value.item()
    except ImportError:  # pragma: no cover
        pass
    if _in_kernel():
        try:
            from myst_nb import glue as _glue
        except ImportError:  # pragma: no cover - book extra not installed
            return None
        _glue(name, value, display=display)
    return None


def profile_banner(note: str = "") -> None:
    """Show which profile built this page and with which parameters (a MyST admonition).

    ``note`` says, in a sentence, how this profile differs from the sources' settings.
    """
    ctx = run_context()
    params = ", ".join(f"`{k}={v!r}`" for k, v in ctx["parameters"].items()) or "defaults"
    # A colon fence: a backtick fence's info string may not contain backticks.
    text = (f":::{{admonition}} Built with the `{ctx['profile']}` profile\n:class: note\n"
            f"{note + ' ' if note else ''}Parameters: {params}. "
            f"Re-run this chapter with `repcap run {ctx['notebook']} --profile PROFILE -p name=value`.\n:::\n")
    if _in_kernel():
        from IPython.display import Markdown, display

        display(Markdown(text))
    else:
        print(text)
