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
import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repcap import RepcapError, __version__
from repcap.base import io as rio
from repcap.base.context import run_label
from repcap.base.paths import generated_dir, notebooks_dir, project_root

from .kernel import collapse_injected_parameters, drop_staging, environment, execute, fail, kernel_env, prepare
from .params import PROFILES, notebook_configs, notebook_parameters, parse_override, resolve_parameters
from .runcache import cache_key, out_dir, output_digests, output_name, outputs_present, read_stamp, stamp_path

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


def overrides_of(path: Path, profile: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of ``params`` whose values differ from what ``profile`` gives the chapter
    (``-p`` values equal to the profile's are no override); an engine config's changed settings
    as dotted names (``train.steps``), as ``-p`` takes them back."""
    base = resolve_parameters(path, profile, {})
    configs = notebook_configs(path)
    out: dict[str, Any] = {}
    for k, v in params.items():
        # an engine config: its changed settings, dotted
        if k in configs and isinstance(v, dict) and isinstance(base.get(k), dict):
            out.update({f"{k}.{s}": x for s, x in v.items() if s not in base[k] or base[k][s] != x})
        elif k not in base or base[k] != v:
            out[k] = v
    return out


def last_run(notebook: str | os.PathLike) -> dict[str, Any] | None:
    """The stamp of a chapter's last good run (its profile, parameters, ``overrides``, figures), or
    None.  A stamp from before overrides were recorded gets them from its parameters."""
    path = resolve_notebook(notebook)
    stamp = read_stamp(output_name(path))
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
    fig_dir = out_dir(name, "figures")
    fig_dir.mkdir(parents=True, exist_ok=True)
    for fid in produced:
        for f in (staging / "figures").glob(f"{fid}.*"):
            os.replace(f, fig_dir / f.name)
    for stale in set(old) - set(produced):
        for f in fig_dir.glob(f"{stale}.*"):
            f.unlink(missing_ok=True)
    found = staging / "findings" / f"{name}.json"
    target = out_dir(name, "findings") / f"{name}.json"
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
        stamp = read_stamp(name)
        if not force and stamp and stamp.get("key") == key and outputs_present(name, stamp):
            log(f"{rel}: unchanged ({run_label(profile, changed)}); cache hit, nothing executed")
            return RunResult(path, gen / f"{name}.ipynb", "cached", 0.0, params, stamp.get("figures", []))
        staging = _staging(gen, name, rel, params, changed)
        t0 = time.time()
        log(f"{rel}: executing ({run_label(profile, changed)}) ...")
        with environment(kernel_env(rel, name, profile, staging)):
            try:
                execute(prepare(path), staging, name, rel, params)
            except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (the CLI turns it into this): no half run left
                drop_staging(staging)
                raise
            seconds = time.time() - t0
            record = {"key": key, "notebook": rel, "profile": profile, "params": params, "overrides": changed}
            try:
                produced = _commit_run(staging, name, rel, record, seconds, (stamp or {}).get("figures", []))
            finally:
                drop_staging(staging)
    log(f"{rel}: done in {seconds:.1f} s, {len(produced)} figure(s)")
    return RunResult(path, gen / f"{name}.ipynb", "executed", seconds, params, produced)


def _staging(gen: Path, name: str, rel: str, params: dict[str, Any], changed: dict[str, Any]) -> Path:
    """A fresh staging folder for this run, holding its parameters and overrides; one line when
    the book's folder cannot be written."""
    staging = gen / ".staging" / f"{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        (staging / "figures").mkdir(parents=True)
        rio.write_json(staging / "params.json", params)
        rio.write_json(staging / "overrides.json", changed)
    except OSError as exc:
        drop_staging(staging)
        raise RepcapError(
            f"{rel}: cannot write to {gen} ({exc.strerror or exc}); free space or fix its "
            "permissions - earlier outputs are untouched"
        ) from None
    return staging


def _commit_run(
    staging: Path, name: str, rel: str, record: dict[str, Any], seconds: float, old: list[str]
) -> list[str]:
    """Commit an executed run's files and write its stamp (``record`` and what the run made);
    returns its figure ids.  A full disk ends in one line, the failed notebook kept."""
    try:
        collapse_injected_parameters(staging / f"{name}.ipynb", staging)
        produced = _produced(staging)
        findings = _commit(staging, name, produced, old)
        rio.write_json(
            stamp_path(name),
            {
                **record,
                "figures": produced,
                "findings": findings,
                "outputs": output_digests(name, produced),
                "seconds": round(seconds, 2),
                "finished_unix": round(time.time(), 1),
                "repcap_version": __version__,
            },
        )
    except OSError as exc:
        what = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        raise fail(staging, name, rel, f"cannot commit the run's outputs ({what})") from None
    return produced
