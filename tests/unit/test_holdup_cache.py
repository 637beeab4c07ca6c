"""A cache a team can share (issue 20, item 3 and "Also seen"): entries get the mode a plain file
gets (0o666 & ~umask), an unreadable entry is reported and kept (only a checksum or parse failure
is corruption), temp files dated in the future are cleaned, and a point can be claimed so that two
runs do not compute it twice."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from repcap import RepcapError
from repcap.sweep import Cache, claims
from repcap.sweep import cache as cache_mod

KEY = "ab" + "0" * 62


@pytest.fixture
def umask002():
    old = os.umask(0o002)
    yield
    os.umask(old)


def test_entries_and_folders_take_the_umask_not_0600(tmp_path, umask002):
    c = Cache(tmp_path / "c")
    c.put(KEY, {"k": 1}, {"x": 1.0})
    assert stat.S_IMODE(c.path(KEY).stat().st_mode) == 0o664  # 0o666 & ~0o002
    assert stat.S_IMODE(c.path(KEY).parent.stat().st_mode) == 0o775
    os.umask(0o077)
    c.put("cd" + "1" * 62, {"k": 2}, {"x": 2.0})
    assert stat.S_IMODE(c.path("cd" + "1" * 62).stat().st_mode) == 0o600
    assert cache_mod.file_mode() == 0o600


def test_a_setgid_folder_passes_its_group_on(tmp_path, umask002):
    root = tmp_path / "team"
    root.mkdir()
    os.chmod(root, 0o2775)
    c = Cache(root)
    c.put(KEY, {}, {"x": 1.0})
    sub = c.path(KEY).parent
    assert sub.stat().st_mode & stat.S_ISGID and sub.stat().st_gid == root.stat().st_gid


def test_an_unreadable_entry_is_reported_and_kept(tmp_path, monkeypatch, capsys):
    c = Cache(tmp_path / "c")
    c.put(KEY, {}, {"x": 1.0})
    p = c.path(KEY)
    real = cache_mod.rio.read_regular_bytes

    def denied(path, *a, **k):
        if Path(path) == p:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(cache_mod.rio, "read_regular_bytes", denied)
    assert c.get(KEY) is None
    assert p.exists()  # another user's finished point: never deleted
    err = capsys.readouterr().err
    assert f"cache entry {p}: cannot read it (permission denied); skipped, not deleted" in err
    monkeypatch.undo()
    assert c.get(KEY) == {"x": 1.0}


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file whatever its mode")
def test_a_0600_entry_of_another_user_is_kept(tmp_path):  # pragma: no cover - not as root
    c = Cache(tmp_path / "c")
    c.put(KEY, {}, {"x": 1.0})
    os.chmod(c.path(KEY), 0)
    assert c.get(KEY) is None and c.path(KEY).exists()


def test_only_checksum_or_parse_failures_are_corrupt(tmp_path):
    c = Cache(tmp_path / "c")
    c.put(KEY, {}, {"x": 1.0})
    entry = json.loads(c.path(KEY).read_text())
    entry["result"]["x"] = 2.0  # checksum no longer matches
    c.path(KEY).write_text(json.dumps(entry))
    assert c.get(KEY) is None and not c.path(KEY).exists()
    c.put(KEY, {}, {"x": 1.0})
    c.path(KEY).write_text('{"key": "ab')  # truncated
    assert c.get(KEY) is None and not c.path(KEY).exists()


def test_a_write_that_fails_is_one_line_naming_path_and_cause(tmp_path, monkeypatch):
    c = Cache(tmp_path / "c")

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache_mod.os, "fsync", full)
    with pytest.raises(RepcapError, match=r"cannot write .*/ab/ab0+\.json: no space left on the device$"):
        c.put(KEY, {}, {"x": 1.0})
    assert list((tmp_path / "c").rglob("*.tmp")) == []  # nothing left behind
    monkeypatch.undo()
    f = tmp_path / "file"
    f.write_text("")
    with pytest.raises(RepcapError, match=r"cannot write .*file/sweeps"):
        Cache(f / "sweeps").put(KEY, {}, {"x": 1.0})


def test_temp_files_dated_in_the_future_are_cleaned(tmp_path):
    c = Cache(tmp_path / "c")
    c.put(KEY, {}, {"x": 1.0})
    t = c.path(KEY).parent / f".{KEY}.json.otherhost.12.abc.tmp"
    t.write_text("half")
    future = time.time() + 10 * 86400  # a clock ten days ahead
    os.utime(t, (future, future))
    fresh = c.path(KEY).parent / f".{KEY}.json.otherhost.13.abd.tmp"
    fresh.write_text("being written")
    assert c.clean_temp() == 1 and not t.exists() and fresh.exists()


def test_a_claim_keeps_a_second_run_off_the_point(tmp_path, monkeypatch):
    c = Cache(tmp_path / "c")
    assert c.claim(KEY) and not c.claimed(KEY)  # ours: no one else holds it
    info = json.loads(c.claim_path(KEY).read_text())
    assert info["pid"] == os.getpid() and info["host"] == cache_mod._host_token()
    # a live Python process elsewhere on this host holds it (the test's parent would not do: under
    # make or a shell it is no repcap run, and its claim counts as stale)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        other = {"host": cache_mod._host_token(), "pid": holder.pid, "time": time.time()}
        c.claim_path(KEY).write_text(json.dumps(other))
        assert c.claimed(KEY) and not c.claim(KEY)
        c.release(KEY)  # not ours: left alone
        assert c.claim_path(KEY).exists()
    finally:
        holder.kill()
        holder.wait()
    # its process died: stale, taken over
    c.claim_path(KEY).write_text(json.dumps({**other, "pid": 999_999_999}))
    assert not c.claimed(KEY) and c.claim(KEY)
    c.release(KEY)
    assert not c.claim_path(KEY).exists()
    # another host's claim: stale after STALE_CLAIM_S, even if dated in the future
    far = {"host": "elsewhere", "pid": 1, "time": time.time() + 2 * claims.STALE_CLAIM_S}
    c.claim_path(KEY).write_text(json.dumps(far))
    assert c.claim(KEY)
    near = {"host": "elsewhere", "pid": 1, "time": time.time() - 60}
    c.claim_path(KEY).write_text(json.dumps(near))
    assert not c.claim(KEY)
    assert c.claim_path(KEY).name.endswith(".claim") and c.temp_files() == [] and len(c) == 0


@pytest.mark.skipif(
    os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists(), reason="needs root and setpriv to act as two users"
)
def test_two_users_sharing_a_setgid_folder_keep_each_others_points():
    """Two real uids in one group, umask 002, a setgid team folder (the README's cluster recipe):
    each reads the other's finished point, and neither deletes it (before: 0600 entries, and the
    second user's read failure deleted the first user's point)."""
    import shutil
    import subprocess
    import sys
    import tempfile

    team = Path(tempfile.mkdtemp(prefix="repcap-team-", dir="/tmp"))
    try:
        os.chown(team, -1, 100)  # the team's group (both users are in it)
        os.chmod(team, 0o2777)
        src = str(Path(cache_mod.__file__).resolve().parents[2])
        code = (
            "import os, sys; os.umask(0o002); from repcap.sweep import Cache; c = Cache(sys.argv[1]); k = sys.argv[2] * 64\n"
            "if sys.argv[3] == 'put': c.put(k, {}, {'x': 1.0})\n"
            "else: print(c.get(k), os.path.exists(c.path(k)))"
        )

        def as_user(uid: int, *args: str) -> str:
            cmd = ["/usr/bin/setpriv", f"--reuid={uid}", "--regid=100", "--clear-groups", sys.executable, "-c", code]
            out = subprocess.run(
                [*cmd, str(team / "c"), *args],
                capture_output=True,
                text=True,
                timeout=120,
                env={**os.environ, "PYTHONPATH": src},
            )
            assert out.returncode == 0, out.stderr[-500:]
            return out.stdout.strip()

        as_user(65534, "a", "put")
        assert as_user(65533, "a", "get") == "{'x': 1.0} True"
        as_user(65533, "b", "put")
        assert as_user(65534, "b", "get") == "{'x': 1.0} True"
        assert as_user(65534, "a", "get") == "{'x': 1.0} True"
    finally:
        shutil.rmtree(team, ignore_errors=True)


def test_a_zombie_process_holds_no_claim():
    """A killed process not yet reaped (a zombie) is dead: its claims and temp files are stale."""
    import subprocess
    import time

    from repcap.sweep.cache import _pid_alive

    p = subprocess.Popen(["sleep", "30"])
    assert _pid_alive(p.pid)
    p.kill()
    time.sleep(0.3)  # killed, not yet waited for: a zombie
    try:
        assert not _pid_alive(p.pid)
    finally:
        p.wait()
