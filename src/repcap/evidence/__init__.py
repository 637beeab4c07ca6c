"""Our number for each scorecard claim, computed from a chapter's figure tables: one module per
source (:mod:`.guha`, :mod:`.liu`, :mod:`.yoder`).  Each function takes the tables a chapter already
draws (plain frames and numbers; nothing here reads a file or runs a model) and returns
``{claim id: keyword arguments of repcap.findings.record}``, so that a chapter records what the
library computed and judged (``findings.record_all(...)``) instead of building findings inline."""

from . import guha, liu, yoder

__all__ = ["guha", "liu", "yoder"]
