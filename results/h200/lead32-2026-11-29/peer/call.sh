#!/usr/bin/env bash
# lead32 call O: the merged main's DeepFM and Enformer beside PyTorch's best variants in the same
# call (DeepFM: ours, PyTorch's peer, ours again; Enformer: ours, then PyTorch compile-bf16).
set -u
N=build-fin/.gpu
O=$OUT/peer
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
dfm() {
  timeout -s INT 60 $N/gpu-run.sh run deepfm --size full --backend opencl --stages amp,autotune \
    --max-time 3 --max-samples 600 -o "$O/deepfm-full-$1.json" > "$O/deepfm-$1.log" 2>&1
  log "deepfm $1 rc=$?"
}
dfm a
timeout -s INT 90 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph,amp-fp16 --deadline-s 80 --variant-budget-s 60 \
  --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
log "deepfm peer rc=$?"
dfm b
timeout -s INT 60 $N/gpu-run.sh run enformer --size full --backend opencl --stages bf16 \
  --max-time 3 -o "$O/enformer-full.json" > "$O/enformer.log" 2>&1
log "enformer rc=$?"
timeout -s INT 100 python3 scripts/reference/torch_kernels.py torch --model enformer --size full \
  --variant compile-bf16 --json "$O/torch-enformer.json" > "$O/torch-enformer.txt" 2>&1
log "torch enformer rc=$?"
for f in "$O"/*-full*.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -4 | cut -c1-100
done
grep -E "^peer " "$O/deepfm-peer.log"
grep -h "one call" "$O"/torch-*.txt
tar czf "$OUT/peer.tar.gz" -C "$OUT" peer && rm -rf "$O"
