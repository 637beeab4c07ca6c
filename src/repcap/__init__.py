"""repcap: how many nearly-orthogonal directions fit in d dimensions, and what that means for
language models.  A reproducible book over a small library with three engines:

* :mod:`repcap.engines.cosine`  - tiled pairwise cosine statistics over embedding matrices (Guha 2026);
* :mod:`repcap.engines.toy`     - the ReLU autoencoder with signed weight decay (Liu, Liu & Gore 2025);
* :mod:`repcap.engines.packing` - vector-packing optimisation, with :mod:`repcap.engines.laws` for the capacity laws
  (Guha 2026; Yoder 2025).
"""

import os as _os

__version__ = "0.1.0"


def show_progress(progress: bool = True) -> bool:
    """Whether to draw a progress bar: the caller's wish, unless ``TQDM_DISABLE`` is set (the
    notebook runner sets it: in a rendered book a progress bar is only a stray output)."""
    return bool(progress) and not _os.environ.get("TQDM_DISABLE")


class RepcapError(Exception):
    """An error about the user's input, with a message that says what to do.

    The CLI prints only the message (no traceback) and exits with status 2.
    """
