#!/usr/bin/env bash
# enf32: Enformer full, bf16 stage with f16 activations written by their producers (new, the
# default) and with STAGEBENCH_HALF_ACTIVATIONS=off (old: fp32 activations, a conversion pass
# before each f16 product), each with a timeline sample; NVIDIA ops tests of what enf32 touched;
# PyTorch's compile-bf16 in the same call. Run from the checkout's root:
#   BUDGET=380 bash build-enf32/call.sh "$OUT"
set -u
OUT=${1:?out}
N=build-enf32/.gpu
O=$OUT/enf32
mkdir -p "$O"
t0=$(date +%s)
BUDGET=${BUDGET:-380}
log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
cap() {  # the step's cap, cut to what is left of the budget (less 15 s to pack)
  local left=$((BUDGET - ($(date +%s) - t0) - 15))
  echo $(($1 < left ? $1 : left))
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
T='Backends/OpTable.MatchesTheReference/opencl_rel_attention_fused'
T+=':Backends/OpTable.MatchesTheReference/opencl_conv1d'
T+=':Backends/OpTable.MatchesTheReference/opencl_attention_pool'
T+=':Backends/OpTable.MatchesTheReference/opencl_linear'
T+=':Backends/OpTable.MatchesTheReference/opencl_layernorm'
T+=':Backends/OpTable.MatchesTheReference/opencl_add_layernorm'
T+=':OpsOpenCL.RelativeAttention*:OpsOpenCL.Conv1d*:OpsOpenCL.AttentionOnTensorCores*:BadCalls/*'
(. $N/nvidia-opencl-env.sh && nvidia_opencl_env $N/lib &&
  STAGEBENCH_CL_BUILD_LOG=1 timeout -s INT "$(cap 75)" $N/ops_test --gtest_filter="$T" \
    > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|SKIPPED  \] case" "$O/ops_test.txt" | head -30
run() {  # name, knob value, cap
  STAGEBENCH_HALF_ACTIVATIONS=$2 timeout -s INT "$(cap "$3")" $N/gpu-run.sh run enformer \
    --size full --backend opencl --stages original,bf16 --max-time 4 -q \
    -o "$O/enformer-full-$1.json" --timeline "$O/enformer-full-$1.trace.json" \
    > "$O/enformer-full-$1.log" 2>&1
  log "enformer $1 (STAGEBENCH_HALF_ACTIVATIONS=$2) rc=$?"
  PYTHONPATH=$N python3 -m sbgpu kernels "$O/enformer-full-$1.trace.json" 40 \
    > "$O/enformer-full-$1-kernels.txt" 2>&1 && gzip -f "$O/enformer-full-$1.trace.json"
}
run new on 100
run old off 70
timeout -s INT "$(cap 110)" python3 scripts/reference/torch_kernels.py torch --model enformer \
  --size full --variant compile-bf16 --json "$O/torch-enformer.json" \
  > "$O/torch-enformer.txt" 2>&1
log "torch enformer rc=$?"
python3 scripts/reference/torch_kernels.py ours "$O"/enformer-full-new-kernels.txt \
  "$O"/enformer-full-old-kernels.txt > "$O/ours-by-role.txt" 2>&1
python3 scripts/reference/torch_kernels.py regroup "$O/torch-enformer.json" \
  > "$O/torch-by-role.txt" 2>&1
for f in "$O"/enformer-full-*.json; do
  case "$f" in *.trace.json) continue ;; esac
  $N/gpu-run.sh report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | cut -c1-110
done
grep -h "one call" "$O"/torch-*.txt
for f in "$O"/enformer-full-*-kernels.txt; do echo "== $f"; sed -n '/^## bf16/,/^## /p' "$f" | head -14; done
tar czf "$OUT/enf32.tar.gz" -C "$OUT" enf32 && rm -rf "$O"
