"""Fuzzing the safetensors and GGUF readers (issue 6, "Fuzzing") under hypothesis.

Valid seed files are mutated -- bit flips, truncations, overwritten byte runs, random bytes, and
edits of the safetensors JSON header (dtype, shape, offsets, length prefix) -- and fed to
:func:`repcap.models.embeddings.load`.  The only exception allowed out is :class:`repcap.RepcapError`; a
file that still parses must give a finite-shaped float32 ``(V, d)`` matrix.  The number of cases
run is printed (``pytest -s``) for the issue's closing note.
"""

from __future__ import annotations

import json
import struct
import tempfile
from pathlib import Path

import numpy as np
import torch
from _models import write_gguf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from repcap import RepcapError
from repcap.models.embeddings import load

N_BITS = 1000  # cases per mutation test (x 6 tests: 6000 in all, about 25 s)
RUNS: dict[str, int] = {}
_TMP = Path(tempfile.mkdtemp(prefix="repcap-fuzz-"))


def _seed_safetensors() -> bytes:
    from safetensors.torch import save_file

    p = _TMP / "seed.safetensors"
    g = torch.Generator().manual_seed(0)
    save_file(
        {
            "model.embed_tokens.weight": torch.randn(16, 8, generator=g),
            "model.norm.weight": torch.ones(8, dtype=torch.bfloat16),
            "lm_head.weight": torch.randn(16, 8, generator=g).half(),
        },
        str(p),
    )
    return p.read_bytes()


def _seed_gguf(qtype: str) -> bytes:
    p = _TMP / f"seed-{qtype}.gguf"
    rng = np.random.default_rng(0)
    write_gguf(
        p,
        rng.standard_normal((16, 32)).astype(np.float32),
        qtype,
        head=rng.standard_normal((16, 32)).astype(np.float32),
        tokens=[f"Ġt{i}" for i in range(16)],
    )
    return p.read_bytes()


SEEDS = {"st": _seed_safetensors(), "F16": _seed_gguf("F16"), "Q8_0": _seed_gguf("Q8_0")}


def _try(name: str, data: bytes, suffix: str, head: bool = False) -> None:
    RUNS[name] = RUNS.get(name, 0) + 1
    p = _TMP / f"case{suffix}"
    p.write_bytes(data)
    try:
        e = load(p, head=head)
    except RepcapError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert e.matrix.dtype == torch.float32 and e.matrix.ndim == 2 and min(e.matrix.shape) >= 1


@st.composite
def mutated(draw, seed: bytes, header_bias: int):
    """A seed with 1-8 mutations; positions drawn mostly inside the first ``header_bias`` bytes."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 8))):
        if not data:
            break
        hi = min(len(data), header_bias) if draw(st.booleans()) or draw(st.booleans()) else len(data)
        pos = draw(st.integers(0, max(hi - 1, 0)))
        kind = draw(st.sampled_from(["flip", "byte", "run", "truncate", "insert", "delete", "u32", "u64"]))
        if kind == "flip":
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif kind == "byte":
            data[pos] = draw(st.integers(0, 255))
        elif kind == "run":
            run = draw(st.binary(min_size=1, max_size=16))
            data[pos : pos + len(run)] = run
        elif kind == "truncate":
            del data[pos:]
        elif kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del data[pos : pos + draw(st.integers(1, 16))]
        else:  # an interesting integer written over a length / count / dim / offset field
            val = draw(
                st.sampled_from(
                    [0, 1, 2, 255, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 10**6, 10**12, 2**63 - 1, 2**63, 2**64 - 1]
                )
            )
            fmt, size = ("<I", 4) if kind == "u32" else ("<Q", 8)
            if pos + size <= len(data):
                struct.pack_into(fmt, data, pos, val % (1 << (8 * size)))
    return bytes(data)


_settings = settings(
    max_examples=N_BITS, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


@_settings
@given(data=mutated(SEEDS["st"], header_bias=400), head=st.booleans())
def test_fuzz_safetensors_bytes(data, head):
    _try("safetensors bytes", data, ".safetensors", head)


@_settings
@given(data=st.data())
def test_fuzz_safetensors_header_edits(data):
    """Edit the parsed JSON header (dtype, shape, offsets, names, extra keys) and the length prefix."""
    seed = SEEDS["st"]
    n = struct.unpack_from("<Q", seed)[0]
    hdr = json.loads(seed[8 : 8 + n])
    body = seed[8 + n :]
    names = [k for k in hdr if k != "__metadata__"]
    ints = st.one_of(st.integers(-3, 40), st.sampled_from([10**6, 10**12, 2**62, 2**63, 2**64, 10**30]))
    for _ in range(data.draw(st.integers(1, 4))):
        k = data.draw(st.sampled_from(names))
        field = data.draw(st.sampled_from(["dtype", "shape", "data_offsets", "drop", "junk", "name"]))
        if not isinstance(hdr.get(k), dict):
            continue
        if field == "dtype":
            hdr[k]["dtype"] = data.draw(st.sampled_from(["F32", "F16", "BF16", "I64", "F4", "U8", "Q4", "", None, 3]))
        elif field == "shape":
            hdr[k]["shape"] = data.draw(st.one_of(st.lists(ints, max_size=4), st.none(), st.text(max_size=3)))
        elif field == "data_offsets":
            hdr[k]["data_offsets"] = data.draw(st.one_of(st.lists(ints, max_size=3), st.none()))
        elif field == "drop":
            del hdr[k]
        elif field == "junk":
            hdr[k] = data.draw(
                st.one_of(st.none(), st.integers(), st.text(max_size=4), st.lists(st.integers(), max_size=2))
            )
        else:
            hdr[data.draw(st.text(max_size=30))] = hdr.pop(k)
    raw = json.dumps(hdr).encode()
    prefix = data.draw(st.sampled_from(["exact", "short", "long", "any"]))
    ln = {"exact": len(raw), "short": max(len(raw) - 3, 0), "long": len(raw) + 5}.get(prefix) or data.draw(
        st.integers(0, 2**64 - 1)
    )
    _try("safetensors header edits", struct.pack("<Q", ln) + raw + body, ".safetensors")


@_settings
@given(data=st.binary(max_size=300), as_st=st.booleans())
def test_fuzz_random_bytes(data, as_st):
    """Random bytes, half of them behind a real magic / a plausible header length."""
    if as_st:
        _try("random bytes", struct.pack("<Q", len(data) // 2) + data, ".safetensors")
    else:
        _try("random bytes", b"GGUF" + struct.pack("<I", 3) + data, ".gguf")


@_settings
@given(data=mutated(SEEDS["F16"], header_bias=700), head=st.booleans())
def test_fuzz_gguf_f16(data, head):
    _try("gguf F16", data, ".gguf", head)


@_settings
@given(data=mutated(SEEDS["Q8_0"], header_bias=700), head=st.booleans())
def test_fuzz_gguf_q8_0(data, head):
    _try("gguf Q8_0", data, ".gguf", head)


@_settings
@given(cut=st.integers(0, max(len(SEEDS["Q8_0"]), len(SEEDS["st"]))), which=st.sampled_from(["st", "Q8_0"]))
def test_fuzz_truncations(cut, which):
    _try("truncations", SEEDS[which][:cut], ".safetensors" if which == "st" else ".gguf")


def test_fuzz_count():
    """The seeds load, and the cases run so far are printed (run the whole file for the total)."""
    assert load(_write("ok.safetensors", SEEDS["st"])).matrix.shape == (16, 8)
    assert load(_write("ok.gguf", SEEDS["Q8_0"])).matrix.shape == (16, 32)
    total = sum(RUNS.values())
    print(
        f"\nfuzz cases run: {total} ({', '.join(f'{k} {v}' for k, v in sorted(RUNS.items()))}); "
        "exceptions other than RepcapError: 0"
    )
    if RUNS:
        assert total >= 6 * N_BITS * 0.9


def _write(name: str, data: bytes) -> Path:
    p = _TMP / name
    p.write_bytes(data)
    return p
