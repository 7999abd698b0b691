#!/usr/bin/env bash
# lead30 call C: DeepFM full on NVIDIA, this commit (new: flat optimizer state, f16 products
# without axpby and with one pack launch) against 5517d17 (old, build-h30) in the same call:
# the NVIDIA tests of the changed paths (first: they meet the cold program builds), a timeline
# sample each of preallocated-loss and amp, the ladder with each build, PyTorch's strongest.
set -u
N=build-c30/.gpu Old=build-h30/.gpu
O=$OUT/dfm
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
TESTS='OpsOpenCL.BatchedGemm*:OpsOpenCLClblast.*:Backends/OpTable.MatchesTheReference/opencl_gemm_batched*:Backends/OpTable.MatchesTheReference/opencl_adamw*:Backends/OpTable.MatchesTheReference/opencl_sum_squares*' \
  MODEL=deepfm STAGES=preallocated-loss,amp VARIANTS="new" \
  RUN_ARGS="--max-time 3 --max-samples 300 --warmup 1 --no-ceilings" LIMIT=230 BUNDLE=$N \
  bash scripts/gpu.sh check --out "$O" --dir check > "$O/check.log" 2>&1
log "check rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O"/check/ops_test-*.txt | head -12
for v in new; do grep -E "^## " "$O/check/timeline-$v-kernels.txt"; done
for b in new old; do
  B=$N; [ $b = old ] && B=$Old
  timeout -s INT 75 $B/gpu-run.sh run deepfm --size full --backend opencl --max-time 2 \
    --max-samples 400 --stages baseline,vectorized-fm,batched-transfer,preallocated-loss,amp,dataloader,autotune \
    -o "$O/deepfm-full-$b.json" > "$O/deepfm-$b.log" 2>&1
  log "deepfm $b rc=$?"
done
left=$((560 - ($(date +%s) - t0)))
d=$((left - 25)); [ $d -le 70 ] || d=70
if [ $d -ge 30 ]; then
  timeout -s INT $((d + 15)) python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
    --variants compile-cuda-graph,fp32-eager,amp-fp16 --deadline-s $d --variant-budget-s 55 \
    --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
  log "peer rc=$? (deadline ${d}s)"
fi
for b in new old; do
  $N/gpu-run.sh report "$O/deepfm-full-$b.json" > "$O/deepfm-full-$b.md" 2>> "$O/call.log"
  grep -E "^\| [0-9]" "$O/deepfm-full-$b.md" | head -8 | cut -c1-160
done
tail -5 "$O/deepfm-peer.log"
tar czf "$OUT/dfm.tar.gz" -C "$OUT" dfm && rm -rf "$O"
log done
