"""``repcap ... | head``: a reader that stops early ends the command quietly (status 0 or 141, the
shell's 128 + SIGPIPE), never with a BrokenPipeError traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from repcap.cli import app as cli

MAIN = "import sys; from repcap.cli import main; sys.exit(main())"
QUIET = (0, cli.BROKEN_PIPE_STATUS)


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    assert "BrokenPipeError" not in stderr, stderr
    assert "Exception ignored" not in stderr, stderr


@pytest.mark.parametrize("argv", [["models"], ["models", "--all", "--json"], ["--help"]])
def test_reader_gone_before_the_first_write(argv):
    """The pipe's reader is closed before the command starts: its first write fails (EPIPE)."""
    r, w = os.pipe()
    os.close(r)
    try:
        res = subprocess.run(
            [sys.executable, "-c", MAIN, *argv], stdout=w, stderr=subprocess.PIPE, text=True, timeout=120
        )
    finally:
        os.close(w)
    _no_traceback(res.stderr)
    assert res.returncode in QUIET, (res.returncode, res.stderr)
    if argv[0] == "models":  # it did write (and the write failed): the broken-pipe status
        assert res.returncode == cli.BROKEN_PIPE_STATUS


def test_reader_that_reads_a_little_and_closes():
    """``| head -c 20``: the reader takes the first bytes, then closes its end."""
    proc = subprocess.Popen(
        [sys.executable, "-c", MAIN, "models", "--all", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.read(20)
    proc.stdout.close()
    stderr = proc.stderr.read()
    rc = proc.wait(timeout=120)
    assert first.startswith("[")
    _no_traceback(stderr)
    assert rc in QUIET, (rc, stderr)


def test_other_broken_pipes_still_raise(monkeypatch):
    """A BrokenPipeError that does not come from stdout (a kernel's or worker's connection) is not
    swallowed: stdout here is pytest's capture, not a broken pipe."""

    def handler(args):
        raise BrokenPipeError("a worker's socket")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda *a, **k: parser)
    parser.set_defaults(func=handler)
    with pytest.raises(BrokenPipeError):
        cli.main([])
