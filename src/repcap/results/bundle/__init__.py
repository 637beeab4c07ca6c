"""Results bundles: the finished points of a named point set (:mod:`repcap.results.runs`), shipped as a
folder of JSON files with their provenance, and imported into the sweep caches elsewhere.

Layout of a bundle folder::

    bundle.json          the manifest: set, scale, provenance (commit, date, devices, wall time,
                         package versions), one line per experiment (function, cache, file, sha256)
    <experiment>.json    {"experiment", "fn", "cache", "missing": [configs], "entries": [...]}

An entry is one point: ``{"fn", "config", "key", "code", "result", "sha256", "omitted",
"provenance"}``: ``key`` is :func:`repcap.sweep.point_key` of ``fn`` and ``config`` computed with
the code digest ``code``; ``sha256`` checksums the canonical JSON of ``result`` as in a cache entry;
``omitted`` names the large fields left out (the toy models' ``norms``, unless the experiment keeps
them).  ``provenance``: the device the point ran on, its wall time, when it was computed, the
commit and the package versions.  A point computed here gets them when it is first exported (the
commit then checked out); a later export keeps the provenance of every point the bundle already
holds with the same key and result.

:func:`import_` seeds each experiment's sweep cache with every complete entry whose key is still
the key the current code gives (recomputed now).  An entry whose key changed is *stale*: its code
changed since it was computed; it is not imported, and it is recorded so that :func:`lookup` can say
so.  A summary entry (fields omitted) is never a cache entry (a chapter asking for the field would
get a result without it): :func:`lookup` returns it, marked.  Import also writes an index record per
point, ``<cache root>/imported/<id[:2]>/<id>.json`` (id: the point's function and config), holding
its provenance; :func:`lookup` reads it, computing nothing.

A bundle is data: every file is type-checked field by field, configs and results must be plain
finite JSON, a function outside :data:`repcap.results.runs.POINT_FUNCTIONS` is refused, and any damage
refuses the whole bundle before anything is written.  (Checksums catch damage, not a forger: trust a
bundle as you trust whoever made it.)

Modules, in the direction data flows: :mod:`.schema` (the format and its checks, :func:`read`),
:mod:`.index` (the import records beside the caches), :mod:`.writer` (:func:`export`),
:mod:`.store` (:func:`import_`, :func:`lookup`, :func:`status`), :mod:`.compare` (:func:`compare`: one
identity computed twice, against the seed scatter).
"""

from .compare import Comparison, compare
from .index import point_id
from .schema import LARGE_FIELDS, Bundle, BundleEntry, read
from .store import (
    Found,
    ImportReport,
    Lookup,
    Status,
    import_,
    lookup,
    lookup_configs,
    markdown_escape,
    merge,
    status,
)
from .writer import ExportPlan, ExportReport, check_out, export


def provenance_markdown(found: Lookup | list[Lookup], set_name: str = "reference") -> str:
    """The provenance sentence of a :func:`lookup` (or of several, merged: the experiments a chapter
    draws, each point counted once) for a Markdown cell of the book, every value from the data
    escaped (what chapters 6, 7 and 9 paste into their profile box and text)."""
    merged = merge(found)
    return merged.provenance_markdown(set_name) if merged is not None else ""


__all__ = [
    "LARGE_FIELDS",
    "Bundle",
    "BundleEntry",
    "Comparison",
    "ExportPlan",
    "ExportReport",
    "Found",
    "ImportReport",
    "Lookup",
    "Status",
    "check_out",
    "compare",
    "export",
    "import_",
    "lookup",
    "lookup_configs",
    "markdown_escape",
    "merge",
    "point_id",
    "provenance_markdown",
    "read",
    "status",
]
