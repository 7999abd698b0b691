#!/usr/bin/env bash
# lead40 call 2: NVIDIA's op table with wgmma off again (call 1 gave it 60 s; it needs ~90 on a
# cold machine, its conv tests first), then the fp16 stage with every mma.sync candidate once more.
#   BUDGET=175 bash build-lead40/call2.sh "$OUT"
set -u
OUT=${1:?out}
N=build-lead40/.gpu
O=$OUT/lead40c2
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-175}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() { local left=$((BUDGET - ($(date +%s) - t0) - 6)); echo $((left < 1 ? 1 : ($1 < left ? $1 : left))); }
pack() { tar czf "$OUT/lead40c2.tar.gz" -C "$OUT" lead40c2 2>/dev/null; }
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib && export STAGEBENCH_WGMMA=off &&
  timeout -s INT "$(cap 140)" $N/ops_test --gtest_filter='*opencl*:OpsOpenCL.*:PipeVariants.*:WgmmaVariants.*' \
    > "$O/ops-mma.txt" 2>&1)
log "ops_test mma (STAGEBENCH_WGMMA=off) rc=$? $(grep -hE '^\[  (PASSED|FAILED) ' "$O/ops-mma.txt" | tr '\n' ' ')"
grep -hE "FAILED  \]" "$O/ops-mma.txt" | head; gzip -f "$O/ops-mma.txt"; pack
STAGEBENCH_WGMMA=off timeout -s INT "$(cap 25)" $N/gpu-run.sh run gemm --size 8192x8192x8192 \
  --backend opencl --stages fp16 --max-time 3 -q -o "$O/gemm-mma-all.json" \
  --timeline "$O/gemm-mma-all.trace.json" > "$O/gemm-mma-all.log" 2>&1
log "gemm mma-all rc=$?"
PYTHONPATH=$N python3 -m sbgpu kernels "$O/gemm-mma-all.trace.json" 8 > "$O/gemm-mma-all-kernels.txt" 2>&1
rm -f "$O/gemm-mma-all.trace.json"; cat "$O/gemm-mma-all-kernels.txt"
$N/gpu-run.sh report "$O/gemm-mma-all.json" > "$O/gemm-mma-all.md" 2>&1; gzip -f "$O"/*.json; pack
log done
