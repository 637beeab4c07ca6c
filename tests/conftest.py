"""Fixtures shared by the test suites."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture()
def make_project(tmp_path, monkeypatch) -> Callable[..., Path]:
    """``make_project(stem, source, smoke="{}")``: a throw-away book project holding one chapter
    ``notebooks/<stem>.py`` (its ``_config.yml``, ``_toc.yml`` and a params file per profile, the
    smoke one with ``smoke`` as its YAML), with ``REPCAP_ROOT`` pointing at it."""
    from repcap.book import runner

    def make(stem: str, source: str, smoke: str = "{}\n") -> Path:
        root = tmp_path / "proj"
        (root / "notebooks" / "params").mkdir(parents=True)
        (root / "_config.yml").write_text("title: t\n")
        (root / "_toc.yml").write_text(
            f"format: jb-book\nroot: book/intro\nchapters:\n  - file: book/generated/{stem}\n"
        )
        (root / "notebooks" / f"{stem}.py").write_text(source)
        for p in runner.PROFILES:
            (root / "notebooks" / "params" / f"{p}.yaml").write_text(smoke if p == "smoke" else "{}\n")
        monkeypatch.setenv("REPCAP_ROOT", str(root))
        monkeypatch.setenv("REPCAP_GIT_REV", "test")
        monkeypatch.delenv("REPCAP_FIGURE_DIR", raising=False)
        return root

    return make
