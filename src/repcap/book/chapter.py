"""What a chapter notebook calls: one set-up at the start (:func:`start`), numbers for the prose
(:func:`glue`), and the run record that every figure's provenance is taken from.

Numbers quoted in the prose are glued, never retyped (QuantEcon lectures): in a markdown cell
write ``{glue:text}`name:.3f``` (the format spec is optional).
"""

from __future__ import annotations

import atexit
import json
from typing import Any

from repcap import RepcapError
from repcap.base.context import RunRecord, current, run_context, set_current

_executor: Any = None


def start(note: str = "", *, device: str = "auto", executor: str = "local", scheduler: Any = "") -> RunRecord:
    """Set up a chapter: resolve the device, point every sweep at ``executor`` (closed when the
    kernel exits), record the run, and show the profile box with ``note`` (how this profile
    differs from the sources' settings).  Returns the :class:`RunRecord`."""
    global _executor
    from repcap import sweep
    from repcap.base.devices import device_name, resolve_device
    from repcap.sweep.dask import make_executor

    if not isinstance(device, str) or len(device) > 40:  # a device name is short; say so in one short line
        raise RepcapError(f"device {str(device)[:40]!r}... is not a torch device; use 'auto', 'cpu' or 'cuda[:N]'")
    dev = resolve_device(device)
    close()
    _executor = make_executor(executor, scheduler or None)
    sweep.set_default_executor(_executor)
    ctx = run_context()
    record = RunRecord(
        notebook=ctx["notebook"],
        profile=ctx["profile"],
        parameters=ctx["parameters"],
        device=device_name(dev),
        device_type=dev.type,
        executor="this process" if _executor is None else _executor.describe(),
    )
    set_current(record)
    profile_banner(note)
    return record


def decided(name: str, given: Any, source_value: Any) -> Any:
    """The parameter ``name``'s value: ``given``, or where the run left it to the source (None: "the
    width Yoder states it for") ``source_value``, recorded, so that every figure's sidecar says the
    value, and ``drawn_by.decided_by_rule["chapter"]`` that the chapter decided it."""
    if given is not None:
        return given
    rec = current()
    if rec is not None:
        rec.decided[name] = json.loads(json.dumps(source_value))
    return source_value


def close() -> None:
    """Close the executor :func:`start` made (also run at exit)."""
    global _executor
    if _executor is not None:
        from repcap import sweep

        sweep.set_default_executor(None)
        _executor.close()
        _executor = None


atexit.register(close)


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


def glue(name: str, value: Any, display: bool = False) -> None:
    """Make ``value`` available to the prose as ``{glue:text}`name```.  Outside a kernel (or
    without myst-nb) this is a no-op.  numpy scalars are converted to Python numbers so that
    format specs work.  Returns ``None`` so that a ``glue`` call at the end of a cell prints nothing."""
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
    """Show which profile built this page, the overrides given with it, and every parameter (a
    MyST admonition)."""
    ctx = run_context()
    params = ", ".join(f"`{k}={v!r}`" for k, v in ctx["parameters"].items()) or "defaults"
    overrides = ctx.get("overrides") or {}
    rec = current()
    where = f" Computed on {rec.device}." if rec is not None else ""
    title = f"Built with the `{ctx['profile']}` profile"
    changed = ""
    if overrides:
        title += " + " + ", ".join(f"`{k}={json.dumps(v, ensure_ascii=False)}`" for k, v in overrides.items())
        changed = (
            f"Overridden for this run (`-p`): {', '.join(f'`{k}`' for k in overrides)}; the figures, the figure "
            "index and its BibTeX entries say so. "
        )
    # A colon fence: a backtick fence's info string may not contain backticks.
    text = (
        f":::{{admonition}} {title}\n:class: note\n"
        f"{note + ' ' if note else ''}{changed}Parameters: {params}.{where} "
        f"Re-run this chapter with `repcap run {ctx['notebook']} --profile PROFILE -p name=value`.\n:::\n"
    )
    if _in_kernel():
        from IPython.display import Markdown, display

        display(Markdown(text))
    else:
        print(text)
