#!/usr/bin/env bash
# dfm36's second call (call2.sh): the same ABAB around PyTorch's compile-cuda-graph as call.sh,
# after LayerNorm's backward became three launches (layernorm_backward_dx_columns; call.sh's
# chunk kernel took 47 us a call); guards sized to the ~100 s of the 260 s cap call.sh left.
set -u
N=build-dfm36/.gpu
O=$OUT/dfm36b
mkdir -p "$O"
t0=$(date +%s)
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
elapsed() { echo $(($(date +%s) - t0)); }
END=${END:-82}  # every step starts only if its guard ends by then: the tar below always runs
fits() { [ $(($(elapsed) + $1)) -le "$END" ]; }
OFF="STAGEBENCH_LINEAR_GRADS=off STAGEBENCH_LAYERNORM_BACKWARD=passes STAGEBENCH_DFM_ONE_SYNC=off
STAGEBENCH_DFM_ATTN_COPY=off"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
ladder() {  # name, guard s, stages, then the environment
  fits "$2" || { log "deepfm $1 skipped"; return; }
  env $4 timeout -s INT "$2" $N/gpu-run.sh run deepfm --size full --backend opencl --max-time 2 \
    --max-samples 400 --stages "$3" -o "$O/deepfm-full-$1.json" > "$O/run-$1.log" 2>&1
  log "deepfm $1 rc=$?"
}
S=baseline,amp,autotune
ladder on 70 $S "STAGEBENCH_DFM36=on"
ladder off 15 $S "$OFF"
fits 42 && timeout -s INT 42 python3 scripts/reference/deepfm_torch.py peer --size full --device cuda \
  --variants compile-cuda-graph --deadline-s 38 --variant-budget-s 34 \
  --peer-json "$O/deepfm-peer.json" > "$O/deepfm-peer.log" 2>&1
log "deepfm peer rc=$?"
ladder on2 15 $S "STAGEBENCH_DFM36=on"
ladder off2 15 $S "$OFF"
f="$O/timeline-on"
if fits 11; then
  timeout -s INT 11 $N/gpu-run.sh run deepfm --size full --backend opencl \
    --stages amp,autotune --max-time 10 --max-samples 10 --warmup 2 -q \
    -o "$f.json" --timeline "$f.trace.json" > "$f.txt" 2>&1
  log "timeline on rc=$?"
  PYTHONPATH=scripts python3 -m sbgpu kernels "$f.trace.json" 40 > "$f-kernels.txt" 2>&1 &&
    gzip -f "$f.trace.json"
fi
if fits 5; then
  (. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
    timeout -s INT 5 $N/ops_test --gtest_filter='OpsOpenCL.LinearBackward*:OpsOpenCL.LayerNormBackward*:Backends/OpTable.MatchesTheReference/opencl_layernorm_backward' \
    > "$O/ops_test.txt" 2>&1)
  log "ops_test rc=$?"
fi
for j in "$O"/deepfm-full-*.json; do
  $N/gpu-run.sh report "$j" > "${j%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$j")"; grep -E "^\| [0-9]" "${j%.json}.md" | head -4 | cut -c1-120
done
grep -E "^peer " "$O/deepfm-peer.log"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/ops_test.txt" 2>/dev/null | head
head -12 "$f-kernels.txt" 2>/dev/null | cut -c1-100
tar czf "$OUT/dfm36b.tar.gz" -C "$OUT" dfm36b && rm -rf "$O"
