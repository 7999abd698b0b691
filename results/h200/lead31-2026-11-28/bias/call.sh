#!/usr/bin/env bash
# lead31 call C: DeepFM full with the bias in the products' epilogue (new, build-c31: 5689df0)
# against the bundle before lead31 (old, build-g30: 41d3c83) in ABAB order beside PyTorch's
# strongest variant; where an nsys capture of the amp stage sees the OpenCL kernels, their device
# time without profiling events; then Enformer and Geneformer full re-timed by the method with
# event-free samples, each beside PyTorch's best variant timed in the same call.
set -u
N=build-c31/.gpu
OLD=build-g30/.gpu
O=$OUT/bias
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  timeout -s INT 150 $N/ops_test --gtest_filter='OpsOpenCL.BatchedGemm*:OpsOpenCL.Narrow*:OpsOpenCL.SplitK*:Backends/OpTable.MatchesTheReference/opencl_gemm_batched:Backends/OpTable.MatchesTheReference/opencl_linear' \
  > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/ops_test.txt" | head
STAGES=baseline,vectorized-fm,batched-transfer,preallocated-loss,amp,dataloader,autotune
ladder() {  # bundle name
  timeout -s INT 90 $1/gpu-run.sh run deepfm --size full --backend opencl --max-time 3 \
    --max-samples 600 --stages $STAGES -o "$O/deepfm-full-$2.json" > "$O/run-$2.log" 2>&1
  log "deepfm $2 rc=$?"
}
ladder $N new
ladder $OLD old
ladder $N new2
ladder $OLD old2
timeout -s INT 85 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph,fp32-eager,amp-fp16 --deadline-s 70 --variant-budget-s 55 \
  --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
log "deepfm peer rc=$?"
f="$O/timeline-new"
timeout -s INT 60 $N/gpu-run.sh run deepfm --size full --backend opencl --stages amp,autotune \
  --max-time 10 --max-samples 10 --warmup 2 -q -o "$f.json" --timeline "$f.trace.json" \
  > "$f.txt" 2>&1
log "timeline new rc=$?"
PYTHONPATH=scripts python3 -m sbgpu kernels "$f.trace.json" 40 > "$f-kernels.txt" 2>&1 &&
  gzip -f "$f.trace.json"
if command -v nsys > /dev/null; then
  STAGEBENCH_CL_EVENTS=off timeout -s INT 60 nsys profile -t cuda -o "$O/nsys-amp" -f true \
    $N/gpu-run.sh run deepfm --size full --backend opencl --stages amp --max-time 1 \
    --max-samples 200 -q -o "$O/nsys-amp.json" > "$O/nsys-amp.log" 2>&1
  log "nsys rc=$?"
  timeout -s INT 60 nsys stats -r cuda_gpu_kern_sum,cuda_api_sum -f csv -o "$O/nsys-amp" \
    "$O/nsys-amp.nsys-rep" > "$O/nsys-stats.log" 2>&1
  log "nsys stats rc=$?"
  rm -f "$O"/nsys-amp.nsys-rep "$O"/nsys-amp.sqlite
else
  log "no nsys on PATH"
fi
timeout -s INT 90 $N/gpu-run.sh run enformer --size full --backend opencl --stages bf16 \
  --max-time 4 -o "$O/enformer-full.json" > "$O/enformer-run.log" 2>&1
log "enformer rc=$?"
timeout -s INT 100 python3 scripts/reference/torch_kernels.py torch --model enformer --size full \
  --variant compile-bf16 --json "$O/torch-enformer.json" > "$O/torch-enformer.txt" 2>&1
log "torch enformer rc=$?"
timeout -s INT 60 $N/gpu-run.sh run geneformer --size full --backend opencl \
  --stages engine-fp16,engine-int8 --max-time 3 -o "$O/geneformer-full.json" \
  > "$O/geneformer-run.log" 2>&1
log "geneformer rc=$?"
timeout -s INT 90 python3 scripts/reference/torch_kernels.py torch --model geneformer \
  --size full --variant compile-bf16-sdpa --json "$O/torch-geneformer.json" \
  > "$O/torch-geneformer.txt" 2>&1
log "torch geneformer rc=$?"
for f in "$O"/deepfm-full-*.json "$O"/enformer-full.json "$O"/geneformer-full.json; do
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -8 | cut -c1-100
done
grep -E "^peer " "$O/deepfm-peer.log"
grep -h "one call" "$O"/torch-*.txt
head -12 "$O"/nsys-amp*kern_sum*.csv 2>/dev/null | cut -c1-160
tar czf "$OUT/bias.tar.gz" -C "$OUT" bias && rm -rf "$O"
