"""The book: every chapter of ``_toc.yml`` under one profile (:mod:`repcap.runner`), then the
generated pages (figure index, scorecard) and the HTML build (Jupyter Book 1.x, offline MathJax)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from . import RepcapError
from .paths import notebooks_dir, project_root
from .runner import run


def chapters() -> list[Path]:
    """Chapter notebooks in the order of ``_toc.yml`` (entries ``book/generated/<stem>``)."""
    toc = yaml.safe_load((project_root() / "_toc.yml").read_text())
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(str(node["file"]))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    out = []
    for f in files:
        if f.startswith("book/generated/"):
            stem = Path(f).name
            src = notebooks_dir() / f"{stem}.py"
            if src.exists():
                out.append(src)
    return out


def build_book(
    profile: str = "quick", force: bool = False, build: bool = True, log: Callable[[str], None] = print
) -> Path:
    """Run every chapter of ``_toc.yml`` under ``profile``, write the figure index, build HTML."""
    from .figindex import write_figure_index
    from .scorecard import write_pages

    results = []
    t0 = time.time()
    for nb in chapters():
        results.append(run(nb, profile=profile, force=force, log=log))
    index = write_figure_index([f for r in results for f in r.figures])
    write_pages()
    log(f"figure index: {index.relative_to(project_root())} ({sum(len(r.figures) for r in results)} figures)")
    log(f"chapters: {time.time() - t0:.1f} s")
    html = project_root() / "_build" / "html" / "index.html"
    if build:
        jb_build(log=log)
        log(f"book: {html}")
    return html


def jb_build(log: Callable[[str], None] = print) -> None:
    """``jupyter-book build . -W -n --keep-going`` with offline MathJax staged first."""
    import subprocess

    from .mathjax import stage_mathjax
    from .scorecard import write_pages

    stage_mathjax()
    write_pages()  # from the findings on disk, so that `make html` after one `repcap run` is current
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe) if exe.exists() else "jupyter-book", "build", str(project_root()), "-W", "-n", "--keep-going"]
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=project_root(), capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-40:])
        raise RepcapError(f"jupyter-book build failed (any warning fails it):\n{tail}")
    log(f"jupyter-book build: {time.time() - t0:.1f} s")
