#!/usr/bin/env bash
# lead32 call M: LayerNorm on NVIDIA a warp a row (layernorm_rows_warp_*, shfl.sync sums) against
# the portable 16-byte kernel of the same build (STAGEBENCH_LAYERNORM_WARP=off), Geneformer full,
# beside PyTorch's compile-bf16-sdpa in the same call; ptxas -v on the programs' PTX.
set -u
N=build-l32b/.gpu
O=$OUT/gfm
mkdir -p "$O/bin"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  STAGEBENCH_CL_BINARIES="$O/bin" timeout -s INT 90 $N/ops_test \
  --gtest_filter='Backends/OpTable.MatchesTheReference/opencl_layernorm:Backends/OpTable.MatchesTheReference/opencl_add_layernorm:OpsOpenCLSources.*' \
  > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/ops_test.txt" | head
ls -la "$O/bin"
export PATH=$PATH:/usr/local/cuda/bin
ptx() {  # program, entries...
  local p=$1; shift
  [ -f "$O/bin/$p.bin" ] || { log "no $p.bin"; return; }
  cp "$O/bin/$p.bin" "$O/bin/$p.ptx"
  local args=(); for e in "$@"; do args+=(-e "$e"); done
  timeout 60 ptxas -v --gpu-name sm_90a "${args[@]}" -o /dev/null "$O/bin/$p.ptx" \
    >> "$O/ptxas-layernorm.txt" 2>&1 || log "ptxas $p rc=$?"
}
ptx portable layernorm_rows_vec8_1 layernorm_rows_vec8_2 add_layernorm_rows
ptx nvidia_mma layernorm_rows_warp_1 layernorm_rows_warp_2
cat "$O/ptxas-layernorm.txt"
ladder() {  # name, env
  env $2 timeout -s INT 80 $N/gpu-run.sh run geneformer --size full --backend opencl \
    --stages engine-fp16 --max-time 3 -o "$O/geneformer-full-$1.json" > "$O/run-$1.log" 2>&1
  log "geneformer $1 rc=$?"
}
ladder warp STAGEBENCH_LAYERNORM_WARP=on
ladder vec8 STAGEBENCH_LAYERNORM_WARP=off
ladder warp2 STAGEBENCH_LAYERNORM_WARP=on
tl="$O/timeline-warp"
timeout -s INT 40 $N/gpu-run.sh run geneformer --size full --backend opencl --stages engine-fp16 \
  --max-time 10 --max-samples 3 --warmup 2 -q -o "$tl.json" --timeline "$tl.trace.json" \
  > "$tl.txt" 2>&1
log "timeline warp rc=$?"
PYTHONPATH=scripts python3 -m sbgpu kernels "$tl.trace.json" 40 > "$tl-kernels.txt" 2>&1 &&
  gzip -f "$tl.trace.json"
timeout -s INT 80 python3 scripts/reference/torch_kernels.py torch --model geneformer \
  --size full --variant compile-bf16-sdpa --json "$O/torch-geneformer.json" \
  > "$O/torch-geneformer.txt" 2>&1
log "torch geneformer rc=$?"
for f in "$O"/geneformer-full-*.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -4 | cut -c1-100
done
awk '/engine-fp16/,0' "$tl-kernels.txt" 2>/dev/null | head -10
grep -h "one call" "$O"/torch-*.txt
rm -f "$O"/bin/*.bin "$O"/bin/*.ptx
tar czf "$OUT/gfm.tar.gz" -C "$OUT" gfm && rm -rf "$O"
