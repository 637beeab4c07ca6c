"""Results bundles: the finished points of a named point set (:mod:`repcap.results.runs`), shipped as a
folder of JSON files with their provenance (``bundle.json`` and one ``<experiment>.json`` each; the
format is :mod:`.schema`'s), and imported into the sweep caches elsewhere.  A bundle is data: every
file is checked field by field and any damage refuses the whole bundle before anything is written.

Modules, in the direction data flows: :mod:`.jsonio` (plain finite JSON, read and checked),
:mod:`.schema` (the format, :func:`read`), :mod:`.index` (the import records beside the caches),
:mod:`.folder` (:func:`check_out`, the atomic swap), :mod:`.writer` (:func:`export`), :mod:`.store`
(:func:`import_`), :mod:`.lookups` (:func:`lookup`, the book's provenance sentence), :mod:`.counts`
(:func:`status`) and :mod:`.compare` (one identity computed twice).
"""

from .compare import Comparison, compare
from .counts import Status, status
from .folder import ExportPlan, check_out
from .index import point_id
from .lookups import Found, Lookup, lookup, lookup_configs, markdown_escape, merge, provenance_markdown
from .schema import LARGE_FIELDS, Bundle, BundleEntry, read
from .store import ImportReport, import_
from .writer import ExportReport, export

__all__ = ["LARGE_FIELDS", "Bundle", "BundleEntry", "Comparison", "ExportPlan", "ExportReport", "Found"]
__all__ += ["ImportReport", "Lookup", "Status", "check_out", "compare", "export", "import_", "lookup"]
__all__ += ["lookup_configs", "markdown_escape", "merge", "point_id", "provenance_markdown", "read", "status"]
