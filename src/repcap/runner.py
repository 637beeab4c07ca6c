"""The notebook runner: jupytext ``py:percent`` source -> papermill with a profile's parameters ->
executed ``.ipynb`` in ``book/generated/`` -> Jupyter Book.

* Parameters are validated *before* execution against the notebook's ``parameters`` cell (literals
  only): an unknown name or a value of the wrong type is refused with the list of valid parameters
  (papermill itself only warns).
* Runs are cached by content: the key covers the notebook source, the resolved parameters, the
  profile, the ``repcap`` package tree and the installed package versions.  An unchanged chapter is
  not executed again.
* Outputs are written atomically: the notebook and its figures go to a staging folder and replace
  the previous good outputs only when every cell succeeded.  A failing cell names the notebook and
  the cell, and leaves the earlier outputs in place.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import yaml

from . import RepcapError, __version__
from . import io as rio
from .paths import generated_dir, notebooks_dir, project_root

PROFILES = ("smoke", "quick", "paper")
_LITERALS = (bool, int, float, str, list, dict, type(None))


# ----------------------------------------------------------------------------- parameters

def _read_notebook(path: Path):
    import jupytext

    try:
        return jupytext.read(path)
    except Exception as exc:  # jupytext raises many types on a malformed file
        raise RepcapError(f"{path}: cannot read this notebook source ({exc})") from exc


def notebook_parameters(path: str | os.PathLike) -> dict[str, Any]:
    """The defaults of the cell tagged ``parameters``: ``{name: literal}`` in source order."""
    path = Path(path)
    nb = _read_notebook(path)
    cells = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise RepcapError(f"{path}: needs exactly one code cell tagged 'parameters' (found {len(cells)})")
    try:
        tree = ast.parse(cells[0].source)
    except SyntaxError as exc:
        raise RepcapError(f"{path}: the parameters cell is not valid Python: {exc}") from exc
    out: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0], node.value
        else:
            raise RepcapError(f"{path}: the parameters cell may only hold `name = literal` lines "
                              f"(line {node.lineno})")
        try:
            out[target.id] = ast.literal_eval(value)
        except ValueError as exc:
            raise RepcapError(f"{path}: parameter {target.id!r} must be a literal (line {node.lineno})") from exc
    return out


def _type_name(v: Any) -> str:
    return "None" if v is None else type(v).__name__


def _coerce(name: str, value: Any, default: Any, where: str) -> Any:
    """Check ``value`` against the type of ``default``; ints are accepted where floats are, and
    ``None`` (YAML ``null``) anywhere: chapters use it for "off" or "use the sources' rule"."""
    if default is None or value is None:
        return value
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok:
            value = float(value)
    elif isinstance(default, list):
        ok = isinstance(value, list)
        if ok and default:
            proto = default[0]
            value = [_coerce(f"{name}[{i}]", v, proto, where) for i, v in enumerate(value)]
    else:
        ok = isinstance(value, type(default))
    if not ok:
        raise RepcapError(f"{where}: parameter {name!r} must be {_type_name(default)} "
                          f"(like the default {default!r}), got {_type_name(value)} {value!r}")
    return value


def parse_override(text: str) -> tuple[str, Any]:
    """``name=value`` -> ``(name, value)`` with ``value`` read as a YAML scalar/list."""
    if "=" not in text:
        raise RepcapError(f"parameter {text!r} must look like name=value")
    name, raw = text.split("=", 1)
    name = name.strip()
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        raise RepcapError(f"parameter {name!r}: cannot read value {raw!r} ({exc})") from exc
    return name, value


def load_profile(profile: str, stem: str) -> dict[str, Any]:
    if profile not in PROFILES:
        raise RepcapError(f"unknown profile {profile!r}; use one of {', '.join(PROFILES)}")
    path = notebooks_dir() / "params" / f"{profile}.yaml"
    if not path.exists():
        raise RepcapError(f"profile file {path} is missing")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise RepcapError(f"{path}: must map notebook names to parameter mappings")
    section = data.get(stem) or {}
    if not isinstance(section, dict):
        raise RepcapError(f"{path}: section {stem!r} must be a mapping of parameters")
    return section


def resolve_parameters(path: Path, profile: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """Defaults <- profile file <- overrides, each name and type checked against the defaults."""
    defaults = notebook_parameters(path)
    valid = ", ".join(f"{k} ({_type_name(v)})" for k, v in defaults.items())
    resolved = dict(defaults)
    for where, layer in ((f"notebooks/params/{profile}.yaml [{path.stem}]", load_profile(profile, path.stem)),
                         ("command line", overrides)):
        for name, value in layer.items():
            if name not in defaults:
                raise RepcapError(f"{where}: unknown parameter {name!r} for {path.name}; valid parameters: {valid}")
            resolved[name] = _coerce(name, value, defaults[name], where)
    return resolved


# ----------------------------------------------------------------------------- cache key

def _data_digest() -> str:
    """The reference data every chapter may read (``data/reference``)."""
    from .reference import reference_dir

    h = hashlib.sha256()
    root = reference_dir()
    for p in sorted(root.rglob("*")) if root.is_dir() else []:
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _packages_digest() -> str:
    pairs = sorted({(d.metadata["Name"] or "").lower(): d.version for d in metadata.distributions()}.items())
    return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()


def cache_key(path: Path, profile: str, params: dict[str, Any]) -> str:
    """The chapter's run key: its source, parameters and profile, the code of the ``repcap`` modules
    it imports (their import closure, :mod:`repcap.codehash`: an edit elsewhere in the library does
    not re-run it), the reference data, and the installed package versions."""
    from .codehash import digest, source_imports

    source = path.read_bytes()
    parts = {
        "notebook": hashlib.sha256(source).hexdigest(),
        "profile": profile,
        "params": json.dumps(params, sort_keys=True, default=str),
        "repcap": digest(source_imports(source.decode("utf-8"))),
        "data": _data_digest(),
        "packages": _packages_digest(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


# ----------------------------------------------------------------------------- execution

@dataclass
class RunResult:
    notebook: Path
    output: Path
    status: str  # "executed" | "cached"
    seconds: float
    params: dict[str, Any]
    figures: list[str] = field(default_factory=list)


def resolve_notebook(name: str | os.PathLike) -> Path:
    """A path, or a chapter stem such as ``01_random_vectors``."""
    p = Path(name)
    cands = [p, project_root() / p, notebooks_dir() / p, notebooks_dir() / f"{p.name}.py"]
    for c in cands:
        if c.is_file() and c.suffix == ".py":
            return c.resolve()
    known = ", ".join(sorted(x.stem for x in notebooks_dir().glob("[0-9]*.py")))
    raise RepcapError(f"notebook {str(name)!r} not found; chapters: {known}")


def _collapse_injected_parameters(path: Path) -> None:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "injected-parameters" in tags and "hide-input" not in tags:
            tags.append("hide-input")
    nbformat.write(nb, path)


def _stamp_path(stem: str) -> Path:
    return generated_dir() / ".runs" / f"{stem}.json"


def run(notebook: str | os.PathLike, profile: str = "quick", overrides: dict[str, Any] | None = None,
        force: bool = False, log: Callable[[str], None] = print) -> RunResult:
    """Execute one chapter (or report a cache hit).  See the module docstring."""
    path = resolve_notebook(notebook)
    stem = path.stem
    params = resolve_parameters(path, profile, overrides or {})
    key = cache_key(path, profile, params)
    gen = generated_dir()
    out_nb = gen / f"{stem}.ipynb"
    fig_dir = gen / "figures"
    stamp_file = _stamp_path(stem)
    rel = path.relative_to(project_root()) if path.is_relative_to(project_root()) else path

    if not force and stamp_file.exists() and out_nb.exists():
        stamp = json.loads(stamp_file.read_text())
        if stamp.get("key") == key and all((fig_dir / f"{f}.json").exists() for f in stamp.get("figures", [])):
            log(f"{rel}: unchanged (profile {profile}); cache hit, nothing executed")
            return RunResult(path, out_nb, "cached", 0.0, params, stamp.get("figures", []))

    import papermill
    from papermill.exceptions import PapermillExecutionError

    staging = gen / ".staging" / stem
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "figures").mkdir(parents=True)
    nb = _read_notebook(path)
    for cell in nb.cells:  # the book shows code collapsed under each output ("show code cell source")
        if cell.cell_type == "code":
            tags = cell.metadata.setdefault("tags", [])
            if "hide-input" not in tags and "remove-input" not in tags and "remove-cell" not in tags:
                tags.append("hide-input")
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    env = {
        "REPCAP_ROOT": str(project_root()),
        "REPCAP_PROFILE": profile,
        "REPCAP_NOTEBOOK": str(rel),
        "REPCAP_PARAMS": json.dumps(params),
        "REPCAP_FIGURE_DIR": str(staging / "figures"),
        "REPCAP_FINDINGS_DIR": str(staging / "findings"),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        # Progress bars are for terminals; in the book they would be stray outputs. tqdm.auto warns
        # at import that ipywidgets is missing, which would land in the page too.
        "TQDM_DISABLE": "1",
        "PYTHONWARNINGS": "ignore:IProgress not found",
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    t0 = time.time()
    log(f"{rel}: executing (profile {profile}) ...")
    try:
        papermill.execute_notebook(nb, str(staging / f"{stem}.ipynb"), parameters=params,
                                   kernel_name="python3", cwd=str(project_root()), progress_bar=False,
                                   log_output=False, report_mode=False)
    except PapermillExecutionError as exc:
        failed = gen / ".failed" / f"{stem}.ipynb"
        failed.parent.mkdir(parents=True, exist_ok=True)
        if (staging / f"{stem}.ipynb").exists():
            shutil.move(staging / f"{stem}.ipynb", failed)
        shutil.rmtree(staging, ignore_errors=True)
        evalue = str(exc.evalue).strip().splitlines()[-1] if str(exc.evalue).strip() else ""
        raise RepcapError(f"{rel}: cell {exc.exec_count} raised {exc.ename}: {evalue}\n"
                          f"  earlier outputs are untouched; the failed run is in {failed}") from None
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    seconds = time.time() - t0
    _collapse_injected_parameters(staging / f"{stem}.ipynb")

    # Commit: figures first, then the notebook, then the stamp (each an atomic rename).
    fig_dir.mkdir(parents=True, exist_ok=True)
    produced = sorted({p.stem for p in (staging / "figures").glob("fig-*.json")},  # reading order
                      key=lambda f: json.loads((staging / "figures" / f"{f}.json").read_text()).get("created_unix", 0))
    old = json.loads(stamp_file.read_text()).get("figures", []) if stamp_file.exists() else []
    for f in (staging / "figures").iterdir():
        os.replace(f, fig_dir / f.name)
    for stale in set(old) - set(produced):
        for f in fig_dir.glob(f"{stale}.*"):
            f.unlink(missing_ok=True)
    found = staging / "findings" / f"{stem}.json"
    findings_out = gen / "findings" / f"{stem}.json"
    if found.exists():
        findings_out.parent.mkdir(parents=True, exist_ok=True)
        os.replace(found, findings_out)
    else:
        findings_out.unlink(missing_ok=True)
    os.replace(staging / f"{stem}.ipynb", out_nb)
    shutil.rmtree(staging, ignore_errors=True)
    rio.write_json(stamp_file, {"key": key, "notebook": str(rel), "profile": profile, "params": params,
                                "figures": produced, "seconds": round(seconds, 2),
                                "finished_unix": round(time.time(), 1), "repcap_version": __version__})
    log(f"{rel}: done in {seconds:.1f} s, {len(produced)} figure(s)")
    return RunResult(path, out_nb, "executed", seconds, params, produced)


# ----------------------------------------------------------------------------- the book

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


def build_book(profile: str = "quick", force: bool = False, build: bool = True,
               log: Callable[[str], None] = print) -> Path:
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
