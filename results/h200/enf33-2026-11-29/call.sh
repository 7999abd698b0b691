#!/usr/bin/env bash
# enf33: Enformer full, bf16 stage with enf33's changes on (new: the defaults) and off (old:
# STAGEBENCH_ENFORMER_POOL_TRANSFORM, STAGEBENCH_POOL_VEC8, STAGEBENCH_CONV_FAST_LOADS and
# STAGEBENCH_TILE_WITH_EPILOGUE all off), each with a timeline sample; NVIDIA ops tests of what
# enf33 touched (after the first ladder, so NVIDIA's compute cache holds the programs); PyTorch's
# compile-bf16 in the same call; the 8192^3 fp16 GEMM if time is left. Run from the checkout's
# root, with the bundle and this folder carried as build-enf33/:
#   BUDGET=215 bash build-enf33/call.sh "$OUT"   (what the session's device time allowed)
set -u
OUT=${1:?out}
N=build-enf33/.gpu
R=build-enf33/results
O=$OUT/enf33
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-215}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() {  # the step's cap, cut to what is left of the budget (less 8 s to pack)
  local left=$((BUDGET - ($(date +%s) - t0) - 8))
  echo $(($1 < left ? $1 : left))
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
OFF="STAGEBENCH_ENFORMER_POOL_TRANSFORM=off STAGEBENCH_POOL_VEC8=off"
OFF+=" STAGEBENCH_CONV_FAST_LOADS=off STAGEBENCH_TILE_WITH_EPILOGUE=off"
# On main three of the four are off by default until measured (the lead, 2026-11-29): "new" sets
# them on explicitly.
ON="STAGEBENCH_ENFORMER_POOL_TRANSFORM=on STAGEBENCH_POOL_VEC8=on"
ON+=" STAGEBENCH_CONV_FAST_LOADS=on STAGEBENCH_TILE_WITH_EPILOGUE=on"
run() {  # name, knobs ("" or $OFF), cap
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run enformer \
    --size full --backend opencl --stages original,bf16 --max-time 4 -q \
    -o "$O/enformer-full-$1.json" --timeline "$O/enformer-full-$1.trace.json" \
    > "$O/enformer-full-$1.log" 2>&1
  log "enformer $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/enformer-full-$1.trace.json" 40 \
    > "$O/enformer-full-$1-kernels.txt" 2>&1
  python3 $R/shapes.py "$O/enformer-full-$1.trace.json" > "$O/shapes-$1.txt" 2>&1
  gzip -f "$O/enformer-full-$1.trace.json"
}
run new "$ON" 95
T='Backends/OpTable.MatchesTheReference/opencl_conv1d'
T+=':Backends/OpTable.MatchesTheReference/opencl_attention_pool'
T+=':Backends/OpTable.MatchesTheReference/opencl_linear'
T+=':OpsOpenCL.Conv1d*:OpsOpenCL.DevicesWithoutNvidiaTensorCoresNeverPickWgmma'
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  env $ON timeout -s INT "$(cap 35)" $N/ops_test --gtest_filter="$T" > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|SKIPPED  \] case" "$O/ops_test.txt" | head -30
timeout -s INT "$(cap 90)" python3 scripts/reference/torch_kernels.py torch --model enformer \
  --size full --variant compile-bf16 --json "$O/torch-enformer.json" \
  > "$O/torch-enformer.txt" 2>&1
log "torch enformer rc=$?"
run old "$OFF" 45
if [ "$(cap 30)" -ge 20 ]; then
  timeout -s INT "$(cap 30)" $N/gpu-run.sh run gemm --size 8192x8192x8192 --backend opencl \
    --stages fp16 --max-time 3 -q -o "$O/gemm-8192.json" --timeline "$O/gemm-8192.trace.json" \
    > "$O/gemm-8192.log" 2>&1
  log "gemm 8192 rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-8192.trace.json" 10 > "$O/gemm-8192-kernels.txt" 2>&1
  rm -f "$O/gemm-8192.trace.json"
fi
python3 scripts/reference/torch_kernels.py ours "$O"/enformer-full-new-kernels.txt \
  "$O"/enformer-full-old-kernels.txt > "$O/ours-by-role.txt" 2>&1
python3 scripts/reference/torch_kernels.py regroup "$O/torch-enformer.json" \
  > "$O/torch-by-role.txt" 2>&1
for f in "$O"/enformer-full-*.json "$O"/gemm-8192.json; do
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | cut -c1-110
done
grep -h "one call" "$O"/torch-*.txt
for f in "$O"/enformer-full-*-kernels.txt; do echo "== $f"; sed -n '/^## bf16/,/^## /p' "$f" | head -14; done
cat "$O"/shapes-*.txt | cut -c1-90
log "packing"
tar czf "$OUT/enf33.tar.gz" -C "$OUT" enf33 && rm -rf "$O"
