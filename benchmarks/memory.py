"""Peak memory of ``repcap stats`` beyond the matrix itself, each mode in a fresh subprocess.

Issue 6 ("Memory"): ``repcap stats`` on the 262144 x 640 offline Gemma matrix (``gemma-3-270m``)
must stay within a stated peak memory beyond the matrix.  tracemalloc cannot see torch's
allocations, so each mode runs in its own child process and reads the kernel's peak resident set
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``):

1. import repcap and torch, load the matrix (from the ``.npy`` cache): ``rss_loaded`` (peak so far);
2. run exactly what ``repcap stats`` runs (:func:`repcap.engines.survey.describe` on the loaded matrix):
   ``rss_peak``.

``extra = rss_peak - rss_loaded`` is the peak memory beyond the matrix (and the interpreter).  The
obvious alternative is printed beside it: what a dense V x V float32 cosine matrix would need.

Modes: ``moments`` (exact moments, ``repcap stats KEY``) and ``tiled`` (``repcap stats KEY --sample N``,
the tiled pass over the pairs of N random rows; ``--full`` adds the tiled pass over all rows, which
takes hours on 2 CPU cores).

    python benchmarks/memory.py [--quick] [--key gemma-3-270m] [--sample 32768] [--device auto|cpu|cuda]

On CUDA the host RSS is printed and the device's ``torch.cuda.max_memory_allocated`` beyond the
matrix as well.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CHILD = r"""
import gc, json, resource, sys, time
import torch
from repcap.engines.cosine import TiledConfig
from repcap.engines.survey import describe
from repcap.models.embeddings import load
from repcap.base.devices import resolve_device
key, mode, sample, device = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
dev = resolve_device(device)
kib = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
before = kib()
e = load(key, device="cpu")
gc.collect()
loaded = kib()
cuda = dev.type == "cuda"
if cuda:
    torch.cuda.reset_peak_memory_stats(dev)
t0 = time.perf_counter()
rec = describe(key, TiledConfig(sample=sample if mode == "tiled" else None), embedding=e, tiled=mode != "moments",
               device=dev, progress=False)
wall = time.perf_counter() - t0
out = {"mode": mode, "shape": list(e.matrix.shape), "matrix_mib": e.matrix.numel() * 4 / 2**20,
       "rss_import_mib": before / 1024, "rss_loaded_mib": loaded / 1024, "rss_peak_mib": kib() / 1024,
       "wall_s": wall, "eps": rec["eps"], "rows_used": rec.get("rows_used"),
       "cuda_peak_mib": torch.cuda.max_memory_allocated(dev) / 2**20 if cuda else None}
print("RESULT " + json.dumps(out))
"""


def run_mode(key: str, mode: str, sample: int, device: str) -> dict:
    t0 = time.time()
    p = subprocess.run([sys.executable, "-c", CHILD, key, mode, str(sample), device], capture_output=True, text=True)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode != 0 or not lines:
        raise SystemExit(f"{mode}: child failed (rc {p.returncode}):\n{p.stderr[-2000:]}")
    r = json.loads(lines[-1][7:])
    r["total_s"] = time.time() - t0
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller model (smollm2-135m) and sample (8192 rows)")
    ap.add_argument("--key", default=None, help="offline key (default gemma-3-270m, 262144 x 640)")
    ap.add_argument("--sample", type=int, default=None, help="rows for the sampled tiled pass (default 32768)")
    ap.add_argument("--full", action="store_true", help="also the tiled pass over all rows (hours on a CPU)")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    args = ap.parse_args()
    key = args.key or ("smollm2-135m" if args.quick else "gemma-3-270m")
    sample = args.sample or (8192 if args.quick else 32768)
    modes = ["moments", "tiled"] + (["full"] if args.full else [])
    print(f"peak memory of `repcap stats {key}` beyond the loaded matrix (fresh process per mode, ru_maxrss)")
    rows = [run_mode(key, m, sample, args.device) for m in modes]
    V, d = rows[0]["shape"]
    print(
        f"matrix {V} x {d} float32 = {rows[0]['matrix_mib']:.0f} MiB; "
        f"a dense V x V float32 cosine matrix would need {V * V * 4 / 2**30:.0f} GiB"
    )
    hdr = f"{'mode':<22}{'rows':>8}{'import':>9}{'loaded':>9}{'peak':>9}{'extra':>9}{'extra/matrix':>14}{'time s':>9}"
    print(hdr + ("   cuda peak MiB" if rows[0]["cuda_peak_mib"] is not None else ""))
    for r in rows:
        extra = r["rss_peak_mib"] - r["rss_loaded_mib"]
        label = {"moments": "moments (exact)", "tiled": f"tiled --sample {sample}", "full": "tiled (all rows)"}[
            r["mode"]
        ]
        line = (
            f"{label:<22}{r['rows_used'] or V:>8}{r['rss_import_mib']:>9.0f}{r['rss_loaded_mib']:>9.0f}"
            f"{r['rss_peak_mib']:>9.0f}{extra:>9.0f}{extra / r['matrix_mib']:>14.2f}{r['wall_s']:>9.1f}"
        )
        if r["cuda_peak_mib"] is not None:
            line += f"   {r['cuda_peak_mib']:.0f}"
        print(line)
    print(
        "(MiB; import = interpreter + torch + repcap, loaded = after loading the matrix, "
        "extra = peak - loaded: the memory beyond the matrix)"
    )


if __name__ == "__main__":
    main()
