"""The notebook runner: one chapter, jupytext ``py:percent`` source -> papermill with a profile's
parameters (:mod:`repcap.book.params`) -> executed ``.ipynb``, figures and findings in
``book/generated/``.

* Runs are cached by content (:func:`cache_key`): an unchanged chapter is not executed again, and
  the cache check covers every file its figures promise, by content (a figure replaced since, by a
  plain papermill run or by hand, is not a cache hit).
* A run records its profile *and* its overrides (``-p``: the parameters whose values differ from
  the profile's); the sidecars, the profile box, the figure index and its BibTeX show them, and
  ``repcap book`` keeps such a run instead of re-running the chapter at the profile's values.
* One run of a chapter at a time: an exclusive lock per chapter is held around execution and
  commit; a second run waits for it and says which process holds it.
* Each run executes into its own staging folder and commits only the files it produced, each with
  an atomic rename, so the chapter's earlier outputs stay intact until every cell has succeeded,
  and two runs never mix their files.
* A failing cell, a dead kernel (out of memory) or a full disk ends in one line naming the
  notebook; the failed notebook is kept in ``book/generated/.failed/``.
* Outputs are keyed by the notebook's path under ``notebooks/`` (its stem); a notebook from
  elsewhere gets a name of its own, so it can never replace a chapter of the book.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from repcap import RepcapError, __version__
from repcap.base import io as rio
from repcap.base.context import run_label
from repcap.base.paths import generated_dir, notebooks_dir, project_root

from .params import PROFILES, notebook_parameters, parse_override, read_notebook, resolve_parameters

__all__ = [
    "PROFILES",
    "RunResult",
    "cache_key",
    "last_run",
    "notebook_parameters",
    "output_name",
    "overrides_of",
    "parse_override",
    "resolve_notebook",
    "resolve_parameters",
    "run",
]

#: A lock file older than this with a dead owner is taken over.
LOCK_POLL_S = 2.0


# ----------------------------------------------------------------------------- cache key


def _data_digest() -> str:
    """The reference data every chapter may read (``data/reference``)."""
    from repcap.evidence.reference import reference_dir

    h = hashlib.sha256()
    root = reference_dir()
    for p in sorted(root.rglob("*")) if root.is_dir() else []:
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _reference_digest(params: dict[str, Any]) -> str | None:
    """What a chapter with a ``reference_set`` parameter reads of that set: per experiment, the keys
    of the points the cache holds and where each came from (a point computed or imported since the
    last run re-runs the chapter); None for a chapter without one."""
    set_name = params.get("reference_set")
    if not set_name:
        return None
    from repcap.results import bundle, runs

    scale = str(params.get("reference_scale") or "full")
    parts = []
    for e in runs.point_set(str(set_name), scale).experiments:
        lk = bundle.lookup(str(set_name), e.name, scale=scale)
        parts.append([e.name, sorted([f.key, str((f.provenance or {}).get("source"))] for f in lk.found)])
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _bundles_digest(params: dict[str, Any]) -> str | None:
    """The manifests of the results bundles a chapter's parameters name (a folder holding a
    ``bundle.json``, relative to the project or absolute): a chapter that reads bundles directly
    (the Reproducibility chapter) runs again when one of them changes.  None: it names none."""
    names: list[str] = []
    for v in params.values():
        names += [x for x in (v if isinstance(v, (list, tuple)) else [v]) if isinstance(x, str) and x]
    found = []
    for n in names:
        try:
            path = Path(n) if Path(n).is_absolute() else project_root() / n
            manifest = path / "bundle.json"
            if manifest.is_file():
                found.append([n, hashlib.sha256(manifest.read_bytes()).hexdigest()])
        except (OSError, ValueError):
            continue
    return hashlib.sha256(json.dumps(found).encode()).hexdigest() if found else None


def _packages_digest() -> str:
    pairs = sorted({(d.metadata["Name"] or "").lower(): d.version for d in metadata.distributions()}.items())
    return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()


def cache_key(path: Path, profile: str, params: dict[str, Any]) -> str:
    """The chapter's run key: its source, parameters and profile, the code of the ``repcap`` modules
    it imports (their import closure, :mod:`repcap.sweep.codehash`: an edit elsewhere in the library does
    not re-run it), the reference data, the points of its ``reference_set`` that the cache holds
    (:func:`_reference_digest`), the manifests of the bundles its parameters name
    (:func:`_bundles_digest`), and the installed package versions."""
    from repcap.sweep.codehash import digest, source_imports

    source = path.read_bytes()
    parts = {
        "notebook": hashlib.sha256(source).hexdigest(),
        "profile": profile,
        "params": json.dumps(params, sort_keys=True, default=str),
        "repcap": digest(source_imports(source.decode("utf-8"))),
        "data": _data_digest(),
        "packages": _packages_digest(),
    }
    ref = _reference_digest(params)
    if ref is not None:  # chapters without a reference set keep the keys they had
        parts["reference_points"] = ref
    bundles = _bundles_digest(params)
    if bundles is not None:
        parts["bundles"] = bundles
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


# ----------------------------------------------------------------------------- names, stamps, locks


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
        try:
            if c.is_file() and c.suffix == ".py":
                return c.resolve()
        except OSError as exc:  # a name too long for the file system, a folder we may not read
            raise RepcapError(f"notebook {str(name)[:120]!r}: {exc.strerror or exc}") from None
    known = ", ".join(sorted(x.stem for x in notebooks_dir().glob("[0-9]*.py")))
    raise RepcapError(f"notebook {str(name)!r} not found; chapters: {known}")


def output_name(path: Path) -> str:
    """The name of a notebook's outputs: its stem for a chapter in ``notebooks/``, else the stem
    prefixed with a hash of its path (so it cannot replace a chapter of the book)."""
    nb = notebooks_dir().resolve()
    if path.resolve().parent == nb:
        return path.stem
    return f"ext-{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:10]}-{path.stem}"


def _out_dir(name: str, what: str) -> Path:
    """Where a run's ``figures`` or ``findings`` go: the book's folders for a chapter, a folder of
    its own for a notebook outside ``notebooks/`` (whose figure ids may be a chapter's: it must
    not replace the book's figures, nor add findings to its scorecard)."""
    gen = generated_dir()
    return gen / name / what if name.startswith("ext-") else gen / what


def _stamp_path(name: str) -> Path:
    return generated_dir() / ".runs" / f"{name}.json"


def _read_stamp(name: str) -> dict[str, Any] | None:
    """The last good run's stamp, or None if missing or unreadable (a truncated stamp is no stamp)."""
    try:
        stamp = json.loads(_stamp_path(name).read_text())
        return stamp if isinstance(stamp, dict) else None
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _output_files(name: str, produced: list[str]) -> list[Path]:
    """The files a run committed: each figure's files as its sidecar lists them, the sidecar, the
    findings and the executed notebook."""
    gen = generated_dir()
    figdir = _out_dir(name, "figures")
    out: list[Path] = []
    for fid in produced:
        try:
            side = json.loads((figdir / f"{fid}.json").read_text())
        except (OSError, ValueError):
            side = {}
        files = (side.get("files") or {}).values() if isinstance(side, dict) else []
        out += [figdir / str(f) for f in files]
        out.append(figdir / f"{fid}.json")
    findings = _out_dir(name, "findings") / f"{name}.json"
    out += [findings] if findings.is_file() else []
    return [*dict.fromkeys(out), gen / f"{name}.ipynb"]


def _output_digests(name: str, produced: list[str]) -> dict[str, str]:
    """sha256 of every file the run committed, by its path under ``book/generated``."""
    gen = generated_dir()
    return {p.relative_to(gen).as_posix(): _file_digest(p) for p in _output_files(name, produced) if p.is_file()}


def _outputs_present(name: str, stamp: dict[str, Any]) -> bool:
    """Every file the stamp's figures promise (images, CSV, sidecar) and its findings exist, and each
    file the run committed still holds what it wrote (``outputs``: their sha256; a figure written
    over since, by a plain papermill run or by hand, makes the run stale)."""
    gen = generated_dir()
    figdir = _out_dir(name, "figures")
    for fid in stamp.get("figures", []):
        try:
            side = json.loads((figdir / f"{fid}.json").read_text())
        except (OSError, ValueError):
            return False
        files = list((side.get("files") or {}).values()) if isinstance(side, dict) else []
        if not files or not all((figdir / f).is_file() for f in files):
            return False
    if not (gen / f"{name}.ipynb").is_file() or (
        stamp.get("findings") and not (_out_dir(name, "findings") / f"{name}.json").is_file()
    ):
        return False
    digests = stamp.get("outputs")
    if not isinstance(digests, dict):  # a stamp from before content checks: the files' presence only
        return True
    try:
        return all(_file_digest(gen / rel) == want for rel, want in digests.items())
    except OSError:
        return False


def overrides_of(path: Path, profile: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of ``params`` whose values differ from what ``profile`` gives the chapter
    (``-p`` values equal to the profile's are no override)."""
    base = resolve_parameters(path, profile, {})
    return {k: v for k, v in params.items() if k not in base or base[k] != v}


def last_run(notebook: str | os.PathLike) -> dict[str, Any] | None:
    """The stamp of a chapter's last good run (its profile, parameters, ``overrides``, figures), or
    None.  A stamp from before overrides were recorded gets them from its parameters."""
    path = resolve_notebook(notebook)
    stamp = _read_stamp(output_name(path))
    if stamp is None:
        return None
    if not isinstance(stamp.get("overrides"), dict):
        try:
            stamp["overrides"] = overrides_of(path, str(stamp.get("profile")), dict(stamp.get("params") or {}))
        except RepcapError:  # its profile or parameters no longer exist
            stamp["overrides"] = {}
    return stamp


@contextlib.contextmanager
def chapter_lock(name: str, log: Callable[[str], None] = print) -> Iterator[None]:
    """Hold the chapter's exclusive lock; if another run holds it, say which and wait for it."""
    import fcntl

    lock = generated_dir() / ".locks" / f"{name}.lock"
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fh = open(lock, "a+")  # noqa: SIM115 - closed by the `with fh:` below, once the error case is out
    except OSError as exc:
        raise RepcapError(f"cannot create the run lock {lock}: {exc.strerror or exc}") from None
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another run"
            log(f"{name}: waiting for {holder}, which is running this chapter ...")
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()} since {time.strftime('%H:%M:%S')}")
        fh.flush()
        try:
            yield
        finally:
            fh.seek(0)
            fh.truncate()
            fcntl.flock(fh, fcntl.LOCK_UN)


# ----------------------------------------------------------------------------- execution


def _prepare(path: Path):
    nb = read_notebook(path)
    for cell in nb.cells:  # the book shows code collapsed under each output ("show code cell source")
        if cell.cell_type == "code":
            tags = cell.metadata.setdefault("tags", [])
            if "parameters" in tags:  # shown in the profile box instead
                tags.append("remove-cell")
            elif "hide-input" not in tags and "remove-input" not in tags and "remove-cell" not in tags:
                tags.append("hide-input")
    nb.metadata.setdefault("kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    return nb


def _kernel_env(rel: str, name: str, profile: str, staging: Path) -> dict[str, str]:
    return {
        "REPCAP_ROOT": str(project_root()),
        "REPCAP_PROFILE": profile,
        "REPCAP_NOTEBOOK": rel,
        "REPCAP_OUTPUT_NAME": name,
        "REPCAP_PARAMS_FILE": str(staging / "params.json"),  # a file: no argument-list limit
        "REPCAP_OVERRIDES_FILE": str(staging / "overrides.json"),
        "REPCAP_FIGURE_DIR": str(staging / "figures"),
        "REPCAP_FINDINGS_DIR": str(staging / "findings"),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        # Progress bars are for terminals; in the book they would be stray outputs. tqdm.auto warns
        # at import that ipywidgets is missing, which would land in the page too.
        "TQDM_DISABLE": "1",
        "PYTHONWARNINGS": "ignore:IProgress not found",
    }


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _drop_staging(staging: Path) -> None:
    """Remove a run's staging folder, and ``.staging`` itself once no other run uses it (a full
    disk or a failed run leaves no empty folder behind)."""
    shutil.rmtree(staging, ignore_errors=True)
    with contextlib.suppress(OSError):
        staging.parent.rmdir()  # fails while another run's folder is in it: then it stays


def _fail(staging: Path, name: str, rel: str, what: str) -> RepcapError:
    """Keep the failed notebook, drop the staging folder, and say what happened in one line."""
    failed = generated_dir() / ".failed" / f"{name}.ipynb"
    with contextlib.suppress(OSError):
        failed.parent.mkdir(parents=True, exist_ok=True)
        if (staging / f"{name}.ipynb").exists():
            shutil.move(staging / f"{name}.ipynb", failed)
    _drop_staging(staging)
    kept = f"; the failed run is in {failed}" if failed.exists() else ""
    return RepcapError(f"{rel}: {what}\n  earlier outputs are untouched{kept}")


def _kernel_log(name: str) -> Path:
    """Where the kernel process's own stderr goes (its log lines, not the cells' output, which the
    notebook keeps): a file, so that a kernel's complaint while it is shut down after Ctrl-C or a
    SIGTERM is not a traceback in the user's terminal."""
    return generated_dir() / ".runs" / f"{name}.kernel.log"


@contextlib.contextmanager
def _kernel(log_path: Path | None = None) -> Iterator[Any]:
    """A kernel manager on IPC sockets in a private temporary folder (no TCP ports, so no
    "running over TCP without encryption" warning in every build log), shut down afterwards; the
    kernel's stderr goes to ``log_path``.

    It is the asynchronous manager nbclient expects: with a blocking one, nbclient's wait for
    output blocks its event loop, so a kernel that dies mid-cell (the OOM killer) is never noticed
    and the run hangs instead of failing."""
    import tempfile

    from jupyter_client.manager import AsyncKernelManager
    from jupyter_core.utils import run_sync

    class _Manager(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd, **kw):  # the documented override point
            if log is not None:
                kw["stderr"] = log
            return await super()._async_launch_kernel(kernel_cmd, **kw)

    log = None
    if log_path is not None:
        with contextlib.suppress(OSError):
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log = open(log_path, "wb")  # noqa: SIM115 - closed below, after the kernel
    sockets = tempfile.mkdtemp(prefix="repcap-k")  # short: Unix socket paths are limited to ~100 bytes
    km = _Manager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "k"))
    try:
        yield km
    finally:
        with contextlib.suppress(Exception):
            if km.has_kernel:
                run_sync(km.shutdown_kernel)(now=False)
        shutil.rmtree(sockets, ignore_errors=True)
        if log is not None:
            log.close()


def _execute(nb, staging: Path, name: str, rel: str, params: dict[str, Any]) -> None:
    import papermill
    from papermill.exceptions import PapermillExecutionError

    try:
        with _kernel(_kernel_log(name)) as km:
            papermill.execute_notebook(
                nb,
                str(staging / f"{name}.ipynb"),
                parameters=params,
                kernel_name="python3",
                km=km,
                cwd=str(project_root()),
                progress_bar=False,
                log_output=False,
                report_mode=False,
            )
    except PapermillExecutionError as exc:
        evalue = str(exc.evalue).strip().splitlines()[-1] if str(exc.evalue).strip() else ""
        raise _fail(staging, name, rel, f"cell {exc.exec_count} raised {exc.ename}: {evalue}") from None
    except OSError as exc:
        raise _fail(staging, name, rel, f"cannot write the run's outputs ({exc.strerror or exc})") from None
    except Exception as exc:  # nbclient's DeadKernelError, a kernel that failed to start, ...
        kind = type(exc).__name__
        hint = " (the kernel died: out of memory, or killed)" if "Dead" in kind else ""
        hint += f"; the kernel's log is {_kernel_log(name)}"
        raise _fail(
            staging, name, rel, f"execution stopped with {kind}{hint}: {' '.join(str(exc).split())[:200]}"
        ) from None


def _collapse_injected_parameters(path: Path, staging: Path | None = None) -> None:
    """Hide papermill's injected-parameters cell, and take the builder's staging folder out of the
    notebook a reader downloads: papermill records it as ``output_path``, and a cell may print a
    path inside it; both are written as where the files end up (``book/generated/...``)."""
    import json as _json

    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "injected-parameters" in tags and "remove-cell" not in tags:
            tags.append("remove-cell")  # the profile box lists every parameter
    pm = nb.metadata.get("papermill")
    if isinstance(pm, dict):
        root = project_root()
        for k in ("input_path", "output_path"):
            v = pm.get(k)
            if isinstance(v, str) and v.startswith(str(root) + os.sep):
                pm[k] = v[len(str(root)) + 1 :]
        if isinstance(pm.get("output_path"), str) and staging is not None:
            pm["output_path"] = f"book/generated/{Path(pm['output_path']).name}"
    if staging is not None:
        text = nbformat.writes(nb)
        final = generated_dir()
        try:
            shown = final.relative_to(project_root()).as_posix()
        except ValueError:
            shown = "book/generated"
        for form in (str(staging), _json.dumps(str(staging))[1:-1]):
            text = text.replace(form, shown)
        nb = nbformat.reads(text, as_version=4)
    nbformat.write(nb, path)


def _produced(staging: Path) -> list[str]:
    """This run's figure ids, in the order they were made (reading order)."""
    figs = staging / "figures"
    ids = {p.stem for p in figs.glob("fig-*.json")}

    def made(f: str) -> float:
        try:
            return float(json.loads((figs / f"{f}.json").read_text()).get("created_unix", 0))
        except (OSError, ValueError):
            return 0.0

    return sorted(ids, key=made)


def _commit(staging: Path, name: str, produced: list[str], old: list[str]) -> bool:
    """Move this run's files into place (atomic renames on one file system), remove the figures the
    previous run made and this one did not, then the notebook.  Returns whether findings exist."""
    gen = generated_dir()
    fig_dir = _out_dir(name, "figures")
    fig_dir.mkdir(parents=True, exist_ok=True)
    for fid in produced:
        for f in (staging / "figures").glob(f"{fid}.*"):
            os.replace(f, fig_dir / f.name)
    for stale in set(old) - set(produced):
        for f in fig_dir.glob(f"{stale}.*"):
            f.unlink(missing_ok=True)
    found = staging / "findings" / f"{name}.json"
    target = _out_dir(name, "findings") / f"{name}.json"
    if found.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(found, target)
    else:
        target.unlink(missing_ok=True)
    os.replace(staging / f"{name}.ipynb", gen / f"{name}.ipynb")
    return target.exists()


def _check_device(params: dict[str, Any], rel: str) -> None:
    """A chapter's ``device`` parameter (``-p device=cuda``, or its profile's) names a device this
    machine has, or the run is refused in one line before its kernel starts.  The chapter's
    ``chapter.start`` refuses it too, but only inside a started kernel, as a failed cell."""
    device = params.get("device")
    if not isinstance(device, str) or device in ("auto", "cpu"):  # chapter.start refuses a non-string
        return
    from repcap.base.devices import resolve_device

    try:
        resolve_device(device)
    except RepcapError as exc:
        raise RepcapError(f"{rel}: parameter device: {exc}; nothing executed") from None


def run(
    notebook: str | os.PathLike,
    profile: str = "quick",
    overrides: dict[str, Any] | None = None,
    force: bool = False,
    log: Callable[[str], None] = print,
) -> RunResult:
    """Execute one chapter (or report a cache hit).  See the module docstring."""
    path = resolve_notebook(notebook)
    name = output_name(path)
    params = resolve_parameters(path, profile, overrides or {})
    changed = overrides_of(path, profile, params)
    key = cache_key(path, profile, params)
    gen = generated_dir()
    rel = str(path.relative_to(project_root()) if path.is_relative_to(project_root()) else path)
    from .sizing import check_chapter

    _check_device(params, rel)
    check_chapter(path.stem, params, rel)  # a run that cannot fit is refused before its kernel starts
    with chapter_lock(name, log):
        stamp = _read_stamp(name)
        if not force and stamp and stamp.get("key") == key and _outputs_present(name, stamp):
            log(f"{rel}: unchanged ({run_label(profile, changed)}); cache hit, nothing executed")
            return RunResult(path, gen / f"{name}.ipynb", "cached", 0.0, params, stamp.get("figures", []))
        staging = gen / ".staging" / f"{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            (staging / "figures").mkdir(parents=True)
            rio.write_json(staging / "params.json", params)
            rio.write_json(staging / "overrides.json", changed)
        except OSError as exc:
            _drop_staging(staging)
            raise RepcapError(
                f"{rel}: cannot write to {gen} ({exc.strerror or exc}); free space or fix its "
                "permissions - earlier outputs are untouched"
            ) from None
        t0 = time.time()
        log(f"{rel}: executing ({run_label(profile, changed)}) ...")
        with _environment(_kernel_env(rel, name, profile, staging)):
            try:
                _execute(_prepare(path), staging, name, rel, params)
            except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (the CLI turns it into this): no half run left
                _drop_staging(staging)
                raise
            seconds = time.time() - t0
            try:
                _collapse_injected_parameters(staging / f"{name}.ipynb", staging)
                produced = _produced(staging)
                findings = _commit(staging, name, produced, (stamp or {}).get("figures", []))
                rio.write_json(
                    _stamp_path(name),
                    {
                        "key": key,
                        "notebook": rel,
                        "profile": profile,
                        "params": params,
                        "overrides": changed,
                        "figures": produced,
                        "findings": findings,
                        "outputs": _output_digests(name, produced),
                        "seconds": round(seconds, 2),
                        "finished_unix": round(time.time(), 1),
                        "repcap_version": __version__,
                    },
                )
            except OSError as exc:
                what = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
                raise _fail(staging, name, rel, f"cannot commit the run's outputs ({what})") from None
            finally:
                _drop_staging(staging)
    log(f"{rel}: done in {seconds:.1f} s, {len(produced)} figure(s)")
    return RunResult(path, gen / f"{name}.ipynb", "executed", seconds, params, produced)
