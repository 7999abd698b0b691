#!/usr/bin/env bash
# lead31 call A: DeepFM full with the coalesced packs, split-K wgmma products and thin-K products
# on the small kernel (new, build-a31) against the bundle before them (old, build-g30: 41d3c83),
# and with only the split off (STAGEBENCH_GEMM_SPLIT_K=off), beside PyTorch's strongest variant
# and its kernels a step, all in one call. The NVIDIA gemm tests go first: their process meets
# the cold program builds, which NVIDIA's cache then keeps for the ladders.
set -u
N=build-a31/.gpu
OLD=build-g30/.gpu
O=$OUT/dfm
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  timeout -s INT 150 $N/ops_test --gtest_filter='OpsOpenCL.BatchedGemm*:OpsOpenCL.Narrow*:OpsOpenCL.SplitK*:OpsOpenCLClblast.Narrow*:Backends/OpTable.MatchesTheReference/opencl_gemm_batched' \
  > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|SKIPPED \]" "$O/ops_test.txt" | head
STAGES=baseline,vectorized-fm,batched-transfer,preallocated-loss,amp,dataloader,autotune
ladder() {  # bundle name [env...]
  local b=$1 name=$2
  shift 2
  env "$@" timeout -s INT 90 $b/gpu-run.sh run deepfm --size full --backend opencl --max-time 3 \
    --max-samples 600 --stages $STAGES -o "$O/deepfm-full-$name.json" > "$O/run-$name.log" 2>&1
  log "deepfm $name rc=$?"
}
timeout -s INT 100 $OLD/gpu-run.sh run deepfm --size full --backend opencl --stages baseline,amp \
  --max-time 0.5 -q -o "$O/warmup-old.json" > "$O/warmup-old.log" 2>&1
log "warm-up old rc=$?"
ladder $N new
ladder $OLD old
ladder $N split-off STAGEBENCH_GEMM_SPLIT_K=off
ladder $N new2
timeout -s INT 85 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph,fp32-eager,amp-fp16 --deadline-s 70 --variant-budget-s 55 \
  --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
log "deepfm peer rc=$?"
timeout -s INT 90 python3 scripts/reference/torch_kernels.py torch --model deepfm --size full \
  --variant compile-cuda-graph --json "$O/torch-deepfm.json" > "$O/torch-deepfm.txt" 2>&1
log "torch kernels rc=$?"
for b in new old; do
  B=$N; [ $b = old ] && B=$OLD
  f="$O/timeline-$b"
  timeout -s INT 90 $B/gpu-run.sh run deepfm --size full --backend opencl --stages amp,autotune \
    --max-time 10 --max-samples 10 --warmup 2 -q -o "$f.json" --timeline "$f.trace.json" \
    > "$f.txt" 2>&1
  log "timeline $b rc=$?"
  PYTHONPATH=scripts python3 -m sbgpu kernels "$f.trace.json" 40 > "$f-kernels.txt" 2>&1 &&
    gzip -f "$f.trace.json"
done
for f in "$O"/deepfm-full-*.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -8 | cut -c1-100
done
grep -E "^peer " "$O/deepfm-peer.log"
tail -5 "$O/torch-deepfm.txt"
tar czf "$OUT/dfm.tar.gz" -C "$OUT" dfm && rm -rf "$O"
