"""A throwaway project for the tests that run the CLI on the real chapters."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def chapters_copy(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the book's chapters and profiles, so that a run's outputs could not land in the
    checkout (none should: every run here is refused)."""
    root = tmp_path / "proj"
    (root / "notebooks" / "params").mkdir(parents=True)
    (root / "_config.yml").write_text("title: t\n")
    for nb in (ROOT / "notebooks").glob("[0-9]*.py"):
        shutil.copy(nb, root / "notebooks" / nb.name)
    for prof in ("smoke", "quick", "paper"):
        shutil.copy(ROOT / "notebooks" / "params" / f"{prof}.yaml", root / "notebooks" / "params" / f"{prof}.yaml")
    monkeypatch.setenv("REPCAP_ROOT", str(root))
    return root
