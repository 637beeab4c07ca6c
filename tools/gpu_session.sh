#!/usr/bin/env bash
# One lent GPU session in one call of at most SESSION_LIMIT seconds (default 530: under the 9 minutes a
# call may take), on a bare GPU image whose python3 already holds a CUDA torch and triton (no .venv, no
# network).  In this order, each step under its own time limit and never past the session's deadline
# (the steps after it keep the seconds they need):
#
#   1. env            versions, the GPU, whether the fused kernels run (triton)
#   2. gpu-tests      tests/gpu: the fused kernels and the captured packing step against their references
#   3. bench-toy      benchmarks/toy_trainer.py: the fused step vs its torch ops, the dense path and autograd,
#                     against the fp32/tf32 ceilings; writes the fused rate that budgets step 6
#   4. bench-cosine   benchmarks/cosine_stats.py: the fused pass in fp32/tf32/bf16 vs the ceiling of each
#                     precision, the torch tiled pass, a bf16 torch loop; tf32/bf16 error against float64
#   5. bench-packing  benchmarks/packing.py: Guha's nine small cells, the CUDA-graph step vs the eager one
#   6. compare        Liu's liu-strong-a1 + liu-seeds-a1 (54 toy models, the reference bundle's) trained on
#                     the GPU, exported as a bundle (OUT/reference-gpu.tar.gz) and compared with the CPU's:
#                     repcap bundle compare data/runs/reference <that bundle> (at smoke scale: the first
#                     width sweep and the extra seeds, compared with the same points exported again)
#   7. paper-gpu      the paper-gpu set after importing data/runs/paper-gpu (its finished points are cache
#                     hits): Liu's Fig. 3 map and main sweep, then Guha's grid, each batch started only if
#                     the cost model (with the toy rate measured in step 3) expects it to end in the budget
#   8. export         paper-gpu merged into a copy of data/runs/paper-gpu, packed as OUT/paper-gpu.tar.gz
#                     for the lead to commit (untar over data/runs/)
#
#   tools/gpu_session.sh OUT                # full scale, on one GPU
#   SCALE=smoke tools/gpu_session.sh OUT    # the same steps at toy sizes on a CPU: the script's own check
#
# Everything lands in OUT: log.txt (every step's output, exit code and seconds; a summary at the end),
# toy-rate.json, reference-gpu.tar.gz, paper-gpu.tar.gz.  REPCAP_FUSED=0 runs the GPU's torch paths instead
# of the kernels (for a comparison; the benchmarks time both anyway).
set -u
OUT=${1:?usage: tools/gpu_session.sh OUT}
SCALE=${SCALE:-full}
PY=${PYTHON:-python3}
LIMIT=${SESSION_LIMIT:-530}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 MPLBACKEND=Agg
export REPCAP_CACHE="${REPCAP_CACHE:-$PWD/.cache-gpu}"
WORK="$PWD/.gpu-bundle"
rm -rf "$WORK" && mkdir -p "$WORK"
if [ "$SCALE" = smoke ]; then  # the smoke reference set has no alpha = 1 series: its first width sweep instead
  bench=(--smoke) pack=(--smoke) dev=auto compare=(liu-strong-a05 liu-seeds)
else  # packing: Guha's cells at 300 steps (extrapolated), its CPU-era tables at their quick sizes
  bench=() pack=(--quick) dev=cuda compare=(liu-strong-a1 liu-seeds-a1)
fi
START=$SECONDS
SUMMARY=()

left() { echo $((LIMIT - (SECONDS - START))); }

step() {  # step NAME SECONDS RESERVE COMMAND...: run COMMAND for at most SECONDS, leaving RESERVE for later steps
  local name=$1 want=$2 reserve=$3 t0=$SECONDS
  shift 3
  local limit=$(($(left) - reserve))
  [ "$limit" -gt "$want" ] && limit=$want
  if [ "$limit" -lt 5 ]; then
    echo "=== $name: skipped, $(left) s left of the session"
    SUMMARY+=("$name: skipped (no time left)")
    return
  fi
  echo "=== $name (limit ${limit} s, $(left) s left of the session) at $(date -u +%T)"
  timeout -k 5 "$limit" "$@"
  local rc=$?
  echo "=== $name: exit $rc after $((SECONDS - t0)) s"
  SUMMARY+=("$name: exit $rc after $((SECONDS - t0)) s (limit $limit)")
}

{
  step env 30 480 "$PY" -c "
import importlib.util, torch
from repcap.sweep import keys, provenance
from repcap.engines.toy import train_points
print('torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available())
print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')
if importlib.util.find_spec('triton'):
    import triton
    print('triton', triton.__version__)
else:
    print('no triton: the fused kernels do not run here')
from repcap.engines.toy.fused import usable
print('fused kernels run:', usable(torch.device('cuda')) if torch.cuda.is_available() else False)
print('versions (provenance):', provenance.versions())
print('toy numerics (identity):', keys.computation_parts(train_points)['numerics'])"
  step gpu-tests 100 400 "$PY" -m pytest -q -p no:cacheprovider tests/gpu
  step bench-toy 60 330 "$PY" benchmarks/toy_trainer.py --device "$dev" ${bench[@]+"${bench[@]}"} --calibrate "$OUT/toy-rate.json"
  if [ -s "$OUT/toy-rate.json" ]; then  # the cost model budgets step 7's toy batches at the rate just measured
    REPCAP_TOY_STEP_SECONDS=$("$PY" -c "import json; d = json.load(open('$OUT/toy-rate.json')); print(f\"{d['a']},{d['b']}\")")
    export REPCAP_TOY_STEP_SECONDS
    echo "REPCAP_TOY_STEP_SECONDS=$REPCAP_TOY_STEP_SECONDS (seconds per model step, a + b m)"
  fi
  step bench-cosine 60 270 "$PY" benchmarks/cosine_stats.py --device "$dev" ${bench[@]+"${bench[@]}"}
  step bench-packing 50 220 "$PY" benchmarks/packing.py --device "$dev" "${pack[@]}"
  # 6. the CPU-vs-GPU comparison: both experiments' configs as one sweep, so a width's 9 models share a batch;
  # in a cache of its own, so that its bundle holds these points only
  REPCAP_CACHE="$WORK/cache-compare" step compare 150 90 "$PY" -c "
import sys, time
from repcap import runs, sweep
from repcap.engines.toy import group_key, models_per_batch, train_points
t0 = time.perf_counter()
exps = runs.point_set('reference', '$SCALE').only('${compare[*]}'.split())
configs = [c for e in exps for c in e.configs]
rep = sweep.run(train_points, configs, cache='toy', batched=True, group_by=group_key, progress=False,
                max_batch=min(models_per_batch(c['n'], c['batch']) for c in configs))
print(f'{len(configs)} toy models ({rep.n_computed} computed, {rep.n_cached} cached) in {time.perf_counter() - t0:.1f} s')
"
  REPCAP_CACHE="$WORK/cache-compare" step compare-export 30 70 "$PY" -m repcap bundle export reference "$WORK/reference-gpu" --scale "$SCALE"
  cpu_ref=data/runs/reference
  if [ "$SCALE" = smoke ]; then  # the committed bundle is full scale: the smoke check compares with a smoke export
    cpu_ref="$WORK/reference-smoke"
    REPCAP_CACHE="$WORK/cache-compare" timeout 30 "$PY" -m repcap bundle export reference "$cpu_ref" --scale smoke > /dev/null
  fi
  step compare-bundles 20 60 "$PY" -m repcap bundle compare "$cpu_ref" "$WORK/reference-gpu"
  [ -f "$WORK/reference-gpu/bundle.json" ] && tar -czf "$OUT/reference-gpu.tar.gz" -C "$WORK" reference-gpu
  # 7. paper-gpu: the finished points of data/runs/paper-gpu become cache hits, then what the budget allows
  step paper-import 30 60 "$PY" -m repcap bundle import data/runs/paper-gpu
  budget=$(($(left) - 60))
  [ "$budget" -lt 0 ] && budget=0
  # the cost model's budget stops 20 s short of the step's limit: a batch it misjudges may still end
  step paper-gpu "$budget" 50 "$PY" -m repcap bundle compute paper-gpu --scale "$SCALE" --budget $((budget > 20 ? budget - 20 : 0)) --no-progress
  # 8. export: merged into a copy of the committed bundle at full scale (a fresh folder at smoke scale)
  if [ "$SCALE" = full ]; then cp -r data/runs/paper-gpu "$WORK/paper-gpu"; fi
  step paper-export 40 5 "$PY" -m repcap bundle export paper-gpu "$WORK/paper-gpu" --scale "$SCALE"
  if [ -f "$WORK/paper-gpu/bundle.json" ]; then
    tar -czf "$OUT/paper-gpu.tar.gz" -C "$WORK" paper-gpu
    timeout 10 "$PY" -m repcap bundle status "$WORK/paper-gpu"
  fi
  echo "=== summary ($((SECONDS - START)) s of $LIMIT):"
  printf '  %s\n' "${SUMMARY[@]}"
} 2>&1 | tee "$OUT/log.txt"
ls -l "$OUT"
