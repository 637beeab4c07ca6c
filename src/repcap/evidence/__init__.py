"""The evidence: the scorecard's rows (:mod:`.claims`), what a chapter found (:mod:`.findings`), the
verdicts and the scorecard's pages (:mod:`.scorecard`, over :mod:`.verdicts`, :mod:`.rows` and
:mod:`.pages`), the chapters' namespace of the sources' numbers and claims
(:mod:`.reference`), figures read back from vector PDFs (:mod:`.digitise`), and our number for each
scorecard claim, computed from a chapter's figure tables: one module per
source (:mod:`.guha`, :mod:`.liu`, :mod:`.yoder`).  Each function takes the tables a chapter already
draws (plain frames and numbers; nothing here reads a file or runs a model) and returns
``{claim id: keyword arguments of repcap.evidence.findings.record}``, so that a chapter records what the
library computed and judged (``findings.record_all(...)``) instead of building findings inline.

It may import the engines, the results store's core and the base; the book and the command line
import it."""

from . import guha, liu, yoder

__all__ = ["guha", "liu", "yoder"]
