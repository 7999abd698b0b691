#!/usr/bin/env bash
# lead34 call A1: dyn33's merged check (conv_lines and inorm vec4 on/off, timelines, cuDNN) on
# main at the bundle's commit, then PyTorch's DynUNet peer (compile-fp16, training + inference)
# with the time left. Packs everything into one archive.
set -u
B=build-a/.gpu
O=$OUT/a1
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
. "$B/nvidia-opencl-env.sh"
gpu_facts "$O/gpu.txt"
log "clocks at the start: $(gpu_clocks)"
. results/h200/dyn33-2026-11-29/merged-call.sh
dyn33_call "$B" "$O/dyn"
log "dyn33 done"
T=560
left=$((T - ($(date +%s) - t0) - 15))
log "peer deadline ${left}s"
if [ "$left" -ge 40 ]; then
  timeout -s INT "$left" python3 scripts/reference/dynunet_torch.py peer --size full \
    --device cuda --variants compile-fp16 --deadline-s $((left - 10)) --variant-budget-s $((left - 10)) \
    --peer-json "$O/dynunet-peer.json" > "$O/dynunet-peer.log" 2>&1
  log "peer rc=$?"
  tail -8 "$O/dynunet-peer.log"
fi
for n in new old; do grep -E "^\| [0-9]" "$O/dyn/dynunet-$n.md" 2>/dev/null | cut -c1-120; done
log "clocks at the end: $(gpu_clocks)"
tar czf "$OUT/a1.tar.gz" -C "$OUT" a1 && rm -rf "$O"
