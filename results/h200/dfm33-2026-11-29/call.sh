#!/usr/bin/env bash
# dfm33: DeepFM full with the bias gradients on sum_axis1_split (on, the default) against the same
# bundle with STAGEBENCH_SUM_AXIS1=items (the item-per-column kernel, as before) in ABAB order,
# beside PyTorch's strongest variant; a timeline of the amp and autotune stages each way; the
# NVIDIA ops tests of the reduction and the products first; PyTorch's step by kernel last. Both
# ways skip the Gram FM's dS fill. Guards sized to the session's 314 s of device time left.
set -u
N=build-dfm33/.gpu
O=$OUT/dfm33
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  timeout -s INT 70 $N/ops_test --gtest_filter='OpsOpenCL.BatchedGemm*:OpsOpenCL.Noticed*:Backends/OpTable.MatchesTheReference/opencl_sum_axis1:Backends/OpTable.MatchesTheReference/opencl_gemm_batched:Backends/OpTable.MatchesTheReference/opencl_linear:Backends/OpTable.MatchesTheReference/opencl_adamw' \
  > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/ops_test.txt" | head
STAGES=baseline,vectorized-fm,batched-transfer,preallocated-loss,amp,dataloader,autotune
elapsed() { echo $(($(date +%s) - t0)); }
ladder() {  # name, then STAGEBENCH_SUM_AXIS1; skipped late in the call (its lease)
  [ "$(elapsed)" -lt 110 ] || { log "deepfm $1 skipped"; return; }
  STAGEBENCH_SUM_AXIS1=$2 timeout -s INT 40 $N/gpu-run.sh run deepfm --size full \
    --backend opencl --max-time 3 --max-samples 600 --stages $STAGES \
    -o "$O/deepfm-full-$1.json" > "$O/run-$1.log" 2>&1
  log "deepfm $1 rc=$?"
}
ladder on split
ladder off items
ladder on2 split
ladder off2 items
timeout -s INT 55 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph,fp32-eager,amp-fp16 --deadline-s 45 --variant-budget-s 35 \
  --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
log "deepfm peer rc=$?"
for k in split items; do
  [ "$(elapsed)" -lt 150 ] || { log "timeline $k skipped"; continue; }
  f="$O/timeline-$k"
  STAGEBENCH_SUM_AXIS1=$k timeout -s INT 30 $N/gpu-run.sh run deepfm --size full \
    --backend opencl --stages amp,autotune --max-time 10 --max-samples 10 --warmup 2 -q \
    -o "$f.json" --timeline "$f.trace.json" > "$f.txt" 2>&1
  log "timeline $k rc=$?"
  PYTHONPATH=scripts python3 -m sbgpu kernels "$f.trace.json" 40 > "$f-kernels.txt" 2>&1 &&
    gzip -f "$f.trace.json"
done
# PyTorch's step by kernel (torch.profiler): its launches and device time against ours.
if [ "$(elapsed)" -lt 165 ]; then
  timeout -s INT 40 python3 scripts/reference/torch_kernels.py torch --model deepfm --size full \
    --variant compile-cuda-graph --json "$O/torch-deepfm.json" > "$O/torch-deepfm.txt" 2>&1
  log "torch kernels rc=$?"
else log "torch kernels skipped"; fi
for f in "$O"/deepfm-full-*.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -8 | cut -c1-100
done
grep -E "^peer " "$O/deepfm-peer.log"
grep -E "^## |sum_axis1|fill" "$O"/timeline-*-kernels.txt | cut -c1-120
grep -E "device commands|^## " "$O/torch-deepfm.txt" | cut -c1-200
tar czf "$OUT/dfm33.tar.gz" -C "$OUT" dfm33 && rm -rf "$O"
