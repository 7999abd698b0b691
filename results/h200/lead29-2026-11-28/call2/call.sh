#!/usr/bin/env bash
# Merged main on NVIDIA, one call: DeepFM full (events read after the sample, new, against the
# reading at every sync, atsync; the ladder and PyTorch's strongest variants beside it).
set -u
B=build-head/.gpu
O=$OUT/head
mkdir -p "$O"
export BUNDLE=$B
S=$B/gpu-run.sh
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" >> "$O/call.log"; }
MODEL=deepfm STAGES=preallocated-loss,amp TESTS='' \
  VARIANTS="new atsync:STAGEBENCH_EVENTS_AT_SYNC=1" \
  RUN_ARGS="--max-time 4 --max-samples 400 --warmup 1 --no-ceilings" LIMIT=45 \
  bash scripts/gpu.sh check --out "$O" --dir check > "$O/check.log" 2>&1
log "check rc=$?"
timeout -s INT 60 $S run deepfm --size full --backend opencl --max-time 2 --max-samples 400 \
  -o "$O/deepfm-full-opencl.json" > "$O/deepfm-run.log" 2>&1
log "deepfm run rc=$?"
# the script itself: `stagebench peer --variants` adds to a block already there only
timeout -s INT 75 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph,fp32-eager,amp-fp16 --deadline-s 60 --variant-budget-s 50 \
  --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
log "deepfm peer rc=$?"
for m in deepfm; do
  $S report "$O/$m-full-opencl.json" > "$O/$m-full-opencl.md" 2>> "$O/call.log"
done
tar czf "$OUT/head.tar.gz" -C "$OUT" head
