"""repcap: how many nearly-orthogonal directions fit in d dimensions, and what that means for
language models.  A reproducible book over a small library with three engines:

* :mod:`repcap.cosine`  - tiled pairwise cosine statistics over embedding matrices (Guha 2026);
* :mod:`repcap.toy`     - the ReLU autoencoder with signed weight decay (Liu, Liu & Gore 2025);
* :mod:`repcap.packing` - vector-packing optimisation, with :mod:`repcap.laws` for the capacity laws
  (Guha 2026; Yoder 2025).
"""

__version__ = "0.1.0"


class RepcapError(Exception):
    """An error about the user's input, with a message that says what to do.

    The CLI prints only the message (no traceback) and exits with status 2.
    """
