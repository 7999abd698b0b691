#!/usr/bin/env bash
# mma40 call 2: the packed bulk2 form in bands of 8 tile rows (non-persistent) and the persistent
# form taking each next tile from a counter (PIPE_PERSIST 2), each alone in the 8192^3 fp16 stage
# with STAGEBENCH_WGMMA=off and among every candidate; the NVIDIA op-table cases of the products
# with each forced; the probe (operands packed once, forms in turns, with the static persistent
# form of call 1); cuBLAS f16; the default (wgmma) stage. From the checkout's root with
# build-mma40/ carried (.gpu from /work/tools/bundle-with-tests.sh, .wgmma from
# scripts/wgmma-build.sh):
#   BUDGET=165 bash build-mma40/call2.sh "$OUT"
set -u
OUT=${1:?out}
W=build-mma40/.wgmma
N=build-mma40/.gpu
O=$OUT/mma40c2
mkdir -p "$O/forms"
t0=$(date +%s)
BUDGET=${BUDGET:-165}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 6)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/mma40c2.tar.gz" -C "$OUT" mma40c2 2>/dev/null; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
cat $W/BUILD_INFO > "$O/build-info-wgmma.txt" 2>/dev/null
gemm() {  # name, knobs, cap
  env $2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
    --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-$1.json" \
    --timeline "$O/gemm-$1.trace.json" > "$O/gemm-$1.log" 2>&1
  log "gemm $1 (${2:-defaults}) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-$1.trace.json" 8 > "$O/gemm-$1-kernels.txt" 2>&1
  rm -f "$O/gemm-$1.trace.json"; sed -n '/## fp16/,$p' "$O/gemm-$1-kernels.txt" | head -5; pack
}
ops() {  # name, knobs, cap
  T='Backends/OpTable.MatchesTheReference/opencl_conv1d*:Backends/OpTable.MatchesTheReference/opencl_linear*'
  T+=':Backends/OpTable.MatchesTheReference/opencl_gemm_batched*:OpsOpenCL.Conv1d*'
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && export $2 &&
    timeout -s INT "$(cap "$3")" $N/ops_test --gtest_filter="$T" > "$O/ops-$1.txt" 2>&1)
  log "ops_test $1 ($2) rc=$? $(grep -hE '^\[  (PASSED|FAILED) ' "$O/ops-$1.txt" | tr '\n' ' ')"; pack
}
R8=gemm_f16_pipe_256_r8_bulk2_pk_db
PSD=gemm_f16_pipe_256_r8_bulk2_pk_psd_db
# the first process builds the program (cold machine: about 60 s)
gemm mma-psd "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=$PSD" 90
gemm mma-r8 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=$R8" 15
ops psd "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=$PSD" 10
ops r8 "STAGEBENCH_WGMMA=off STAGEBENCH_PIPE_ONLY=$R8" 10
gemm mma-all "STAGEBENCH_WGMMA=off" 25
(. $W/nvidia-opencl-env.sh && nvidia_opencl_env "$W/lib" &&
  MMA_FORMS=gemm_f16_pipe_256_bulk2_pk_db,gemm_f16_pipe_256_bulk2_pk_r8_db,gemm_f16_pipe_256_r8_bulk2_pk_ps_db,$PSD,probe_nocopy \
  timeout -s INT "$(cap 30)" $W/wgmma_probe --kernels $W/kernels \
    --mma-kernels $W/mma-kernels --out "$O/forms" --phase mma --sizes 8192 --rounds 8 \
    > "$O/mma.txt" 2>&1)
log "probe rc=$?"; grep -E "^time|FAIL|ERROR|BUILD" "$O/mma.txt" | cut -c1-180 | head -20
for f in "$O"/forms/*-build.txt; do
  n=$(basename "$f" -build.txt)
  echo "$n: $(grep -A3 "Function properties for $n\$" "$f" | grep -E 'registers|spill' | tr '\n' ' ')"
done > "$O/build-logs-regs.txt"; rm -f "$O"/forms/*.ptx; pack
timeout -s INT "$(cap 20)" python3 $W/cublas_f16.py "$O/cublas.json" 8192 > "$O/cublas.txt" 2>&1
log "cublas rc=$?"; grep -h median "$O/cublas.txt"; pack
gemm wgmma "" 60
for f in "$O"/gemm-*.json; do
  [ -f "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9a-z]" "${f%.json}.md" | cut -c1-110 | head -3
done | tee "$O/summary.txt"
grep -hE "FAILED  \]" "$O"/ops-*.txt 2>/dev/null | head -20
gzip -f "$O"/*.json 2>/dev/null
pack
log "done"
