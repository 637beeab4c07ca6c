"""Models in the transformers layout, in a local folder (:mod:`.layout`) or on the model hub
(:mod:`.remote`: range reads of one tensor through ``huggingface_hub`` with repcap's checks on each
range, :mod:`.transport`; kept in repcap's slice cache, :mod:`.slices`).

Reference: the transformers checkpoint layout (``save_pretrained``), the hub's repository id grammar
(``owner/name``; huggingface_hub ``validate_repo_id``) and its HTTP protocol as the
``huggingface_hub`` client speaks it (``resolve`` with ``Range``, ``X-Repo-Commit``, ``X-Linked-Etag``).
"""

from .layout import list_dir, load_dir, looks_like_hub_id, safe_relative, validate_hub_id
from .remote import list_hub, load_hub, slice_cache_folder

__all__ = [
    "list_dir",
    "list_hub",
    "load_dir",
    "load_hub",
    "looks_like_hub_id",
    "safe_relative",
    "slice_cache_folder",
    "validate_hub_id",
]
