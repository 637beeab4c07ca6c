"""The reference-bundle section of a chapter (chapters 6, 7 and 9): the finished points a shipped
results bundle holds for one experiment, the sentence that says where they were computed, and what
the chapter shows when the build has none."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

#: What a chapter says when it is built without a reference set.
NO_SET = "this build shows no reference points (the parameter `reference_set` is empty)."
#: The note an empty reference figure carries, and the text drawn on it.
PLACEHOLDER = "no reference run in this build"


@dataclass
class ReferenceSection:
    """One experiment of a reference bundle as a chapter shows it (see :func:`section`)."""

    lookup: Any = None  # a repcap.results.bundle lookup, or None when no set is given
    set_name: str = ""
    found: list = field(default_factory=list)  # the finished points ({config, result}), in bundle order

    @property
    def empty(self) -> bool:
        return not self.found

    @property
    def provenance(self) -> str:
        """Where and when the points were computed (the bundle's own sentence, every value from the
        data escaped for Markdown: :func:`repcap.results.bundle.provenance_markdown`), or :data:`NO_SET`."""
        return self.lookup.provenance_markdown(self.set_name) if self.lookup is not None else NO_SET

    @property
    def sidecar_provenance(self) -> str | None:
        """The provenance a figure's sidecar records: None without a set."""
        return self.lookup.provenance_text(self.set_name) if self.lookup is not None else None

    @property
    def experiments(self) -> dict[str, str]:
        """``{experiment: its provenance sentence}`` where the section has points (what a finding
        records, so that the scorecard states each experiment's provenance once), else ``{}``."""
        if self.lookup is None or not self.found:
            return {}
        return {self.lookup.experiment: self.lookup.provenance_text(self.set_name)}

    def frame(self, row, columns: list[str]) -> pd.DataFrame:
        """``row(point) -> dict`` over the points found, with ``columns`` (also when there are none)."""
        return pd.DataFrame([row(f) for f in self.found], columns=columns)


def records(found: Iterable[Any]) -> list[tuple[dict, dict]]:
    """``(config, result)`` of each finished point (objects with ``config`` and ``result``, as a
    bundle lookup's ``found``), as plain dicts."""
    return [(dict(f.config), dict(f.result)) for f in found]


def lookup(set_name: str, experiment: str, scale: str) -> Any:
    """``repcap.results.bundle.lookup(set_name, experiment, scale=scale)``, or None when the chapter's
    ``reference_set`` is empty (a build without reference points)."""
    if not set_name:
        return None
    from repcap.results import bundle

    return bundle.lookup(set_name, experiment, scale=scale)


def section(lookup: Any, set_name: str) -> ReferenceSection:
    """The reference section of one experiment: ``lookup`` is ``repcap.results.bundle.lookup(set, experiment)``
    (or None when the chapter's ``reference_set`` is empty)."""
    return ReferenceSection(lookup, set_name or "", list(lookup.found) if lookup is not None else [])


def placeholder(note: str = PLACEHOLDER, **columns: list) -> pd.DataFrame:
    """The data an empty reference figure saves: its note, or the lines it still draws (``columns``)."""
    return pd.DataFrame(columns) if columns else pd.DataFrame({"note": [note]})


def placeholder_if_empty(table: pd.DataFrame, note: str = PLACEHOLDER) -> pd.DataFrame:
    """``table``, or :func:`placeholder` with ``note`` where it has no rows (a figure's data cannot be
    empty)."""
    return table if len(table) else placeholder(note)
