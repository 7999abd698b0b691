#!/usr/bin/env bash
# gemm34 (issue 27): the 8192^3 fp16 GEMM stage with gemm34's two knobs on (the defaults:
# STAGEBENCH_WGMMA_MORE, STAGEBENCH_GEMM_F16_INPUT) and off, and with only the f16 input on;
# cuBLAS through PyTorch on the same card; Enformer full bf16 and Geneformer full engine-fp16 with
# the wgmma variants on and off; the NVIDIA op-table cases of the products. Run from the checkout's
# root with the bundle and this folder carried as build-gemm34/:
#   BUDGET=200 bash build-gemm34/call.sh "$OUT"
set -u
OUT=${1:?out}
N=build-gemm34/.gpu
O=$OUT/gemm34
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-200}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() {  # the step's cap, cut to what is left of the budget (less 8 s to pack)
  local left=$((BUDGET - ($(date +%s) - t0) - 8))
  echo $((left < 1 ? 1 : ($1 < left ? $1 : left)))
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
OFF="STAGEBENCH_WGMMA_MORE=off STAGEBENCH_GEMM_F16_INPUT=off"
gemm() {  # name, knobs, cap
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
    --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-$1.json" \
    --timeline "$O/gemm-$1.trace.json" > "$O/gemm-$1.log" 2>&1
  log "gemm $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-$1.trace.json" 10 > "$O/gemm-$1-kernels.txt" 2>&1
  rm -f "$O/gemm-$1.trace.json"
}
model() {  # name, knobs, cap, model, stage
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run $4 --size full --backend opencl \
    --stages $5 --max-time 3 -q -o "$O/$4-$1.json" --timeline "$O/$4-$1.trace.json" \
    > "$O/$4-$1.log" 2>&1
  log "$4 $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/$4-$1.trace.json" 30 > "$O/$4-$1-kernels.txt" 2>&1
  rm -f "$O/$4-$1.trace.json"
}
gemm new "" 60
timeout -s INT "$(cap 30)" python3 probes/wgmma/cublas_f16.py "$O/cublas.json" 8192 \
  > "$O/cublas.txt" 2>&1
log "cublas rc=$?"
gemm old "$OFF" 40
gemm input-only "STAGEBENCH_WGMMA_MORE=off" 30
model new "" 45 enformer bf16
model old "STAGEBENCH_WGMMA_MORE=off" 35 enformer bf16
T='Backends/OpTable.MatchesTheReference/opencl_conv1d*'
T+=':Backends/OpTable.MatchesTheReference/opencl_linear*'
T+=':Backends/OpTable.MatchesTheReference/opencl_gemm_batched*'
T+=':OpsOpenCL.*Wgmma*:OpsOpenCL.Conv1d*'
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  timeout -s INT "$(cap 30)" $N/ops_test --gtest_filter="$T" > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  timeout -s INT "$(cap 20)" $N/gemm_test --gtest_filter='*Fp16Input*' > "$O/gemm_test.txt" 2>&1)
log "gemm_test rc=$?"
model new "" 35 geneformer engine-fp16
model old "STAGEBENCH_WGMMA_MORE=off" 30 geneformer engine-fp16
for f in "$O"/*.json; do
  case $f in */cublas.json) continue ;; esac
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | cut -c1-120
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); p=r['runs'][0]['params']; print('gemm_paths:', p.get('gemm_paths')); print('fp16_input:', p.get('fp16_input'))" "$f" 2>/dev/null
done | tee "$O/summary.txt"
grep -h "median" "$O/cublas.txt"
for f in "$O"/*-kernels.txt; do echo "== $f"; head -12 "$f"; done
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/ops_test.txt" "$O/gemm_test.txt" | head -20
log "packing"
tar czf "$OUT/gemm34.tar.gz" -C "$OUT" gemm34 && rm -rf "$O"
