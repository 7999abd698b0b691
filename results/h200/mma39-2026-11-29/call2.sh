#!/usr/bin/env bash
# mma39 call 2 (issue 27: the f16 GEMM on mma.sync alone, >= 450 TFLOP/s at 8192^3): the packed
# bulk forms (PIPE_PACKED: x and w packed by pipe_pack_f16 into 128-row blocks of each K tile,
# three 16 KB bulk copies a slot) in stagebench's 8192^3 fp16 stage with STAGEBENCH_WGMMA=off,
# each alone and among every mma.sync candidate, beside mma38's stage winner alone; cuBLAS f16;
# the NVIDIA op-table cases of the products with each packed form forced; the default (wgmma)
# fp16 stage. From the checkout's root with build-mma39/ carried (.gpu from
# /work/tools/bundle-with-tests.sh, .wgmma from scripts/wgmma-build.sh for cuBLAS's script):
#   BUDGET=200 bash build-mma39/call2.sh "$OUT"
set -u
OUT=${1:?out}
W=build-mma39/.wgmma
N=build-mma39/.gpu
O=$OUT/mma39
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-200}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 6)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/mma39.tar.gz" -C "$OUT" mma39 2>/dev/null; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
cat $W/BUILD_INFO > "$O/build-info.txt" 2>/dev/null
gemm() {  # name, knobs, cap
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
    --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-$1.json" \
    --timeline "$O/gemm-$1.trace.json" > "$O/gemm-$1.log" 2>&1
  log "gemm $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-$1.trace.json" 8 > "$O/gemm-$1-kernels.txt" 2>&1
  rm -f "$O/gemm-$1.trace.json"; sed -n '/## fp16/,$p' "$O/gemm-$1-kernels.txt" | head -5; pack
}
ops() {  # name, knobs, cap
  T='Backends/OpTable.MatchesTheReference/opencl_conv1d*'
  T+=':Backends/OpTable.MatchesTheReference/opencl_linear*'
  T+=':Backends/OpTable.MatchesTheReference/opencl_gemm_batched*:OpsOpenCL.Conv1d*'
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && export $2 &&
    timeout -s INT "$(cap "$3")" $N/ops_test --gtest_filter="$T" > "$O/ops-$1.txt" 2>&1)
  log "ops_test $1 ($2) rc=$? $(grep -hE '^\[  (PASSED|FAILED) ' "$O/ops-$1.txt" | tr '\n' ' ')"; pack
}
# the first process builds the program (cold machine: about 60 s)
gemm mma-bulk-pk "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_bulk_pk_db" 90
gemm mma-bulk2-pk "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_bulk2_pk_db" 20
gemm mma-wv-r8 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_spread_wv_r8_db" 20
ops bulk-pk "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_bulk_pk_db" 15
ops bulk2-pk "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_bulk2_pk_db" 15
timeout -s INT "$(cap 25)" python3 $W/cublas_f16.py "$O/cublas.json" 8192 > "$O/cublas.txt" 2>&1
log "cublas rc=$?"; grep -h median "$O/cublas.txt"; pack
gemm mma-all "STAGEBENCH_WGMMA=off" 30
gemm wgmma "" 25
for f in "$O"/gemm-*.json; do
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9a-z]" "${f%.json}.md" | cut -c1-140 | head -6
done | tee "$O/summary.txt"
grep -hE "FAILED  \]" "$O"/ops-*.txt 2>/dev/null | head -20
gzip -f "$O"/*.json 2>/dev/null
pack
log "done"
