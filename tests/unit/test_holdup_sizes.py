"""Hold up, round 4 (issue 38): chapters sized before their kernel starts (the engines' estimates
against the machine's memory), allocator errors in one line under a real memory cap, and negative
.npy dimensions refused."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from _projects import chapters_copy as _project

from repcap.cli import app as cli

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------------
# chapters sized before they run; allocator errors in one line


def test_a_chapter_too_large_for_the_machine_is_refused_before_its_kernel_starts(tmp_path, monkeypatch, capsys):
    """`-p train.n=1000000000` (chapter 8) and `-p n_vectors=100000000` (chapter 1): the kernel filled the
    machine and was killed, or took 3 GiB before an allocator error.  Refused in one line with the
    figure and the machine's memory, and no kernel is started (no log, no staging folder)."""
    root = _project(tmp_path, monkeypatch)
    cases = [
        ("08_two_regimes", "train.n=1000000000", "train.n = 1,000,000,000 features"),
        ("01_random_vectors", "n_vectors=100000000", "n_vectors = 100,000,000 vectors"),
    ]
    from repcap.base import memory

    for stem, p, what in cases:
        assert cli.main(["run", f"notebooks/{stem}.py", "-p", p]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and what in err[0] and "GiB of memory" in err[0], err
        assert memory.machine_text() in err[0] and "refused before it starts" in err[0]
    gen = root / "book" / "generated"
    assert not (gen / ".runs").exists() and not (gen / ".staging").exists()


def test_the_packing_chapter_under_a_4_gib_cap_is_refused(tmp_path):
    """`06 -p k=1000000 -p d=1000` under a 4 GiB limit (the kernel filled the cap and was killed): a
    real limit (``ulimit -v``) on a real `repcap run`, refused with the cost model's figure."""
    env = {**os.environ, "REPCAP_ROOT": str(ROOT), "REPCAP_CACHE": str(tmp_path / "cache")}

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    proc = subprocess.run(
        [sys.executable, "-m", "repcap", "run", "notebooks/06_packing.py", "-p", "k=1000000", "-p", "d=1000"],
        env=env,
        preexec_fn=cap,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr[-2000:]
    assert "k = 1,000,000 vectors in R^1,000" in lines[0] and "by the cost model" in lines[0]
    assert "the 4 GiB this process may use (ulimit -v)" in lines[0]


def test_repcap_pack_and_stats_under_a_memory_cap_end_in_one_line(tmp_path):
    """`repcap pack` under `ulimit -v` ended in an allocator traceback; `repcap stats` on a fine
    2 GiB .npy said "not a readable .npy file"."""
    import numpy as np

    big = tmp_path / "big.npy"
    buf = __import__("io").BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False, "shape": (524288, 1024)})
    with open(big, "wb") as fh:  # a fine .npy (zeros), 2 GiB, sparse on disk
        fh.write(buf.getvalue())
        fh.truncate(len(buf.getvalue()) + 524288 * 1024 * 4)

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (int(2.5 * (1 << 30)),) * 2)

    runs_ = {
        "stats": [sys.executable, "-m", "repcap", "stats", str(big)],
        "pack": [sys.executable, "-m", "repcap", "pack", "--k", "200000", "--d", "2000", "--steps", "1", "--yes"],
    }
    for name, cmd in runs_.items():
        proc = subprocess.run(cmd, preexec_fn=cap, capture_output=True, text=True, timeout=300)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, (name, proc.stderr[-2000:])
        assert "GiB" in lines[0] and "ulimit -v" in lines[0], (name, lines[0])
        assert "not a readable" not in lines[0]


def test_cli_turns_an_allocator_error_into_one_line(monkeypatch, capsys, tmp_path):
    """Wherever an allocation fails under a command (here: torch's own refusal of a tensor larger
    than the address space), the CLI says so in one line."""
    import torch

    from repcap.cli.commands import stats

    def huge(args):
        torch.empty(1 << 62, dtype=torch.uint8)

    monkeypatch.setattr(stats, "run", huge)
    assert cli.main(["stats", "x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "out of memory" in err[0] and "ask for less" in err[0], err


def test_a_negative_npy_dimension_is_refused(tmp_path, capsys):
    import io

    import numpy as np

    for shape in ((-5, 3), (3, -5), (-2, -3)):
        buf = io.BytesIO()
        np.lib.format.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False, "shape": shape})
        p = tmp_path / "neg.npy"
        p.write_bytes(buf.getvalue() + b"\0" * 64)
        for argv in (["stats", str(p)], ["stats", str(p), "--list-tensors"]):
            assert cli.main(argv) == 2
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and "negative dimension" in err[0] and str(shape) in err[0], err
