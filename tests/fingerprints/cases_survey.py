"""Fingerprint cases of the survey engine (:mod:`repcap.engines.survey` and :mod:`repcap.engines.layers`): the
``survey.describe`` record (exact moments, the dense re-computation of a small matrix's moments and
a matrix too large for it, the class, the capacity under every published law, the tiled pass with
and without a row sample, ``rows`` and ``head``) on in-memory ``synthetic:`` sources as point cases,
and on a matrix written to every file format the readers take (``.npy``, ``.safetensors`` and a
model folder, ``.gguf`` in F32, F16, BF16 and the quantised Q8_0 and Q4_0, ``.onnx``); the capacities
at chosen tolerances (negative included); a catalog key's expected shape; :func:`repcap.engines.survey.scan`
through the sweep cache; the layer survey's records of a model (``layers.model``; GGUF, torch
``Linear`` and GPT-2 ``Conv1D`` layouts) and its Gaussian baselines (``layers.baseline``), and
:func:`repcap.engines.layers.records` through the cache.

Point cases read ``synthetic:`` sources only (plain JSON configs that an older checkout's legacy
functions take as they are); the file-format cases write their files with fixed seeds into a
temporary folder and run the same point function on them (``run`` cases: a local file's
``file_signature`` would join a point's identity, and fingerprints only need the values).  The
quantised GGUF files come from the ``gguf`` package's own quantiser (pinned in
``requirements/constraints.txt``).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from harness import Case

_EMB = "synthetic:embedding,V=400,d=24,mean_cos=0.3,seed=0"
_COPY = "synthetic:copy,V=300,d=16,mean_cos=0.5,seed=2,copy_seed=3"
_LAYERS = "synthetic:layers,n_layers=2,vocab=200,d_model=16,d_ff=48,seed=4"
#: Tiled settings with thresholds on a bin edge (0.1, 0.5) and off every edge (0.33), as the point
#: configs spell them (lists: JSON).
_TILED = {"bins": 100, "top_k": 5, "thresholds": [0.1, 0.33, 0.5], "quantiles": [0.1, 0.5, 0.9, 0.99]}


def _describe(configs: list[dict]) -> dict:
    """A ``survey.describe`` point case, on the CPU whatever the machine has (``device`` is an
    execution setting: no part of a point's identity)."""
    return {
        "fn": "survey.describe",
        "configs": [{**c, "device": "cpu"} for c in configs],
        "legacy_fn": "repcap.survey:describe_point",
    }


@contextlib.contextmanager
def _cache_in(folder: Path) -> Iterator[None]:
    """The sweep cache in ``folder`` (``REPCAP_CACHE``) for the ``with`` block."""
    before = os.environ.get("REPCAP_CACHE")
    os.environ["REPCAP_CACHE"] = str(folder)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("REPCAP_CACHE", None)
        else:
            os.environ["REPCAP_CACHE"] = before


def _matrix(V: int, d: int, seed: int):
    """A ``(V, d)`` float32 matrix with mean cosine about 0.25 (:func:`repcap.models.synthetic.stand_in`)."""
    from repcap.models.synthetic import stand_in

    return stand_in(V, d, mean_cos=0.25, seed=seed)


# ------------------------------------------------------------------------------ writing the files


def _write_gguf(path: Path, tensors: dict, qtype: str, tokens: list[str] | None = None) -> Path:
    """A GGUF file as llama.cpp writes it, each array stored in ``qtype`` (quantised by ``gguf``)."""
    import gguf
    import numpy as np
    from gguf import quants

    w = gguf.GGUFWriter(str(path), "llama")
    if tokens is not None:
        w.add_tokenizer_model("gpt2")
        w.add_token_list(tokens)
    for name, arr in tensors.items():
        arr = np.ascontiguousarray(arr, dtype=np.float32)
        if qtype == "F32":
            w.add_tensor(name, arr)
        elif qtype == "F16":
            w.add_tensor(name, arr.astype(np.float16))
        else:
            qt = gguf.GGMLQuantizationType[qtype]
            data = quants.quantize(arr, qt)
            w.add_tensor(name, data, raw_shape=data.shape, raw_dtype=qt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _write_onnx(path: Path, emb) -> Path:
    """An ONNX graph whose one initialiser is the embedding (a Gather over token ids)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    name = "model.0.auto_model.embeddings.word_embeddings.weight"
    init = numpy_helper.from_array(np.ascontiguousarray(emb, dtype=np.float32), name)
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [None])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [None, emb.shape[1]])
    graph = helper.make_graph([helper.make_node("Gather", [name, "ids"], ["out"])], "g", [ids], [out], [init])
    onnx.save(helper.make_model(graph), str(path))
    return path


def _write_files(folder: Path) -> dict[str, Path]:
    """One embedding (with a separate head) in every format the readers take."""
    import numpy as np
    import torch
    from safetensors.torch import save_file

    emb, head = _matrix(160, 32, seed=1), _matrix(160, 32, seed=2)
    emb[9] = 0.0  # a zero row: dropped and counted
    files = {"npy": folder / "emb.npy", "npy-f64": folder / "emb64.npy"}
    np.save(files["npy"], emb)
    np.save(files["npy-f64"], emb.astype(np.float64) * 1e3)
    tensors = {"model.embed_tokens.weight": torch.from_numpy(emb), "lm_head.weight": torch.from_numpy(head)}
    files["safetensors"] = folder / "model.safetensors"
    save_file(tensors, str(files["safetensors"]))
    files["safetensors-bf16"] = folder / "bf16.safetensors"
    save_file({k: v.to(torch.bfloat16) for k, v in tensors.items()}, str(files["safetensors-bf16"]))
    model = folder / "model"
    model.mkdir()
    save_file(tensors, str(model / "model.safetensors"))
    (model / "config.json").write_text(json.dumps({"model_type": "llama", "tie_word_embeddings": False}))
    files["folder"] = model
    tokens = [f"tok{i}" for i in range(emb.shape[0])]
    for q in ("F32", "F16", "BF16", "Q8_0", "Q4_0"):
        files[f"gguf-{q}"] = _write_gguf(
            folder / f"{q}.gguf", {"token_embd.weight": emb, "output.weight": head}, q, tokens
        )
    files["onnx"] = _write_onnx(folder / "model.onnx", emb)
    return files


def _formats() -> dict:
    """``survey.describe`` on the files of :func:`_write_files`: the embedding of each (tiled, with
    its top pairs), the head of those that store one, and a few rows of a tiled, sampled read."""
    from repcap.results.runs.point_functions import point_function

    point = point_function("survey.describe")

    def describe(config: dict) -> dict:
        return point({**config, "device": "cpu"})

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = _write_files(Path(tmp))
        for name, path in files.items():
            out[name] = describe({"source": str(path), "tiled": True, **_TILED})
        for name in ("safetensors", "folder", "gguf-Q8_0"):
            out[f"{name}-head"] = describe({"source": str(files[name]), "head": True})
        out["gguf-F16-rows-sample"] = describe(
            {"source": str(files["gguf-F16"]), "rows": 120, "tiled": True, "sample": 60, "groups": 3, **_TILED}
        )
    return out


# ---------------------------------------------------------------------------- the survey's pieces


def _capacities() -> dict:
    """The capacity under every published law at tolerances of both classes, between them, at the
    class edges and at a negative eps (the laws do not apply: None); Guha's class of each."""
    from repcap.engines import laws
    from repcap.engines.survey import capacities

    out = {}
    cases = (
        (0.05, 0.08, 768),
        (0.15, 0.2, 2048),
        (0.35, 0.5, 64),
        (0.1, 0.2, 4096),
        (0.2, 0.3, 1024),
        (-0.01, 0.02, 16),
    )
    for eps, eps3, d in cases:
        out[f"{eps}-{d}"] = {**capacities(eps, eps3, d), "class": laws.classify(eps)}
    return out


def _catalog() -> dict:
    """A catalog key's record: its expected shape checked against the matrix read (here a
    synthetic one handed in, which does not match)."""
    from repcap.engines.survey import describe
    from repcap.models import embeddings

    e = embeddings.load(_EMB)
    return describe("gemma-7b", embedding=e, device="cpu", progress=False)


def _scan() -> dict:
    """:func:`repcap.engines.survey.scan` through a fresh sweep cache: a synthetic source, a local file
    (its size and time join the cache key), a source that fails (collected, not raised), and the
    same configs again from the cache."""
    import numpy as np

    from repcap.engines import survey

    with tempfile.TemporaryDirectory() as tmp, _cache_in(Path(tmp) / "cache"):
        path = Path(tmp) / "emb.npy"
        np.save(path, _matrix(120, 12, seed=5))
        configs = [
            {"source": _COPY, "label": "copy"},
            {"source": str(path), "tiled": True, **_TILED},
            {"source": "synthetic:embedding,V=1,d=4,mean_cos=0.1,seed=0"},  # one row: no pairs
        ]
        configs = [{**c, "device": "cpu"} for c in configs]
        recs, failures = survey.scan(configs, progress=False)
        again, _ = survey.scan(configs, progress=False)
    return {"records": recs, "n_failures": len(failures), "cached_equal": again == recs}


# ------------------------------------------------------------------------------------ the layers


def _layer_files(folder: Path) -> dict[str, Path]:
    """A stand-in model in each layout: llama.cpp's GGUF (:func:`repcap.engines.layers.write_stand_in`),
    torch ``Linear`` checkpoints (Llama names, with a separate head and a vision tower that is
    skipped) and GPT-2's ``Conv1D`` (directions in the rows)."""
    import numpy as np
    import torch
    from safetensors.torch import save_file

    from repcap.engines.layers import write_stand_in
    from repcap.models.synthetic import stand_in_layers

    files = {"gguf": write_stand_in(folder / "stand-in.gguf", n_layers=2, vocab=150, d_model=16, d_ff=40, seed=1)}
    arrays = stand_in_layers(n_layers=2, vocab=150, d_model=16, d_ff=40, attn_dim=24, seed=2)
    llama = {"model.embed_tokens.weight": arrays["token_embd.weight"], "lm_head.weight": _matrix(150, 16, seed=3)}
    for i in range(2):
        llama[f"model.layers.{i}.mlp.down_proj.weight"] = arrays[f"blk.{i}.ffn_down.weight"]
        llama[f"model.layers.{i}.self_attn.o_proj.weight"] = arrays[f"blk.{i}.attn_output.weight"]
        llama[f"model.layers.{i}.mlp.up_proj.weight"] = arrays[f"blk.{i}.ffn_up.weight"]
    llama["vision_tower.layers.0.mlp.down_proj.weight"] = np.ones((8, 5), dtype=np.float32)
    files["llama"] = folder / "llama.safetensors"
    save_file({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in llama.items()}, str(files["llama"]))
    gpt2 = {"transformer.wte.weight": arrays["token_embd.weight"]}
    for i in range(2):  # Conv1D stores (in, out): the transpose of a Linear's weight
        gpt2[f"transformer.h.{i}.mlp.c_proj.weight"] = arrays[f"blk.{i}.ffn_down.weight"].T
        gpt2[f"transformer.h.{i}.attn.c_proj.weight"] = _matrix(16, 16, seed=10 + i)
        gpt2[f"transformer.h.{i}.mlp.c_fc.weight"] = arrays[f"blk.{i}.ffn_up.weight"].T
    files["gpt2"] = folder / "gpt2.safetensors"
    save_file({k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in gpt2.items()}, str(files["gpt2"]))
    return files


def _layer_models() -> dict:
    """``layers.model`` on each layout of :func:`_layer_files` (every kind, the read side too), and
    :func:`repcap.engines.layers.records` (models and their baselines) through a fresh sweep cache."""
    import numpy as np

    from repcap.engines import layers
    from repcap.models.synthetic import stand_in_layers
    from repcap.results.runs.point_functions import point_function

    model = point_function("layers.model")
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp, _cache_in(Path(tmp) / "cache"):
        files = _layer_files(Path(tmp))
        for name, path in files.items():
            out[name] = model({"source": str(path), "label": name, "kinds": list(layers.KINDS), "device": "cpu"})
        # failures, collected: a matrix with no layers, and a model whose layer 1 writes nothing (zeros)
        np.save(Path(tmp) / "one.npy", _matrix(20, 16, seed=4))
        dead = stand_in_layers(n_layers=2, vocab=60, d_model=16, d_ff=24, seed=5)
        dead["blk.1.ffn_down.weight"][:] = 0.0
        _write_gguf(Path(tmp) / "dead.gguf", dead, "F32")
        recs, failures = layers.records(
            [
                {"source": str(files["gguf"]), "label": "gguf", "device": "cpu"},
                {"source": _LAYERS, "device": "cpu"},
                {"source": str(Path(tmp) / "one.npy"), "device": "cpu"},
                {"source": str(Path(tmp) / "dead.gguf"), "device": "cpu"},
            ],
            seed=3,
            progress=False,
        )
        out["records"] = {"records": recs, "n_failures": len(failures)}
    return out


def _conventions() -> dict:
    """The layouts as numbers: for each naming family, whether the written and the read directions
    are columns (1) or rows (0) of the loaded matrix -- the axis each record is taken along -- and
    the layers, axes and direction counts found in a listing of every family's names."""
    from repcap.engines.layers import PATTERNS, conventions, find_layers, pattern_name

    shapes = {}
    for i, p in enumerate(PATTERNS):  # one tensor per pattern, each in its own layer
        shapes[pattern_name(p).replace("*", "model.").replace(".N.", f".{i}.")] = (16, 40 + i)
    shapes["vision_tower.blk.0.ffn_down.weight"] = (8, 8)  # skipped
    return {
        "families": {
            row["family"]: [row["written directions are"] == "columns", row["read directions are"] == "columns"]
            for row in conventions()
        },
        "found": [[t.layer, t.axis, t.n_directions] for t in find_layers(shapes)],
        "found_mlp_out": [[t.layer, t.axis, t.n_directions] for t in find_layers(shapes, ["mlp_out"])],
    }


CASES = [
    Case(
        "survey",
        "describe",
        point=_describe(
            [
                {"source": _EMB},
                {"source": _EMB, "rows": 150},
                {"source": _COPY},
                {"source": "synthetic:gaussian,V=2100,d=8,seed=1"},  # over 2048 rows: the Gram moments only
                {"source": "synthetic:gaussian,V=200,d=600,seed=2"},  # eps < 0.1: class 2
                {"source": "synthetic:gaussian,V=200,d=200,seed=3"},  # 0.1 < eps < 0.2: no class
                {"source": _LAYERS, "head": True},  # no head stored: the embedding (tied)
                {"source": _LAYERS, "tensor": "blk.1.ffn_up.weight"},
            ]
        ),
    ),
    Case(
        "survey",
        "describe-tiled",
        point=_describe(
            [
                {"source": _EMB, "tiled": True, **_TILED},
                {"source": _EMB, "tiled": True, "rows": 300, "sample": 120, "groups": 4, "seed": 2, **_TILED},
                {"source": _COPY, "tiled": True, "bins": 40, "top_k": 0},
            ]
        ),
    ),
    Case(
        "survey",
        "describe-tiled-defaults",  # the tiled pass's default settings, without their 2000 counts
        point=_describe([{"source": _COPY, "tiled": True}]),
        fields=(
            "mean",
            "std",
            "eps",
            "max_abs",
            "quantiles",
            "quantiles_abs",
            "quantile_error",
            "exceed",
            "top_pairs",
            "tiled_eps",
            "nn_cos_quantiles",
        ),
    ),
    Case(
        "survey",
        "layers-model",
        point={
            "fn": "layers.model",
            "configs": [
                {"source": _LAYERS, "label": "stand-in", "kinds": ["mlp_out", "attn_out", "mlp_in"], "device": "cpu"}
            ],
            "legacy_fn": "repcap.layers.points:_point",
        },
    ),
    Case(
        "survey",
        "layers-baseline",
        point={
            "fn": "layers.baseline",
            "configs": [
                {"n": 200, "d": 16, "seed": 0, "device": "cpu"},
                {"n": 48, "d": 16, "seed": 3, "device": "cpu"},
            ],
            "legacy_fn": "repcap.layers.points:baseline_point",
        },
    ),
    Case("survey", "formats", run=_formats),
    Case("survey", "capacities", run=_capacities),
    Case("survey", "catalog", run=_catalog),
    Case("survey", "scan", run=_scan),
    Case("survey", "layer-models", run=_layer_models),
    Case("survey", "conventions", run=_conventions),
]
