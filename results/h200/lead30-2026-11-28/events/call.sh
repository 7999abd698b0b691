#!/usr/bin/env bash
# lead30 call D: what the per-command profiling events cost the host. DeepFM full (host-bound:
# its step is 3.1 ms for 1.6 ms of device commands) with STAGEBENCH_CL_EVENTS=on and =off in
# ABBA order after a warm-up process (the cold program builds), and Geneformer full engine-fp16
# (device-bound) once each. Off reports no device time; the step's time is what is compared.
set -u
B=build-d30/.gpu
O=$OUT/ev
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
S=$B/gpu-run.sh
timeout -s INT 150 $S run deepfm --size full --backend opencl --stages baseline,amp --max-time 0.5 \
  -q -o "$O/warmup.json" > "$O/warmup.log" 2>&1
log "warm-up rc=$?"
i=0
for ev in on off off on; do
  i=$((i + 1))
  STAGEBENCH_CL_EVENTS=$ev timeout -s INT 60 $S run deepfm --size full --backend opencl \
    --stages baseline,preallocated-loss,amp --max-time 2 --max-samples 400 -q \
    -o "$O/deepfm-$i-$ev.json" > "$O/deepfm-$i-$ev.log" 2>&1
  log "deepfm $i events $ev rc=$?"
done
for ev in on off; do
  STAGEBENCH_CL_EVENTS=$ev timeout -s INT 90 $S run geneformer --size full --backend opencl \
    --stages engine-fp16 --max-time 3 -q -o "$O/geneformer-$ev.json" > "$O/geneformer-$ev.log" 2>&1
  log "geneformer events $ev rc=$?"
done
for f in "$O"/deepfm-*.json "$O"/geneformer-*.json; do
  $S report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -4 | cut -c1-100
done
tar czf "$OUT/ev.tar.gz" -C "$OUT" ev && rm -rf "$O"
