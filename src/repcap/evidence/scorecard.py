"""The findings scorecard: each headline claim of the sources against our number, with a verdict
computed from the two numbers, their uncertainties and the tolerance stated in the claim's row.

Each row has a **kind** (``repcap.evidence.claims.KINDS``): ``arithmetic`` (the source's formula on the
source's inputs), ``re-analysis`` (the source's method on the source's own data) or ``measurement``
(data we computed).  Only measurements can fail for a reason outside the source's own text: the
headline count is theirs, and the other two are listed as consistency checks.  Rows marked
``context`` are shown with their number but are not a claim of the source and leave the counts.

Verdicts (a fixed vocabulary, :data:`VERDICTS`):

* ``reproduced`` -- a range, bound or count claim that our number (and its whole interval) satisfies;
* ``reproduced within X`` -- a point value matched within the row's tolerance (X: our actual
  difference); for ``combined`` rows, within :data:`Z` combined standard errors, ours no less
  precise than the source's;
* ``consistent, not decisive`` -- a ``combined`` row whose numbers agree within :data:`Z` combined
  standard errors while our standard error is larger than the source's: it cannot tell the claim
  from a neighbour of it;
* ``differs: reason`` -- ours (and its whole interval) is outside the tolerance, or more than
  :data:`Z` combined standard errors from the source's;
* ``differs (explained: ...)`` -- outside, for a systematic reason the row states (the claim's
  ``explained``), rather than a tolerance widened to cover it;
* ``inconclusive`` -- the interval of our value (or of the source's, where it has one) reaches both
  sides of the tolerance boundary, or the statistic rests on fewer points than the row needs
  (``min_n``), or this run's data cannot reach what the claim is about; the verdict says what
  would decide it;
* ``not checked in this profile`` -- no number from a profile that checks the claim.

:func:`verdict` is the rule (:mod:`repcap.evidence.verdicts`); :func:`evaluate` picks the finding to
judge and :func:`counts_by_kind` counts the verdicts (:mod:`repcap.evidence.rows`, the judged rows);
:func:`write_pages` writes the scorecard page, the intro's summary and the methods page's list of rows
(each claim, what ours is, its tolerance and why; :mod:`repcap.evidence.pages` renders them) into
``book/generated/``.  This module is the scorecard's one name for all of them.
"""

from __future__ import annotations

from pathlib import Path

from repcap.base import io as rio

from .cells import Provenance
from .findings import INTERVAL_KINDS
from .pages import rows_markdown, scorecard_markdown, summary_markdown
from .rows import PROFILE_RANK, Row, counts, counts_by_kind, evaluate, evaluate_all, evidence_text, uncertainty_kind
from .verdicts import VERDICTS, Verdict, Z, verdict

#: Kept for callers of the earlier name.
KINDS = VERDICTS


def write_pages(generated: Path | None = None) -> list[Path]:
    """Write ``scorecard.md``, ``scorecard_summary.md`` and ``scorecard_rows.md`` (the methods page's
    list of rows) from the findings committed to ``<generated>/findings`` and the figures in
    ``<generated>/figures``."""
    from repcap.base.paths import generated_dir

    from .findings import load_all

    gen = generated or generated_dir()
    rows = evaluate_all(load_all(gen / "findings"))
    figures = {p.stem for p in (gen / "figures").glob("fig-*.json")} if (gen / "figures").is_dir() else set()
    out = []
    for name, text in (
        ("scorecard.md", scorecard_markdown(rows, figures)),
        ("scorecard_summary.md", summary_markdown(rows)),
        ("scorecard_rows.md", rows_markdown(rows)),
    ):
        rio.write_text(gen / name, text)
        out.append(gen / name)
    return out


__all__ = [
    "INTERVAL_KINDS",
    "KINDS",
    "PROFILE_RANK",
    "VERDICTS",
    "Provenance",
    "Row",
    "Verdict",
    "Z",
    "counts",
    "counts_by_kind",
    "evaluate",
    "evaluate_all",
    "evidence_text",
    "rows_markdown",
    "scorecard_markdown",
    "summary_markdown",
    "uncertainty_kind",
    "verdict",
    "write_pages",
]
