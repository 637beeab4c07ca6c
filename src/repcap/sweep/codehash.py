"""Cache keys from the code: a digest of exactly the ``repcap`` modules a computation runs.

A sweep point's result depends on the function that computes it and on every ``repcap`` module
that function's module imports, directly or indirectly (imports inside functions included).
:func:`digest` hashes that closure, module by module, from each module's syntax tree with comments
and docstrings removed: editing a function the point runs changes its key; editing an unrelated
module, a comment or a docstring does not.  No version number is bumped by hand.

The same closure keys a chapter run (:mod:`repcap.book.runner`): the modules the notebook imports.

A sweep point's identity (:mod:`repcap.sweep.keys`) holds no code at all (its engine's numerics
version stands for it), only :func:`data_digest`: the files the closure's modules declare they read
(a module-level ``DATA_FILES`` tuple of names in ``data/reference``).  Its provenance records
:func:`file_digest`, the raw bytes of the closure minus the modules declared numerically inert
(:data:`INERT`) and minus re-export faces (:func:`numeric_closure`), so that a bundle can say a
point's engine was edited since.  (The normalised syntax-tree digests, :func:`digest` and
:func:`numeric_digest`, depend on the Python version's ``ast.dump``: 3.11 and 3.12 give different
digests of the same file.  They key chapter runs, which are re-run where they are rendered.)
"""

from __future__ import annotations

import ast
import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

PACKAGE = "repcap"

#: Modules that cannot change a number a point computes, so editing them keeps every sweep key:
#: orchestration and caching (``repcap.sweep``), file writing (``io``), paths, this hasher, the
#: settings machinery (``config``: help, checks and defaults; a default that changes reaches the
#: key through the normalised config) and the package's error type and progress flag
#: (``repcap``).  A test checks what the numerical modules use of them.
INERT: tuple[str, ...] = (
    "repcap",
    "repcap.sweep.codehash",
    "repcap.base.config",
    "repcap.base.io",
    "repcap.base.paths",
    "repcap.sweep",
    "repcap.sweep.cache",
    "repcap.sweep.claims",
    "repcap.sweep.dask",
    "repcap.sweep.files",
    "repcap.sweep.keys",
    "repcap.sweep.provenance",
    "repcap.sweep.registry",
    "repcap.sweep.run",
    "repcap.sweep.tasks",
)


def package_root() -> Path:
    """The folder holding the ``repcap`` package (its parent is on ``sys.path``)."""
    return Path(__file__).resolve().parents[2]


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


def closure(modules: Iterable[str], root: Path | None = None, stop: Iterable[str] = ()) -> list[str]:
    """Every ``repcap`` module reachable by imports from ``modules`` (sorted), packages' ``__init__``
    included (importing ``repcap.x.y`` runs ``repcap/__init__`` and ``repcap/x/__init__``).  The
    imports of a module in ``stop`` are not followed (the module itself is listed)."""
    stops = set(stop)
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
        if name in stops:
            continue
        st = path.stat()
        _, refs = _parsed(str(path), st.st_mtime_ns, st.st_size)
        is_pkg = path.name == "__init__.py"
        for ref in refs:
            target = _resolve(ref, name, is_pkg) if ref != "__package__" else None
            if target and target not in seen:
                todo.append(target)
    return sorted(seen)


def _stat_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return str(path), st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=1024)
def _shape(path: str, mtime_ns: int, size: int) -> tuple[bool, tuple[str, ...]]:
    """``(is a re-export face, declared DATA_FILES)`` of one file: a face's top level holds only
    imports, its docstring and ``__all__``; ``DATA_FILES`` must be a tuple of string literals."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    face = path.endswith("__init__.py")
    files: tuple[str, ...] = ()
    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if i == 0 and isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant):
            continue
        targets = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets = [node.target.id]
        if targets == ["__all__"]:
            continue
        face = False
        if targets == ["DATA_FILES"]:
            value = node.value  # type: ignore[attr-defined]
            if not isinstance(value, ast.Tuple) or not all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
            ):
                raise ValueError(f"{path}: DATA_FILES must be a tuple of string literals")
            files = tuple(e.value for e in value.elts)  # type: ignore[attr-defined]
    return face, files


def numeric_closure(modules: Iterable[str], root: Path | None = None) -> list[str]:
    """:func:`closure` minus :data:`INERT` and re-export faces: the modules whose source a sweep
    point's key covers.  The imports of an inert module are not followed: it imports nothing a
    point computes with (a test checks what the numerical modules use of it)."""
    out = []
    for name in closure(modules, root, stop=INERT):
        path = module_path(name, root)
        assert path is not None
        if name not in INERT and not _shape(*_stat_key(path))[0]:
            out.append(name)
    return out


def numeric_digest(modules: Iterable[str], root: Path | None = None) -> str:
    """sha256 over the normalised sources of :func:`numeric_closure`."""
    h = hashlib.sha256()
    for name in numeric_closure(modules, root):
        path = module_path(name, root)
        assert path is not None
        h.update(name.encode() + b"\0" + _parsed(*_stat_key(path))[0].encode())
    return h.hexdigest()


def file_digest(modules: Iterable[str], root: Path | None = None) -> str:
    """sha256 over the names and raw bytes of :func:`numeric_closure`: what a result's provenance
    records of the engine that computed it (bytes, not a syntax tree, so that it is the same under
    every Python version; an edited comment counts as an edit, which provenance only reports)."""
    h = hashlib.sha256()
    for name in numeric_closure(modules, root):
        path = module_path(name, root)
        assert path is not None
        h.update(name.encode() + b"\0" + _file_sha(*_stat_key(path)).encode())
    return h.hexdigest()


def data_files(modules: Iterable[str], root: Path | None = None) -> list[str]:
    """The data files (names in ``data/reference``) that the modules of ``modules``' closure declare
    they read, sorted."""
    names: set[str] = set()
    for name in closure(modules, root, stop=INERT):
        path = module_path(name, root)
        assert path is not None
        names.update(_shape(*_stat_key(path))[1])
    return sorted(names)


def data_digest(modules: Iterable[str], root: Path | None = None, data_root: Path | None = None) -> str:
    """sha256 over the names and bytes of :func:`data_files` (``data_root``: the folder they are in;
    default :func:`repcap.base.paths.reference_dir`).  A declared file that is missing counts as
    missing: its absence is part of the digest."""
    return files_digest(data_files(modules, root), data_root)


def files_digest(names: Iterable[str], data_root: Path | None = None) -> str:
    """sha256 over the names and bytes of the data files ``names`` (in ``data_root``, default
    :func:`repcap.base.paths.reference_dir`), sorted; a missing file counts as missing."""
    if data_root is None:
        from repcap.base.paths import reference_dir

        data_root = reference_dir()
    h = hashlib.sha256()
    for name in sorted(set(names)):
        p = data_root / name
        h.update(name.encode() + b"\0")
        h.update(_file_sha(*_stat_key(p)).encode() if p.is_file() else b"missing")
    return h.hexdigest()


@functools.lru_cache(maxsize=256)
def _file_sha(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


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
