"""The book's Sphinx extension (``_config.yml`` ``sphinx.extra_extensions``): what a reader meets
that Jupyter Book's defaults get wrong.

* No Thebe: Jupyter Book always loads ``sphinx_thebe``, whose configuration script is added twice
  (every page logged ``Identifier 'THEBE_JS_URL' has already been declared``) and points at a
  script on unpkg.com; the book runs no live kernels (``launch_buttons.thebe: false``) and loads
  nothing from the network, so its scripts are dropped from every page.
* Numbers are searchable: Sphinx's index skips every number ("3.75", "2,176"); after the build
  each page's decimal and grouped numbers are added to ``searchindex.js`` (``book/static/search.js``
  keeps such a number one search term).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

#: A number as the book prints it: 3.75, 2,176, 0.001 (integers Sphinx already indexes).
NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,])|(?<![\w.,])\d+\.\d+(?![\w.])")


def _drop_thebe(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    keep = []
    for js in scripts:
        name = str(getattr(js, "filename", js) or "")
        body = str(getattr(js, "attributes", {}).get("body", "")) if hasattr(js, "attributes") else ""
        if "thebe" in name or "THEBE_JS_URL" in body:
            continue
        keep.append(js)
    context["script_files"] = keep


def page_numbers(html: str) -> set[str]:
    """The decimal and grouped numbers of a built page's main text (code cells left out)."""
    main = html.split('role="main"', 1)[-1]
    main = re.sub(r"<details class=\"hide above-input\">.*?</details>", " ", main, flags=re.S)
    main = re.sub(r"<div class=\"cell_input.*?</div>\s*</div>", " ", main, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", main)
    return set(NUMBER.findall(text))


def add_numbers_to_index(outdir: Path) -> int:
    """Add every page's numbers to ``searchindex.js`` as terms; returns how many were added."""
    path = outdir / "searchindex.js"
    if not path.is_file():
        return 0
    src = path.read_text(encoding="utf-8")
    head, tail = "Search.setIndex(", ")"
    if not src.startswith(head):
        return 0
    index = json.loads(src[len(head) : src.rstrip().rindex(tail)])
    terms = index.setdefault("terms", {})
    added = 0
    for i, doc in enumerate(index.get("docnames", [])):
        page = outdir / f"{doc}.html"
        try:
            html = page.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for num in page_numbers(html):
            docs = terms.get(num)
            if isinstance(docs, int):
                docs = [docs]
            docs = list(docs or [])
            if i not in docs:
                docs.append(i)
                added += 1
            terms[num] = sorted(docs)
    path.write_text(head + json.dumps(index, ensure_ascii=False, separators=(",", ":")) + tail, encoding="utf-8")
    return added


def _finished(app: Any, exc: Exception | None) -> None:
    if exc is None and getattr(app.builder, "format", "") == "html" and app.builder.name in ("html", "dirhtml"):
        add_numbers_to_index(Path(app.outdir))


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _drop_thebe, priority=900)
    app.connect("build-finished", _finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
