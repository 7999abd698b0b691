#!/usr/bin/env bash
# lead31 call D: the merged main (lead31's GEMM changes and dyn31's tap-staged bf16 weight
# gradients, on by default) on DynUNet full beside PyTorch's compile-fp16 (its best in lead30's
# call) in the same call, and DeepFM's f16 stages as a check of the refactored kernel choice.
set -u
N=build-d31/.gpu
O=$OUT/final
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
timeout -s INT 170 $N/gpu-run.sh run dynunet --size full --backend opencl \
  --stages baseline,dataloader --repeat 1 --max-time 12 -o "$O/dynunet-full.json" \
  > "$O/dynunet-run.log" 2>&1
log "dynunet rc=$?"
timeout -s INT 40 $N/gpu-run.sh run deepfm --size full --backend opencl --stages amp,autotune \
  --max-time 2 --max-samples 400 -o "$O/deepfm-full.json" > "$O/deepfm-run.log" 2>&1
log "deepfm rc=$?"
timeout -s INT 165 python3 scripts/reference/dynunet_torch.py peer --size full --device cuda \
  --variants compile-fp16 --deadline-s 155 --variant-budget-s 150 \
  --peer-json "$O/dynunet-peer.json" > "$O/dynunet-peer.log" 2>&1
log "dynunet peer rc=$?"
for f in "$O"/dynunet-full.json "$O"/deepfm-full.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -8 | cut -c1-100
done
tail -8 "$O/dynunet-peer.log"
tar czf "$OUT/final.tar.gz" -C "$OUT" final && rm -rf "$O"
