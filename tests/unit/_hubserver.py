"""A loopback model hub for the tests: the endpoints the real ``huggingface_hub`` 2.4 client calls,
served by the standard library (``ThreadingHTTPServer`` on 127.0.0.1, in a thread), over
repositories the tests build in memory.

* ``GET /api/models/{repo}[/revision/{rev}]`` -- model info: ``sha``, ``siblings``;
* ``GET /api/models/{repo}/tree/{rev}[/{path}]`` and ``POST .../paths-info/{rev}`` -- file listings;
* ``HEAD|GET /{repo}/resolve/{rev}/{file}`` -- ``X-Repo-Commit``, ``ETag``; a large ("LFS") file
  answers 302 to a second origin (another port: ``/lfs/{sha256}``) with ``X-Linked-Etag`` and
  ``X-Linked-Size``, as the hub does for its CDN;
* ``Range: bytes=a-b`` -> 206 with ``Content-Range``, or 416 when unsatisfiable.

Errors as the hub sends them: a gated repo (401, ``X-Error-Code: GatedRepo``), a missing one (404,
``RepoNotFound``), an unknown revision (404, ``RevisionNotFound``), a missing file (404,
``EntryNotFound``).  Faults a test can switch on (:attr:`HubServer.faults`): ``drop_once`` (the
first ranged body over 64 KiB stops halfway and the connection closes), ``short`` (every ranged
body over 1 KiB stops halfway), ``etag_flip`` (the resolve step reports another etag from the third ranged GET
of a file on), ``slow`` (ranged GETs wait that many seconds first), ``trickle`` (a ranged body over
64 KiB goes out at that many bytes a second, in small pieces, each well within any socket timeout),
``claim_size`` (the resolve step states that size for every LFS file), ``html_info`` (the model
info answers 200 with an HTML login page, as a captive portal does).

The server counts what it sends: :attr:`HubServer.sent` ``{(repo, file): body bytes}`` and
:attr:`HubServer.log` (one ``(method, path, range)`` per request).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

#: Files at least this large are "LFS": resolved by a 302 to the second origin.
LFS_MIN = 1024


@dataclass
class Repo:
    files: dict[str, bytes]
    sha: str
    gated: bool = False
    branches: dict[str, str] = field(default_factory=dict)


def commit_of(repo_id: str, files: dict[str, bytes]) -> str:
    h = hashlib.sha1(repo_id.encode())
    for k in sorted(files):
        h.update(k.encode() + hashlib.sha256(files[k]).digest())
    return h.hexdigest()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client that hung up: not the test's business
        pass


class HubServer:
    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.sent: Counter = Counter()
        self.log: list[tuple[str, str, str | None]] = []
        self.faults: dict[str, float | bool] = {}
        self._ranged: Counter = Counter()
        self._dropped: set = set()
        self.lock = threading.Lock()
        self.hub = _QuietServer(("127.0.0.1", 0), _handler(self, cdn=False))
        self.cdn = _QuietServer(("127.0.0.1", 0), _handler(self, cdn=True))
        for s in (self.hub, self.cdn):
            threading.Thread(target=s.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.hub.server_address[1]}"

    @property
    def cdn_url(self) -> str:
        return f"http://127.0.0.1:{self.cdn.server_address[1]}"

    def close(self) -> None:
        for s in (self.hub, self.cdn):
            s.shutdown()
            s.server_close()

    def add(self, repo_id: str, files: dict[str, bytes], *, gated: bool = False) -> str:
        """Serve ``files`` as ``repo_id`` (branch ``main``); returns the commit sha."""
        sha = commit_of(repo_id, files)
        self.repos[repo_id] = Repo(dict(files), sha, gated, {"main": sha})
        return sha

    def reset_counts(self) -> None:
        with self.lock:
            self.sent.clear()
            self.log.clear()
            self._ranged.clear()

    def bytes_for(self, repo_id: str) -> int:
        return sum(n for (r, _), n in self.sent.items() if r == repo_id)

    def blob(self, sha256: str) -> tuple[str, str, bytes] | None:
        for rid, repo in self.repos.items():
            for name, data in repo.files.items():
                if hashlib.sha256(data).hexdigest() == sha256:
                    return rid, name, data
        return None


def _git_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _handler(server: HubServer, cdn: bool):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):  # quiet
            pass

        # -- helpers ------------------------------------------------------------------------
        def _send(self, status: int, body: bytes = b"", headers: dict | None = None, head: bool = False) -> None:
            self.send_response(status)
            hdrs = {"Content-Length": str(len(body)), **(headers or {})}
            for k, v in hdrs.items():
                self.send_header(k, v)
            self.end_headers()
            if not head and body:
                self.wfile.write(body)

        def _error(self, status: int, code: str, msg: str = "") -> None:
            body = json.dumps({"error": msg or code}).encode()
            self._send(
                status, body, {"X-Error-Code": code, "X-Error-Message": msg or code, "Content-Type": "application/json"}
            )

        def _json(self, obj) -> None:
            self._send(200, json.dumps(obj).encode(), {"Content-Type": "application/json"})

        def _repo(self, rid: str) -> Repo | None:
            repo = server.repos.get(rid)
            if repo is None:
                self._error(404, "RepoNotFound", "Repository not found")
            return repo

        def _commit(self, repo: Repo, rev: str) -> str | None:
            rev = unquote(rev)
            sha = repo.branches.get(rev) or (rev if rev == repo.sha else None)
            if sha is None:
                self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            return sha

        def _entries(self, repo: Repo, names) -> list[dict]:
            out = []
            for n in names:
                d = repo.files[n]
                e = {"type": "file", "path": n, "size": len(d), "oid": _git_sha1(d)}
                if len(d) >= LFS_MIN:
                    e["lfs"] = {"oid": hashlib.sha256(d).hexdigest(), "size": len(d), "pointerSize": 134}
                out.append(e)
            return out

        def _body(self, rid: str, name: str, data: bytes, head: bool, extra: dict) -> None:
            """``data`` whole or the requested range, with the faults switched on."""
            rng = self.headers.get("Range")
            with server.lock:
                server.log.append((self.command, self.path, rng))
            if rng is None:
                if not head:
                    with server.lock:
                        server.sent[(rid, name)] += len(data)
                self._send(200, data, {"Accept-Ranges": "bytes", **extra}, head=head)
                return
            m = re.match(r"^bytes=(\d+)-(\d*)$", rng)
            size = len(data)
            if not m:
                self._send(416, b"", {"Content-Range": f"bytes */{size}"})
                return
            a = int(m.group(1))
            b = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
            if a >= size or b < a:
                self._send(416, b"", {"Content-Range": f"bytes */{size}"})
                return
            part = data[a : b + 1]
            slow = server.faults.get("slow")
            if slow and not head:
                time.sleep(float(slow))
            cut = None
            key = (rid, name)
            drop = (server.faults.get("short") and len(part) > 1024) or (
                server.faults.get("drop_once") and key not in server._dropped and len(part) > 64 * 1024
            )
            if not head and drop:
                cut = len(part) // 2
                server._dropped.add(key)
            self.send_response(206)
            for k, v in {
                "Content-Length": str(len(part)),
                "Content-Range": f"bytes {a}-{b}/{size}",
                "Accept-Ranges": "bytes",
                **extra,
            }.items():
                self.send_header(k, v)
            self.end_headers()
            if head:
                return
            body = part if cut is None else part[:cut]
            rate = server.faults.get("trickle")
            if rate and len(body) > 64 * 1024:
                return self._trickle(key, body, float(rate))
            with server.lock:
                server.sent[key] += len(body)
            try:
                self.wfile.write(body)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            if cut is not None:
                self.close_connection = True

        def _trickle(self, key, body: bytes, rate: float) -> None:
            """``body`` at ``rate`` bytes a second, 16 bytes at a time, until the client hangs up."""
            step = 16
            for i in range(0, len(body), step):
                try:
                    self.wfile.write(body[i : i + step])
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError, OSError):
                    self.close_connection = True
                    return
                with server.lock:
                    server.sent[key] += len(body[i : i + step])
                time.sleep(step / rate)

        # -- routes ---------------------------------------------------------------------------
        def do_HEAD(self):
            self._route(head=True)

        def do_GET(self):
            self._route(head=False)

        def do_POST(self):
            path = urlsplit(self.path).path
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            with server.lock:
                server.log.append(("POST", self.path, None))
            m = re.match(r"^/api/models/([^/]+/[^/]+)/paths-info/([^/]+)$", path)
            if not m:
                return self._error(404, "NotFound")
            repo = self._repo(m.group(1))
            if repo is None or self._commit(repo, m.group(2)) is None:
                return
            try:
                want = json.loads(raw).get("paths", [])
            except ValueError:
                from urllib.parse import parse_qs

                want = parse_qs(raw.decode()).get("paths", [])
            self._json(self._entries(repo, [p for p in want if p in repo.files]))

        def _route(self, head: bool):
            path = urlsplit(self.path).path
            if cdn:
                m = re.match(r"^/lfs/([0-9a-f]{64})$", path)
                found = server.blob(m.group(1)) if m else None
                if found is None:
                    return self._send(404, b"no such object")
                rid, name, data = found
                return self._body(rid, name, data, head, {"ETag": f'"{m.group(1)}"'})
            m = re.match(r"^/api/models/([^/]+/[^/]+)(?:/revision/([^/]+))?$", path)
            if m and server.faults.get("html_info"):
                page = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Wi-Fi login</body></html>"
                return self._send(200, page, {"Content-Type": "text/html; charset=utf-8"}, head=head)
            if m:
                with server.lock:
                    server.log.append((self.command, self.path, None))
                repo = self._repo(m.group(1))
                if repo is None:
                    return
                sha = self._commit(repo, m.group(2) or "main")
                if sha is None:
                    return
                return self._json(
                    {
                        "id": m.group(1),
                        "modelId": m.group(1),
                        "sha": sha,
                        "private": False,
                        "gated": "auto" if repo.gated else False,
                        "siblings": [{"rfilename": n} for n in sorted(repo.files)],
                    }
                )
            m = re.match(r"^/api/models/([^/]+/[^/]+)/tree/([^/]+)(?:/(.*))?$", path)
            if m:
                with server.lock:
                    server.log.append((self.command, self.path, None))
                repo = self._repo(m.group(1))
                if repo is None or self._commit(repo, m.group(2)) is None:
                    return
                prefix = (m.group(3) or "").strip("/")
                names = [n for n in sorted(repo.files) if not prefix or n.startswith(prefix + "/") or n == prefix]
                return self._json(self._entries(repo, names))
            m = re.match(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
            if not m:
                with server.lock:
                    server.log.append((self.command, self.path, "UNKNOWN"))
                return self._error(404, "NotFound", f"no route {path}")
            rid, rev, name = m.group(1), m.group(2), unquote(m.group(3))
            repo = self._repo(rid)
            if repo is None:
                return
            if repo.gated:
                return self._error(401, "GatedRepo", "Access to model is restricted. You must have access to it.")
            sha = self._commit(repo, rev)
            if sha is None:
                return
            if name not in repo.files:
                return self._error(404, "EntryNotFound", f"{name} does not exist")
            data = repo.files[name]
            hdrs = {"X-Repo-Commit": sha}
            if len(data) < LFS_MIN:
                hdrs["ETag"] = f'"{_git_sha1(data)}"'
                return self._body(rid, name, data, head, hdrs)
            etag = hashlib.sha256(data).hexdigest()
            if self.headers.get("Range"):
                with server.lock:
                    server._ranged[(rid, name)] += 1
                    flip = server.faults.get("etag_flip") and server._ranged[(rid, name)] > 2
                if flip:
                    etag = hashlib.sha256(data + b"changed").hexdigest()
            with server.lock:
                server.log.append((self.command, self.path, self.headers.get("Range")))
            hdrs.update(
                {
                    "X-Linked-Etag": f'"{etag}"',
                    "X-Linked-Size": str(server.faults.get("claim_size") or len(data)),
                    "ETag": f'"{_git_sha1(data)}"',
                    "Location": f"{server.cdn_url}/lfs/{hashlib.sha256(data).hexdigest()}",
                }
            )
            self._send(302, b"", hdrs, head=head)

    return Handler
