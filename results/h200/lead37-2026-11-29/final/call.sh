#!/usr/bin/env bash
# lead37's final call: the merged main (mma37, gfcpu37, dfmcpu37 and lead37's knob readers) on
# NVIDIA, in one call: each ladder's best stage beside PyTorch's strongest variant, the GEMM's
# fp16 and tf32 stages (and fp16 on mma.sync alone, STAGEBENCH_WGMMA=off) beside cuBLAS, then
# the NVIDIA tests of what changed, last, when the driver's program cache is warm. Adapted from
# results/h200/lead36-2026-11-29/final/call.sh (each step capped by what is left of T less a
# reserve, the later steps' usual times; a PyTorch step needs 20 s at least, so its cap is never
# set below that). T=470 PART=1 bash results/h200/lead37-2026-11-29/final/call.sh
set -u
N=build-fin/.gpu
PART=${PART:-1}
O=$OUT/fin$PART
T=${T:-470}
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
left() { echo $((T - ($(date +%s) - t0))); }
cap() { local l=$(($(left) - $2)); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }  # MAX RESERVE
. $N/nvidia-opencl-env.sh
gpu_facts "$O/gpu.txt"
log "clocks at the start: $(gpu_clocks)"
run() {  # name, seconds, reserve, args...
  local name=$1 t; t=$(cap "$2" "$3"); shift 3
  [ "$t" -ge 15 ] || { log "skip $name (left $(left) s)"; return; }
  timeout -s INT "$t" $N/gpu-run.sh run "$@" -o "$O/$name.json" > "$O/$name.log" 2>&1
  log "$name rc=$? (limit $t s)"
}
torch() {  # name, seconds, reserve, command...
  local name=$1 t; t=$(cap "$2" "$3"); shift 3
  [ "$t" -ge 20 ] || { log "skip $name (left $(left) s)"; return; }
  timeout -s INT "$t" "$@" > "$O/$name.log" 2>&1
  log "$name rc=$? (limit $t s)"
}
run geneformer-full 30 435 geneformer --size full --backend opencl --stages engine-fp16 \
  --max-time 3
torch torch-geneformer 40 400 python3 scripts/reference/torch_kernels.py torch \
  --model geneformer --size full --variant compile-bf16-sdpa --json "$O/torch-geneformer.json"
run deepfm-full 30 380 deepfm --size full --backend opencl --stages autotune --max-time 3 \
  --max-samples 600
torch deepfm-peer 45 335 python3 scripts/reference/deepfm_torch.py peer --size full \
  --device cuda --variants compile-cuda-graph --deadline-s 42 --variant-budget-s 40 \
  --peer-json "$O/deepfm-peer.json"
run gemm-8192 35 305 gemm --size 8192x8192x8192 --backend opencl --stages fp16,tf32 --max-time 3
(export STAGEBENCH_WGMMA=off  # the mma.sync path alone (issue 27's >= 450 TFLOP/s)
  run gemm-8192-mma 30 280 gemm --size 8192x8192x8192 --backend opencl --stages fp16 --max-time 3)
torch cublas 25 260 sh -c "python3 probes/wgmma/cublas_f16.py $O/cublas.json 8192 &&
  python3 scripts/reference/gemm_ceilings.py"
run enformer-full 45 225 enformer --size full --backend opencl --stages bf16 --max-time 3
torch torch-enformer 50 180 python3 scripts/reference/torch_kernels.py torch --model enformer \
  --size full --variant compile-bf16 --json "$O/torch-enformer.json"
run dynunet-full 90 120 dynunet --size full --backend opencl --stages dataloader,graph-replay \
  --repeat 1 --max-time 3
torch dynunet-peer 85 40 python3 scripts/reference/dynunet_torch.py peer --size full \
  --device cuda --variants compile-fp16 --deadline-s 80 --variant-budget-s 80 \
  --peer-json "$O/dynunet-peer.json"
C=Backends/OpTable.MatchesTheReference/opencl_
F="ReadWhenMade/OpsOpenCLKnobs.*:PipeVariants.*:WgmmaVariants.*:OpsOpenCL.LayerNormBackward*"
F="$F:OpsOpenCL.Conv1d*:${C}linear:${C}gemm_batched:${C}conv1d:${C}layernorm_backward"
F="$F:OpsOpenCL.ConvWeightGrad*"
(nvidia_opencl_env $N/lib &&
  timeout -s INT "$(cap 60 0)" $N/ops_test --gtest_filter="$F" > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|^\[==========\]" "$O/ops_test.txt" | head -20
for f in "$O"/*-full*.json "$O"/gemm-8192*.json; do
  [ -s "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -4 | cut -c1-110
done
grep -h "one call" "$O"/torch-*.log 2>/dev/null | cut -c1-160
grep -hE "^peer " "$O"/*-peer.log 2>/dev/null
tail -4 "$O/cublas.log" 2>/dev/null
log "clocks at the end: $(gpu_clocks)"
tar czf "$OUT/fin$PART.tar.gz" -C "$OUT" "fin$PART" && rm -rf "$O"
