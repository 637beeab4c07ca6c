"""The context a chapter runs in: what the runner exported (notebook, profile, parameters) and
the run record of the chapter being executed.  :mod:`repcap.chapter` sets the record; the figures,
findings and banner read it (so they sit below the chapter set-up, not beside it).
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_current: RunRecord | None = None


def current() -> RunRecord | None:
    """The run record of the chapter being executed (None outside :func:`repcap.chapter.start`)."""
    return _current


def set_current(record: RunRecord | None) -> None:
    global _current
    _current = record


def run_context() -> dict[str, Any]:
    """What the runner exported: notebook, profile and parameters (empty outside the runner)."""
    path = os.environ.get("REPCAP_PARAMS_FILE")
    params: dict[str, Any] = {}
    if path:
        try:
            params = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            params = {}
    return {
        "notebook": os.environ.get("REPCAP_NOTEBOOK", "interactive"),
        "profile": os.environ.get("REPCAP_PROFILE", "interactive"),
        "parameters": params,
    }
