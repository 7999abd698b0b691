#!/usr/bin/env bash
# dyn34's device call (issue 27), run from the root of /work/main with build-dyn34 carried
# (the bundle of branch dyn34 in .gpu, its probes/conv3d beside it):
#   1. DynUNet full's whole ladder (the default stage list) with a --timeline sample of every
#      stage: the stages' checks, "no stage slower than stage 0", and the per-kernel truth of
#      the dataloader stage and of its forward (what the inference pass runs);
#   2. cuDNN (bf16, channels_last_3d, benchmark on) on every forward convolution of the network
#      and on the three 16-channel shapes, joined with our per-call times (forward_shapes.py);
#   3. PyTorch's peer, compile-fp16, training and inference, with what is left.
# Everything lands in one archive, d34.tar.gz.
set -u
B=build-dyn34/.gpu
P=build-dyn34/probes/conv3d
O=$OUT/d34
T=${T:-190}
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
left() { echo $((T - ($(date +%s) - t0))); }
. "$B/nvidia-opencl-env.sh"
gpu_facts "$O/gpu.txt"
log "clocks at the start: $(gpu_clocks)"
f="$O/dynunet-full"
timeout -s INT -k 10 130 "$B/gpu-run.sh" run dynunet --size full --backend opencl --repeat 1 \
  --max-time 6 -q -o "$f.json" --timeline "$O/timeline.trace.json" > "$f.log" 2>&1
log "ladder rc=$?"
[ -s "$f.json" ] && "$B/gpu-run.sh" report "$f.json" > "$f.md" 2>> "$O/call.log"
PYTHONPATH=scripts python3 -m sbgpu kernels "$O/timeline.trace.json" 40 > "$O/timeline-kernels.txt" 2>&1
python3 "$P/forward_kernels.py" "$O/timeline.trace.json" dataloader \
  > "$O/timeline-forward.txt" 2>&1
timeout -s INT 30 python3 "$P/cudnn_conv_time.py" --all > "$O/cudnn-all.tsv" 2>&1
log "cudnn --all rc=$?"
timeout -s INT 15 python3 "$P/cudnn_conv_time.py" > "$O/cudnn.txt" 2>&1
log "cudnn rc=$?"
python3 "$P/forward_shapes.py" "$O/timeline.trace.json" dataloader "$O/cudnn-all.tsv" \
  > "$O/forward-shapes.txt" 2>&1
gzip -f "$O/timeline.trace.json"
l=$(($(left) - 8))
log "peer deadline ${l}s"
if [ "$l" -ge 40 ]; then
  timeout -s INT "$l" python3 scripts/reference/dynunet_torch.py peer --size full \
    --device cuda --variants compile-fp16 --deadline-s $((l - 5)) --variant-budget-s $((l - 5)) \
    --peer-json "$O/dynunet-peer.json" > "$O/dynunet-peer.log" 2>&1
  log "peer rc=$?"
  tail -3 "$O/dynunet-peer.log"
fi
grep -E "^\| [0-9]" "$f.md" 2>/dev/null | cut -c1-110
cat "$O/forward-shapes.txt"
log "clocks at the end: $(gpu_clocks)"
tar czf "$OUT/d34.tar.gz" -C "$OUT" d34 && rm -rf "$O"
