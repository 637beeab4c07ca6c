"""The hub client's settings as repcap reads them (endpoint, offline mode) and one
:class:`RepcapError` line for each way the hub, or the way to it, can fail."""

from __future__ import annotations

from repcap import RepcapError

#: The largest file size a server may state (the hub itself stores files of at most 50 GB): a
#: larger one is refused before anything is read or staged.
MAX_REMOTE_FILE = 1 << 40


def hf():
    try:
        import huggingface_hub
        import huggingface_hub.constants
    except ImportError as exc:  # pragma: no cover
        raise RepcapError("hub ids need 'huggingface_hub': pip install 'repcap[models]'") from exc
    return huggingface_hub


def endpoint() -> str:
    return hf().constants.ENDPOINT


def offline_mode() -> bool:
    return bool(hf().constants.HF_HUB_OFFLINE)


def local_hint() -> str:
    return "set HF_HUB_OFFLINE=1 to use what is cached, or give an offline key or a local file/folder"


def one(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:160] or type(exc).__name__


def looks_like_html(text: str | bytes) -> bool:
    """Whether a body that should be JSON is a web page (a captive portal's, a proxy's login)."""
    page = (text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)).lstrip()[:200].lower()
    return page.startswith(("<!doctype html", "<html", "<head", "<body")) or "<html" in page


def _not_json(repo_id: str, what: str, exc: ValueError) -> RepcapError:
    doc = str(getattr(exc, "doc", "") or "")
    if looks_like_html(doc):
        got = "an HTML page, not JSON (a captive portal or a proxy's login page?)"
    else:
        got = f"something that is not JSON ({' '.join(doc.split())[:60]!r})" if doc else "something that is not JSON"
    return RepcapError(
        f"hub model {repo_id!r}: the hub at {endpoint()} answered the request for {what} with {got}; "
        f"check the network (log in to it, or set HF_ENDPOINT), or {local_hint()}"
    )


def _hint(exc: BaseException) -> str:
    """What to do about ``exc``, by the first of the client's error types it is (subclasses first)."""
    import httpx2
    from huggingface_hub import errors

    hints = [
        (
            errors.LocalEntryNotFoundError,
            f"not in the local hub cache, and the hub at {endpoint()} cannot be asked (no network, or "
            f"HF_HUB_OFFLINE is set); run once with the network, or give an offline key or a local file/folder",
        ),
        (errors.GatedRepoError, "a gated repo: accept its licence on the hub page, then log in (hf auth login)"),
        (errors.RevisionNotFoundError, "no such revision (branch, tag or commit) in this repo; check --revision"),
        (
            errors.RepositoryNotFoundError,
            "no such repo, or a private one: check the id (owner/name), or log in (hf auth login)",
        ),
        (errors.EntryNotFoundError, "no such file in the repo"),
        (errors.OfflineModeIsEnabled, f"HF_HUB_OFFLINE is set and it is not cached; unset it, or {local_hint()}"),
        (
            httpx2.TimeoutException,
            f"the hub at {endpoint()} did not answer in time (HF_HUB_ETAG_TIMEOUT / HF_HUB_DOWNLOAD_TIMEOUT); "
            f"{local_hint()}",
        ),
    ]
    for kind, hint in hints:
        if isinstance(exc, kind):
            return hint
    if isinstance(exc, errors.HfHubHTTPError):
        status = getattr(getattr(exc, "response", None), "status_code", "?")
        return f"the hub at {endpoint()} answered HTTP {status}; try again later, or {local_hint()}"
    if isinstance(exc, (httpx2.TransportError, OSError)):
        return f"cannot reach the hub at {endpoint()} ({one(exc)}); {local_hint()}"
    return f"{one(exc)}; {local_hint()}"


def hub_error(repo_id: str, what: str, exc: BaseException) -> RepcapError:
    """One line for a failure of the hub (or of the way to it) while fetching ``what``."""
    from huggingface_hub import errors

    if isinstance(exc, ValueError) and not isinstance(exc, errors.HfHubHTTPError):  # a body that is not JSON
        return _not_json(repo_id, what, exc)
    return RepcapError(f"hub model {repo_id!r}: cannot fetch {what} ({type(exc).__name__}): {_hint(exc)}")


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
