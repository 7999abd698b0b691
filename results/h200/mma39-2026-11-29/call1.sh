#!/usr/bin/env bash
# mma39 call 1 (issue 27: the f16 GEMM on mma.sync alone, >= 450 TFLOP/s at 8192^3): (1) the
# probe's forms: mma38's two op-layer winners, mma39's ring filled by cp.async.bulk rows (PIPE_BULK
# 1, ring of 4 and of 3) and without the K loop's barrier (PIPE_BULK 2), and the timing-only form
# without copies; (2) cuBLAS f16; (3) stagebench's 8192^3 fp16 stage with STAGEBENCH_WGMMA=off:
# every mma.sync candidate, then mma38's stage winner and each bulk form alone; (4) the NVIDIA
# op-table cases of the products with each new op-layer kernel forced; (5) the default (wgmma)
# fp16 stage. From the checkout's root with build-mma39/ carried (scripts/wgmma-build.sh's
# .wgmma and /work/tools/bundle-with-tests.sh's .gpu there):
#   BUDGET=250 bash build-mma39/call1.sh "$OUT"
set -u
OUT=${1:?out}
W=build-mma39/.wgmma
N=build-mma39/.gpu
O=$OUT/mma39
mkdir -p "$O/forms"
t0=$(date +%s)
BUDGET=${BUDGET:-250}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 6)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/mma39.tar.gz" -C "$OUT" mma39 2>/dev/null; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
cat $W/BUILD_INFO $N/BUILD_INFO > "$O/build-info.txt" 2>/dev/null
# (1) the probe
FORMS=${FORMS:-gemm_f16_pipe_256_spread_wl_db,gemm_f16_pipe_256_spread_wv_r8_db,gemm_f16_pipe_256_bulk_db,gemm_f16_pipe_256_bulk2_db,gemm_f16_pipe_256_bulk_ring3_db,probe_nocopy}
(. $W/nvidia-opencl-env.sh && nvidia_opencl_env "$W/lib" &&
  MMA_FORMS=$FORMS timeout -s INT "$(cap ${PROBE_CAP:-70})" $W/wgmma_probe --kernels $W/kernels \
    --mma-kernels $W/mma-kernels --out "$O/forms" --phase mma --sizes 8192 --rounds 8 \
    > "$O/mma.txt" 2>&1)
log "probe mma rc=$?"; grep -E "^time|FAIL|ERROR|check 256|BUILD" "$O/mma.txt" | cut -c1-220
for f in "$O"/forms/*-build.txt; do  # the driver's own ptxas -v (-cl-nv-verbose), per form
  n=$(basename "$f" -build.txt)
  echo "$n: $(grep -A3 "Function properties for $n\$" "$f" | grep -E 'registers|spill' | tr '\n' ' ')"
done > "$O/build-logs-regs.txt"
cat "$O/build-logs-regs.txt"
gzip -f "$O"/forms/*.ptx 2>/dev/null; pack
# (2) cuBLAS
timeout -s INT "$(cap 25)" python3 $W/cublas_f16.py "$O/cublas.json" 8192 > "$O/cublas.txt" 2>&1
log "cublas rc=$?"; grep -h median "$O/cublas.txt"; pack
gemm() {  # name, knobs, cap
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
    --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-$1.json" \
    --timeline "$O/gemm-$1.trace.json" > "$O/gemm-$1.log" 2>&1
  log "gemm $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-$1.trace.json" 8 > "$O/gemm-$1-kernels.txt" 2>&1
  rm -f "$O/gemm-$1.trace.json"; head -4 "$O/gemm-$1-kernels.txt"; pack
}
ops() {  # name, knobs, cap
  T='Backends/OpTable.MatchesTheReference/opencl_conv1d*'
  T+=':Backends/OpTable.MatchesTheReference/opencl_linear*'
  T+=':Backends/OpTable.MatchesTheReference/opencl_gemm_batched*:OpsOpenCL.Conv1d*'
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && export $2 &&
    timeout -s INT "$(cap "$3")" $N/ops_test --gtest_filter="$T" > "$O/ops-$1.txt" 2>&1)
  log "ops_test $1 ($2) rc=$? $(grep -hE '^\[  (PASSED|FAILED) ' "$O/ops-$1.txt" | tr '\n' ' ')"; pack
}
if grep -q "BUILD FAILED" "$O/mma.txt" && grep "BUILD FAILED" "$O/mma.txt" | grep -q bulk; then
  log "a bulk form did not build in the probe: the op layer's program (which has them) is skipped"
else
  # (3) the stage
  gemm mma-all "STAGEBENCH_WGMMA=off" 90
  gemm mma-bulk "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_bulk_db" 20
  gemm mma-bulk2 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_bulk2_db" 20
  gemm mma-wv-r8 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_spread_wv_r8_db" 20
  # (4) correctness of each new op-layer kernel on NVIDIA
  ops bulk "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_bulk_db" 15
  ops bulk2 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_bulk2_db" 15
  # (5) the default path
  gemm wgmma "" 30
fi
for f in "$O"/gemm-*.json; do
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9a-z]" "${f%.json}.md" | cut -c1-140 | head -6
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); p=r['runs'][0]['params']; print('gemm_paths:', p.get('gemm_paths'))" "$f" 2>/dev/null
done | tee "$O/summary.txt"
grep -hE "FAILED  \]" "$O"/ops-*.txt 2>/dev/null | head -20
gzip -f "$O"/*.json 2>/dev/null
pack
log "done"
