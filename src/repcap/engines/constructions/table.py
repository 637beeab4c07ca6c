"""The best-known packings of Sloane's and Cohn's tables (numerical, not proven optimal), as data:
:func:`best_known` reads ``data/reference/best_known_packings.csv`` and checks every row."""

from __future__ import annotations

import functools
import math

from repcap import RepcapError

#: The files of ``data/reference`` this module reads (see :func:`repcap.sweep.codehash.data_digest`).
DATA_FILES = ("best_known_packings.csv",)

__all__ = ["BEST_KNOWN_SOURCES", "DATA_FILES", "best_known"]

#: The sources of :func:`best_known`'s rows (keys of ``book/references.bib``), as cited in tables.
BEST_KNOWN_SOURCES = {
    "sloane1997": "Sloane's table of Grassmannian packings (1997), now kept by Cohn",
    "cohn_codes": "Cohn's table of spherical codes (data set, hdl.handle.net/1721.1/142661)",
}
_QUANTITIES = {"lines": "squared chordal distance", "points": "smallest angle (degrees)"}


@functools.lru_cache(maxsize=1)
def _best_known_rows() -> tuple[dict, ...]:
    import csv

    from repcap.base.quotes import reference_dir

    path = reference_dir() / "best_known_packings.csv"
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            raw = list(csv.DictReader(fh))
    except OSError as exc:
        raise RepcapError(f"cannot read {path}: {exc.strerror or exc}") from None
    out = []
    for i, r in enumerate(raw, start=2):
        where = f"{path.name} line {i}"
        try:
            d, N, value = int(r["d"]), int(r["N"]), float(r["value"])
        except (KeyError, TypeError, ValueError):
            raise RepcapError(f"{where}: d, N and value must be numbers") from None
        kind = r.get("kind", "")
        if _QUANTITIES.get(kind) != r.get("quantity"):
            raise RepcapError(f"{where}: kind {kind!r} with quantity {r.get('quantity')!r}; use {_QUANTITIES}")
        if r.get("source") not in BEST_KNOWN_SOURCES or r.get("status") not in ("published", "ours"):
            raise RepcapError(
                f"{where}: source must be one of {sorted(BEST_KNOWN_SOURCES)} and status published or ours"
            )
        if kind == "lines":
            if not (N > d >= 2 and 0 < value <= 1):
                raise RepcapError(f"{where}: a line packing needs N > d >= 2 and a squared chordal distance in (0, 1]")
            mu, angle = math.sqrt(1.0 - value), None
        else:
            if not (N > d >= 2 and 0 < value < 180):
                raise RepcapError(f"{where}: a signed code needs N > d >= 2 and an angle in (0, 180) degrees")
            mu, angle = math.cos(math.radians(value)), value
        out.append(
            {
                "d": d,
                "N": N,
                "kind": kind,
                "value": value,
                "mu": mu,
                "angle_deg": angle,
                "source": r["source"],
                "cite": BEST_KNOWN_SOURCES[r["source"]],
                "status": r["status"],
            }
        )
    return tuple(out)


def best_known(kind: str | None = "lines"):
    """The best-known packings of ``data/reference/best_known_packings.csv`` as a DataFrame: ``d``,
    ``N``, ``kind`` (``lines``: Sloane's Grassmannian packings, published as squared chordal
    distances sin^2 = 1 - mu^2; ``points``: signed spherical codes from Cohn's table, published as
    their smallest angle), ``mu`` (the coherence of the lines, or the largest cosine of the points),
    ``angle_deg``, ``source``, ``cite`` and ``status``.  ``kind=None``: every row."""
    import pandas as pd

    if kind not in (None, *_QUANTITIES):
        raise RepcapError(f"best_known: kind must be one of {', '.join(_QUANTITIES)} or None, got {kind!r}")
    rows = [r for r in _best_known_rows() if kind is None or r["kind"] == kind]
    return pd.DataFrame(rows)
