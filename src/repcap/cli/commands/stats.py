"""``repcap stats SOURCE``: exact cosine moments, eps and capacity of a model's embedding (Guha 2026).

SOURCE is an offline key, a catalog key, a hub id ``org/name``, a model folder, or a
``.safetensors``/``.gguf``/``.onnx``/``.npy`` file.  ``--tiled`` adds one pass over all pairs
(histogram quantiles, max |cos|, nearest pairs); ``--sample N`` makes that pass visit the pairs of N
random rows and report its sampling error.  ``--list-tensors`` lists the source's tensors (name,
shape, storage) without reading them; ``--tensor NAME`` reads any 2-D one.
"""

from __future__ import annotations

import json

from repcap.base import config

from . import print_json


def register(sub) -> None:
    p = sub.add_parser("stats", help="cosine statistics, eps and capacity of a model's embedding", description=__doc__)
    from repcap.engines.settings.cosine import TiledConfig  # after add_parser: `repcap --help` stops there

    p.add_argument("source", help="offline key, catalog key, hub id, model folder or file")
    p.add_argument("--head", action="store_true", help="the output head instead of the input embedding")
    p.add_argument("--tiled", action="store_true", help="also run the tiled pass over all pairs")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda[:N] (default auto)")
    p.add_argument("--tensor", default=None, help="read this 2-D tensor (see --list-tensors) instead of guessing")
    p.add_argument("--list-tensors", action="store_true", help="list the tensors (name, shape, storage) and stop")
    p.add_argument(
        "--file",
        default=None,
        metavar="NAME",
        help="one file of a hub model (NAME.gguf or NAME.safetensors: a repository with several GGUF files); "
        "the same as the source owner/name/NAME",
    )
    p.add_argument("--rows", type=int, default=None, metavar="N", help="keep only the first N rows")
    # the statistics' flags (--bins, --top-k, --sample, ...), their help and checks: from the dataclass
    config.add_arguments(p, TiledConfig)
    p.set_defaults(func=run)


def printable(text: str, limit: int = 200) -> str:
    """``text`` safe to print on a terminal: control characters, bidirectional overrides and other
    invisible format characters as ``\\xNN`` / ``\\uNNNN`` escapes (a tensor name cannot retitle or
    clear the terminal), cut to ``limit`` characters."""
    import unicodedata

    out = []
    for ch in str(text):
        if ch == "\\":
            out.append("\\\\")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            out.append(ch.encode("unicode_escape").decode("ascii") if ord(ch) > 0xFF else f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    s = "".join(out)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _source(args) -> str:
    """The source to read: ``args.source``, or with ``--file`` that file of the hub model it names."""
    if args.file is None:
        return args.source
    from repcap import RepcapError
    from repcap.models.embeddings import HUB_FILE_SUFFIXES, CatalogSource, HubSource, hub_file, resolve

    src = resolve(args.source)
    if isinstance(src, CatalogSource):
        repo = src.what.hub_id
    elif isinstance(src, HubSource) and src.file is None:
        repo = src.what
    else:
        raise RepcapError(
            f"--file {printable(args.file, 80)!r} picks one file of a hub model, and {printable(args.source, 80)!r} "
            "is not a hub id or catalog key (a local file or folder: give the file's own path)"
        )
    if hub_file(f"{repo}/{args.file}") is None:
        raise RepcapError(
            f"--file {printable(args.file, 80)!r}: give the name of one {' or '.join(HUB_FILE_SUFFIXES)} file of "
            f"{repo} (a plain relative name, as the repository lists it)"
        )
    return f"{repo}/{args.file}"


def _list(args) -> int:
    from repcap.models.embeddings import list_tensors

    infos = list_tensors(_source(args))
    if args.json:
        print(json.dumps([i.to_dict() for i in infos]))
        return 0
    names = [printable(i.name) if i.name is not None else "(the array)" for i in infos]
    width = max([len(n) for n in names] + [4])
    print("\n".join(f"{n:{width}s}  {list(i.shape)!s:>18s}  {i.storage}" for n, i in zip(names, infos)))
    return 0


def _check(cfg, args) -> None:
    """Bounds of the flags that are not TiledConfig fields (its own are checked by the dataclass),
    and the histograms' memory: one line each, before anything is loaded."""
    from repcap import RepcapError

    if args.rows is not None and args.rows < 2:
        raise RepcapError(f"--rows must be at least 2, got {args.rows}")
    if args.head and args.tensor is not None:
        raise RepcapError("--head and --tensor exclude each other: --tensor NAME reads that tensor, head or not")
    bins = cfg.bins
    if args.tiled or cfg.sample is not None:
        from repcap.base.devices import memory_budget_bytes, resolve_device

        need = bins * 8 * 4  # float64 counts and sums, per group, with the tile's own copy
        budget = memory_budget_bytes(resolve_device(args.device))
        if need > budget:
            raise RepcapError(
                f"--bins {bins}: the histograms need about {need / 2**30:.1f} GiB, more than the memory budget "
                f"({budget / 2**30:.1f} GiB; REPCAP_MEMORY_BUDGET sets it); use fewer bins (default 2000)"
            )


def run(args) -> int:
    from repcap.engines.survey import describe

    if args.list_tensors:
        return _list(args)
    from repcap.engines.settings.cosine import TiledConfig

    cfg = config.from_args(TiledConfig, args)
    from repcap.base.devices import resolve_device

    resolve_device(args.device)  # a device asked for is there, or one line: before the source is read
    _check(cfg, args)
    rec = describe(
        _source(args),
        cfg,
        head=args.head,
        tiled=args.tiled or cfg.sample is not None,
        rows=args.rows,
        device=args.device,
        tensor=args.tensor,
        progress=not args.json,
    )
    if args.json:
        rec.pop("hist_counts", None)
        print_json(rec, sort_keys=True, default=str)
        return 0
    print("\n".join(_human(rec)))
    return 0


def _human(rec) -> list[str]:
    from repcap.evidence.reference import value

    c1, c2 = value("guha2026.class1_eps_above"), value("guha2026.class2_eps_below")  # Guha's class bounds
    cls = {1: f"1 (eps > {c1:g})", 2: f"2 (eps < {c2:g})", None: f"none ({c2:g} <= eps <= {c1:g})"}[rec["class"]]
    if rec["capacity_note"]:
        capacity = f"  capacity: none ({rec['capacity_note']})"
    else:
        capacity = (
            "  capacity (log10 k): "
            + ", ".join(f"{k} {v:.2f}" for k, v in rec["log10_capacity"].items())
            + ("" if rec["class"] == 2 else "   (Guha reports capacity only for eps < 0.1)")
        )
    lines = [
        f"{printable(rec['source'])}  [{rec['source_kind']}, tensor {printable(str(rec['tensor']))}, {rec['quant']}, "
        f"tied={rec['tied']}]",
        f"  rows {rec['vocab_size']} (zero rows dropped: {rec['n_zero_rows']}), d_model {rec['d_model']}",
        f"  mean cos {rec['mean']:.5f}  std {rec['std']:.5f}  E[cos^2] {rec['mean_sq']:.5f} (1/d = {rec['inv_d']:.5f})",
        f"  eps = mean + 2 std = {rec['eps']:.5f}   mean + 3 std = {rec['eps3']:.5f}   class {cls}",
        capacity,
    ]
    if rec.get("tiled"):
        lines.append(
            f"  tiled pass: {rec['pairs_visited']} pairs of {rec['rows_used']} rows"
            f"{' (sampled)' if rec['sampled'] else ''}; max |cos| {rec['max_abs']:.5f}"
        )
        lines.append(
            "  quantiles: "
            + ", ".join(f"q{q} {v:.4f}" for q, v in rec["quantiles"].items())
            + f"  (+- {rec['quantile_error']:.4f} bin)"
        )
        if rec["sampling_error"]:
            se = rec["sampling_error"]
            lines.append(f"  sampling error (s.e.): mean {se['mean']:.2e}, std {se['std']:.2e}, eps {se['eps']:.2e}")
        for p in rec["top_pairs"][:10]:
            toks = f"  {p['token_i']!r} ~ {p['token_j']!r}" if p["token_i"] is not None else ""
            lines.append(f"    {p['cos']:.4f}  rows {p['i']}, {p['j']}{toks}")
    return lines
