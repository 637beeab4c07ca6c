"""One tensor of a model on the hub, read by HTTP range requests: only ``config.json``, the index,
the header of the file that holds the tensor and the tensor's own bytes are fetched.

A run resolves the revision to a commit once (``model_info``: the file list and the commit sha), and
reads everything else at that commit, so a branch that moves mid-run cannot mix two versions.
``config.json`` and the index come through ``hf_hub_download`` (the hub's cache); the header and the
tensor through ``hf_hub_url`` + a ``Range`` GET on the library's own session
(``http_stream_backoff``, its auth headers, its status-to-error mapping), and go to the slice cache
(:mod:`.slices`).  Every offset is checked against the header and the file size (the local
reader's checks, :func:`repcap.models.formats.safetensors.check_header`) before a tensor byte is requested.

Safetensors: bytes ``[0, 8)`` give the header length ``n``, ``[8, 8 + n)`` the header, then one
range for the tensor.  GGUF: a growing prefix until the tensor table is whole (the reader's data
offset lies inside what was read), then one range; the reader runs on a sparse local file of the
remote size holding only those bytes.

Offline (``HF_HUB_OFFLINE=1``), or with a revision given as a 40-hex commit sha, nothing is
requested once the slices are cached.  Every failure ends in one :class:`RepcapError` line.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from repcap import RepcapError

from ..formats import safetensors as st_format
from ..formats.common import as_float32, pickle_magic, read_json_object
from ..formats.names import choose_tensor, pick_tensor
from ..matrix import Embedding, TensorInfo
from .layout import INDEX, safe_relative, validate_hub_id, weight_map
from .slices import HEADER, SliceCache

COMMIT = re.compile(r"^[0-9a-f]{40}$")
#: Attempts at one range (the first and the resumes after a dropped connection or a short body).
RANGE_ATTEMPTS = 4
#: Seconds before the first resume; doubled after each.
RESUME_WAIT = 0.5
#: A range at least this large shows a progress bar.
PROGRESS_BYTES = 1 << 20
#: The first read of a GGUF file (doubled until the tensor table is whole), and the most we read
#: (a real header with a 256k-token vocabulary and its merges is about 10 MB).
GGUF_PREFIX = 1 << 18
GGUF_MAX_HEADER = 1 << 28
#: The largest file size a server may state (the hub itself stores files of at most 50 GB): a
#: larger one is refused before anything is read or staged.
MAX_REMOTE_FILE = 1 << 40
#: A range read's deadline: HF_HUB_DOWNLOAD_TIMEOUT seconds for each MiB, plus this many timeouts
#: (so a server that sends a byte now and then, each within the socket timeout, cannot hold a run).
DEADLINE_SLACK = 4


def range_deadline(nbytes: int, timeout: float) -> float:
    """Seconds a range of ``nbytes`` may take in all, with HF_HUB_DOWNLOAD_TIMEOUT = ``timeout``."""
    return float(timeout) * (DEADLINE_SLACK + nbytes / float(1 << 20))


def _hf():
    try:
        import huggingface_hub
        import huggingface_hub.constants
    except ImportError as exc:  # pragma: no cover
        raise RepcapError("hub ids need 'huggingface_hub': pip install 'repcap[models]'") from exc
    return huggingface_hub


def endpoint() -> str:
    return _hf().constants.ENDPOINT


def offline_mode() -> bool:
    return bool(_hf().constants.HF_HUB_OFFLINE)


def _local_hint() -> str:
    return "set HF_HUB_OFFLINE=1 to use what is cached, or give an offline key or a local file/folder"


def hub_error(repo_id: str, what: str, exc: BaseException) -> RepcapError:
    """One line for a failure of the hub (or of the way to it) while fetching ``what``."""
    import httpx2
    from huggingface_hub import errors

    kind = type(exc).__name__
    if isinstance(exc, ValueError) and not isinstance(exc, errors.HfHubHTTPError):  # a body that is not JSON
        doc = str(getattr(exc, "doc", "") or "")
        page = doc.lstrip()[:200].lower()
        if page.startswith(("<!doctype html", "<html", "<head", "<body")) or "<html" in page:
            got = "an HTML page, not JSON (a captive portal or a proxy's login page?)"
        else:
            got = (
                f"something that is not JSON ({' '.join(doc.split())[:60]!r})" if doc else "something that is not JSON"
            )
        return RepcapError(
            f"hub model {repo_id!r}: the hub at {endpoint()} answered the request for {what} with {got}; "
            f"check the network (log in to it, or set HF_ENDPOINT), or {_local_hint()}"
        )
    if isinstance(exc, errors.LocalEntryNotFoundError):
        hint = (
            f"not in the local hub cache, and the hub at {endpoint()} cannot be asked (no network, or "
            f"HF_HUB_OFFLINE is set); run once with the network, or give an offline key or a local file/folder"
        )
    elif isinstance(exc, errors.GatedRepoError):
        hint = "a gated repo: accept its licence on the hub page, then log in (hf auth login)"
    elif isinstance(exc, errors.RevisionNotFoundError):
        hint = "no such revision (branch, tag or commit) in this repo; check --revision"
    elif isinstance(exc, errors.RepositoryNotFoundError):
        hint = "no such repo, or a private one: check the id (owner/name), or log in (hf auth login)"
    elif isinstance(exc, errors.EntryNotFoundError):
        hint = "no such file in the repo"
    elif isinstance(exc, errors.OfflineModeIsEnabled):
        hint = f"HF_HUB_OFFLINE is set and it is not cached; unset it, or {_local_hint()}"
    elif isinstance(exc, httpx2.TimeoutException):
        hint = f"the hub at {endpoint()} did not answer in time (HF_HUB_ETAG_TIMEOUT / HF_HUB_DOWNLOAD_TIMEOUT); {_local_hint()}"
    elif isinstance(exc, (httpx2.TransportError, OSError)) and not isinstance(exc, errors.HfHubHTTPError):
        hint = f"cannot reach the hub at {endpoint()} ({_one(exc)}); {_local_hint()}"
    elif isinstance(exc, errors.HfHubHTTPError):
        status = getattr(getattr(exc, "response", None), "status_code", "?")
        hint = f"the hub at {endpoint()} answered HTTP {status}; try again later, or {_local_hint()}"
    else:
        hint = f"{_one(exc)}; {_local_hint()}"
    return RepcapError(f"hub model {repo_id!r}: cannot fetch {what} ({kind}): {hint}")


def checked_size(label: str, size) -> int:
    """A file size a server stated, if it is one a model file can have."""
    try:
        n = int(size)
    except (TypeError, ValueError):
        raise RepcapError(f"{label}: the hub stated its size as {str(size)[:40]!r}, not a number; refused") from None
    if not 0 <= n <= MAX_REMOTE_FILE:
        raise RepcapError(
            f"{label}: the hub states that it holds {n:,} bytes, which no model file does (the limit here is "
            f"{MAX_REMOTE_FILE:,} bytes, 1 TiB); refused before reading it"
        )
    return n


def _one(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:160] or type(exc).__name__


class HubRepo:
    """One repository at one commit: its file list, small files through the hub cache, byte ranges
    through the slice cache.  ``requests`` counts what this object asked the network for."""

    def __init__(self, repo_id: str, revision: str | None = None):
        self.repo_id = validate_hub_id(repo_id)
        self.revision = revision or "main"
        self.offline = offline_mode()
        # offline nothing can be fetched again: a damaged entry is named as such, not taken for absent
        self.cache = SliceCache(repo_id, strict=self.offline)
        self.requests = 0
        commit = self.revision if COMMIT.match(self.revision) else None
        if commit is None and self.offline:
            commit = self.cache.ref(self.revision)
        files = self.cache.files(commit) if commit else None
        if files is not None and commit is not None:
            self.commit, self.files = commit, files
            return
        if self.offline:
            raise RepcapError(
                f"hub model {repo_id!r}: HF_HUB_OFFLINE is set and revision {self.revision!r} has not been "
                "read before (nothing in repcap's slice cache); run once with the network, or give an "
                "offline key or a local file/folder"
            )
        hf = _hf()
        try:
            self.requests += 1
            info = hf.HfApi().model_info(repo_id, revision=self.revision, timeout=hf.constants.HF_HUB_ETAG_TIMEOUT)
        except Exception as exc:
            raise hub_error(repo_id, "the model info", exc) from None
        if not info.sha or not COMMIT.match(info.sha):
            raise RepcapError(f"hub model {repo_id!r}: the hub gave no commit for revision {self.revision!r}")
        self.commit = info.sha
        self.files = sorted(s.rfilename for s in (info.siblings or []))
        self.cache.set_files(self.commit, self.files)
        self.cache.set_ref(self.revision, self.commit)

    def has(self, name: str) -> bool:
        return name in self.files

    def label(self, fname: str) -> str:
        return f"hub model {self.repo_id!r}: {fname}"

    # small files through the hub cache ----------------------------------------------------
    def json(self, fname: str, what: str) -> dict:
        hf = _hf()
        try:
            path = hf.hf_hub_download(self.repo_id, fname, revision=self.commit)
        except Exception as exc:
            raise hub_error(self.repo_id, fname, exc) from None
        try:
            return read_json_object(Path(path), what)
        except RepcapError as exc:
            try:
                head = Path(path).read_bytes()[:200].lstrip().lower()
            except OSError:
                head = b""
            if head.startswith((b"<!doctype html", b"<html")):
                raise RepcapError(
                    f"{self.label(fname)}: the hub at {endpoint()} sent an HTML page for it, not JSON (a captive "
                    f"portal or a proxy's login page?); it is in the hub cache at {path}: delete it, check the "
                    f"network, or {_local_hint()}"
                ) from None
            raise RepcapError(f"{self.label(fname)} (hub cache {path}): {str(exc).split(': ', 1)[-1]}") from None

    # byte ranges ----------------------------------------------------------------------------
    def meta(self, fname: str) -> tuple[str, int]:
        """``(etag, size)`` of ``fname`` at the commit: from the slice cache, else one HEAD."""
        known = self.cache.meta(self.commit, fname)
        if known is not None:
            return known
        if self.offline:
            raise RepcapError(
                f"{self.label(fname)}: HF_HUB_OFFLINE is set and this file was never read; run once with the "
                "network, or give an offline key or a local file/folder"
            )
        hf = _hf()
        try:
            self.requests += 1
            m = hf.get_hf_file_metadata(
                hf.hf_hub_url(self.repo_id, fname, revision=self.commit), timeout=hf.constants.HF_HUB_ETAG_TIMEOUT
            )
        except Exception as exc:
            raise hub_error(self.repo_id, fname, exc) from None
        if not m.etag or m.size is None:
            raise RepcapError(f"{self.label(fname)}: the hub gave no etag or size for it; cannot read a range")
        return m.etag, checked_size(self.label(fname), m.size)

    def read(self, fname: str, etag: str, size: int, tensor: str, start: int, end: int, keep: bool = True) -> bytes:
        """Bytes ``[start, end)`` of ``fname``: from the slice cache, else one range request (with
        resumes), checked to be exactly ``end - start`` bytes of the file with ``etag``."""
        if not 0 <= start <= end <= size:
            raise RepcapError(f"{self.label(fname)}: range [{start}, {end}) is outside the file ({size} bytes)")
        cached = self.cache.get(self.commit, fname, etag, tensor, start, end)
        if cached is not None:
            return cached
        if self.offline:
            raise RepcapError(
                f"{self.label(fname)}: HF_HUB_OFFLINE is set and {tensor if tensor != HEADER else 'its header'} "
                "is not in repcap's slice cache; run once with the network, or give a local file"
            )
        data = self._get_range(fname, etag, tensor, start, end)
        if keep:
            self.cache.put(self.commit, fname, etag, size, tensor, start, data)
        return data

    def _get_range(self, fname: str, etag: str, tensor: str, start: int, end: int) -> bytes:
        import httpx2
        from huggingface_hub import constants
        from huggingface_hub.file_download import _normalize_etag
        from huggingface_hub.utils import build_hf_headers, hf_raise_for_status, http_stream_backoff, tqdm

        url = _hf().hf_hub_url(self.repo_id, fname, revision=self.commit)
        n = end - start
        timeout = float(constants.HF_HUB_DOWNLOAD_TIMEOUT)
        deadline = range_deadline(n, timeout)
        t0 = time.monotonic()
        buf = bytearray()
        wait = RESUME_WAIT
        what = "its header" if tensor == HEADER else f"tensor {tensor}"
        failure = ""
        bar = tqdm(
            total=n,
            unit="B",
            unit_scale=True,
            desc=f"{fname} [{tensor}]"[-60:],
            disable=n < PROGRESS_BYTES,
        )
        try:
            for attempt in range(RANGE_ATTEMPTS):
                if attempt:
                    if time.monotonic() - t0 + wait > deadline:
                        raise self._too_slow(fname, what, len(buf), n, time.monotonic() - t0, deadline, timeout)
                    time.sleep(wait)
                    wait *= 2
                headers = build_hf_headers()
                headers["Accept-Encoding"] = "identity"
                headers["Range"] = f"bytes={start + len(buf)}-{end - 1}"
                try:
                    self.requests += 1
                    with http_stream_backoff(
                        "GET",
                        url,
                        headers=headers,
                        follow_redirects=True,
                        timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT,
                        retry_on_exceptions=(),
                        retry_on_status_codes=(),
                    ) as resp:
                        hf_raise_for_status(resp)
                        first = resp.history[0] if resp.history else resp
                        got = _normalize_etag(first.headers.get("X-Linked-Etag") or first.headers.get("ETag"))
                        if got is not None and got != etag:
                            raise RepcapError(
                                f"{self.label(fname)}: the file changed on the hub while it was read (etag "
                                f"{etag[:16]} at the header, {got[:16]} for {what}); refused - run again"
                            )
                        if resp.status_code != 206 or not _content_range_ok(resp, start + len(buf), end):
                            html = "html" in resp.headers.get("Content-Type", "").lower()
                            raise RepcapError(
                                f"{self.label(fname)}: the server at {endpoint()} did not answer the range request "
                                f"for {what} with that range (HTTP {resp.status_code}, "
                                + (
                                    "an HTML page: a captive portal or a proxy's login page?"
                                    if html
                                    else f"Content-Range {resp.headers.get('Content-Range')!r}"
                                )
                                + "); refused rather than read the whole file"
                            )
                        for chunk in resp.iter_bytes():
                            if len(buf) + len(chunk) > n:
                                raise RepcapError(
                                    f"{self.label(fname)}: the server sent more than {n} bytes for {what}"
                                )
                            buf += chunk
                            bar.update(len(chunk))
                            if time.monotonic() - t0 > deadline and len(buf) < n:
                                raise self._too_slow(fname, what, len(buf), n, time.monotonic() - t0, deadline, timeout)
                except RepcapError:
                    raise
                except (httpx2.TransportError, httpx2.StreamError) as exc:  # dropped, short body, timeout
                    failure = f"{type(exc).__name__}: {_one(exc)}"
                    if isinstance(exc, httpx2.TimeoutException):
                        raise RepcapError(
                            f"{self.label(fname)}: the hub at {endpoint()} did not answer in time while sending {what} "
                            f"(HF_HUB_DOWNLOAD_TIMEOUT = {constants.HF_HUB_DOWNLOAD_TIMEOUT} s); {_local_hint()}"
                        ) from None
                except Exception as exc:
                    raise hub_error(self.repo_id, f"{fname} ({what})", exc) from None
                if len(buf) == n:
                    return bytes(buf)
                failure = failure or f"the body ended after {len(buf)} of {n} bytes"
        finally:
            bar.close()
        raise RepcapError(
            f"{self.label(fname)}: {what} arrived incomplete ({len(buf)} of {n} bytes) after {RANGE_ATTEMPTS} "
            f"attempts ({failure}); nothing was used - run again, or {_local_hint()}"
        )

    def _too_slow(
        self, fname: str, what: str, got: int, n: int, spent: float, deadline: float, timeout: float
    ) -> RepcapError:
        return RepcapError(
            f"{self.label(fname)}: the server at {endpoint()} sent {what} too slowly: {got:,} of {n:,} "
            f"bytes in {spent:.0f} s, past the {deadline:.0f} s this range may take (HF_HUB_DOWNLOAD_TIMEOUT = "
            f"{timeout:g} s for each MiB, plus {DEADLINE_SLACK}); nothing was kept - run again later, raise "
            f"HF_HUB_DOWNLOAD_TIMEOUT, or {_local_hint()}"
        )


def _content_range_ok(resp, start: int, end: int) -> bool:
    m = re.match(r"^bytes (\d+)-(\d+)/(\d+|\*)$", resp.headers.get("Content-Range", ""))
    return m is not None and int(m.group(1)) == start and int(m.group(2)) == end - 1


# ---------------------------------------------------------------------------------------------
# safetensors


def _st_header(repo: HubRepo, fname: str) -> tuple[dict[str, dict], int, str, int]:
    """``(checked header, data start, etag, size)`` of a remote safetensors file: bytes ``[0, 8)``
    (the header length), then the header; kept as one slice."""
    etag, size = repo.meta(fname)
    label = repo.label(fname)
    cached = repo.cache.find(repo.commit, fname, HEADER)
    if cached is not None and cached[0] == 0 and cached[1] >= 8:
        raw = repo.read(fname, etag, size, HEADER, *cached)
    else:
        raw = repo.read(fname, etag, size, HEADER, 0, min(8, size), keep=False)
    n = int.from_bytes(raw[:8], "little")
    if not (len(raw) >= 8 and 2 <= n <= min(size - 8, st_format.SAFETENSORS_MAX_HEADER)):
        if pickle_magic(raw[:8]):
            raise RepcapError(f"{label}: this .safetensors file is really a pickle checkpoint; repcap never unpickles")
        raise RepcapError(
            f"{label}: malformed or truncated safetensors header (declares {n} header bytes, the file has {size})"
        )
    if len(raw) != 8 + n:
        raw = raw[:8] + repo.read(fname, etag, size, HEADER, 8, 8 + n, keep=False)
        repo.cache.put(repo.commit, fname, etag, size, HEADER, 0, raw)
    try:
        return st_format.check_header(label, raw[8:], n, size), 8 + n, etag, size
    except RepcapError as exc:  # the hub serves it so: re-downloading would not help
        raise RepcapError(str(exc).replace(f"; {st_format._HINT}", "; the file on the hub is so")) from None


def _st_tensor(repo: HubRepo, fname: str, head: bool, tensor: str | None, config: dict | None, pick: str | None):
    """``(float32 matrix, name, tied, dtype)`` of one tensor of a remote safetensors file."""
    from safetensors.torch import load as st_load

    hdr, data0, etag, size = _st_header(repo, fname)
    label = repo.label(fname)
    if pick is not None:
        if pick not in hdr:
            raise RepcapError(f"{label}: the index puts {pick!r} in this file, but its header has no such tensor")
        name, tied = pick, None
    else:
        name, tied = choose_tensor(label, {k: tuple(v["shape"]) for k, v in hdr.items()}, head, tensor, config)
    info = hdr[name]
    if len(info["shape"]) != 2:
        raise RepcapError(f"{label}: tensor {name} has shape {tuple(info['shape'])}, not (V, d)")
    if info["dtype"] in st_format.NOT_REAL:
        from ..formats.common import refuse_storage

        raise refuse_storage(label, name, info["dtype"], st_format.NOT_REAL[info["dtype"]])
    b, e = info["data_offsets"]
    data = repo.read(fname, etag, size, name, data0 + b, data0 + e)
    mini = json.dumps({name: {"dtype": info["dtype"], "shape": info["shape"], "data_offsets": [0, e - b]}}).encode()
    mini += b" " * (-len(mini) % 8)
    try:
        t = st_load(len(mini).to_bytes(8, "little") + mini + data)[name]
    except Exception as exc:  # safetensors raises its own error types
        raise RepcapError(f"{label}: tensor {name} is not readable ({_one(exc)})") from None
    return as_float32(t), name, tied, info["dtype"]


# ---------------------------------------------------------------------------------------------
# GGUF


def _gguf_prefix(repo: HubRepo, fname: str) -> tuple[bytes, str, int]:
    """The bytes of a remote GGUF file up to its data section (header, metadata, tensor table):
    a first read, then more while the table goes on past what was read (doubling, or to the byte
    the parse needs).  A parse failure inside the bytes already read is final: nothing more is
    fetched for a file whose table is broken."""
    from ..formats import gguf as gguf_format

    etag, size = repo.meta(fname)
    label = repo.label(fname)
    cached = repo.cache.find(repo.commit, fname, HEADER)
    if cached is not None:
        return repo.read(fname, etag, size, HEADER, *cached), etag, size
    want = min(GGUF_PREFIX, size)
    got = b""
    while True:
        got += repo.read(fname, etag, size, HEADER, len(got), want, keep=False)
        with tempfile.TemporaryDirectory(prefix="repcap-gguf-") as tmp:
            p = Path(tmp) / "f.gguf"
            _write_temp(p, got, label)
            try:
                data_offset = gguf_format.prefix_data_offset(p, size)
            except gguf_format.GGUFPastEnd as more:
                data_offset, need = None, more.end
            except RepcapError as exc:
                raise _relabelled(exc, p, label) from None
        if data_offset is not None:
            break
        if want >= size:  # cannot happen: a read past the whole file is malformed, not "more"
            raise RepcapError(f"{label}: the GGUF tensor table does not end within the file ({size} bytes)")
        if need > GGUF_MAX_HEADER:
            raise RepcapError(
                f"{label}: the GGUF header and tensor table would run past byte {need:,}, more than any "
                f"model's ({GGUF_MAX_HEADER:,} bytes): malformed or hostile, refused after {len(got):,} bytes"
            )
        want = min(max(2 * want, need), size, GGUF_MAX_HEADER)
    prefix = got[:data_offset]
    repo.cache.put(repo.commit, fname, etag, size, HEADER, 0, prefix)
    return prefix, etag, size


def _write_temp(path: Path, data: bytes, label: str, size: int | None = None, parts: list | None = None) -> Path:
    """``data`` at the start of a private temporary file (sparse up to ``size`` bytes, with
    ``parts`` at their offsets); a failure of the local disk names ``label`` and the folder."""
    try:
        with open(path, "wb") as fh:
            if size is not None:
                fh.truncate(size)
            fh.write(data)
            for off, chunk in parts or []:
                fh.seek(off)
                fh.write(chunk)
    except OSError as exc:
        raise RepcapError(
            f"{label}: cannot stage its header in the temporary folder {path.parent.parent} "
            f"({exc.strerror or exc}); free space there or set TMPDIR"
        ) from None
    return path


def _relabelled(exc: RepcapError, path: Path, label: str) -> RepcapError:
    """A reader's error about a private temporary file, said of the hub file it stands for: its
    name instead of the temporary path, and no advice to re-download (the hub serves it so)."""
    from ..formats import gguf as gguf_format

    msg = str(exc).replace(str(path), label).replace(str(path.parent), label)
    msg = msg.replace(f"; {gguf_format._HINT}", "; the file on the hub is so, nothing was kept")
    return RepcapError(msg)


def _sparse(path: Path, size: int, parts: list[tuple[int, bytes]], label: str = "") -> Path:
    """A file of ``size`` bytes holding ``parts`` at their offsets and zeros (holes) elsewhere."""
    return _write_temp(path, b"", label or str(path), size, parts)


def _gguf_tensor(repo: HubRepo, fname: str, head: bool, tensor: str | None) -> Embedding:
    from ..formats import gguf as gguf_format
    from ..formats.gguf import _shape

    prefix, etag, size = _gguf_prefix(repo, fname)
    label = repo.label(fname)
    with tempfile.TemporaryDirectory(prefix="repcap-gguf-") as tmp:
        p = _sparse(Path(tmp) / Path(fname).name, size, [(0, prefix)], label)
        try:
            f = gguf_format.open_gguf(p)
            by_name = {t.name: t for t in f._reader.tensors}
            name, _ = choose_tensor(label, {k: _shape(v) for k, v in by_name.items()}, head, tensor)
        except RepcapError as exc:
            raise _relabelled(exc, p, label) from None
        t = by_name[name]
        start, end = int(t.data_offset), int(t.data_offset) + int(t.n_bytes)
        data = repo.read(fname, etag, size, name, start, end)
        _sparse(p, size, [(0, prefix), (start, data)], label)
        try:
            emb = gguf_format.open_gguf(p).read(name, head=head)
        except RepcapError as exc:
            raise _relabelled(exc, p, label) from None
    emb.name = repo.repo_id
    emb.source_kind = "hub"
    emb.meta["path"] = f"{repo.repo_id}/{fname}"
    return emb


# ---------------------------------------------------------------------------------------------
# the entry points


def _gguf_file(repo: HubRepo, filename: str | None) -> str:
    ggufs = [f for f in repo.files if f.endswith(".gguf")]
    if filename is not None:
        if filename not in repo.files:
            raise RepcapError(f"hub model {repo.repo_id!r} has no file {filename!r}; .gguf files: {ggufs[:8]}")
        return filename
    if len(ggufs) == 1:
        return ggufs[0]
    if ggufs:
        raise RepcapError(
            f"hub model {repo.repo_id!r} has no safetensors release and {len(ggufs)} .gguf files "
            f"({', '.join(ggufs[:6])}); name one: repcap stats {repo.repo_id} --file {ggufs[0]} (or the source "
            f"{repo.repo_id}/{ggufs[0]}; in Python load_hub(..., filename=...))"
        )
    raise RepcapError(
        f"hub model {repo.repo_id!r} has no model.safetensors, safetensors index or .gguf file; repcap "
        "never unpickles pytorch_model.bin - use a repo with a safetensors release"
    )


def load_hub(
    repo_id: str,
    *,
    head: bool = False,
    tensor: str | None = None,
    revision: str | None = None,
    filename: str | None = None,
) -> Embedding:
    """Read one tensor of a hub model, fetching only ``config.json``, the index, the header of the
    file that holds the tensor and the tensor's bytes (see the module docstring).  ``filename``
    picks one file of the repo (a ``.gguf`` among several)."""
    repo = HubRepo(repo_id, revision)
    cfg = repo.json("config.json", "config.json") if repo.has("config.json") else None
    if (filename is not None and filename.endswith(".gguf")) or (
        filename is None and not repo.has(INDEX) and not repo.has("model.safetensors")
    ):
        emb = _gguf_tensor(repo, _gguf_file(repo, filename), head, tensor)
        emb.meta["commit"] = repo.commit
        return emb
    if filename is None and repo.has(INDEX):
        wm = weight_map(repo.json(INDEX, "safetensors index"), repo_id)
        if tensor is not None:
            if tensor not in wm:
                from ..formats.names import short

                raise RepcapError(
                    f"{repo_id}: no tensor named {tensor!r} in the weight map; tensors: {short(list(wm))}"
                )
            name, tied = tensor, None
        else:
            emb_name, hd, tied = pick_tensor(list(wm), head, cfg)
            name = hd if (head and hd) else emb_name
        t, name, _, dtype = _st_tensor(repo, safe_relative(wm[name], repo_id), head, tensor, cfg, name)
    else:
        fname = safe_relative(filename or "model.safetensors", repo_id)
        if not repo.has(fname):
            raise RepcapError(f"hub model {repo_id!r} has no file {fname!r}")
        t, name, tied, dtype = _st_tensor(repo, fname, head, tensor, cfg, None)
    model_type = cfg.get("model_type") if isinstance(cfg, dict) else None
    return Embedding(
        matrix=t,
        name=repo_id,
        source_kind="hub",
        tensor_name=name,
        tied=tied,
        quant=dtype,
        meta={"config_model_type": model_type, "commit": repo.commit},
    )


def list_hub(repo_id: str, *, revision: str | None = None, filename: str | None = None) -> list[TensorInfo]:
    """Every tensor of a hub model, from its headers alone (range reads, kept in the slice cache:
    offline, the cached headers answer, or else whole files in the hub's own cache)."""
    try:
        return _list_hub(repo_id, revision, filename)
    except RepcapError:
        if not offline_mode():
            raise
        listed = _list_from_hub_cache(repo_id, revision, filename)
        if listed is None:
            raise
        return listed


def _list_from_hub_cache(repo_id: str, revision: str | None, filename: str | None) -> list[TensorInfo] | None:
    """The listing from files the hub's cache holds whole (fetched by ``hf_hub_download``), or None."""
    from ..formats import gguf as gguf_format

    hf = _hf()

    def cached(name: str) -> Path | None:
        p = hf.try_to_load_from_cache(repo_id, name, revision=revision)
        return Path(p) if isinstance(p, str) else None

    if filename is not None:
        p = cached(filename)
        if p is None:
            return None
        return (gguf_format if filename.endswith(".gguf") else st_format).list_tensors(p)
    idx = cached(INDEX)
    names = (
        sorted(
            {
                safe_relative(v, repo_id)
                for v in weight_map(read_json_object(idx, "safetensors index"), repo_id).values()
            }
        )
        if idx is not None
        else ["model.safetensors"]
    )
    paths = [cached(n) for n in names]
    if not all(paths):
        return None
    return [info for p in paths if p is not None for info in st_format.list_tensors(p)]


def _list_hub(repo_id: str, revision: str | None, filename: str | None) -> list[TensorInfo]:
    repo = HubRepo(repo_id, revision)
    if (filename is not None and filename.endswith(".gguf")) or (
        filename is None and not repo.has(INDEX) and not repo.has("model.safetensors")
    ):
        from ..formats import gguf as gguf_format

        fname = _gguf_file(repo, filename)
        prefix, _, size = _gguf_prefix(repo, fname)
        label = repo.label(fname)
        with tempfile.TemporaryDirectory(prefix="repcap-gguf-") as tmp:
            p = _sparse(Path(tmp) / "f.gguf", size, [(0, prefix)], label)
            try:
                return gguf_format.open_gguf(p).list_tensors()
            except RepcapError as exc:
                raise _relabelled(exc, p, label) from None
    if filename is None and repo.has(INDEX):
        files = sorted(
            {safe_relative(v, repo_id) for v in weight_map(repo.json(INDEX, "safetensors index"), repo_id).values()}
        )
    else:
        files = [safe_relative(filename or "model.safetensors", repo_id)]
    out = []
    for f in files:
        hdr, *_ = _st_header(repo, f)
        out += [TensorInfo(k, tuple(v["shape"]), v["dtype"]) for k, v in hdr.items()]
    return out


def slice_cache_folder(repo_id: str) -> Path:
    """Where the slices of ``repo_id`` are kept (for a user who wants to clear them)."""
    return SliceCache(validate_hub_id(repo_id)).root


__all__ = ["HubRepo", "hub_error", "list_hub", "load_hub", "quote", "slice_cache_folder"]
