"""Cache keys from the code: a digest of exactly the ``repcap`` modules a computation runs.

A sweep point's result depends on the function that computes it and on every ``repcap`` module
that function's module imports, directly or indirectly (imports inside functions included).
:func:`digest` hashes that closure, module by module, from each module's syntax tree with comments
and docstrings removed: editing a function the point runs changes its key; editing an unrelated
module, a comment or a docstring does not.  No version number is bumped by hand.

The same closure keys a chapter run (:mod:`repcap.runner`): the modules the notebook imports.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

PACKAGE = "repcap"


def package_root() -> Path:
    """The folder holding the ``repcap`` package (its parent is on ``sys.path``)."""
    return Path(__file__).resolve().parent.parent


def module_path(name: str, root: Path | None = None) -> Path | None:
    """The source file of module ``name`` (``repcap.x.y``) under ``root``, or None."""
    base = (root or package_root()).joinpath(*name.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


@functools.lru_cache(maxsize=1024)
def _parsed(path: str, mtime_ns: int, size: int) -> tuple[str, tuple[str, ...]]:
    """``(normalised source digest, imported module names)`` of one file (cached on its stat)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    imports: list[str] = []
    is_pkg = path.endswith("__init__.py")
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(getattr(body[0], "value", None), ast.Constant)
                and isinstance(body[0].value.value, str)  # type: ignore[attr-defined]
            ):
                node.body = body[1:]  # drop the docstring
        if isinstance(node, ast.Import):
            imports += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            imports.append("." * node.level + (node.module or ""))
            imports += ["." * node.level + ((node.module + ".") if node.module else "") + a.name for a in node.names]
    text = ast.dump(tree, annotate_fields=True, include_attributes=False)
    return hashlib.sha256(text.encode()).hexdigest(), tuple(imports) + (("__package__",) if is_pkg else ())


def _resolve(ref: str, module: str, is_pkg: bool) -> str | None:
    """An import reference as seen from ``module`` -> an absolute module name (None if not ours)."""
    if ref.startswith("."):
        level = len(ref) - len(ref.lstrip("."))
        base = module.split(".") if is_pkg else module.split(".")[:-1]
        base = base[: len(base) - (level - 1)] if level > 1 else base
        rest = ref.lstrip(".")
        ref = ".".join(base + ([rest] if rest else []))
    return ref if ref == PACKAGE or ref.startswith(PACKAGE + ".") else None


def closure(modules: Iterable[str], root: Path | None = None) -> list[str]:
    """Every ``repcap`` module reachable by imports from ``modules`` (sorted), packages' ``__init__``
    included (importing ``repcap.x.y`` runs ``repcap/__init__`` and ``repcap/x/__init__``)."""
    seen: set[str] = set()
    todo = [m for m in modules if m.startswith(PACKAGE)]
    while todo:
        name = todo.pop()
        path = module_path(name, root)
        if path is None:
            # "from repcap.x import name" also names things that are not modules: keep the parent
            parent = name.rsplit(".", 1)[0]
            if parent != name and parent not in seen:
                todo.append(parent)
            continue
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) not in seen]
        st = path.stat()
        _, refs = _parsed(str(path), st.st_mtime_ns, st.st_size)
        is_pkg = path.name == "__init__.py"
        for ref in refs:
            target = _resolve(ref, name, is_pkg) if ref != "__package__" else None
            if target and target not in seen:
                todo.append(target)
    return sorted(seen)


def digest(modules: Iterable[str], root: Path | None = None) -> str:
    """sha256 over the normalised sources of the import closure of ``modules``."""
    h = hashlib.sha256()
    for name in closure(modules, root):
        path = module_path(name, root)
        assert path is not None
        st = path.stat()
        h.update(name.encode() + b"\0" + _parsed(str(path), st.st_mtime_ns, st.st_size)[0].encode())
    return h.hexdigest()


def function_digest(fn) -> str:
    """:func:`digest` of the module that defines ``fn``."""
    return digest([fn.__module__])


def source_imports(text: str) -> list[str]:
    """The ``repcap`` modules a source text (a notebook) imports."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return sorted({m for m in out if m == PACKAGE or m.startswith(PACKAGE + ".")})
