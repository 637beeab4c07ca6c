"""Which tensor of a checkpoint is the input embedding and which the output head, and whether the
two are tied -- decided from tensor names (and ``config.json``), never from the data.

Reference: the tensor names of the transformers architectures the catalog holds (Guha 2026 Table 1,
Liu, Liu & Gore 2025's LM heads) and of GGUF (``token_embd.weight`` / ``output.weight``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from repcap import RepcapError

#: Embedding tensor names, most specific first (GPT-2, NeoX/Pythia, OPT, Llama/Mistral/Qwen/Gemma/
#: Phi-3, old Phi, BERT-like encoders, BLOOM, ChatGLM, Meta originals, GGUF).  A ``language_model.``
#: (or ``model.language_model.``) prefix is handled by suffix matching.
EMBED_NAMES: tuple[str, ...] = (
    "model.embed_tokens.weight",
    "transformer.wte.weight",
    "wte.weight",
    "gpt_neox.embed_in.weight",
    "embed_in.weight",
    "model.decoder.embed_tokens.weight",
    "decoder.embed_tokens.weight",
    "embed_tokens.weight",
    "transformer.embd.wte.weight",
    "embeddings.word_embeddings.weight",
    "word_embeddings.weight",
    "transformer.word_embeddings.weight",
    "transformer.embedding.word_embeddings.weight",
    "tok_embeddings.weight",
    "token_embd.weight",
)
#: Output-head tensor names.
HEAD_NAMES: tuple[str, ...] = ("lm_head.weight", "embed_out.weight", "output.weight", "lm_head.linear.weight")
_SKIP = re.compile(r"(vision|visual|audio|image|mm_projector|multi_modal|mtp)", re.I)
#: The sub-configs of multimodal models that may hold the text model's tie flag.
_SUB_CONFIGS = ("text_config", "language_config")


def choose_tensor(
    path, shapes: dict[str, tuple], head: bool, tensor: str | None, config: dict | None = None, kind: str = "tensor"
) -> tuple[str, bool | None]:
    """``(name, tied)`` of the matrix to read from a file whose candidates have ``shapes``:
    the named ``tensor`` if given (a clear error if absent), else :func:`pick_tensor`'s choice."""
    if tensor is not None:
        if tensor not in shapes:
            raise RepcapError(f"{path}: no {kind} named {tensor!r}; {kind}s: {short(list(shapes))}")
        return tensor, None
    emb, hd, tied = pick_tensor(list(shapes), head, config, shapes)
    return (hd if (head and hd) else emb), tied


def pick_tensor(
    names: Sequence[str], head: bool, config: dict | None = None, shapes: dict[str, tuple] | None = None
) -> tuple[str, str | None, bool | None]:
    """Choose ``(embedding_name, head_name_or_None, tied)`` among ``names``.

    ``tied`` is True when the source has no separate head (or the config ties it), False when a head
    tensor is stored and the config does not tie it, None when neither tells.
    """
    cands = [n for n in names if not _SKIP.search(n)]

    def find(patterns):
        for p in patterns:
            hits = [n for n in cands if n == p or n.endswith("." + p)]
            if hits:
                return sorted(hits, key=len)[0]
        return None

    emb = find(EMBED_NAMES)
    if emb is None and shapes:
        two_d = [n for n in cands if len(shapes.get(n, ())) == 2]
        if len(two_d) == 1:
            emb = two_d[0]
    if emb is None:
        raise RepcapError(
            "no embedding tensor found among "
            f"{short(names)}; pass tensor=NAME (repcap stats --tensor NAME) to choose one"
        )
    hd = find(HEAD_NAMES)
    tie_cfg = tie_flag(config)
    if hd is None:
        if tie_cfg is False and head:
            raise RepcapError(
                f"the config says the head is untied but no head tensor ({', '.join(HEAD_NAMES)}) "
                f"is stored; tensors: {short(names)}"
            )
        tied: bool | None = True
    else:
        tied = bool(tie_cfg)
    return emb, hd, tied


def tie_flag(config: dict | None) -> bool | None:
    """``tie_word_embeddings`` of ``config`` (or of its text sub-config), None when absent.

    JSON ``true``/``false`` are taken as they are and the strings ``"true"``/``"false"`` (any case)
    as what they say; anything else (``"no"``, ``1``, a list) is refused: ``bool("false")`` is True,
    so a string flag must never be read by truthiness."""
    if not isinstance(config, dict):
        return None
    for c in (config, *(config.get(k) for k in _SUB_CONFIGS)):
        if isinstance(c, dict) and c.get("tie_word_embeddings") is not None:
            return _as_bool(c["tie_word_embeddings"])
    return None


def _as_bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    raise RepcapError(
        f"config.json: tie_word_embeddings is {str(v)[:40]!r} ({type(v).__name__}); expected "
        "true or false - fix the config"
    )


def short(names: Sequence[str], n: int = 8) -> str:
    """The first ``n`` names, comma-separated, with the total when there are more."""
    names = [str(x) for x in names]
    s = ", ".join(names[:n])
    return s + (f", ... ({len(names)} in all)" if len(names) > n else "") if names else "(none)"
