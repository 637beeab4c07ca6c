"""Helpers that write tiny model files for the loader tests: transformers checkpoints (one per
architecture family), GGUF files written with the ``gguf`` writer, an ONNX graph with one
initialiser, and ``.npy`` matrices."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

V, D = 50, 16  # vocab and width of every tiny model


def _tiny(arch: str, tied: bool):
    import transformers as T

    common = dict(vocab_size=V, hidden_size=D, num_hidden_layers=1, num_attention_heads=2, tie_word_embeddings=tied)
    if arch == "gpt2":
        return T.GPT2LMHeadModel(
            T.GPT2Config(vocab_size=V, n_embd=D, n_layer=1, n_head=2, n_positions=32, tie_word_embeddings=tied)
        )
    if arch == "neox":
        return T.GPTNeoXForCausalLM(T.GPTNeoXConfig(intermediate_size=32, max_position_embeddings=32, **common))
    if arch == "opt":
        return T.OPTForCausalLM(T.OPTConfig(ffn_dim=32, word_embed_proj_dim=D, max_position_embeddings=32, **common))
    if arch == "llama":
        return T.LlamaForCausalLM(T.LlamaConfig(intermediate_size=32, num_key_value_heads=2, **common))
    if arch == "mistral":
        return T.MistralForCausalLM(T.MistralConfig(intermediate_size=32, num_key_value_heads=2, **common))
    if arch == "qwen2":
        return T.Qwen2ForCausalLM(T.Qwen2Config(intermediate_size=32, num_key_value_heads=2, **common))
    if arch == "gemma":
        return T.GemmaForCausalLM(T.GemmaConfig(intermediate_size=32, num_key_value_heads=2, head_dim=8, **common))
    if arch == "phi":
        return T.PhiForCausalLM(T.PhiConfig(intermediate_size=32, **common))
    raise ValueError(arch)


def save_tiny(arch: str, tied: bool, out: Path, *, shard: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Save a tiny random ``arch`` model to ``out``; return (embedding, head) as float32 arrays."""
    torch.manual_seed(0)
    m = _tiny(arch, tied)
    m.save_pretrained(out, max_shard_size="4KB" if shard else "5GB")
    emb = m.get_input_embeddings().weight.detach().float().numpy().copy()
    head = m.get_output_embeddings().weight.detach().float().numpy().copy()
    return emb, head


def prefix_language_model(src: Path, out: Path) -> None:
    """Copy a single-file checkpoint with every tensor renamed ``language_model.<name>`` and an index,
    as multimodal checkpoints store their text model."""
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(src / "model.safetensors"))
    out.mkdir(parents=True, exist_ok=True)
    renamed = {f"language_model.{k}": v.contiguous() for k, v in tensors.items()}
    renamed["vision_tower.embeddings.patch_embedding.weight"] = torch.zeros(4, 3)
    save_file(renamed, str(out / "model-00001-of-00001.safetensors"))
    (out / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {}, "weight_map": dict.fromkeys(renamed, "model-00001-of-00001.safetensors")})
    )
    cfg = json.loads((src / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({"model_type": "multi", "text_config": cfg}))


def write_gguf_tensors(
    path: Path, tensors: dict[str, np.ndarray], qtype: str = "F32", tokens: list[str] | None = None
) -> Path:
    """A GGUF file as llama.cpp writes it: each numpy array as it is (GGUF's ne is the reversed
    shape), stored in ``qtype``, with a gpt2 token list if ``tokens`` is given."""
    import gguf
    from gguf import quants

    w = gguf.GGUFWriter(str(path), "llama")
    if tokens is not None:
        w.add_tokenizer_model("gpt2")
        w.add_token_list(tokens)
    for name, arr in tensors.items():
        arr = np.ascontiguousarray(arr, dtype=np.float32)
        if qtype == "F16":
            w.add_tensor(name, arr.astype(np.float16))
        elif qtype == "F32":
            w.add_tensor(name, arr)
        else:
            qt = gguf.GGMLQuantizationType[qtype]
            data = quants.quantize(arr, qt)
            w.add_tensor(name, data, raw_shape=data.shape, raw_dtype=qt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def write_gguf(
    path: Path, emb: np.ndarray, qtype: str = "F16", head: np.ndarray | None = None, tokens: list[str] | None = None
) -> None:
    """A GGUF file holding ``token_embd.weight`` (and ``output.weight``) in ``qtype``."""
    tensors = {"token_embd.weight": emb, **({"output.weight": head} if head is not None else {})}
    write_gguf_tensors(path, tensors, qtype, tokens or [f"tok{i}" for i in range(emb.shape[0])])


def write_gguf_raw(path: Path, qtype: str, shape: tuple[int, int], nbytes_per_row: int) -> None:
    """A GGUF file whose embedding is raw bytes labelled ``qtype`` (for unsupported types)."""
    import gguf

    w = gguf.GGUFWriter(str(path), "llama")
    qt = gguf.GGMLQuantizationType[qtype]
    data = np.zeros((shape[0], nbytes_per_row), dtype=np.uint8)
    w.add_tensor("token_embd.weight", data, raw_shape=data.shape, raw_dtype=qt)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_onnx(path: Path, emb: np.ndarray, name: str = "model.0.auto_model.embeddings.word_embeddings.weight") -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    init = numpy_helper.from_array(np.ascontiguousarray(emb, dtype=np.float32), name)
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [None])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [None, emb.shape[1]])
    node = helper.make_node("Gather", [name, "ids"], ["out"])
    graph = helper.make_graph([node], "g", [ids], [out], [init])
    onnx.save(helper.make_model(graph), str(path))
