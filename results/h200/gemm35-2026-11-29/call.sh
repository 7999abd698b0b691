#!/usr/bin/env bash
# gemm35 (issue 27): the 8192^3 fp16 GEMM stage with the warp-specialized wgmma variants
# (STAGEBENCH_WGMMA_WS, on by default) on and off; cuBLAS through PyTorch on the same card;
# Enformer full bf16 and Geneformer full engine-fp16 with the variants on and off; the NVIDIA
# op-table cases of the products and gemm_test's f16-input cases. From the checkout's root with
# the bundle and this folder carried as build-gemm35/:
#   BUDGET=290 bash build-gemm35/call.sh "$OUT"
# PIECES=1 also times each variant alone (STAGEBENCH_WGMMA_ONLY) at 8192^3; NEW2=0 skips the
# second "new" process.
set -u
OUT=${1:?out}
N=build-gemm35/.gpu
O=$OUT/gemm35
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-290}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() {  # the step's cap, cut to what is left of the budget (less 8 s to pack)
  local left=$((BUDGET - ($(date +%s) - t0) - 8))
  echo $((left < 1 ? 1 : ($1 < left ? $1 : left)))
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
OFF="STAGEBENCH_WGMMA_WS=off"
gemm() {  # name, knobs, cap
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
    --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-$1.json" \
    --timeline "$O/gemm-$1.trace.json" > "$O/gemm-$1.log" 2>&1
  local rc=$?
  log "gemm $1 (${2:-defaults}) rc=$rc"
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
gemm new "" 150
NEW_OK=$?
timeout -s INT "$(cap 30)" python3 probes/wgmma/cublas_f16.py "$O/cublas.json" 8192 \
  > "$O/cublas.txt" 2>&1
log "cublas rc=$?"
gemm old "$OFF" 40
if [ "${PIECES:-0}" = 1 ] && [ "$NEW_OK" = 0 ]; then
  for v in wgmma_f16_128_x2 wgmma_f16_ws256 wgmma_f16_ws256_r wgmma_f16_ws256_p \
    wgmma_f16_ws256_pe; do
    gemm "only-$v" "STAGEBENCH_WGMMA_ONLY=$v" 25
  done
fi
if [ "$NEW_OK" = 0 ]; then
  model new "" 45 enformer bf16
  model old "$OFF" 35 enformer bf16
  model new "" 35 geneformer engine-fp16
  model old "$OFF" 30 geneformer engine-fp16
else  # the new variants hung or failed: the knob off alone, so that the call still says something
  log "gemm new failed: models with the variants off only"
  model old "$OFF" 35 enformer bf16
  model old "$OFF" 30 geneformer engine-fp16
fi
T='Backends/OpTable.MatchesTheReference/opencl_conv1d*'
T+=':Backends/OpTable.MatchesTheReference/opencl_linear*'
T+=':Backends/OpTable.MatchesTheReference/opencl_gemm_batched*'
T+=':OpsOpenCL.*Wgmma*:OpsOpenCL.Conv1d*'
OPS_ENV=""
[ "$NEW_OK" = 0 ] || OPS_ENV="$OFF"  # a hung variant would only hang the tests too
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && { [ -z "$OPS_ENV" ] || export $OPS_ENV; } &&
  timeout -s INT "$(cap 40)" $N/ops_test --gtest_filter="$T" > "$O/ops_test.txt" 2>&1)
log "ops_test (${OPS_ENV:-defaults}) rc=$?"
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  timeout -s INT "$(cap 20)" $N/gemm_test --gtest_filter='*Fp16Input*' > "$O/gemm_test.txt" 2>&1)
log "gemm_test rc=$?"
[ "${NEW2:-1}" = 0 ] || gemm new2 "" 30
for f in "$O"/*.json; do
  case $f in */cublas.json) continue ;; esac
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | cut -c1-120
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); p=r['runs'][0]['params']; print('gemm_paths:', p.get('gemm_paths'))" "$f" 2>/dev/null
done | tee "$O/summary.txt"
grep -h "median" "$O/cublas.txt"
for f in "$O"/*-kernels.txt; do echo "== $f"; head -8 "$f"; done
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/ops_test.txt" "$O/gemm_test.txt" | head -20
tail -5 "$O/gemm-new.log"
log "packing"
tar czf "$OUT/gemm35.tar.gz" -C "$OUT" gemm35 && rm -rf "$O"
