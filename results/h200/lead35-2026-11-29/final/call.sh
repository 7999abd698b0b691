#!/usr/bin/env bash
# lead35's final call: the merged main (gemm35, dfm35, cpu35, replay35 and the convert op) on
# NVIDIA: the new NVIDIA tests, then each ladder's best stage beside PyTorch's strongest variant,
# and the GEMM beside cuBLAS, in the same call. Adapted from
# results/h200/lead34-2026-11-29/final/call.sh. Every step is capped by what is left of T.
set -u
N=build-fin/.gpu
O=$OUT/fin
T=${T:-540}
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
left() { echo $((T - ($(date +%s) - t0))); }
cap() { local l=$(($(left) - $2)); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }  # MAX RESERVE
. $N/nvidia-opencl-env.sh
gpu_facts "$O/gpu.txt"
log "clocks at the start: $(gpu_clocks)"
C=Backends/OpTable.MatchesTheReference/opencl_
(nvidia_opencl_env $N/lib &&
  timeout -s INT "$(cap 90 440)" $N/ops_test \
  --gtest_filter="${C}convert:${C}activation_dropout:${C}dropout_activation_backward:${C}layernorm:${C}linear:OpsOpenCL.NoticedProducers*:OpsOpenCL.HeadsBias*:OpsOpenCL.LaunchList*:LaunchList.*" \
  > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|^\[==========\]" "$O/ops_test.txt" | head -20
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
run enformer-full 60 380 enformer --size full --backend opencl --stages bf16 --max-time 3
torch torch-enformer 55 325 python3 scripts/reference/torch_kernels.py torch --model enformer \
  --size full --variant compile-bf16 --json "$O/torch-enformer.json"
run geneformer-full 30 295 geneformer --size full --backend opencl --stages engine-fp16 --max-time 3
torch torch-geneformer 45 250 python3 scripts/reference/torch_kernels.py torch --model geneformer \
  --size full --variant compile-bf16-sdpa --json "$O/torch-geneformer.json"
run dynunet-full 50 200 dynunet --size full --backend opencl --stages dataloader,graph-replay \
  --repeat 1 --max-time 3
torch dynunet-peer 80 120 python3 scripts/reference/dynunet_torch.py peer --size full --device cuda \
  --variants compile-fp16 --deadline-s 75 --variant-budget-s 75 --peer-json "$O/dynunet-peer.json"
run deepfm-full 30 90 deepfm --size full --backend opencl --stages autotune --max-time 3 \
  --max-samples 600
torch deepfm-peer 50 40 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph --deadline-s 45 --variant-budget-s 42 \
  --peer-json "$O/deepfm-peer.json"
run gemm-8192 22 18 gemm --size 8192x8192x8192 --backend opencl --stages fp16 --max-time 3
torch cublas 16 0 python3 probes/wgmma/cublas_f16.py "$O/cublas.json" 8192
for f in "$O"/*-full*.json "$O"/gemm-8192.json; do
  [ -s "$f" ] || continue
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -4 | cut -c1-110
done
grep -h "one call" "$O"/torch-*.log | cut -c1-160
grep -hE "^peer " "$O/dynunet-peer.log" "$O/deepfm-peer.log"
tail -3 "$O/cublas.log"
log "clocks at the end: $(gpu_clocks)"
tar czf "$OUT/fin.tar.gz" -C "$OUT" fin && rm -rf "$O"
