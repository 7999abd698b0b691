#!/usr/bin/env bash
# mma40 call 1 (issue 27: the f16 GEMM on mma.sync alone, >= 450 TFLOP/s at 8192^3 at the stage):
# the persistent packed form (PIPE_PERSIST: one work-group an SM walking the tiles, the ring
# running on from tile to tile, tiles stored from registers), plain and in bands of 8 tile rows,
# in stagebench's 8192^3 fp16 stage with STAGEBENCH_WGMMA=off, each alone, beside mma39's
# bulk2_pk alone and every candidate; the NVIDIA op-table cases of the products with each new
# form forced; the probe (operands packed once, forms in turns); cuBLAS f16; the default (wgmma)
# stage; the NVIDIA op table with STAGEBENCH_WGMMA=off and every candidate (the sm_90 gate of
# db7ab33 as merged). From the checkout's root with build-mma40/ carried (.gpu from
# /work/tools/bundle-with-tests.sh, .wgmma from scripts/wgmma-build.sh):
#   BUDGET=280 bash build-mma40/call1.sh "$OUT"
set -u
OUT=${1:?out}
W=build-mma40/.wgmma
N=build-mma40/.gpu
O=$OUT/mma40
mkdir -p "$O/forms"
t0=$(date +%s)
BUDGET=${BUDGET:-280}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 6)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/mma40.tar.gz" -C "$OUT" mma40 2>/dev/null; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
cat $N/BUILD_INFO > "$O/build-info-gpu.txt" 2>/dev/null
cat $W/BUILD_INFO > "$O/build-info-wgmma.txt" 2>/dev/null
gemm() {  # name, knobs, cap
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
    --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-$1.json" \
    --timeline "$O/gemm-$1.trace.json" > "$O/gemm-$1.log" 2>&1
  log "gemm $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-$1.trace.json" 8 > "$O/gemm-$1-kernels.txt" 2>&1
  rm -f "$O/gemm-$1.trace.json"; sed -n '/## fp16/,$p' "$O/gemm-$1-kernels.txt" | head -5; pack
}
ops() {  # name, knobs, cap, filter
  T=${4:-'Backends/OpTable.MatchesTheReference/opencl_conv1d*:Backends/OpTable.MatchesTheReference/opencl_linear*:Backends/OpTable.MatchesTheReference/opencl_gemm_batched*:OpsOpenCL.Conv1d*'}
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && export $2 &&
    timeout -s INT "$(cap "$3")" $N/ops_test --gtest_filter="$T" > "$O/ops-$1.txt" 2>&1)
  log "ops_test $1 ($2) rc=$? $(grep -hE '^\[  (PASSED|FAILED) ' "$O/ops-$1.txt" | tr '\n' ' ')"; pack
}
PS=gemm_f16_pipe_256_bulk2_pk_ps_db
PS8=gemm_f16_pipe_256_r8_bulk2_pk_ps_db
# the first process builds the program (cold machine: about 60 s)
gemm mma-ps "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=$PS" 100
gemm mma-ps-r8 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=$PS8" 20
gemm mma-bulk2-pk "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=gemm_f16_pipe_256_bulk2_pk_db" 20
ops ps "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=$PS" 15
ops ps-r8 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=$PS8" 15
(. $W/nvidia-opencl-env.sh && nvidia_opencl_env "$W/lib" &&
  MMA_FORMS=gemm_f16_pipe_256_spread_wv_r8_db,gemm_f16_pipe_256_bulk2_pk_db,gemm_f16_pipe_256_bulk2_pk_r8_db,$PS,$PS8,probe_nocopy \
  timeout -s INT "$(cap 45)" $W/wgmma_probe --kernels $W/kernels \
    --mma-kernels $W/mma-kernels --out "$O/forms" --phase mma --sizes 8192 --rounds 8 \
    > "$O/mma.txt" 2>&1)
log "probe rc=$?"; grep -E "^time|^pack|FAIL|ERROR|BUILD|PASS|identical" "$O/mma.txt" | cut -c1-200 | head -30
for f in "$O"/forms/*-build.txt; do
  n=$(basename "$f" -build.txt)
  echo "$n: $(grep -A3 "Function properties for $n\$" "$f" | grep -E 'registers|spill' | tr '\n' ' ')"
done > "$O/build-logs-regs.txt"; rm -f "$O"/forms/*.ptx; pack
timeout -s INT "$(cap 25)" python3 $W/cublas_f16.py "$O/cublas.json" 8192 > "$O/cublas.txt" 2>&1
log "cublas rc=$?"; grep -h median "$O/cublas.txt"; pack
gemm mma-all "STAGEBENCH_WGMMA=off" 30
gemm wgmma "" 25
ops table-wgmma-off "STAGEBENCH_WGMMA=off" 60 'Backends/OpTable.MatchesTheReference/opencl_*:OpsOpenCL.*'
for f in "$O"/gemm-*.json; do
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9a-z]" "${f%.json}.md" | cut -c1-140 | head -6
done | tee "$O/summary.txt"
grep -hE "FAILED  \]" "$O"/ops-*.txt 2>/dev/null | head -20
gzip -f "$O"/*.json 2>/dev/null
pack
log "done"
