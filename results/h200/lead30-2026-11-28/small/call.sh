#!/usr/bin/env bash
# lead30 call G: the small kernel's lanes and the narrow reduced-precision route on DeepFM full,
# beside PyTorch's CUDA-graph variant in the same call. The NVIDIA gemm tests go first: their
# process meets the cold program builds, which NVIDIA's cache then keeps for the ladder.
set -u
B=build-g30/.gpu
O=$OUT/sm
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
. $B/nvidia-opencl-env.sh && nvidia_opencl_env $B/lib
timeout -s INT 120 $B/ops_test --gtest_filter='OpsOpenCL.BatchedGemm*:OpsOpenCL.Narrow*:OpsOpenCLClblast.Narrow*:Backends/OpTable.MatchesTheReference/opencl_gemm_batched' \
  > "$O/ops_test.txt" 2>&1
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|SKIPPED \]" "$O/ops_test.txt" | head
timeout -s INT 60 $B/gpu-run.sh run deepfm --size full --backend opencl --max-time 2 --max-samples 400 \
  --stages baseline,vectorized-fm,batched-transfer,preallocated-loss,amp,dataloader,autotune \
  -o "$O/deepfm-full-opencl.json" > "$O/deepfm-run.log" 2>&1
log "deepfm rc=$?"
timeout -s INT 60 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph --deadline-s 50 --variant-budget-s 45 \
  --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
log "deepfm peer rc=$?"
$B/gpu-run.sh report "$O/deepfm-full-opencl.json" > "$O/deepfm-full-opencl.md" 2>> "$O/call.log"
grep -E "^\| [0-9]" "$O/deepfm-full-opencl.md" | head -7 | cut -c1-100
grep -E "^peer " "$O/deepfm-peer.log"
tar czf "$OUT/sm.tar.gz" -C "$OUT" sm && rm -rf "$O"
