#!/usr/bin/env bash
# dfm35: DeepFM full with this branch's three changes on (the defaults: the heads on the small
# kernel, activation+dropout fused, the forward products' x copies written by their producers)
# against the same bundle with all three off (STAGEBENCH_THIN_GEMM=mma
# STAGEBENCH_DFM_FUSED_DROPOUT=off STAGEBENCH_F16_ACTIVATIONS=off) in ABAB order, beside PyTorch's
# compile-cuda-graph and compile-fp16 in the same call; a timeline of amp and autotune each way;
# the NVIDIA tests of what changed first. Guards sized to a 260 s device cap.
set -u
N=build-dfm35/.gpu
O=$OUT/dfm35
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
elapsed() { echo $(($(date +%s) - t0)); }
OFF="STAGEBENCH_THIN_GEMM=mma STAGEBENCH_DFM_FUSED_DROPOUT=off STAGEBENCH_F16_ACTIVATIONS=off"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  timeout -s INT 60 $N/ops_test --gtest_filter='OpsOpenCL.HeadsBias*:OpsOpenCL.Narrow*:OpsOpenCL.NoticedProducers*:OpsOpenCL.NoticedAdamW*:OpsOpenCL.BatchedGemm*:Backends/OpTable.MatchesTheReference/opencl_gemm_batched:Backends/OpTable.MatchesTheReference/opencl_activation_dropout:Backends/OpTable.MatchesTheReference/opencl_dropout_activation_backward:Backends/OpTable.MatchesTheReference/opencl_layernorm:Backends/OpTable.MatchesTheReference/opencl_add_layernorm:Backends/OpTable.MatchesTheReference/opencl_embedding' \
  > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/ops_test.txt" | head
STAGES=baseline,vectorized-fm,batched-transfer,preallocated-loss,amp,dataloader,autotune
ladder() {  # name, then the environment
  [ "$(elapsed)" -lt 100 ] || { log "deepfm $1 skipped"; return; }
  env $2 timeout -s INT 40 $N/gpu-run.sh run deepfm --size full --backend opencl --max-time 3 \
    --max-samples 600 --stages $STAGES -o "$O/deepfm-full-$1.json" > "$O/run-$1.log" 2>&1
  log "deepfm $1 rc=$?"
}
ladder on "STAGEBENCH_DFM35=on"
ladder off "$OFF"
ladder on2 "STAGEBENCH_DFM35=on"
ladder off2 "$OFF"
timeout -s INT 60 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph,compile-fp16 --deadline-s 50 --variant-budget-s 40 \
  --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
log "deepfm peer rc=$?"
for k in on off; do
  [ "$(elapsed)" -lt 175 ] || { log "timeline $k skipped"; continue; }
  f="$O/timeline-$k"
  e="STAGEBENCH_DFM35=on"; [ $k = off ] && e=$OFF
  env $e timeout -s INT 25 $N/gpu-run.sh run deepfm --size full --backend opencl \
    --stages amp,autotune --max-time 10 --max-samples 10 --warmup 2 -q \
    -o "$f.json" --timeline "$f.trace.json" > "$f.txt" 2>&1
  log "timeline $k rc=$?"
  PYTHONPATH=scripts python3 -m sbgpu kernels "$f.trace.json" 40 > "$f-kernels.txt" 2>&1 &&
    gzip -f "$f.trace.json"
done
for f in "$O"/deepfm-full-*.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -8 | cut -c1-110
done
grep -E "^peer " "$O/deepfm-peer.log"
grep -E "^## |pack_f16_pair|affine|dropout|activation" "$O"/timeline-*-kernels.txt | cut -c1-120
tar czf "$OUT/dfm35.tar.gz" -C "$OUT" dfm35 && rm -rf "$O"
