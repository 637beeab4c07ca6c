"""The book's Sphinx extension (``_config.yml`` ``sphinx.extra_extensions``): what a reader meets
that Jupyter Book's defaults get wrong.

* No Thebe: Jupyter Book always loads ``sphinx_thebe``, whose configuration script is added twice
  (every page logged ``Identifier 'THEBE_JS_URL' has already been declared``) and points at a
  script on unpkg.com; the book runs no live kernels (``launch_buttons.thebe: false``) and loads
  nothing from the network, so its scripts are dropped from every page.
* Numbers are searchable: Sphinx's index skips every number ("3.75", "2,176"); after the build
  each page's decimal and grouped numbers are added to ``searchindex.js`` (``book/static/search.js``
  keeps such a number one search term, and searches for whole numbers such as "1234" or "1234%",
  which Sphinx's search drops).
* The search index holds prose, not code: code cells, code blocks and the BibTeX entries are left
  out of it (:func:`prose_only`), so a search finds the text a reader reads.
* Synonyms: ε, epsilon, eps and varepsilon (and the other Greek letters the book uses, with their
  names) find the same pages (:data:`SYNONYMS`).
* One number style: a number glued into the prose (``{glue:text}``) is written as the tables write
  it, thousands separated and powers of ten as ``× 10ⁿ`` (``repcap.book.tables.format_value``), never
  ``3.4e+13`` or ``12345``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

#: A number as the book prints it: 3.75, 2,176, 0.001 (integers Sphinx already indexes).
NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,])|(?<![\w.,])\d+\.\d+(?![\w.])")


#: Search terms that find the same pages (each group's union): a Greek letter, its name and its
#: TeX spelling (the index holds ``varepsilon`` for ``$\\varepsilon$``), and the book's short forms.
SYNONYMS = (
    ("ε", "epsilon", "eps", "varepsilon"),
    ("μ", "mu"),
    ("σ", "sigma"),
    ("α", "alpha"),
    ("γ", "gamma"),
    ("φ", "phi", "varphi"),
    ("β", "beta"),
    ("τ", "tau"),
)


def _is_code(node: Any) -> bool:
    from docutils import nodes

    return isinstance(node, nodes.literal_block) or (
        isinstance(node, nodes.Element) and "cell_input" in node.get("classes", [])
    )


def prose_only(doctree: Any) -> Any:
    """A copy of ``doctree`` without code: literal blocks (code cells' sources and outputs, code
    blocks, the BibTeX entries) and notebook cell inputs."""
    pruned = doctree.deepcopy()
    for node in list(pruned.findall(_is_code)):
        if node.parent is not None:
            node.parent.remove(node)
    return pruned


def _index_prose_only() -> None:
    """Make Sphinx's search index read :func:`prose_only` doctrees (its word collector is
    ``IndexBuilder._word_collector``, which the HTML builder calls for every page)."""
    from sphinx.search import IndexBuilder

    original = IndexBuilder._word_collector
    if getattr(original, "repcap", False):
        return

    def collect(self: Any, doctree: Any) -> Any:
        return original(self, prose_only(doctree))

    collect.repcap = True  # type: ignore[attr-defined]
    IndexBuilder._word_collector = collect  # type: ignore[method-assign]


def _number_style(app: Any, doctree: Any, docname: str) -> None:
    """Numbers glued into the prose in the book's one style (thousands separators, × 10ⁿ)."""
    from docutils import nodes

    from .tables import grouped, times_ten

    for node in doctree.findall(nodes.inline):
        if "pasted-text" not in node.get("classes", []) or len(node.children) != 1:
            continue
        text = node.astext()
        styled = grouped(times_ten(text))
        if styled != text:
            node.children[0].parent = None
            node.children = []
            node += nodes.Text(styled)


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
    main = re.sub(r"<pre\b.*?</pre>", " ", main, flags=re.S)  # code blocks and outputs, the BibTeX
    text = re.sub(r"<[^>]+>", " ", main)
    return set(NUMBER.findall(text))


def add_numbers_to_index(outdir: Path) -> int:
    """Add every page's numbers to ``searchindex.js`` as terms, and give each group of
    :data:`SYNONYMS` the union of its pages; returns how many number terms were added."""
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
    for table in ("terms", "titleterms"):
        found = index.get(table)
        if isinstance(found, dict):
            _merge_synonyms(found)
    path.write_text(head + json.dumps(index, ensure_ascii=False, separators=(",", ":")) + tail, encoding="utf-8")
    return added


def _merge_synonyms(terms: dict[str, Any]) -> None:
    for group in SYNONYMS:
        docs: set[int] = set()
        for t in group:
            v = terms.get(t)
            docs.update([v] if isinstance(v, int) else (v or []))
        if docs:
            for t in group:
                terms[t] = sorted(docs)


def _finished(app: Any, exc: Exception | None) -> None:
    if exc is None and getattr(app.builder, "format", "") == "html" and app.builder.name in ("html", "dirhtml"):
        add_numbers_to_index(Path(app.outdir))


def setup(app: Any) -> dict[str, Any]:
    _index_prose_only()
    app.connect("doctree-resolved", _number_style)
    app.connect("html-page-context", _drop_thebe, priority=900)
    app.connect("build-finished", _finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
