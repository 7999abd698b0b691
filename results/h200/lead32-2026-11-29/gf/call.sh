#!/usr/bin/env bash
# lead32 call L: Geneformer full with LayerNorm kernels sized to the row (layernorm_rows_vec8_1
# for 256-wide rows), against the lanes kernel of the same build (STAGEBENCH_ROW_KERNELS=lanes:
# add_layernorm_rows, which took the same 0.127 ms a call as the one vec8 kernel before,
# results/h200/lead30-2026-11-28/geneformer), beside PyTorch's compile-bf16-sdpa in the same call.
set -u
N=build-l32/.gpu
O=$OUT/gf
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  STAGEBENCH_CL_BUILD_LOG=1 timeout -s INT 80 $N/ops_test \
  --gtest_filter='Backends/OpTable.MatchesTheReference/opencl_layernorm:Backends/OpTable.MatchesTheReference/opencl_add_layernorm' \
  > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/ops_test.txt" | head
grep -A2 "entry function '\(layernorm_rows_vec8\|add_layernorm_rows\)" "$O/ops_test.txt" \
  > "$O/ptxas-layernorm.txt"
cat "$O/ptxas-layernorm.txt"
ladder() {  # name, env
  env $2 timeout -s INT 80 $N/gpu-run.sh run geneformer --size full --backend opencl \
    --stages engine-fp16 --max-time 3 -o "$O/geneformer-full-$1.json" > "$O/run-$1.log" 2>&1
  log "geneformer $1 rc=$?"
}
ladder new STAGEBENCH_ROW_KERNELS=vec
ladder lanes STAGEBENCH_ROW_KERNELS=lanes
tl="$O/timeline-new"
timeout -s INT 40 $N/gpu-run.sh run geneformer --size full --backend opencl --stages engine-fp16 \
  --max-time 10 --max-samples 5 --warmup 2 -q -o "$tl.json" --timeline "$tl.trace.json" \
  > "$tl.txt" 2>&1
log "timeline new rc=$?"
PYTHONPATH=scripts python3 -m sbgpu kernels "$tl.trace.json" 40 > "$tl-kernels.txt" 2>&1 &&
  gzip -f "$tl.trace.json"
timeout -s INT 100 python3 scripts/reference/torch_kernels.py torch --model geneformer \
  --size full --variant compile-bf16-sdpa --json "$O/torch-geneformer.json" \
  > "$O/torch-geneformer.txt" 2>&1
log "torch geneformer rc=$?"
for f in "$O"/geneformer-full-*.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -4 | cut -c1-100
done
awk '/engine-fp16/,0' "$tl-kernels.txt" 2>/dev/null | head -12
grep -h "one call" "$O"/torch-*.txt
tar czf "$OUT/gf.tar.gz" -C "$OUT" gf && rm -rf "$O"
