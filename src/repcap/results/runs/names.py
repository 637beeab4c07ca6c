"""The named point sets' names, descriptions and scales, and the profile each set's findings are
recorded under: plain data, so that ``repcap bundle --help`` reads them without loading the sets'
experiments (:mod:`.sets`), the sweep or the engines."""

from __future__ import annotations

SCALES = ("full", "smoke")

#: The profile whose claims a set's full-scale points check (the scorecard's ``checked_by``).
PROFILE_OF_SET = {"reference": "reference", "paper-gpu": "paper"}


def finding_profile(set_name: str, scale: str = "full") -> str:
    """The profile a chapter records a finding under when it comes from set ``set_name`` at
    ``scale``: the set's profile at full scale; otherwise a name no claim is checked by (a smoke
    set's numbers are shown, never judged)."""
    if scale == "full" and set_name in PROFILE_OF_SET:
        return PROFILE_OF_SET[set_name]
    return f"{set_name}-{scale}"


SETS: dict[str, str] = {
    "reference": "what 2 CPU cores afford (Yoder full size, Guha's small cells, Liu toy points in a budget)",
    "paper-gpu": "the GPU-feasible parts of the paper profile, hours on one H200, under a time budget",
}
