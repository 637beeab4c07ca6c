"""Synthetic hub repositories for the loopback hub (:mod:`_hubserver`), the fixture that points the
real ``huggingface_hub`` client at it, and the float64 reference of eps.

A repo is a ``{file name: bytes}`` dict: ``config.json``, safetensors files written by
``safetensors.torch.save`` (one, or shards with ``model.safetensors.index.json``), or a GGUF file.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import torch
from _hubserver import HubServer

DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32}


def st_bytes(tensors: dict[str, torch.Tensor]) -> bytes:
    from safetensors.torch import save

    return save({k: v.contiguous() for k, v in tensors.items()})


def matrix(rows: int, d: int, seed: int, dtype: str = "BF16", zero_rows: int = 0, shift: float = 0.0) -> torch.Tensor:
    """A (rows, d) matrix in ``dtype``: Gaussian rows plus a common ``shift`` (a mean direction, as
    trained embeddings have), the last ``zero_rows`` rows zero (padding rows of a padded vocabulary)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, d, generator=g, dtype=torch.float64) + shift * torch.randn(
        1, d, generator=g, dtype=torch.float64
    )
    if zero_rows:
        x[rows - zero_rows :] = 0
    return x.to(DTYPES[dtype])


def filler(nbytes: int, dtype: str, seed: int) -> torch.Tensor:
    """A tensor of about ``nbytes`` (the rest of a shard: layers the reader must not download)."""
    item = 2 if dtype in ("BF16", "F16") else 4
    cols = 1024
    rows = max(1, nbytes // (cols * item))
    return matrix(rows, cols, seed, dtype)


def sharded(
    tensors: list[tuple[str, torch.Tensor]],
    n_shards: int,
    config: dict,
    *,
    embed_shard: int | None = None,
    embed_name: str = "model.embed_tokens.weight",
    fill: int = 0,
    dtype: str = "BF16",
) -> dict[str, bytes]:
    """A repo whose ``tensors`` are spread over ``n_shards`` shard files with an index; the tensor
    ``embed_name`` goes in ``embed_shard`` (default: a middle one), and each shard gets ``fill``
    bytes of other layers."""
    embed_shard = n_shards // 2 if embed_shard is None else embed_shard
    names = [f"model-{i + 1:05d}-of-{n_shards:05d}.safetensors" for i in range(n_shards)]
    shards: list[dict[str, torch.Tensor]] = [{} for _ in range(n_shards)]
    others = iter(i for i in range(n_shards) if i != embed_shard)
    for name, t in tensors:
        i = embed_shard if name == embed_name else next(others, n_shards - 1)
        shards[i][name] = t
    for i in range(n_shards):
        if fill:
            shards[i][f"model.layers.{i}.mlp.up_proj.weight"] = filler(fill, dtype, 100 + i)
    files = {n: st_bytes(s) for n, s in zip(names, shards)}
    wm = {k: names[i] for i, s in enumerate(shards) for k in s}
    total = sum(len(b) for b in files.values())
    files["model.safetensors.index.json"] = json.dumps({"metadata": {"total_size": total}, "weight_map": wm}).encode()
    files["config.json"] = json.dumps(config).encode()
    return files


def single(tensors: list[tuple[str, torch.Tensor]], config: dict | None, *, fill: int = 0, dtype: str = "F32") -> dict:
    ts = dict(tensors)
    if fill:
        ts["model.layers.0.mlp.up_proj.weight"] = filler(fill, dtype, 7)
    files = {"model.safetensors": st_bytes(ts)}
    if config is not None:
        files["config.json"] = json.dumps(config).encode()
    return files


def gguf_repo(path: Path, emb: np.ndarray, qtype: str, fill_rows: int = 0) -> dict[str, bytes]:
    from _models import write_gguf_tensors

    tensors = {"token_embd.weight": emb}
    if fill_rows:
        tensors["blk.0.ffn_up.weight"] = np.random.default_rng(3).standard_normal((fill_rows, emb.shape[1]))
    write_gguf_tensors(path, tensors, qtype, [f"tok{i}" for i in range(emb.shape[0])])
    return {path.name: path.read_bytes()}


def eps64(x) -> dict[str, float]:
    """Guha's eps = mean + 2 std of cos over all pairs i < j of the non-zero rows, in float64 from a
    dense Gram (the reference the streaming engine is checked against)."""
    a = np.asarray(torch.as_tensor(x).to(torch.float64).numpy(), dtype=np.float64)
    a = a[np.linalg.norm(a, axis=1) > 0]
    u = a / np.linalg.norm(a, axis=1, keepdims=True)
    g = u @ u.T
    iu = np.triu_indices(len(u), 1)
    c = g[iu]
    return {"mean": float(c.mean()), "std": float(c.std()), "eps": float(c.mean() + 2 * c.std()), "rows": len(u)}


def serve_loopback(monkeypatch, tmp_path):
    """(A generator for a fixture: ``yield from serve_loopback(monkeypatch, tmp_path)``.)  A loopback hub, with the real client pointed at it (its endpoint, a private hub cache and
    repcap cache, online, short timeouts); yields the :class:`HubServer`."""
    import huggingface_hub.constants as c

    server = HubServer()
    monkeypatch.setattr(c, "ENDPOINT", server.url)
    monkeypatch.setattr(c, "HUGGINGFACE_CO_URL_TEMPLATE", server.url + "/{repo_id}/resolve/{revision}/{filename}")
    monkeypatch.setattr(c, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setattr(c, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(c, "HF_HUB_ETAG_TIMEOUT", 5)
    monkeypatch.setattr(c, "HF_HUB_DOWNLOAD_TIMEOUT", 5)
    monkeypatch.setattr(importlib.import_module("huggingface_hub.utils.tqdm"), "HF_HUB_DISABLE_PROGRESS_BARS", True)
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "repcap-cache"))
    monkeypatch.setenv("HF_TOKEN", "")
    monkeypatch.setattr("repcap.models.hub.transport.RESUME_WAIT", 0.05)
    yield server
    server.close()


def offline(monkeypatch, server: HubServer | None = None) -> None:
    """``HF_HUB_OFFLINE=1`` from here on (the client's constant); with ``server``, its counters reset."""
    import huggingface_hub.constants as c

    monkeypatch.setattr(c, "HF_HUB_OFFLINE", True)
    if server is not None:
        server.reset_counts()


# ---------------------------------------------------------------------------------------------
# look-alikes of the catalog's models (issue 19, item 4)

#: Families whose real vocabulary is padded past the tokenizer (rows no token uses), and how many
#: padding rows the look-alike gets (zero rows: the loader drops and counts them).
PADDED = ("pythia", "opt-", "phi-2", "gemma-3-12b", "gemma-3-27b")
#: Multimodal checkpoints: the language model under ``language_model.``, a vision tower beside it.
MULTIMODAL = ("gemma-3-12b", "gemma-3-27b", "mistral-small-3.2")


def _size_b(hub_id: str) -> float:
    """Billions of parameters read off the id (``7b``, ``270m``, ``a3b`` ignored); huge if none."""
    import re

    sizes = [
        float(n) / (1000 if u == "m" else 1)
        for n, u in re.findall(r"(?<![a-z])(\d+(?:\.\d+)?)([bm])(?![a-z0-9])", hub_id.lower())
    ]
    return max(sizes) if sizes else 500.0


def lookalike(entry) -> dict:
    """A small repo with the layout of catalog ``entry``'s real checkpoint (tensor names, single
    file or shards with an index, tie flag, dtype, padding rows, config keys), scaled down:
    ``{"files", "tensor" (expected name), "tied", "dtype", "emb" (the stored matrix)}``."""
    hid = entry.hub_id.lower()
    V = max(96, (entry.vocab or 32000) // 1024)
    d = max(16, (entry.d_model or 512) // 64)
    tied = entry.tied
    seed = sum(map(ord, hid))
    pad = 3 if any(p in hid for p in PADDED) else 0
    size = _size_b(hid)
    n_shards = 1 if size < 2.5 else min(8, 2 + int(size).bit_length() // 2)
    if "gpt2" in hid:
        dtype = "F32"
    elif "pythia" in hid or "opt-" in hid:
        dtype = "F16"
    elif "sentence-transformers" in hid:
        dtype = "F32"
    else:
        dtype = "BF16"
    emb_d = d // 2 if "opt-350m" in hid else d  # OPT-350m: a 512-wide embedding, projected in and out
    emb = matrix(V, emb_d, seed, dtype, zero_rows=pad, shift=0.3 + (seed % 7) / 10)
    layer = [(f"L0.{k}", matrix(d, d, seed + i + 1, dtype)) for i, k in enumerate(("q", "k"))]
    cfg: dict = {"vocab_size": V, "hidden_size": d}
    if "gpt2" in hid:
        name = "wte.weight"
        ts = [
            (name, emb),
            ("wpe.weight", matrix(64, d, seed + 5, dtype)),
            ("h.0.attn.c_attn.weight", matrix(d, 3 * d, seed + 6, dtype)),  # Conv1D: (in, out)
            ("h.0.mlp.c_fc.weight", matrix(d, 4 * d, seed + 7, dtype)),
        ]
        cfg = {"model_type": "gpt2", "n_embd": d, "vocab_size": V, "n_positions": 64}
    elif "pythia" in hid:
        name = "gpt_neox.embed_in.weight"
        ts = [(name, emb), ("embed_out.weight", matrix(V, d, seed + 8, dtype))]
        ts += [(f"gpt_neox.layers.0.attention.{k.split('.')[1]}.weight", t) for k, t in layer]
        cfg = {"model_type": "gpt_neox", "hidden_size": d, "vocab_size": V, "tie_word_embeddings": False}
    elif "opt-" in hid:
        name = "model.decoder.embed_tokens.weight"
        ts = [(name, emb), ("model.decoder.embed_positions.weight", matrix(66, d, seed + 9, dtype))]
        if "opt-350m" in hid:
            ts += [
                ("model.decoder.project_in.weight", matrix(d, emb_d, seed + 10, dtype)),
                ("model.decoder.project_out.weight", matrix(emb_d, d, seed + 11, dtype)),
            ]
        if tied is False:
            ts.append(("lm_head.weight", matrix(V, d, seed + 12, dtype)))
        cfg = {"model_type": "opt", "hidden_size": d, "word_embed_proj_dim": emb_d, "vocab_size": V}
        cfg["tie_word_embeddings"] = bool(tied)
    elif "sentence-transformers" in hid:
        name = "embeddings.word_embeddings.weight"
        ts = [(name, emb), ("embeddings.position_embeddings.weight", matrix(64, d, seed + 13, dtype))]
        ts += [(f"encoder.layer.0.attention.self.{'query' if k.endswith('q') else 'key'}.weight", t) for k, t in layer]
        cfg = {"model_type": "mpnet" if "mpnet" in hid else "bert", "hidden_size": d, "vocab_size": V}
    else:
        mm = any(m in hid for m in MULTIMODAL)
        pre = "language_model." if mm else ""
        name = f"{pre}model.embed_tokens.weight"
        ts = [(name, emb), (f"{pre}model.norm.weight", matrix(1, d, seed + 14, dtype)[0])]
        ts += [(f"{pre}model.layers.0.self_attn.{k.split('.')[1]}_proj.weight", t) for k, t in layer]
        if not tied:
            ts.append((f"{pre}lm_head.weight", matrix(V, d, seed + 15, dtype)))
        if "phi-2" in hid:
            ts.append(("lm_head.bias", matrix(1, V, seed + 16, dtype)[0]))
        text = {"model_type": hid.split("/")[1].split("-")[0], "hidden_size": d, "vocab_size": V}
        text["tie_word_embeddings"] = bool(tied)
        if mm:
            ts.append(("vision_tower.vision_model.embeddings.patch_embedding.weight", matrix(d, 48, seed + 17, dtype)))
            cfg = {"model_type": "gemma3" if "gemma" in hid else "mistral3", "text_config": text}
        else:
            cfg = text
    if n_shards > 1:
        files = sharded(ts, n_shards, cfg, embed_name=name, fill=0, dtype=dtype)
    else:
        files = single(ts, cfg, dtype=dtype)
    return {"files": files, "tensor": name, "tied": tied, "dtype": dtype, "emb": emb, "shards": n_shards}
