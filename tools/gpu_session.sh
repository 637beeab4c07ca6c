#!/usr/bin/env bash
# One lent GPU session in one call, on a bare GPU image whose python3 already holds a CUDA torch
# (no .venv, no network): the CUDA tests, the side-by-side benchmarks on the GPU, and the paper-gpu
# set under a time budget, each step under its own time limit so that one slow step cannot take the
# others' time; the bundle is packed before the benchmarks start.  Everything lands in OUT: log.txt
# (every step's output, with its exit code and seconds) and paper-gpu.tar.gz (the exported bundle).
#
#   tools/gpu_session.sh OUT            # full scale: at most about 9.5 minutes on one H200 (the steps' limits)
#   SCALE=smoke tools/gpu_session.sh OUT  # the same steps in seconds on a CPU (the script's own check)
#
# The points' keys carry the torch/numpy/scipy/numba versions they ran with (book/architecture.md),
# so a bundle computed on an image with another torch than the checkout's is stale here: it records
# what ran and how long it took, and seeds the cache of a machine with that environment.
set -u
OUT=${1:?usage: tools/gpu_session.sh OUT}
SCALE=${SCALE:-full}
PY=${PYTHON:-python3}
PAPER_LIMIT=${PAPER_LIMIT:-280}  # seconds for the paper-gpu set's points (the export runs after them regardless)
mkdir -p "$OUT"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 MPLBACKEND=Agg
export REPCAP_CACHE="${REPCAP_CACHE:-$PWD/.cache-gpu}"
BUNDLE="$PWD/.gpu-bundle/paper-gpu"
quick=(); [ "$SCALE" = smoke ] && quick=(--quick)
dev=cuda; [ "$SCALE" = smoke ] && dev=auto

step() {  # step NAME SECONDS COMMAND...: run COMMAND under a time limit and say how it ended
  local name=$1 limit=$2 t0=$SECONDS
  shift 2
  echo "=== $name (limit ${limit} s) at $(date -u +%T)"
  timeout -k 5 "$limit" "$@"
  echo "=== $name: exit $? after $((SECONDS - t0)) s"
}

{
  step env 30 "$PY" -c "
import torch, numpy, scipy, repcap.sweep.keys as k
print('torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available())
print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')
print('key environment part:', k.env_part())"
  step gpu-tests 90 "$PY" -m pytest -q -p no:cacheprovider tests/gpu
  # the set in its order (Yoder's packings, Liu's Fig. 3 map, Liu's main sweep, Guha's grid): a batch
  # starts only if the cost model expects it to end within the budget, so the toy batches that need
  # minutes are left for a longer lease while Guha's cheap cells run; the limit is the safety net
  step paper-gpu "$PAPER_LIMIT" "$PY" -m repcap bundle compute paper-gpu --scale "$SCALE" --budget $((PAPER_LIMIT - 40)) --no-progress
  step paper-export 60 "$PY" -m repcap bundle export paper-gpu "$BUNDLE" --scale "$SCALE"
  step paper-status 30 "$PY" -m repcap bundle status "$BUNDLE"
  [ -d "$BUNDLE" ] && tar -czf "$OUT/paper-gpu.tar.gz" -C "$(dirname "$BUNDLE")" paper-gpu
  # last: a benchmark cut off by the call's own limit still leaves the lines it printed
  step bench-cosine 70 "$PY" benchmarks/cosine_stats.py --device "$dev" "${quick[@]}"
  step bench-packing 80 "$PY" benchmarks/packing.py --device "$dev" "${quick[@]}"
  step bench-toy 70 "$PY" benchmarks/toy_trainer.py --device "$dev" "${quick[@]}"
} 2>&1 | tee "$OUT/log.txt"
ls -l "$OUT"
