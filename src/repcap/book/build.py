"""The book: every chapter of ``_toc.yml`` under one profile (:mod:`repcap.book.runner`), then the
generated pages (figure index, scorecard) and the HTML build (Jupyter Book 1.x, offline MathJax)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from repcap import RepcapError
from repcap.base.paths import notebooks_dir, project_root

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
    from repcap.evidence.scorecard import write_pages

    from .figindex import write_figure_index

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
    from repcap.base.context import run_label

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

    from repcap.evidence.scorecard import write_pages

    from .figindex import write_figure_index
    from .mathjax import stage_mathjax

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
    """The Chromium that prints the book: ``REPCAP_CHROMIUM`` if set (a program that cannot be run
    is named in one line: setting it is what the user did), else the first on ``PATH``."""
    import os
    import shutil

    env = os.environ.get("REPCAP_CHROMIUM")
    if env:
        found = shutil.which(env)
        if found is None:
            what = "is not executable" if Path(env).exists() else "does not exist (nor is it a program on PATH)"
            raise RepcapError(
                f"REPCAP_CHROMIUM={env[:200]!r}: that program {what}; point it at a Chromium or Chrome binary "
                f"(e.g. {shutil.which('chromium') or '/usr/bin/chromium'}), or unset it to use one on PATH"
            )
        return found
    return next((p for p in (shutil.which(n) for n in PDF_ENGINES) if p), None)


def build_pdf(log: Callable[[str], None] = print) -> Path:
    """The whole book as one PDF, offline, from the chapters already executed: Jupyter Book's
    ``singlehtml`` builder (one page, chapter and figure numbers as in the HTML book) with a title
    page and a table of contents put in front (:func:`printable_html`), printed to A4 by headless
    Chromium under the book's print stylesheet (``book/static/repcap.css``: chapters on new pages,
    tables wrapped and wide ones shrunk, code and BibTeX wrapped, page numbers), with PDF bookmarks for
    every chapter and section.  Where PyMuPDF is installed (the dev extra) the contents get page
    numbers, read off a first print's bookmarks.  ``_build/pdf/book.pdf``."""
    import subprocess

    from repcap.evidence.scorecard import write_pages

    from .figindex import write_figure_index
    from .mathjax import stage_mathjax

    engine = pdf_engine()
    if engine is None:
        raise RepcapError(
            "no PDF engine: install Chromium (Debian/Ubuntu: apt-get install chromium) or set REPCAP_CHROMIUM"
        )
    root = project_root()
    stage_mathjax()
    write_pages()
    write_figure_index()
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
    html = page.read_text(encoding="utf-8")
    printable = root / "_build" / "singlehtml" / "_print.html"
    out = root / "_build" / "pdf" / "book.pdf"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(".book.pdf.partial")
    printable.write_text(printable_html(html, book_meta()), encoding="utf-8")
    _print(engine, printable, tmp)
    pages = _heading_pages(tmp, headings(_chapter_headings(html)))
    if pages:  # a second print with the contents' page numbers (the same lines: the same pages)
        printable.write_text(printable_html(html, book_meta(), pages), encoding="utf-8")
        _print(engine, printable, tmp)
    tmp.replace(out)
    log(f"pdf: {out} ({out.stat().st_size / 1e6:.1f} MB, {time.time() - t0:.0f} s)")
    return out


def _print(engine: str, page: Path, target: Path) -> None:
    """Headless Chromium prints ``page`` to ``target``: the page size and margins of the print
    stylesheet, a bookmark for every heading, tagged (accessible) PDF."""
    import subprocess

    args = [
        engine, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
        "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--generate-pdf-document-outline", "--export-tagged-pdf",
        "--virtual-time-budget=60000", "--run-all-compositor-stages-before-draw",
        f"--print-to-pdf={target}", page.as_uri(),
    ]  # fmt: skip
    try:
        run = subprocess.run(args, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired as exc:
        raise RepcapError(f"{engine} did not finish printing the book within 15 minutes") from exc
    if run.returncode != 0 or not target.is_file() or target.stat().st_size == 0:
        tail = "\n".join(run.stderr.strip().splitlines()[-5:])
        raise RepcapError(f"{engine} could not print {page}: {tail}")


def book_meta() -> dict[str, str]:
    """What the title page says: the book's title and authors (``_config.yml``), the commit and day
    of this print, and the profiles its chapters ran under (their run stamps)."""
    import json

    from repcap.base.context import git_revision, run_label
    from repcap.base.paths import generated_dir

    root = project_root()
    try:
        cfg = yaml.safe_load((root / "_config.yml").read_text()) or {}
    except (OSError, yaml.YAMLError):
        cfg = {}
    runs = []
    for nb in chapters():
        try:
            stamp = json.loads((generated_dir() / ".runs" / f"{nb.stem}.json").read_text())
        except (OSError, ValueError):
            continue
        runs.append(run_label(stamp.get("profile"), stamp.get("overrides")))
    profiles = sorted(set(runs), key=runs.count, reverse=True)
    return {
        "title": str(cfg.get("title") or "repcap"),
        "author": str(cfg.get("author") or ""),
        "revision": git_revision(),
        "date": time.strftime("%Y-%m-%d"),
        "profiles": "; ".join(profiles) or "no chapter run yet",
    }


def printable_html(html: str, meta: dict[str, str], pages: dict[str, int] | None = None) -> str:
    """The singlehtml page made a book: a title page and a table of contents (every chapter and
    its sections, linked, with page numbers when ``pages`` gives them) before the first chapter,
    ``data-repcap-print`` on the body (the print stylesheet's chapter breaks), and every table with
    more than :data:`WIDE_TABLE_COLUMNS` columns marked to print in smaller type."""
    import html as html_lib
    import re

    html = _chapter_headings(html)
    heads = headings(html)
    items = []
    for sid, level, text in heads:
        num = (pages or {}).get(sid)
        items.append(
            f'<li class="repcap-toc-{level}"><a href="#{sid}">{html_lib.escape(text)}</a>'
            + (f'<span class="repcap-toc-page">{num}</span>' if num else "")
            + "</li>"
        )
    e = {k: html_lib.escape(v) for k, v in meta.items()}
    front = (
        '<section class="repcap-titlepage"><p class="repcap-title">' + e["title"] + "</p>"
        + (f'<p class="repcap-author">{e["author"]}</p>' if e.get("author") else "")
        + f'<p class="repcap-printed">Printed {e["date"]} from the book at git {e["revision"]}; '
        f'chapters run under: {e["profiles"]}.</p></section>'
        '<nav class="repcap-contents"><p class="repcap-contents-title">Contents</p><ol>' + "".join(items) + "</ol></nav>"
    )  # fmt: skip
    m = re.search(r'<article[^>]*class="bd-article"[^>]*>', html)
    if m:
        html = html[: m.end()] + front + html[m.end() :]
    html = re.sub(r"<body([^>]*)>", lambda b: f'<body{b.group(1)} data-repcap-print="book">', html, count=1)

    def mark_wide(t: re.Match[str]) -> str:
        # a number never breaks inside (the print stylesheet lets text cells break anywhere instead)
        table = re.sub(
            r"<td>(?=\s*[-+−]?[\d.,]+(?:\s*[×%][\s\d⁰¹²³⁴⁵⁶⁷⁸⁹⁻]*)?\s*</td>)", '<td class="repcap-num">', t.group()
        )
        first_row = re.search(r"<tr[^>]*>(.*?)</tr>", table, flags=re.S)
        cols = len(re.findall(r"<t[hd][\s>]", first_row.group(1))) if first_row else 0
        return f'<div class="repcap-wide">{table}</div>' if cols > WIDE_TABLE_COLUMNS else table

    return re.sub(r"<table\b.*?</table>", mark_wide, html, flags=re.S)


#: A table with more columns than this prints in smaller type (Chromium lays a document out at one
#: width, so a landscape page would not widen it).
WIDE_TABLE_COLUMNS = 9


def _heading_pages(pdf: Path, heads: list[tuple[str, int, str]]) -> dict[str, int]:
    """Page numbers of the printed headings, by section id: the PDF's bookmarks (which Chromium
    writes from the headings, in document order) matched to ``heads`` by their text, in order;
    empty without PyMuPDF."""
    import re

    try:
        import pymupdf
    except ImportError:
        return {}

    def norm(text: str) -> str:  # letters and digits only: a bookmark loses the spaces at line breaks, and math
        return re.sub(r"\W+", "", re.sub(r"\\\(.*?\\\)", "", str(text))).lower()

    try:
        with pymupdf.open(pdf) as doc:
            toc = [(norm(title), int(page)) for _level, title, page in doc.get_toc(simple=True)]
    except (RuntimeError, ValueError, OSError):  # no page numbers is the fallback, never a failed print
        return {}
    out: dict[str, int] = {}
    at = 0
    for sid, _level, text in heads:
        want = norm(text)
        for j in range(at, len(toc)):
            if toc[j][0] and (want.startswith(toc[j][0]) or want[: max(12, len(want) * 2 // 3)] in toc[j][0]):
                out[sid] = toc[j][1]
                at = j + 1
                break
    return out


def _chapter_headings(html: str) -> str:
    """The singlehtml page nests every document under the root's headings (a chapter's title is an
    h3, its sections h4): each document's headings are lifted so that its title is an h1 and its
    sections h2, as in the HTML book, for the print stylesheet's chapter breaks and the PDF's
    bookmarks (Chromium makes them from the heading levels)."""
    import re

    parts = re.split(r'(?=<span id="document-)', html)
    out = [parts[0]]
    for part in parts[1:]:
        first = re.search(r"<h([1-6])[\s>]", part)
        shift = int(first.group(1)) - 1 if first else 0
        if shift > 0:
            part = re.sub(
                r"<(/?)h([1-6])([\s>])",
                lambda m, by=shift: f"<{m.group(1)}h{max(1, int(m.group(2)) - by)}{m.group(3)}",
                part,
            )
        out.append(part)
    return "".join(out)


def headings(html: str) -> list[tuple[str, int, str]]:
    """(section id, level, text) of every chapter (h1) and section (h2) heading of a page."""
    import html as html_lib
    import re

    out = []
    for sid, level, body in re.findall(
        r'<section[^>]*\bid="([^"]+)"[^>]*>\s*(?:<span id="[^"]*"></span>\s*)*<h([12])[^>]*>(.*?)</h\2>',
        html,
        flags=re.S,
    ):
        body = re.sub(r'<a class="headerlink".*?</a>', "", body, flags=re.S)
        text = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", "", body)).split())
        if text:
            out.append((sid, int(level), text))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m repcap.book.build pdf`` (``make pdf``): one line, never a traceback, when it cannot."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["pdf"]:
        print("usage: python -m repcap.book.build pdf", file=sys.stderr)
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
