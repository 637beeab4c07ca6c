"""``--device cuda`` on a machine without CUDA: every command that takes a device either computes
there or says so in one line (exit 2) before anything runs; none falls back to the CPU in silence.

``repcap stats`` without ``--tiled`` used to print CPU statistics (the exact moments of a small
matrix take the dense CPU path, which never looked at the device); ``repcap run -p device=cuda``
used to start the kernel and fail inside the chapter's first cell."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

import repcap

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA: --device cuda is honoured")

SRC = str(Path(repcap.__file__).resolve().parents[1])
REFUSAL = "device 'cuda' asked for, but this torch has no CUDA; use device='auto' or 'cpu'"


def _repcap(*argv: str, env: dict[str, str] | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    path = os.pathsep.join([SRC, *filter(None, [os.environ.get("PYTHONPATH")])])
    return subprocess.run(
        [sys.executable, "-m", "repcap", *argv],
        env={**os.environ, **(env or {}), "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _refused(out: subprocess.CompletedProcess, command: str) -> None:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"repcap {command}: error: ") and REFUSAL in out.stderr, out.stderr


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    from safetensors.numpy import save_file

    p = tmp_path_factory.mktemp("device") / "small.safetensors"
    rng = np.random.default_rng(0)
    save_file({"model.embed_tokens.weight": rng.standard_normal((64, 16)).astype(np.float32)}, str(p))
    return p


def test_stats_refuses_cuda_without_tiled(small):
    out = _repcap("stats", str(small), "--device", "cuda")
    _refused(out, "stats")
    assert out.stdout == ""  # no statistics computed on the CPU instead


def test_stats_refuses_cuda_with_tiled(small):
    out = _repcap("stats", str(small), "--device", "cuda", "--tiled", "--json")
    _refused(out, "stats")
    assert out.stdout == ""


def test_pack_refuses_cuda():
    out = _repcap("pack", "--k", "8", "--d", "3", "--steps", "5", "--device", "cuda", "--no-progress")
    _refused(out, "pack")
    assert out.stdout == ""


def test_toy_refuses_cuda():
    out = _repcap(
        "toy", "--n", "10", "--m", "3", "--alpha", "0", "--gamma", "0.5", "--steps", "5", "--batch", "8",
        "--device", "cuda", "--no-progress",
    )  # fmt: skip
    _refused(out, "toy")
    assert out.stdout == ""


@pytest.mark.parametrize(
    "argv",
    [
        ("pack", "--k", "3000000", "--d", "4096", "--steps", "5"),
        ("toy", "--n", "1000000000000", "--m", "2", "--alpha", "1", "--gamma", "-1"),
    ],
    ids=["pack", "toy"],
)
def test_the_device_is_refused_before_the_sizes(argv):
    """A run too large for this machine's memory on a device it does not have: the device is what
    is wrong (the memory check measures the machine the run would not be on)."""
    _refused(_repcap(*argv, "--device", "cuda", "--no-progress"), argv[0])


CHAPTER = textwrap.dedent("""\
    # %% tags=["parameters"]
    device = "auto"  # "auto", "cpu" or "cuda"

    # %%
    import os
    from pathlib import Path

    Path(os.environ["REPCAP_ROOT"], "ran").write_text(device)

    # %%
    from repcap.book import chapter

    rec = chapter.start("a chapter with a device", device=device)
    """)


def test_run_refuses_device_cuda_before_the_kernel(make_project):
    root = make_project("21_device", CHAPTER)
    out = _repcap("run", "21_device", "--profile", "smoke", "-p", "device=cuda", env={"REPCAP_ROOT": str(root)})
    _refused(out, "run")
    assert "notebooks/21_device.py" in out.stderr
    assert "executing" not in out.stdout and not (root / "ran").exists()  # refused before the kernel started


def test_a_gpu_index_past_the_last_is_refused(monkeypatch):
    """``cuda:1`` on a one-GPU machine: refused by name, not left to fail deep in torch."""
    from repcap import RepcapError
    from repcap.base.devices import resolve_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(RepcapError, match=r"device 'cuda:1' asked for, but this machine has 1 CUDA device \(cuda:0\)"):
        resolve_device("cuda:1")
    assert resolve_device("cuda:0") == torch.device("cuda:0")
