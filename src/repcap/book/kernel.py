"""Executing a chapter: its notebook prepared for the book, the kernel's environment, a kernel on
private sockets, papermill's run into the staging folder, and one line naming the notebook when
it fails (the failed notebook kept in ``book/generated/.failed/``)."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.base.paths import generated_dir, project_root

from .params import read_notebook


def prepare(path: Path):
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


def kernel_env(rel: str, name: str, profile: str, staging: Path) -> dict[str, str]:
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
def environment(env: dict[str, str]) -> Iterator[None]:
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


def drop_staging(staging: Path) -> None:
    """Remove a run's staging folder, and ``.staging`` itself once no other run uses it (a full
    disk or a failed run leaves no empty folder behind)."""
    shutil.rmtree(staging, ignore_errors=True)
    with contextlib.suppress(OSError):
        staging.parent.rmdir()  # fails while another run's folder is in it: then it stays


def fail(staging: Path, name: str, rel: str, what: str) -> RepcapError:
    """Keep the failed notebook, drop the staging folder, and say what happened in one line."""
    failed = generated_dir() / ".failed" / f"{name}.ipynb"
    with contextlib.suppress(OSError):
        failed.parent.mkdir(parents=True, exist_ok=True)
        if (staging / f"{name}.ipynb").exists():
            shutil.move(staging / f"{name}.ipynb", failed)
    drop_staging(staging)
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


def execute(nb, staging: Path, name: str, rel: str, params: dict[str, Any]) -> None:
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
        raise fail(staging, name, rel, f"cell {exc.exec_count} raised {exc.ename}: {evalue}") from None
    except OSError as exc:
        raise fail(staging, name, rel, f"cannot write the run's outputs ({exc.strerror or exc})") from None
    except Exception as exc:  # nbclient's DeadKernelError, a kernel that failed to start, ...
        kind = type(exc).__name__
        hint = " (the kernel died: out of memory, or killed)" if "Dead" in kind else ""
        hint += f"; the kernel's log is {_kernel_log(name)}"
        raise fail(
            staging, name, rel, f"execution stopped with {kind}{hint}: {' '.join(str(exc).split())[:200]}"
        ) from None


def collapse_injected_parameters(path: Path, staging: Path | None = None) -> None:
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
