#!/usr/bin/env bash
# mma37 call 3 (issue 27: the f16 GEMM on mma.sync alone): the 8192^3 fp16 stage with
# STAGEBENCH_WGMMA=off with every mma.sync candidate (the new ones timed beside the old: the
# default) and with the old kernel alone (STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_db); cuBLAS f16;
# the NVIDIA op-table cases of the products with each new kernel forced; then, as the budget
# allows, Geneformer full engine-fp16, Enformer full bf16 and the default (wgmma) fp16 stage.
# From the checkout's root with the bundle carried as build-mma37/.gpu:
#   BUDGET=175 bash build-mma37/call3.sh "$OUT"
set -u
OUT=${1:?out}
N=build-mma37/.gpu
O=$OUT/mma37c3
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-175}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 6)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/mma37c3.tar.gz" -C "$OUT" mma37c3 2>/dev/null; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
gemm() {  # name, knobs, cap
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
    --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-$1.json" \
    --timeline "$O/gemm-$1.trace.json" > "$O/gemm-$1.log" 2>&1
  log "gemm $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-$1.trace.json" 8 > "$O/gemm-$1-kernels.txt" 2>&1
  rm -f "$O/gemm-$1.trace.json"; head -4 "$O/gemm-$1-kernels.txt"; pack
}
model() {  # name, knobs, cap, model, stage
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run $4 --size full --backend opencl \
    --stages $5 --max-time 3 -q -o "$O/$4-$1.json" > "$O/$4-$1.log" 2>&1
  log "$4 $1 (${2:-defaults}) rc=$?"; pack
}
ops() {  # name, knobs, cap
  T='Backends/OpTable.MatchesTheReference/opencl_conv1d*'
  T+=':Backends/OpTable.MatchesTheReference/opencl_linear*'
  T+=':Backends/OpTable.MatchesTheReference/opencl_gemm_batched*:OpsOpenCL.Conv1d*'
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && export $2 &&
    timeout -s INT "$(cap "$3")" $N/ops_test --gtest_filter="$T" > "$O/ops-$1.txt" 2>&1)
  log "ops_test $1 ($2) rc=$? $(grep -hE '^\[  (PASSED|FAILED) ' "$O/ops-$1.txt" | tr '\n' ' ')"; pack
}
gemm mma-new "STAGEBENCH_WGMMA=off" 100
gemm mma-old "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_db" 25
timeout -s INT "$(cap 15)" python3 probes/wgmma/cublas_f16.py "$O/cublas.json" 8192 > "$O/cublas.txt" 2>&1
log "cublas rc=$?"; grep -h median "$O/cublas.txt"
ops spread "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_spread_db" 30
ops fc "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_fc_db" 25
model new "" 40 geneformer engine-fp16
model new "" 45 enformer bf16
gemm wgmma-new "" 30
for f in "$O"/*.json; do
  case $f in */cublas*.json) continue ;; esac
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9a-z]" "${f%.json}.md" | cut -c1-140 | head -6
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); p=r['runs'][0]['params']; print('gemm_paths:', p.get('gemm_paths'))" "$f" 2>/dev/null
done | tee "$O/summary.txt"
grep -hE "FAILED  \]" "$O"/ops-*.txt 2>/dev/null | head -20
pack
log "done"
