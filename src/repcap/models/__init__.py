"""Reading models: one ``(V, d)`` matrix from a file (:mod:`.formats`: safetensors, GGUF, ONNX,
npy), a folder or the hub (:mod:`.hub`), the offline packaged models (:mod:`.offline`), the model
catalog (:mod:`.catalog`), synthetic stand-ins (:mod:`.synthetic`) and the resolver that picks
among them (:mod:`.embeddings`).

It may import :mod:`repcap.base` only.
"""
