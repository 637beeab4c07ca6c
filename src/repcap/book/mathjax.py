"""Offline MathJax: the built HTML loads nothing from the internet.

MathJax 3.2.2 comes from the PyPI package ``django-static-mathjax==3.2.2.1`` (installed with
``--no-deps`` by the Makefile; we never import it).  Its ``es5/`` tree is copied to
``book/generated/mathjax/mathjax/es5`` which ``_config.yml`` serves through ``html_static_path``;
``mathjax_path`` then points at ``mathjax/es5/tex-mml-chtml.js`` under ``_static``.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from repcap import RepcapError
from repcap.base.paths import generated_dir

PACKAGE = "django-static-mathjax==3.2.2.1"


def mathjax_source() -> Path:
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise RepcapError(
            f"offline MathJax not installed: run `pip install --no-deps {PACKAGE}` (the Makefile does this)"
        )
    for loc in spec.submodule_search_locations:
        es5 = Path(loc) / "static" / "mathjax" / "es5"
        if (es5 / "tex-mml-chtml.js").is_file():
            return es5
    raise RepcapError(f"the installed 'mathjax' package has no es5/tex-mml-chtml.js; reinstall {PACKAGE}")


def stage_mathjax() -> Path:
    """Copy MathJax's es5 tree next to the book sources (once); return the staged folder."""
    dest = generated_dir() / "mathjax" / "mathjax" / "es5"
    if (dest / "tex-mml-chtml.js").is_file():
        return dest
    src = mathjax_source()
    tmp = dest.with_name("es5.partial")  # copy aside, then rename: an interrupted copy is never used
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp)
    shutil.rmtree(dest, ignore_errors=True)  # a folder without the script is incomplete
    tmp.rename(dest)
    return dest
