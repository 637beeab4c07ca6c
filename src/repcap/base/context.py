"""The context a chapter runs in: what the runner exported (notebook, profile, parameters and
the overrides among them) and the run record of the chapter being executed.  :mod:`repcap.book.chapter`
sets the record; the figures, findings and banner read it (so they sit below the chapter set-up, not
beside it).

A chapter executed outside ``repcap run`` (plain jupytext + papermill, or Jupyter) has no runner
to say what it is: :func:`run_context` then recognises the chapter by its parameters cell and reads
papermill's injected ``-p`` values, so that its figures (written to a folder of their own,
:func:`repcap.base.paths.figure_dir`) still say which chapter and which parameters drew them.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .paths import project_root


def git_revision() -> str:
    """The checkout's commit (12 hex digits, ``-dirty`` when tracked files differ from it), or
    ``REPCAP_GIT_REV``; ``unknown`` outside a git checkout."""
    env = os.environ.get("REPCAP_GIT_REV")
    if env:
        return env
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=project_root(), capture_output=True, text=True, timeout=10
        )
        rev = out.stdout.strip() or "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=project_root(),
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


@dataclass
class RunRecord:
    """What this chapter run is: which notebook, profile and parameters, and where it computes
    (the device actually used, and where sweep points run)."""

    notebook: str
    profile: str
    parameters: dict
    device: str  # the resolved device, e.g. "cpu (1 threads)" or "cuda:0 NVIDIA H200"
    device_type: str  # "cpu" | "cuda"
    executor: str  # "this process" or a Dask cluster's description
    started_unix: float = field(default_factory=time.time)
    #: the values the chapter gave parameters left to the source's value (None): ``chapter.decided``
    decided: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_current: RunRecord | None = None


def current() -> RunRecord | None:
    """The run record of the chapter being executed (None outside :func:`repcap.book.chapter.start`)."""
    return _current


def set_current(record: RunRecord | None) -> None:
    global _current
    _current = record


#: The profile name of a chapter executed outside ``repcap run``: no profile, the notebook's own
#: defaults and whatever papermill injected.
OUTSIDE = "interactive"


def run_label(profile: Any, overrides: Any = None) -> str:
    """What a run was, in one short line: ``quick`` or ``quick + n_vectors=3000, dims=[10, 1000]``;
    a run outside ``repcap run`` is ``notebook defaults (outside repcap run)`` plus its ``-p``."""
    base = "notebook defaults (outside repcap run)" if profile in (None, "", OUTSIDE) else str(profile)
    items = overrides.items() if isinstance(overrides, dict) else []
    extra = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in items)
    return f"{base} + {extra}" if extra else base


def _read_json(path: str | None, default: Any) -> Any:
    if not path:
        return default
    try:
        value = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return default
    return value if isinstance(value, type(default)) else default


def run_context() -> dict[str, Any]:
    """What the runner exported: notebook, profile, parameters and the overrides among them (the
    ``-p`` values that differ from the profile's).  Outside the runner: ``interactive``, unless this
    is a chapter executed by plain papermill or Jupyter (:func:`outside_run`)."""
    if not os.environ.get("REPCAP_NOTEBOOK"):
        found = outside_run()
        if found is not None:
            return dict(found)
    return {
        "notebook": os.environ.get("REPCAP_NOTEBOOK", OUTSIDE),
        "profile": os.environ.get("REPCAP_PROFILE", OUTSIDE),
        "parameters": _read_json(os.environ.get("REPCAP_PARAMS_FILE"), {}),
        "overrides": _read_json(os.environ.get("REPCAP_OVERRIDES_FILE"), {}),
    }


_outside: dict[str, Any] | None = None


def _json_safe(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def outside_run() -> dict[str, Any] | None:
    """A chapter executed outside ``repcap run``, in this kernel: which one (the chapter whose
    parameters cell is among the cells run so far), its parameters' values now, and the values
    papermill injected (its ``# Parameters`` cell) as the overrides.  None outside a kernel, or for
    a notebook that is not one of the book's chapters."""
    global _outside
    if _outside is not None:
        return _outside
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    ip = get_ipython()
    if ip is None:
        return None
    import ast

    raw = [c for c in getattr(ip.history_manager, "input_hist_raw", []) if isinstance(c, str) and c.strip()]
    if not raw:
        return None
    overrides: dict[str, Any] = {}
    for cell in raw:
        if cell.lstrip().startswith("# Parameters"):  # papermill's injected cell (its comment line)
            try:
                tree = ast.parse(cell)
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    try:
                        overrides[node.targets[0].id] = _json_safe(ast.literal_eval(node.value))
                    except ValueError:
                        continue
    chapter = _chapter_of(raw)
    if chapter is None:
        return None
    rel, names = chapter
    _outside = {
        "notebook": rel,
        "profile": OUTSIDE,
        "parameters": {k: _json_safe(ip.user_ns[k]) for k in names if k in ip.user_ns},
        "overrides": overrides,
    }
    return _outside


def parameters_cell(source: str) -> str | None:
    """The source of the cell tagged ``parameters`` in a jupytext ``py:percent`` chapter (the line
    ``# %% tags=["parameters"]`` up to the next cell marker), or None."""
    lines = source.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("# %%") and '"parameters"' in ln:
            body = []
            for nxt in lines[i + 1 :]:
                if nxt.startswith("# %%"):
                    break
                body.append(nxt)
            return "\n".join(body)
    return None


def _chapter_of(cells: list[str]) -> tuple[str, list[str]] | None:
    """(``notebooks/NN_x.py``, its parameter names) for the chapter whose parameters cell is one of
    ``cells`` (compared line by line, blank lines and trailing spaces aside)."""
    import ast

    def norm(text: str) -> str:
        return "\n".join(ln.rstrip() for ln in text.strip().splitlines() if ln.strip())

    ran = {norm(c) for c in cells}
    for path in sorted((project_root() / "notebooks").glob("[0-9][0-9]_*.py")):
        try:
            cell = parameters_cell(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        if cell is None or norm(cell) not in ran:
            continue
        try:
            tree = ast.parse(cell)
        except SyntaxError:
            return f"notebooks/{path.name}", []
        names = [
            n.targets[0].id
            for n in tree.body
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
        ]
        return f"notebooks/{path.name}", names
    return None
