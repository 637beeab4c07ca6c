"""repcap.engines.layers: which axis of each stored layer matrix holds the directions a layer writes (planted
in tiny GGUF and safetensors models built here, and checked against what a running layer writes),
the statistics against a dense float64 brute force, the Gaussian baseline against its closed form,
clear errors; and the chapter's tables (repcap.book.figdata.layers)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from _models import write_gguf_tensors

from repcap import RepcapError, sweep
from repcap.book.figdata import layers as fd
from repcap.engines import laws, layers

D_MODEL, D_FF, VOCAB = 8, 12, 40


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))


def _planted(seed: int = 0):
    """Direction matrices with known rows: the MLP's d_ff = 12 output directions (row 3 planted as
    e_0 + e_1, rows 5 and 6 equal), the attention's 8 (square: a wrong axis keeps the shape), the
    up-projection's 12 read directions, and the embedding."""
    rng = np.random.default_rng(seed)
    down = rng.standard_normal((D_FF, D_MODEL)).astype(np.float32)
    down[3] = 0
    down[3, :2] = 1
    down[6] = down[5]
    attn = rng.standard_normal((D_MODEL, D_MODEL)).astype(np.float32)
    attn[2] = 0
    attn[2, 7] = 2
    up = rng.standard_normal((D_FF, D_MODEL)).astype(np.float32)
    emb = rng.standard_normal((VOCAB, D_MODEL)).astype(np.float32) + 0.5
    return emb, down, attn, up


def _write_gguf(path, tensors: dict[str, np.ndarray], qtype: str = "F32"):
    """A GGUF as llama.cpp writes it: each numpy array as it is (GGUF's ne is the reversed shape)."""
    return write_gguf_tensors(path, tensors, qtype)


def _gguf_model(tmp_path, qtype: str = "F32", n_layers: int = 2):
    emb, down, attn, up = _planted()
    t = {"token_embd.weight": emb}
    for i in range(n_layers):
        t[f"blk.{i}.ffn_down.weight"] = down.T * (i + 1)  # stored (d_model, d_ff): directions are columns
        t[f"blk.{i}.attn_output.weight"] = attn.T  # (d_model, n_heads * head_dim)
        t[f"blk.{i}.ffn_up.weight"] = up  # (d_ff, d_model): read directions are rows
    return _write_gguf(tmp_path / f"tiny-{qtype}.gguf", t, qtype), (emb, down, attn, up)


def _safetensors_folder(tmp_path):
    from safetensors.numpy import save_file

    emb, down, attn, up = _planted(1)
    out = tmp_path / "hf"
    out.mkdir()
    save_file(
        {
            "model.embed_tokens.weight": emb,
            "model.layers.0.mlp.down_proj.weight": np.ascontiguousarray(down.T),  # torch Linear (out, in)
            "model.layers.0.self_attn.o_proj.weight": np.ascontiguousarray(attn.T),
            "model.layers.0.mlp.up_proj.weight": up,
            "model.layers.0.input_layernorm.weight": np.ones(D_MODEL, np.float32),
        },
        str(out / "model.safetensors"),
    )
    (out / "config.json").write_text(json.dumps({"model_type": "llama", "tie_word_embeddings": True}))
    return out, (emb, down, attn, up)


def _loaded_directions(source, name):
    """The direction matrix of tensor ``name`` with the axis repcap.engines.layers assigns to it."""
    m = layers.ModelTensors(str(source))
    (t,) = [t for t in m.layers(list(layers.KINDS)) if t.name == name]
    return layers.directions(m.load(name).matrix, t.axis).numpy()


# ---------------------------------------------------------------------------------------------
# the axis, per format


def test_gguf_layer_directions_are_the_columns(tmp_path):
    path, (_, down, attn, up) = _gguf_model(tmp_path)
    found = {(t.layer, t.kind): t for t in layers.ModelTensors(str(path)).layers(list(layers.KINDS))}
    assert found[(0, "mlp_out")].shape == (D_MODEL, D_FF) and found[(0, "mlp_out")].axis == 1
    assert found[(0, "mlp_in")].shape == (D_FF, D_MODEL) and found[(0, "mlp_in")].axis == 0
    got = _loaded_directions(path, "blk.0.ffn_down.weight")
    np.testing.assert_array_equal(got, down)
    np.testing.assert_array_equal(got[3], [1, 1, 0, 0, 0, 0, 0, 0])  # the planted column
    np.testing.assert_array_equal(_loaded_directions(path, "blk.1.ffn_down.weight"), 2 * down)
    a = _loaded_directions(path, "blk.0.attn_output.weight")
    np.testing.assert_array_equal(a, attn)  # square: only the values tell
    assert not np.allclose(a, attn.T)
    np.testing.assert_array_equal(a[2], 2 * np.eye(D_MODEL)[7])
    np.testing.assert_array_equal(_loaded_directions(path, "blk.0.ffn_up.weight"), up)


def test_quantised_gguf_keeps_the_axis(tmp_path):
    rng = np.random.default_rng(3)
    big = rng.standard_normal((64, 32)).astype(np.float32)  # Q8_0 blocks of 32 along the stored rows
    big[5] = 0
    big[5, 31] = 1.0
    path = _write_gguf(
        tmp_path / "q8.gguf",
        {
            "token_embd.weight": rng.standard_normal((50, 32)).astype(np.float32),
            "blk.0.ffn_down.weight": np.ascontiguousarray(big.T),
        },
        "Q8_0",
    )
    got = _loaded_directions(path, "blk.0.ffn_down.weight")
    assert got.shape == (64, 32)
    np.testing.assert_allclose(got, big, atol=0.03)
    assert int(np.argmax(got[5])) == 31 and abs(got[5, 31] - 1) < 0.01


def test_safetensors_layer_directions_are_the_columns(tmp_path):
    folder, (_, down, attn, up) = _safetensors_folder(tmp_path)
    for source in (folder, folder / "model.safetensors"):
        m = layers.ModelTensors(str(source))
        found = {t.kind: t for t in m.layers(list(layers.KINDS))}
        assert found["mlp_out"].family == "llama" and found["mlp_out"].shape == (D_MODEL, D_FF)
        np.testing.assert_array_equal(_loaded_directions(source, found["mlp_out"].name), down)
        np.testing.assert_array_equal(_loaded_directions(source, found["attn_out"].name), attn)
        np.testing.assert_array_equal(_loaded_directions(source, found["mlp_in"].name), up)


def test_directions_are_what_a_running_layer_writes(tmp_path):
    """Independent of any convention of ours: unit j of the running layer alone writes W e_j."""
    import transformers as T

    torch.manual_seed(0)
    m = T.LlamaForCausalLM(
        T.LlamaConfig(
            vocab_size=VOCAB,
            hidden_size=16,
            intermediate_size=24,
            num_hidden_layers=2,
            num_attention_heads=2,
            num_key_value_heads=2,
            tie_word_embeddings=True,
        )
    )
    m.save_pretrained(tmp_path / "llama")
    blk = m.model.layers[1]
    with torch.no_grad():
        want_mlp = blk.mlp.down_proj(torch.eye(24)).numpy()
        want_attn = blk.self_attn.o_proj(torch.eye(16)).numpy()
        want_up = blk.mlp.up_proj.weight.numpy()  # unit j reads <w_j, h>
    src = tmp_path / "llama"
    np.testing.assert_allclose(_loaded_directions(src, "model.layers.1.mlp.down_proj.weight"), want_mlp, atol=1e-6)
    np.testing.assert_allclose(_loaded_directions(src, "model.layers.1.self_attn.o_proj.weight"), want_attn, atol=1e-6)
    np.testing.assert_allclose(_loaded_directions(src, "model.layers.1.mlp.up_proj.weight"), want_up, atol=1e-6)
    # the same weights in a GGUF, as llama.cpp's converter writes them (the torch data unchanged)
    sd = {k: v.detach().numpy() for k, v in m.state_dict().items()}
    gg = _write_gguf(
        tmp_path / "llama.gguf",
        {
            "token_embd.weight": sd["model.embed_tokens.weight"],
            "blk.1.ffn_down.weight": sd["model.layers.1.mlp.down_proj.weight"],
            "blk.1.attn_output.weight": sd["model.layers.1.self_attn.o_proj.weight"],
            "blk.1.ffn_up.weight": sd["model.layers.1.mlp.up_proj.weight"],
        },
    )
    np.testing.assert_allclose(_loaded_directions(gg, "blk.1.ffn_down.weight"), want_mlp, atol=1e-6)
    np.testing.assert_allclose(_loaded_directions(gg, "blk.1.attn_output.weight"), want_attn, atol=1e-6)
    np.testing.assert_allclose(_loaded_directions(gg, "blk.1.ffn_up.weight"), want_up, atol=1e-6)


def test_gpt2_conv1d_directions_are_the_rows(tmp_path):
    """GPT-2's Conv1D stores (in, out): the transpose of a Linear, so its directions are the rows."""
    import transformers as T

    torch.manual_seed(0)
    m = T.GPT2LMHeadModel(T.GPT2Config(vocab_size=VOCAB, n_embd=16, n_layer=1, n_head=2, n_positions=16))
    m.save_pretrained(tmp_path / "gpt2")
    blk = m.transformer.h[0]
    with torch.no_grad():
        want_mlp = (blk.mlp.c_proj(torch.eye(64)) - blk.mlp.c_proj.bias).numpy()
        want_attn = (blk.attn.c_proj(torch.eye(16)) - blk.attn.c_proj.bias).numpy()
    found = {t.kind: t for t in layers.ModelTensors(str(tmp_path / "gpt2")).layers(list(layers.KINDS))}
    assert found["mlp_out"].family == "gpt2" and found["mlp_out"].axis == 0 and found["mlp_out"].shape == (64, 16)
    assert found["mlp_in"].axis == 1
    np.testing.assert_allclose(_loaded_directions(tmp_path / "gpt2", found["mlp_out"].name), want_mlp, atol=1e-6)
    np.testing.assert_allclose(_loaded_directions(tmp_path / "gpt2", found["attn_out"].name), want_attn, atol=1e-6)


@pytest.mark.parametrize(
    "name, family, kind, axis",
    [
        ("blk.7.ffn_down.weight", "gguf", "mlp_out", 1),
        ("blk.7.attn_output.weight", "gguf", "attn_out", 1),
        ("blk.7.ffn_up.weight", "gguf", "mlp_in", 0),
        ("model.layers.7.mlp.down_proj.weight", "llama", "mlp_out", 1),
        ("model.language_model.layers.7.self_attn.o_proj.weight", "llama", "attn_out", 1),
        ("gpt_neox.layers.7.mlp.dense_4h_to_h.weight", "gpt-neox", "mlp_out", 1),
        ("gpt_neox.layers.7.attention.dense.weight", "gpt-neox", "attn_out", 1),
        ("model.decoder.layers.7.fc2.weight", "opt", "mlp_out", 1),
        ("model.decoder.layers.7.self_attn.out_proj.weight", "opt", "attn_out", 1),
        ("model.layers.7.mlp.fc2.weight", "phi", "mlp_out", 1),
        ("encoder.layer.7.output.dense.weight", "bert", "mlp_out", 1),
        ("encoder.layer.7.attention.output.dense.weight", "bert", "attn_out", 1),
        ("encoder.layer.7.attention.attn.o.weight", "bert", "attn_out", 1),
        ("h.7.mlp.c_proj.weight", "gpt2", "mlp_out", 0),
        ("transformer.h.7.attn.c_proj.weight", "gpt2", "attn_out", 0),
    ],
)
def test_names_per_family(name, family, kind, axis):
    (t,) = layers.find_layers({name: (4, 6)})
    assert (t.layer, t.family, t.kind, t.axis) == (7, family, kind, axis)


def test_towers_experts_and_one_d_tensors_are_not_layers():
    assert (
        layers.find_layers(
            {
                "vision_tower.layers.0.mlp.down_proj.weight": (4, 6),
                "model.layers.0.mlp.experts.3.down_proj.weight": (4, 6),
                "blk.0.ffn_down_exps.weight": (4, 6),
                "model.layers.0.mlp.down_proj.bias": (4,),
                "blk.0.ffn_down.weight": (6,),
            }
        )
        == []
    )


def test_layer_order_and_kinds():
    names = {f"blk.{i}.{n}.weight": (4, 6) for i in (10, 2, 0) for n in ("ffn_down", "attn_output", "ffn_up")}
    got = [(t.layer, t.kind) for t in layers.find_layers(names, ["attn_out", "mlp_out"])]
    assert got == [(0, "attn_out"), (0, "mlp_out"), (2, "attn_out"), (2, "mlp_out"), (10, "attn_out"), (10, "mlp_out")]
    with pytest.raises(RepcapError, match="unknown layer kind"):
        layers.find_layers(names, ["mlp_gate"])
    with pytest.raises(RepcapError, match="two tensors for layer 0"):
        layers.find_layers({"blk.0.ffn_down.weight": (4, 6), "model.layers.0.mlp.down_proj.weight": (4, 6)})


# ---------------------------------------------------------------------------------------------
# statistics and baselines


def _brute(X: np.ndarray) -> dict[str, float]:
    u = X.astype(np.float64)
    u = u[np.linalg.norm(u, axis=1) > 0]
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    c = (u @ u.T)[np.triu_indices(len(u), 1)]
    return {"mean": c.mean(), "std": c.std(), "mean_sq": (c * c).mean(), "eps": c.mean() + 2 * c.std()}


def test_records_match_a_dense_float64_brute_force(tmp_path):
    path, (emb, down, attn, up) = _gguf_model(tmp_path)
    recs, failures = layers.records(
        [{"source": str(path), "label": "tiny", "device": "cpu"}],
        kinds=["mlp_out", "attn_out", "mlp_in"],
        progress=False,
    )
    assert failures == []
    by = {(r["kind"], r["layer"]): r for r in recs}
    assert [(r["kind"], r["layer"]) for r in recs][:4] == [
        ("embedding", None),
        ("mlp_out", 0),
        ("attn_out", 0),
        ("mlp_in", 0),
    ]
    for key, X in {
        ("embedding", None): emb,
        ("mlp_out", 0): down,
        ("mlp_out", 1): 2 * down,
        ("attn_out", 1): attn,
        ("mlp_in", 0): up,
    }.items():
        r, want = by[key], _brute(X)
        for k in ("mean", "std", "mean_sq", "eps"):
            assert r[k] == pytest.approx(want[k], abs=1e-7), (key, k)
        assert r["n_directions"] == X.shape[0] and r["d_model"] == D_MODEL
        assert r["class"] == laws.classify(want["eps"])
        assert r["log10_capacity"]["four"] == pytest.approx(float(laws.log10_capacity(want["eps"], D_MODEL, "four")))
        assert r["label"] == "tiny" and r["baseline"]["d"] == D_MODEL
    assert by[("mlp_out", 0)]["axis"] == "columns" and by[("mlp_in", 0)]["axis"] == "rows"
    assert by[("mlp_out", 0)]["loaded_shape"] == [D_MODEL, D_FF]
    assert "head" not in {r["kind"] for r in recs}  # no output.weight: the head is the embedding


def test_a_separate_head_is_measured(tmp_path):
    emb, down, *_ = _planted()
    path = _write_gguf(
        tmp_path / "untied.gguf",
        {"token_embd.weight": emb, "output.weight": emb[::-1] * 2 + 1, "blk.0.ffn_down.weight": down.T},
    )
    recs, _ = layers.records([{"source": str(path)}], progress=False)
    assert [r["kind"] for r in recs] == ["embedding", "head", "mlp_out"]
    assert recs[1]["eps"] == pytest.approx(_brute(emb[::-1] * 2 + 1)["eps"], abs=1e-7)


def test_gaussian_baseline_against_its_closed_form():
    n, d = 600, 24
    x = layers.gaussian(n, d, seed=5).matrix
    assert x.shape == (n, d) and torch.equal(x, layers.gaussian(n, d, seed=5).matrix)
    assert not torch.equal(x, layers.gaussian(n, d, seed=6).matrix)
    rec = layers.baseline_point({"n": n, "d": d, "seed": 5, "device": "cpu"})
    # E cos = 0 and E cos^2 = 1/d exactly; over all pairs of n vectors the standard errors are
    # about sqrt(2/d)/n and 2/(d n) (a degenerate U-statistic: E[cos | u_i] = 0, E[cos^2 | u_i] = 1/d)
    assert abs(rec["mean"]) < 5 * math.sqrt(2 / d) / n
    assert abs(rec["mean_sq"] - 1 / d) < 5 * 2 / (d * n)
    assert rec["expected_mean_sq"] == 1 / d and rec["n_directions"] == n
    assert rec["eps"] == pytest.approx(2 / math.sqrt(d), rel=0.05)
    assert rec["mean_sq"] == pytest.approx(_brute(x.numpy())["mean_sq"], abs=1e-9)


def test_one_baseline_per_distinct_shape(tmp_path, monkeypatch):
    path, _ = _gguf_model(tmp_path)
    seen = []
    real = sweep.run

    def spy(fn, configs, **kw):
        if fn is layers.baseline_point:
            seen.extend(configs)
        return real(fn, configs, **kw)

    monkeypatch.setattr(sweep, "run", spy)
    recs, _ = layers.records(
        [{"source": str(path), "label": "a"}, {"source": str(path), "label": "b"}], seed=3, progress=False
    )
    # shapes: embedding (40, 8), MLP (12, 8), attention (8, 8); two models, same shapes
    assert sorted((c["n"], c["d"]) for c in seen) == [(D_MODEL, D_MODEL), (D_FF, D_MODEL), (VOCAB, D_MODEL)]
    assert all(c["seed"] == 3 for c in seen)
    a = [r for r in recs if r["label"] == "a"]
    b = [r for r in recs if r["label"] == "b"]
    assert [r["baseline"] for r in a] == [r["baseline"] for r in b]
    assert a[1]["baseline"]["seed"] == 3


def test_records_are_cached(tmp_path, monkeypatch):
    path, _ = _gguf_model(tmp_path)
    first, _ = layers.records([{"source": str(path)}], progress=False)
    calls = []
    monkeypatch.setattr(layers.points, "model_point", lambda cfg: calls.append(cfg) or {})
    again, _ = layers.records([{"source": str(path)}], progress=False)
    assert calls == [] and again == first


# ---------------------------------------------------------------------------------------------
# errors


def test_a_model_without_layer_tensors_is_one_clear_line(tmp_path):
    emb, *_ = _planted()
    only = _write_gguf(tmp_path / "emb-only.gguf", {"token_embd.weight": emb})
    npy = tmp_path / "m.npy"
    np.save(npy, emb)
    for src in (only, npy):
        with pytest.raises(RepcapError) as e:
            list(layers.matrices(str(src)))
        msg = str(e.value)
        assert "\n" not in msg and str(src) in msg and "no layer matrices found" in msg
    recs, failures = layers.records(
        [{"source": str(only), "label": "e"}, {"source": str(tmp_path / "x.gguf")}], progress=False
    )
    assert recs == [] and [f["label"] for f in failures] == ["e", str(tmp_path / "x.gguf")]
    assert all("\n" not in f["error"] for f in failures)


def test_a_layer_stored_the_other_way_is_refused(tmp_path):
    emb, down, *_ = _planted()
    path = _write_gguf(tmp_path / "flipped.gguf", {"token_embd.weight": emb, "blk.0.ffn_down.weight": down})
    with pytest.raises(RepcapError, match="not stored as the gguf layout says") as e:
        list(layers.matrices(str(path)))
    assert "\n" not in str(e.value)


def test_stand_in_model(tmp_path):
    p = layers.write_stand_in(tmp_path / "s.gguf", n_layers=3, vocab=300, d_model=16, d_ff=40, attn_dim=24)
    recs, failures = layers.records([{"source": str(p), "label": "s"}], kinds=list(layers.KINDS), progress=False)
    assert failures == []
    shapes = {(r["kind"], r["vocab_size"]) for r in recs}
    assert shapes == {("embedding", 300), ("mlp_out", 40), ("attn_out", 24), ("mlp_in", 40)}
    emb = recs[0]
    assert all(r["eps"] < emb["eps"] for r in recs[1:])  # the layers sit nearer random than the embedding


def test_conventions_table_names_every_pattern():
    rows = layers.conventions()
    assert len(rows) == len({p.family for p in layers.PATTERNS}) == len(layers.FAMILIES)
    gg = rows[0]
    assert gg["family"] == layers.FAMILIES["gguf"] and gg[layers.KINDS["mlp_out"]] == "blk.N.ffn_down.weight"
    assert gg["MLP output, loaded as"] == "(d_model, d_ff)" and gg["written directions are"] == "columns"
    assert gg["read directions are"] == "rows"
    gpt2 = next(r for r in rows if r["family"] == layers.FAMILIES["gpt2"])
    assert gpt2[layers.KINDS["mlp_out"]] == "*h.N.mlp.c_proj.weight" and gpt2["written directions are"] == "rows"
    bert = next(r for r in rows if r["family"] == layers.FAMILIES["bert"])
    assert (
        bert[layers.KINDS["attn_out"]] == "*layer.N.attention.output.dense.weight or *layer.N.attention.attn.o.weight"
    )
    named = {n.strip() for r in rows for k in layers.KINDS.values() if k in r for n in r[k].split(" or ")}
    assert named == {layers.pattern_name(p) for p in layers.PATTERNS}


# ---------------------------------------------------------------------------------------------
# the chapter's tables


def _rec(label, kind, layer, eps, d=64, n=100, b_eps=0.25, tied=True, mean=0.0, mean_sq=None, four=None):
    c = laws.classify(eps)
    lc = {k: (float(laws.log10_capacity(eps, d, k)) if eps >= 0 else None) for k in laws.PUBLISHED}
    if four is not None:
        lc["four"] = four
    return {
        "label": label,
        "kind": kind,
        "layer": layer,
        "eps": eps,
        "mean": mean,
        "std": (eps - mean) / 2,
        "mean_sq": mean_sq if mean_sq is not None else 2.0 / d,
        "class": c,
        "d_model": d,
        "vocab_size": n,
        "n_directions": n,
        "tied": tied if kind in ("embedding", "head") else None,
        "tensor": f"{kind}.{layer}",
        "quant": "F32",
        "log10_capacity": lc,
        "capacity": {},
        "axis": "rows",
        "baseline": {
            "eps": b_eps,
            "mean": 0.0,
            "std": b_eps / 2,
            "mean_sq": 1.0 / d,
            "class": laws.classify(b_eps),
            "log10_capacity": {"four": 1.0},
            "d": d,
            "n_rows": n,
        },
    }


def _fake():
    return [
        _rec("m1", "embedding", None, 0.5, n=1000),
        _rec("m1", "mlp_out", 0, 0.08),
        _rec("m1", "mlp_out", 1, 0.15),
        _rec("m1", "attn_out", 0, 0.3),
        _rec("m1", "attn_out", 1, 0.12),
        _rec("m2", "embedding", None, 0.05, d=256, n=2000, b_eps=0.125),
        _rec("m2", "head", None, 0.06, d=256),
        _rec("m2", "mlp_out", 0, 0.07, d=256, b_eps=0.125),
        _rec("m2", "attn_out", 0, 0.09, d=256, b_eps=0.125),
    ]


def test_matrix_table():
    t = fd.matrix_table(_fake())
    assert list(t.columns[:5]) == ["model", "matrix", "layer", "n", "d"]
    assert len(t) == 9
    row = t[(t.model == "m1") & (t.matrix == layers.KINDS["mlp_out"]) & (t.layer == 1)].iloc[0]
    assert row["ε"] == 0.15 and row["ε random"] == 0.25 and row["ε / ε random"] == pytest.approx(0.6)
    assert row["d E[cos²]"] == pytest.approx(2.0) and row["class"] == "between"
    assert t.iloc[0]["matrix"] == "embedding" and t.iloc[0]["class"] == "1"


def test_range_table():
    t = fd.range_table(_fake())
    r = t[t.model == "m1"].iloc[0]
    assert (r["ε embedding"], r["embedding class"]) == (0.5, "1")
    assert r[f"ε {fd.SHORT['mlp_out']} min"] == 0.08 and r[f"ε {fd.SHORT['mlp_out']} max"] == 0.15
    assert r[f"ε {fd.SHORT['attn_out']} min"] == 0.12 and r[f"ε {fd.SHORT['attn_out']} max"] == 0.3
    assert r["layers"] == 2 and r[f"ε random ({fd.SHORT['mlp_out']})"] == 0.25
    r2 = t[t.model == "m2"].iloc[0]
    assert r2["ε head"] == 0.06 and math.isnan(r["ε head"])


def test_class_table_counts_agreement():
    t = fd.class_table(_fake())
    r = t[t.model == "m1"].iloc[0]
    # m1: embedding Class 1; layers 0.08 (2), 0.15 (between), 0.3 (1), 0.12 (between)
    assert (r["Class 1"], r["between"], r["Class 2"], r["same class as the embedding"]) == (1, 2, 1, 1)
    assert r["share in the embedding's class"] == pytest.approx(0.25)
    r2 = t[t.model == "m2"].iloc[0]
    assert (r2["Class 2"], r2["share in the embedding's class"]) == (2, 1.0)
    assert fd.share_same_class(_fake()) == pytest.approx(3 / 6)
    assert fd.share_same_class(_fake(), tied_only=True) == pytest.approx(3 / 6)
    assert fd.share_same_class([_rec("m", "embedding", None, 0.3)]) is None


def test_eps_ratio_median():
    # ratios: m1 0.16, 0.3, 0.6, 0.24; m2 1.4, 1.8 -> median of the six = (0.3 + 0.6) / 2
    assert fd.median_eps_ratio(_fake()) == pytest.approx(0.45)
    assert fd.median_eps_ratio([_rec("m", "embedding", None, 0.3)]) is None


def test_capacity_table_reads_the_laws():
    t = fd.capacity_table(_fake(), law="four")
    r = t[t.model == "m1"].iloc[0]
    assert r["log10 k, embedding"] == pytest.approx(float(laws.log10_capacity(0.5, 64, "four")))
    meds = np.median([0.08, 0.15])
    assert r[f"ε {fd.SHORT['mlp_out']} (median)"] == pytest.approx(meds)
    assert r[f"log10 k, {fd.SHORT['mlp_out']} (median ε)"] == pytest.approx(
        float(laws.log10_capacity(meds, 64, "four"))
    )
    assert r["n directions in the layers"] == 4 * 100


def test_by_layer_long_form():
    t = fd.by_layer(_fake())
    assert set(t.columns) >= {
        "model",
        "kind",
        "matrix",
        "layer",
        "eps",
        "eps_random",
        "d_mean_sq",
        "eps_embedding",
        "log10_capacity_four",
    }
    assert len(t) == 6 and (t[t.model == "m2"].eps_embedding == 0.05).all()


def test_layer_figure_tables_hold_the_lines_they_draw():
    """Chapter 5's figure tables carry, beside the layer points, every line their drawings draw."""
    recs = _fake()
    t = fd.eps_figure(recs, 0.1, 0.2)
    assert (t.row == fd.LAYER).sum() == 6 and t[t.row == fd.BOUNDARY].eps.tolist() == [0.1, 0.2]
    assert t[t.row == fd.EMBEDDING][["model", "eps", "d"]].values.tolist() == [["m1", 0.5, 64], ["m2", 0.05, 256]]
    assert t[t.row == fd.HEAD][["model", "eps"]].values.tolist() == [["m2", 0.06]]
    med = t[t.row == fd.MEDIAN]
    assert med[["model", "kind"]].values.tolist() == [["m1", "mlp_out"], ["m1", "attn_out"]] + [
        ["m2", "mlp_out"],
        ["m2", "attn_out"],
    ]
    assert med.eps_random.tolist() == [0.25, 0.25, 0.125, 0.125]
    bl = fd.by_layer(recs)
    v = fd.vs_embedding_figure(recs, bl, 0.1, 0.2)
    assert v[v.row == fd.DIAGONAL].eps.tolist() == pytest.approx([0.05 / 1.3, 0.5 * 1.3])
    assert v[v.row == fd.MEDIAN][["model", "eps_embedding", "eps_random"]].values.tolist() == [
        ["m1", 0.5, 0.25],
        ["m2", 0.05, 0.125],
    ]
    c = fd.capacity_figure(recs, bl.assign(n=[100, 300, 100, 100, 100, 100]), ["mlp_out", "attn_out"])
    assert c.row.tolist()[:3] == [fd.EMBEDDING, fd.LAYER, fd.LAYER]
    m1 = c[(c.row == fd.MEDIAN) & (c.model == "m1") & (c.matrix == "mlp_out")].iloc[0]
    assert m1.log10_n == pytest.approx(np.log10(200))  # log10 of the median n, not the median of log10 n


def test_excess_table():
    t = fd.excess_table(_fake())
    assert list(t.model) == ["m1", "m1", "m2", "m2"]
    r = t.iloc[0]
    assert r["matrix"] == layers.KINDS["mlp_out"] and r["layers"] == 2
    assert r["ε / ε random, median"] == pytest.approx((0.08 + 0.15) / 2 / 0.25)
    assert r["ε / ε random, max"] == pytest.approx(0.6)
    assert r["d E[cos²], median"] == pytest.approx(2.0) and r["d E[cos²], random"] == pytest.approx(1.0)


def test_a_source_is_resolved_once_per_model(tmp_path, monkeypatch):
    """Every matrix of a model is read through the one Source its ModelTensors resolved: the name is
    looked up once (it was looked up once per tensor, plus the listing and the GGUF probe)."""
    from repcap.models import embeddings

    folder, _ = _safetensors_folder(tmp_path)
    names = []
    real = embeddings.resolve

    def counting(source):
        if not isinstance(source, tuple):  # a name, not an already resolved Source
            names.append(source)
        return real(source)

    monkeypatch.setattr(embeddings, "resolve", counting)
    recs = list(layers.matrices(str(folder), device="cpu"))
    assert len(recs) >= 3  # the embedding and the layers' matrices
    assert names == [str(folder)]
