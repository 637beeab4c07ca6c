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
    """Run every chapter of ``_toc.yml`` under ``profile``, write the figure index, build HTML.

    A chapter whose last run was this profile with overrides (``repcap run -p``) is kept as it is:
    its run is reused (or repeated with the same overrides if its inputs changed), and the log says
    so; ``force`` runs every chapter again at the profile's own values."""
    from .figindex import write_figure_index
    from .scorecard import write_pages

    results = []
    t0 = time.time()
    for nb in chapters():
        results.append(
            run(nb, profile=profile, overrides=_kept_overrides(nb, profile, force, log), force=force, log=log)
        )
    index = write_figure_index([f for r in results for f in r.figures])
    write_pages()
    log(f"figure index: {index.relative_to(project_root())} ({sum(len(r.figures) for r in results)} figures)")
    log(f"chapters: {time.time() - t0:.1f} s")
    html = project_root() / "_build" / "html" / "index.html"
    if build:
        jb_build(log=log)
        log(f"book: {html}")
    return html


def _kept_overrides(nb: Path, profile: str, force: bool, log: Callable[[str], None]) -> dict[str, Any] | None:
    """The overrides of a chapter's last run, when the book keeps it (same profile, not ``force``);
    None otherwise, saying so when a run with overrides is about to be replaced."""
    from .context import run_label
    from .params import resolve_parameters
    from .runner import last_run

    stamp = last_run(nb)
    overrides = (stamp or {}).get("overrides") or {}
    if not overrides:
        return None
    rel = f"notebooks/{nb.name}"
    label = run_label(stamp.get("profile"), overrides) if stamp else ""
    if force:
        log(f"{rel}: --force: its run ({label}) is replaced by one at the profile's values ({profile})")
        return None
    if stamp and stamp.get("profile") != profile:
        log(f"{rel}: its last run ({label}) was another profile; running it under {profile}")
        return None
    try:
        resolve_parameters(nb, profile, overrides)
    except RepcapError as exc:
        log(f"{rel}: its overrides ({label}) no longer apply ({str(exc).splitlines()[0]}); running it under {profile}")
        return None
    log(f"{rel}: keeping its run with overrides ({label}); `repcap book --force` runs it at the profile's values")
    return dict(overrides)


def jb_build(log: Callable[[str], None] = print) -> None:
    """``jupyter-book build . -W -n --keep-going`` with offline MathJax staged first."""
    import subprocess

    from .figindex import write_figure_index
    from .mathjax import stage_mathjax
    from .scorecard import write_pages

    stage_mathjax()
    write_pages()  # from the findings on disk, so that `make html` after one `repcap run` is current
    write_figure_index()  # from the sidecars on disk: a chapter re-run with -p, html.baseurl set since
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe) if exe.exists() else "jupyter-book", "build", str(project_root()), "-W", "-n", "--keep-going"]
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=project_root(), capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-40:])
        raise RepcapError(f"jupyter-book build failed (any warning fails it):\n{tail}")
    log(f"jupyter-book build: {time.time() - t0:.1f} s")


#: Browsers whose headless mode prints a page to PDF (Debian: ``apt-get install chromium``).
PDF_ENGINES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def pdf_engine() -> str | None:
    """The Chromium that prints the book: ``REPCAP_CHROMIUM`` if set, else the first on ``PATH``."""
    import os
    import shutil

    env = os.environ.get("REPCAP_CHROMIUM")
    if env:
        return env if shutil.which(env) else None
    return next((p for p in (shutil.which(n) for n in PDF_ENGINES) if p), None)


def build_pdf(log: Callable[[str], None] = print) -> Path:
    """The whole book as one PDF, offline, from the chapters already executed: Jupyter Book's
    ``singlehtml`` builder (one page, chapter and figure numbers as in the HTML book, the book's
    print stylesheet) printed to A4 by headless Chromium.  ``_build/pdf/book.pdf``."""
    import subprocess

    from .mathjax import stage_mathjax
    from .scorecard import write_pages

    engine = pdf_engine()
    if engine is None:
        raise RepcapError(
            "no PDF engine: install Chromium (Debian/Ubuntu: apt-get install chromium) or set REPCAP_CHROMIUM"
        )
    root = project_root()
    stage_mathjax()
    write_pages()
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [
        str(exe) if exe.exists() else "jupyter-book",
        "build",
        str(root),
        "--builder",
        "singlehtml",
        "-n",
        "--keep-going",
    ]
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    # the single page is the book's root document (index.html only redirects to it)
    toc_root = str((yaml.safe_load((root / "_toc.yml").read_text()) or {}).get("root") or "index")
    page = root / "_build" / "singlehtml" / f"{toc_root}.html"
    if proc.returncode != 0 or not page.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        raise RepcapError(f"jupyter-book singlehtml build failed:\n{tail}")
    # the builder writes that page at its document path but with links relative to the output root:
    # a copy at the root is the page whose stylesheets, images and MathJax resolve
    printable = page
    if "/" in toc_root:
        printable = root / "_build" / "singlehtml" / "_print.html"
        printable.write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    page = printable
    out = root / "_build" / "pdf" / "book.pdf"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(".book.pdf.partial")
    args = [
        engine, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
        "--virtual-time-budget=60000", "--run-all-compositor-stages-before-draw",
        f"--print-to-pdf={tmp}", page.as_uri(),
    ]  # fmt: skip
    try:
        run = subprocess.run(args, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired as exc:
        raise RepcapError(f"{engine} did not finish printing the book within 15 minutes") from exc
    if run.returncode != 0 or not tmp.is_file() or tmp.stat().st_size == 0:
        tail = "\n".join(run.stderr.strip().splitlines()[-5:])
        raise RepcapError(f"{engine} could not print {page}: {tail}")
    tmp.replace(out)
    log(f"pdf: {out} ({out.stat().st_size / 1e6:.1f} MB, {time.time() - t0:.0f} s)")
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m repcap.build pdf`` (``make pdf``): one line, never a traceback, when it cannot."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["pdf"]:
        print("usage: python -m repcap.build pdf", file=sys.stderr)
        return 2
    try:
        build_pdf()
    except RepcapError as exc:
        print(f"make pdf: {str(exc).splitlines()[0] if str(exc) else exc}", file=sys.stderr)
        for line in str(exc).splitlines()[1:]:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
