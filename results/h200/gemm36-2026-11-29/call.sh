#!/usr/bin/env bash
# gemm36 (issue 27): the 8192^3 GEMM's tf32 stage on wgmma's dense tf32 form (the default) and on
# the mma.sync pipeline (STAGEBENCH_WGMMA_TF32=off); its fp16 stage with the defaults and on
# mma.sync alone (STAGEBENCH_WGMMA=off) with the pipeline's ring of 3 and of 4 K tiles
# (STAGEBENCH_PIPE_RING); cuBLAS tf32 and f16 through PyTorch on the same card. FINAL=1 adds
# Enformer full bf16, Geneformer full engine-fp16, the NVIDIA op-table cases of the products and
# gemm_test. From the checkout's root with the bundle and this folder carried as build-gemm36/:
#   BUDGET=200 bash build-gemm36/call.sh "$OUT"
set -u
OUT=${1:?out}
N=build-gemm36/.gpu
R=build-gemm36/res
O=$OUT/gemm36
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-200}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() {  # the step's cap, cut to what is left of the budget (less 8 s to pack)
  local left=$((BUDGET - ($(date +%s) - t0) - 8))
  echo $((left < 1 ? 1 : ($1 < left ? $1 : left)))
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
gemm() {  # name, knobs, cap, stage
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
    --backend opencl --stages $4 --max-time 3 -q -o "$O/gemm-$1.json" \
    --timeline "$O/gemm-$1.trace.json" > "$O/gemm-$1.log" 2>&1
  local rc=$?
  log "gemm $1 ($4, ${2:-defaults}) rc=$rc"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-$1.trace.json" 10 > "$O/gemm-$1-kernels.txt" 2>&1
  rm -f "$O/gemm-$1.trace.json"
  return $rc
}
model() {  # name, knobs, cap, model, stage
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run $4 --size full --backend opencl \
    --stages $5 --max-time 3 -q -o "$O/$4-$1.json" --timeline "$O/$4-$1.trace.json" \
    > "$O/$4-$1.log" 2>&1
  log "$4 $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/$4-$1.trace.json" 30 > "$O/$4-$1-kernels.txt" 2>&1
  rm -f "$O/$4-$1.trace.json"
}
gemm tf32-new "" 150 tf32
NEW_OK=$?
timeout -s INT "$(cap 30)" python3 $R/cublas_tf32.py "$O/cublas-tf32.json" 8192 \
  > "$O/cublas-tf32.txt" 2>&1
log "cublas tf32 rc=$?"
timeout -s INT "$(cap 30)" python3 probes/wgmma/cublas_f16.py "$O/cublas.json" 8192 \
  > "$O/cublas.txt" 2>&1
log "cublas f16 rc=$?"
gemm tf32-old "STAGEBENCH_WGMMA_TF32=off" 40 tf32
gemm fp16-new "" 40 fp16
if [ "${RING:-1}" = 1 ]; then
  gemm fp16-mma3 "STAGEBENCH_WGMMA=off" 40 fp16
  gemm fp16-mma4 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_RING=4" 90 fp16
fi
if [ "${FINAL:-0}" = 1 ]; then
  OFF=""
  [ "$NEW_OK" = 0 ] || OFF="STAGEBENCH_WGMMA_TF32=off"  # a hung tf32 variant would hang these too
  model new "$OFF" 45 enformer bf16
  model new "$OFF" 35 geneformer engine-fp16
  T='Backends/OpTable.MatchesTheReference/opencl_conv1d*'
  T+=':Backends/OpTable.MatchesTheReference/opencl_linear*'
  T+=':Backends/OpTable.MatchesTheReference/opencl_gemm_batched*'
  T+=':OpsOpenCL.*Wgmma*:OpsOpenCL.Conv1d*'
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && { [ -z "$OFF" ] || export $OFF; } &&
    timeout -s INT "$(cap 40)" $N/ops_test --gtest_filter="$T" > "$O/ops_test.txt" 2>&1)
  log "ops_test (${OFF:-defaults}) rc=$?"
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
    timeout -s INT "$(cap 20)" $N/gemm_test > "$O/gemm_test.txt" 2>&1)
  log "gemm_test rc=$?"
fi
for f in "$O"/*.json; do
  case $f in */cublas*.json) continue ;; esac
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9a-z]" "${f%.json}.md" | cut -c1-140 | head -6
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); p=r['runs'][0]['params']; print('gemm_paths:', p.get('gemm_paths'))" "$f" 2>/dev/null
done | tee "$O/summary.txt"
grep -h "median" "$O"/cublas*.txt
for f in "$O"/*-kernels.txt; do echo "== $f"; head -6 "$f"; done
grep -hE "^\[  (PASSED|FAILED) |FAILED  \]" "$O/ops_test.txt" "$O/gemm_test.txt" 2>/dev/null | head -20
tail -5 "$O/gemm-tf32-new.log"
log "packing"
tar czf "$OUT/gemm36.tar.gz" -C "$OUT" gemm36 && rm -rf "$O"
