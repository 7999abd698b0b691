#!/usr/bin/env bash
# lead32 call N: the merged main (dfm32, enf32, dyn32 and lead32's LayerNorm) on NVIDIA: the op
# table's OpenCL cases and the OpenCL internals tests (enf32's call ran out of time before its
# new cases), then each ladder's stage 0 and best stage (their checks against stage 0), and one
# LayerNorm variant (gamma and beta read before the reductions, STAGEBENCH_CL_SOURCE_DIR).
set -u
N=build-fin/.gpu
O=$OUT/fin
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
left() { echo $((440 - ($(date +%s) - t0))); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  timeout -s INT 200 $N/ops_test \
  --gtest_filter='Backends/OpTable.MatchesTheReference/opencl_*:OpsOpenCL*.*' \
  > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|^\[==========\]" "$O/ops_test.txt" | head -20
run() {  # name, seconds, args...
  local name=$1 t=$2; shift 2
  [ "$(left)" -gt "$t" ] || { log "skip $name (left $(left) s)"; return; }
  timeout -s INT "$t" $N/gpu-run.sh run "$@" -o "$O/$name.json" > "$O/$name.log" 2>&1
  log "$name rc=$?"
}
run geneformer-full 40 geneformer --size full --backend opencl --stages engine-fp16 --max-time 3
STAGEBENCH_CL_SOURCE_DIR=build-fin/lnvar run geneformer-full-hoist 30 geneformer --size full \
  --backend opencl --stages engine-fp16 --max-time 3
run enformer-full 60 enformer --size full --backend opencl --stages bf16 --max-time 3
run deepfm-full 45 deepfm --size full --backend opencl --stages amp,autotune --max-time 3 \
  --max-samples 600
run dynunet-full 90 dynunet --size full --backend opencl --stages compile,dataloader --repeat 1 \
  --max-time 8
for f in "$O"/*-full*.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -8 | cut -c1-110
done
tar czf "$OUT/fin.tar.gz" -C "$OUT" fin && rm -rf "$O"
