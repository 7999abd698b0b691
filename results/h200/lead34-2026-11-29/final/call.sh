#!/usr/bin/env bash
# lead34's final call: the merged main (lead34's defaults, and the helpers' branches merged) on
# NVIDIA: the op table's OpenCL cases and the OpenCL tests, then each ladder's best stage beside
# PyTorch's best variant of earlier peer blocks, in the same call. Adapted from
# results/h200/lead32-2026-11-29/final/call.sh. Every step is capped by what is left of T.
set -u
N=build-fin/.gpu
O=$OUT/fin
T=${T:-420}
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
left() { echo $((T - ($(date +%s) - t0))); }
cap() { local l=$(($(left) - $2)); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }  # MAX RESERVE
. $N/nvidia-opencl-env.sh
gpu_facts "$O/gpu.txt"
log "clocks at the start: $(gpu_clocks)"
(nvidia_opencl_env $N/lib &&
  timeout -s INT "$(cap 100 300)" $N/ops_test \
  --gtest_filter='Backends/OpTable.MatchesTheReference/opencl_*:OpsOpenCL*.*' \
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
run enformer-full 60 260 enformer --size full --backend opencl --stages bf16 --max-time 3
torch torch-enformer 60 200 python3 scripts/reference/torch_kernels.py torch --model enformer \
  --size full --variant compile-bf16 --json "$O/torch-enformer.json"
run geneformer-full 30 170 geneformer --size full --backend opencl --stages engine-fp16 --max-time 3
torch torch-geneformer 50 120 python3 scripts/reference/torch_kernels.py torch --model geneformer \
  --size full --variant compile-bf16-sdpa --json "$O/torch-geneformer.json"
run dynunet-full 40 80 dynunet --size full --backend opencl --stages dataloader --repeat 1 --max-time 4
torch dynunet-peer 80 0 python3 scripts/reference/dynunet_torch.py peer --size full --device cuda \
  --variants compile-fp16 --deadline-s 72 --variant-budget-s 72 --peer-json "$O/dynunet-peer.json"
for f in "$O"/*-full*.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -4 | cut -c1-110
done
grep -h "one call" "$O"/torch-*.log | cut -c1-160
grep -E "^peer " "$O/dynunet-peer.log"
log "clocks at the end: $(gpu_clocks)"
tar czf "$OUT/fin.tar.gz" -C "$OUT" fin && rm -rf "$O"
