#!/usr/bin/env bash
# lead30 call E: the method with timed samples free of profiling events (device samples after
# them), on DeepFM full beside PyTorch's strongest in the same call, then Geneformer full.
set -u
B=build-e30/.gpu
O=$OUT/me
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
S=$B/gpu-run.sh
timeout -s INT 150 $S run deepfm --size full --backend opencl --stages baseline,amp --max-time 0.5 \
  -q -o "$O/warmup.json" > "$O/warmup.log" 2>&1
log "warm-up rc=$?"
timeout -s INT 90 $S run deepfm --size full --backend opencl --max-time 2 --max-samples 400 \
  --stages baseline,vectorized-fm,batched-transfer,preallocated-loss,amp,dataloader,autotune \
  -o "$O/deepfm-full-opencl.json" > "$O/deepfm-run.log" 2>&1
log "deepfm rc=$?"
timeout -s INT 85 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph,fp32-eager,amp-fp16 --deadline-s 70 --variant-budget-s 55 \
  --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
log "deepfm peer rc=$?"
timeout -s INT 100 $S run geneformer --size full --backend opencl --stages engine-fp16,engine-int8 \
  --max-time 3 -q -o "$O/geneformer-full-opencl.json" > "$O/geneformer-run.log" 2>&1
log "geneformer rc=$?"
for f in "$O"/deepfm-full-opencl.json "$O"/geneformer-full-opencl.json; do
  $S report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -8 | cut -c1-110
done
grep -E "^peer " "$O/deepfm-peer.log"
tar czf "$OUT/me.tar.gz" -C "$OUT" me && rm -rf "$O"
