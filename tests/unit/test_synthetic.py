"""The ``synthetic:`` source scheme: stand-in matrices and models built in memory, read through the
same loaders and giving the very numbers the temporary files they replace gave."""

from __future__ import annotations

import numpy as np
import pytest

from repcap import RepcapError
from repcap.engines import layers
from repcap.models import embeddings, synthetic


def test_a_source_round_trips_and_bad_ones_are_one_line():
    s = synthetic.source("embedding", V=np.int64(50), d=8, mean_cos=0.3, seed=0)
    assert s == "synthetic:embedding,V=50,d=8,mean_cos=0.3,seed=0"
    assert synthetic.parse(s) == ("embedding", {"V": 50, "d": 8, "mean_cos": 0.3, "seed": 0})
    for bad, msg in [
        ("synthetic:blob,V=1", "unknown synthetic kind"),
        ("synthetic:gaussian,V=10,d=4", "needs seed"),
        ("synthetic:gaussian,V=10,d=x,seed=0", "is not a number"),
        ("synthetic:gaussian,V=0,d=4,seed=0", "sizes must be >= 1"),
        ("synthetic:gaussian,V=10,V=10,d=4,seed=0", "once each"),
    ]:
        with pytest.raises(RepcapError, match=msg):
            embeddings.load(bad)
    with pytest.raises(RepcapError, match="needs exactly"):
        synthetic.source("gaussian", V=10, d=4)


def test_a_synthetic_matrix_is_the_npy_file_it_replaces(tmp_path):
    X = synthetic.stand_in(60, 8, mean_cos=0.3, seed=2)
    H = synthetic.stand_in(60, 8, noise_of=X, seed=3)
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "h.npy", H)
    e = embeddings.load(synthetic.source("embedding", V=60, d=8, mean_cos=0.3, seed=2))
    h = embeddings.load(synthetic.source("copy", V=60, d=8, mean_cos=0.3, seed=2, copy_seed=3))
    assert e.matrix.equal(embeddings.load(str(tmp_path / "x.npy")).matrix)
    assert h.matrix.equal(embeddings.load(str(tmp_path / "h.npy")).matrix)
    assert (e.source_kind, e.tied, e.quant, e.tensor_name) == ("synthetic", None, "F32", None)
    g = embeddings.load(synthetic.source("gaussian", V=30, d=5, seed=1)).matrix.numpy()
    np.testing.assert_array_equal(g, np.random.default_rng(1).standard_normal((30, 5)).astype(np.float32))
    [info] = embeddings.list_tensors(synthetic.source("gaussian", V=30, d=5, seed=1))
    assert info.name is None and info.shape == (30, 5)


def test_a_synthetic_model_is_the_gguf_stand_in_it_replaces(tmp_path):
    """Every layer record of the in-memory model equals the one of the GGUF file write_stand_in
    writes (the chapter's old stand-in), but for the source's name and kind."""
    spec = synthetic.source("layers", n_layers=2, vocab=120, d_model=16, d_ff=40, seed=1)
    path = layers.write_stand_in(tmp_path / "m.gguf", n_layers=2, vocab=120, d_model=16, d_ff=40, seed=1)
    a = list(layers.matrices(str(path), device="cpu"))
    b = list(layers.matrices(spec, device="cpu"))
    assert [r["kind"] for r in b] == ["embedding", "mlp_out", "attn_out", "mlp_out", "attn_out"]
    for x, y in zip(a, b, strict=True):
        assert {k for k in x if x[k] != y[k]} == {"label", "source", "source_kind"}
    head = embeddings.load(spec, head=True)
    assert head.tensor_name == "token_embd.weight" and head.tied is True  # no head stored: tied
    with pytest.raises(RepcapError, match="no tensor named 'nope'"):
        embeddings.load(spec, tensor="nope")
