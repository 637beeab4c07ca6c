"""``repcap stats SOURCE``: exact cosine moments, eps and capacity of a model's embedding (Guha 2026).

SOURCE is an offline key, a catalog key, a hub id ``org/name``, a model folder, or a
``.safetensors``/``.gguf``/``.onnx``/``.npy`` file.  ``--tiled`` adds one pass over all pairs
(histogram quantiles, max |cos|, nearest pairs); ``--sample N`` makes that pass visit the pairs of N
random rows and report its sampling error.
"""

from __future__ import annotations

import json


def register(sub) -> None:
    p = sub.add_parser("stats", help="cosine statistics, eps and capacity of a model's embedding",
                       description=__doc__)
    p.add_argument("source", help="offline key, catalog key, hub id, model folder or file")
    p.add_argument("--head", action="store_true", help="the output head instead of the input embedding")
    p.add_argument("--tiled", action="store_true", help="also run the tiled pass over all pairs")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--sample", type=int, default=None, metavar="N", help="tiled pass over the pairs of N random rows")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda[:N] (default auto)")
    p.add_argument("--tensor", default=None, help="read this tensor name instead of guessing")
    p.add_argument("--rows", type=int, default=None, metavar="N", help="keep only the first N rows")
    p.add_argument("--bins", type=int, default=2000, help="histogram bins on [-1, 1] (default 2000)")
    p.add_argument("--top-k", type=int, default=10, help="most similar pairs to list (default 10)")
    p.add_argument("--seed", type=int, default=0, help="row-sample seed (default 0)")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..survey import describe

    rec = describe(args.source, head=args.head, tiled=args.tiled or args.sample is not None, sample=args.sample,
                   rows=args.rows, device=args.device, bins=args.bins, top_k=args.top_k, tensor=args.tensor,
                   seed=args.seed, progress=not args.json)
    if args.json:
        rec.pop("hist_counts", None)
        print(json.dumps(rec, sort_keys=True, allow_nan=False, default=str))
        return 0
    cls = {1: "1 (eps > 0.2)", 2: "2 (eps < 0.1)", None: "none (0.1 <= eps <= 0.2)"}[rec["class"]]
    lines = [
        f"{rec['source']}  [{rec['source_kind']}, tensor {rec['tensor']}, {rec['quant']}, tied={rec['tied']}]",
        f"  rows {rec['vocab_size']} (zero rows dropped: {rec['n_zero_rows']}), d_model {rec['d_model']}",
        f"  mean cos {rec['mean']:.5f}  std {rec['std']:.5f}  E[cos^2] {rec['mean_sq']:.5f} (1/d = {rec['inv_d']:.5f})",
        f"  eps = mean + 2 std = {rec['eps']:.5f}   mean + 3 std = {rec['eps3']:.5f}   class {cls}",
        "  capacity (log10 k): " + ", ".join(f"{k} {v:.2f}" for k, v in rec["log10_capacity"].items())
        + ("" if rec["class"] == 2 else "   (Guha reports capacity only for eps < 0.1)"),
    ]
    if rec.get("tiled"):
        lines.append(f"  tiled pass: {rec['pairs_visited']} pairs of {rec['rows_used']} rows"
                     f"{' (sampled)' if rec['sampled'] else ''}; max |cos| {rec['max_abs']:.5f}")
        lines.append("  quantiles: " + ", ".join(f"q{q} {v:.4f}" for q, v in rec["quantiles"].items())
                     + f"  (+- {rec['quantile_error']:.4f} bin)")
        if rec["sampling_error"]:
            se = rec["sampling_error"]
            lines.append(f"  sampling error (s.e.): mean {se['mean']:.2e}, std {se['std']:.2e}, eps {se['eps']:.2e}")
        for p in rec["top_pairs"][:10]:
            toks = f"  {p['token_i']!r} ~ {p['token_j']!r}" if p["token_i"] is not None else ""
            lines.append(f"    {p['cos']:.4f}  rows {p['i']}, {p['j']}{toks}")
    print("\n".join(lines))
    return 0
