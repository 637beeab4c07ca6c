"""One repository at one commit, read through ``huggingface_hub``: the file list (``model_info``),
small files (``hf_hub_download``, the hub's cache), a file's etag and size (``get_hf_file_metadata``)
and byte ranges (``hf_hub_url`` + a ``Range`` GET on the client's own session, ``http_stream_backoff``,
with its auth headers, endpoint, retries of 429/5xx answers and status-to-error mapping).

A run resolves the revision to a commit once, and reads everything else at that commit, so a branch
that moves mid-run cannot mix two versions.  Offline (``HF_HUB_OFFLINE=1``), or with a revision given
as a 40-hex commit sha, nothing is requested once the slices are cached (:mod:`.slices`).

What stays ours is a thin layer of checks on each range, which the client's higher-level readers
(``HfFileSystem``, ``http_get``) do not expose: the etag of *this* response against the header's
(a file that changes mid-read), a ``206`` with the ``Content-Range`` asked for (never the whole
file), no byte past the range, a deadline for the whole range (a server that trickles), and resumes
from the byte where a dropped connection stopped.
"""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path

from repcap import RepcapError

from ..formats.common import read_json_object
from .errors import checked_size, endpoint, hf, hub_error, local_hint, looks_like_html, offline_mode, one
from .layout import validate_hub_id
from .slices import HEADER, SliceCache

COMMIT = re.compile(r"^[0-9a-f]{40}$")
#: Attempts at one range (the first and the resumes after a dropped connection or a short body).
RANGE_ATTEMPTS = 4
#: Seconds before the first resume; doubled after each.
RESUME_WAIT = 0.5
#: A range at least this large shows a progress bar.
PROGRESS_BYTES = 1 << 20
#: A range read's deadline: HF_HUB_DOWNLOAD_TIMEOUT seconds for each MiB, plus this many timeouts
#: (so a server that sends a byte now and then, each within the socket timeout, cannot hold a run).
DEADLINE_SLACK = 4


def range_deadline(nbytes: int, timeout: float) -> float:
    """Seconds a range of ``nbytes`` may take in all, with HF_HUB_DOWNLOAD_TIMEOUT = ``timeout``."""
    return float(timeout) * (DEADLINE_SLACK + nbytes / float(1 << 20))


class _Range:
    """Bytes ``[start, end)`` of one file as they arrive over one or more responses, and the checks
    each response and the whole range must pass."""

    def __init__(self, label: str, what: str, start: int, end: int, desc: str):
        from huggingface_hub import constants
        from huggingface_hub.utils import tqdm

        self.label, self.what, self.start, self.end = label, what, start, end
        self.buf = bytearray()
        self.timeout = float(constants.HF_HUB_DOWNLOAD_TIMEOUT)
        self.deadline = range_deadline(end - start, self.timeout)
        self.t0 = time.monotonic()
        self.failure = ""
        n = end - start
        self.bar = tqdm(total=n, unit="B", unit_scale=True, desc=desc, disable=n < PROGRESS_BYTES)

    def spent(self) -> float:
        return time.monotonic() - self.t0

    def header(self) -> str:
        return f"bytes={self.start + len(self.buf)}-{self.end - 1}"

    def pause(self, wait: float) -> None:
        if self.spent() + wait > self.deadline:
            raise self.too_slow()
        time.sleep(wait)

    def check(self, resp, etag: str) -> None:
        """The response is of the file read at the header (its etag), and the range asked for."""
        from huggingface_hub.file_download import _normalize_etag

        first = resp.history[0] if resp.history else resp
        got = _normalize_etag(first.headers.get("X-Linked-Etag") or first.headers.get("ETag"))
        if got is not None and got != etag:
            raise RepcapError(
                f"{self.label}: the file changed on the hub while it was read (etag "
                f"{etag[:16]} at the header, {got[:16]} for {self.what}); refused - run again"
            )
        m = re.match(r"^bytes (\d+)-(\d+)/(\d+|\*)$", resp.headers.get("Content-Range", ""))
        if resp.status_code == 206 and m and (int(m[1]), int(m[2])) == (self.start + len(self.buf), self.end - 1):
            return
        html = "html" in resp.headers.get("Content-Type", "").lower()
        got_range = f"Content-Range {resp.headers.get('Content-Range')!r}"
        raise RepcapError(
            f"{self.label}: the server at {endpoint()} did not answer the range request for {self.what} with "
            f"that range (HTTP {resp.status_code}, "
            + ("an HTML page: a captive portal or a proxy's login page?" if html else got_range)
            + "); refused rather than read the whole file"
        )

    def take(self, resp) -> None:
        n = self.end - self.start
        for chunk in resp.iter_bytes():
            if len(self.buf) + len(chunk) > n:
                raise RepcapError(f"{self.label}: the server sent more than {n} bytes for {self.what}")
            self.buf += chunk
            self.bar.update(len(chunk))
            if self.spent() > self.deadline and len(self.buf) < n:
                raise self.too_slow()

    def done(self) -> bool:
        return len(self.buf) == self.end - self.start

    def too_slow(self) -> RepcapError:
        return RepcapError(
            f"{self.label}: the server at {endpoint()} sent {self.what} too slowly: {len(self.buf):,} of "
            f"{self.end - self.start:,} bytes in {self.spent():.0f} s, past the {self.deadline:.0f} s this range "
            f"may take (HF_HUB_DOWNLOAD_TIMEOUT = {self.timeout:g} s for each MiB, plus {DEADLINE_SLACK}); "
            f"nothing was kept - run again later, raise HF_HUB_DOWNLOAD_TIMEOUT, or {local_hint()}"
        )

    def timed_out(self) -> RepcapError:
        return RepcapError(
            f"{self.label}: the hub at {endpoint()} did not answer in time while sending {self.what} "
            f"(HF_HUB_DOWNLOAD_TIMEOUT = {self.timeout:g} s); {local_hint()}"
        )

    def incomplete(self) -> RepcapError:
        n = self.end - self.start
        failure = self.failure or f"the body ended after {len(self.buf)} of {n} bytes"
        return RepcapError(
            f"{self.label}: {self.what} arrived incomplete ({len(self.buf)} of {n} bytes) after {RANGE_ATTEMPTS} "
            f"attempts ({failure}); nothing was used - run again, or {local_hint()}"
        )


class HubRepo:
    """One repository at one commit: its file list, small files through the hub cache, byte ranges
    through the slice cache."""

    def __init__(self, repo_id: str, revision: str | None = None):
        self.repo_id = validate_hub_id(repo_id)
        self.revision = revision or "main"
        self.offline = offline_mode()
        # offline nothing can be fetched again: a damaged entry is named as such, not taken for absent
        self.cache = SliceCache(repo_id, strict=self.offline)
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
        try:
            info = hf().HfApi().model_info(repo_id, revision=self.revision, timeout=hf().constants.HF_HUB_ETAG_TIMEOUT)
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

    def json(self, fname: str, what: str) -> dict:
        """A small JSON file, through the hub's cache."""
        try:
            path = hf().hf_hub_download(self.repo_id, fname, revision=self.commit)
        except Exception as exc:
            raise hub_error(self.repo_id, fname, exc) from None
        try:
            return read_json_object(Path(path), what)
        except RepcapError as exc:
            head = b""
            with contextlib.suppress(OSError):
                head = Path(path).read_bytes()[:200]
            if looks_like_html(head):
                raise RepcapError(
                    f"{self.label(fname)}: the hub at {endpoint()} sent an HTML page for it, not JSON (a captive "
                    f"portal or a proxy's login page?); it is in the hub cache at {path}: delete it, check the "
                    f"network, or {local_hint()}"
                ) from None
            raise RepcapError(f"{self.label(fname)} (hub cache {path}): {str(exc).split(': ', 1)[-1]}") from None

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
        client = hf()
        try:
            m = client.get_hf_file_metadata(
                client.hf_hub_url(self.repo_id, fname, revision=self.commit),
                timeout=client.constants.HF_HUB_ETAG_TIMEOUT,
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

        what = "its header" if tensor == HEADER else f"tensor {tensor}"
        rng = _Range(self.label(fname), what, start, end, f"{fname} [{tensor}]"[-60:])
        wait = RESUME_WAIT
        with rng.bar:
            for attempt in range(RANGE_ATTEMPTS):
                if attempt:
                    rng.pause(wait)
                    wait *= 2
                try:
                    self._stream(fname, etag, rng)
                except RepcapError:
                    raise
                except (httpx2.TransportError, httpx2.StreamError) as exc:  # dropped, short body, timeout
                    if isinstance(exc, httpx2.TimeoutException):
                        raise rng.timed_out() from None
                    rng.failure = f"{type(exc).__name__}: {one(exc)}"
                except Exception as exc:
                    raise hub_error(self.repo_id, f"{fname} ({what})", exc) from None
                if rng.done():
                    return bytes(rng.buf)
        raise rng.incomplete()

    def _stream(self, fname: str, etag: str, rng: _Range) -> None:
        """One ranged GET for what ``rng`` still lacks, on the client's session (its retries of 429 and
        5xx answers; a dropped body is resumed by the caller, from where it stopped)."""
        from huggingface_hub.utils import build_hf_headers, hf_raise_for_status, http_stream_backoff

        client = hf()
        headers = {**build_hf_headers(), "Accept-Encoding": "identity", "Range": rng.header()}
        with http_stream_backoff(
            "GET",
            client.hf_hub_url(self.repo_id, fname, revision=self.commit),
            headers=headers,
            follow_redirects=True,
            timeout=client.constants.HF_HUB_DOWNLOAD_TIMEOUT,
            retry_on_exceptions=(),
        ) as resp:
            hf_raise_for_status(resp)
            rng.check(resp, etag)
            rng.take(resp)
