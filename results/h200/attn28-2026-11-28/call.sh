#!/usr/bin/env bash
# attn28's one device call (issue 28 item 4: the attention kernels' precisions share one body).
# From the checkout's root, with build-attn28/ carried: new/.gpu (branch attn28), old/.gpu (main
# at 1a65562), this script. 1) ops_test on the new bundle: every OpenCL test, then the op table's
# attention cases under the other two f16 kernels (x1, direct-plain). 2) One timeline sample of
# Geneformer's engine-fp32 (tf32 masked attention) and engine-fp16 (f16 direct), and of
# Enformer's fused-attention (tf32 relative) and bf16 (f16 relative), new and old alternating,
# every kernel's device time summed (sbgpu kernels), ptxas's registers in the logs. One tar back.
set -u
B=build-attn28 out=${1:?out} budget=${BUDGET:-210}
w="$out/attn28"
mkdir -p "$w"
date -u +%FT%TZ > "$w/started.txt"
t0=$(date +%s)
# cap SECONDS: SECONDS, or what is left of the call's budget if less (the tar must still run).
cap() { local left=$((budget - ($(date +%s) - t0))); echo $(($1 < left ? $1 : left)); }
[ "${SKIP_TESTS:-0}" = 1 ] || TESTS='OpsOpenCL.*:Backends/OpTable.MatchesTheReference/opencl_*' \
  TEST_VARIANTS="default:STAGEBENCH_CL_BUILD_LOG=1" BUNDLE=$B/new/.gpu \
  bash scripts/gpu.sh tests --dir tests --limit "$(cap 120)" "$w"
[ "${SKIP_TESTS:-0}" = 1 ] || TESTS='Backends/OpTable.MatchesTheReference/opencl_*' BUNDLE=$B/new/.gpu \
  TEST_VARIANTS="x1:STAGEBENCH_MMA_ATTENTION=x1,STAGEBENCH_OP_CASES=attention plain:STAGEBENCH_MMA_ATTENTION=direct-plain,STAGEBENCH_OP_CASES=attention" \
  bash scripts/gpu.sh tests --dir tests-variants --limit "$(cap 45)" "$w"
for m in geneformer:engine-fp32,engine-fp16:27 enformer:fused-attention,bf16:32; do
  for side in new old; do
    secs=${m##*:} spec=${m%:*}
    MODEL=${spec%%:*} STAGES=${spec#*:} RUN_ARGS="--max-time 3 --warmup 1" \
      VARIANTS="$side:STAGEBENCH_CL_BUILD_LOG=1" BUNDLE=$B/$side/.gpu \
      bash scripts/gpu.sh timeline --dir "$side-${spec%%:*}" --limit "$(cap "$secs")" "$w"
  done
done
rm -f "$w"/*.tar.gz
date -u +%FT%TZ > "$w/ended.txt"
tar czf "$out/attn28.tar.gz" -C "$out" attn28 && rm -rf "$w"
ls -la "$out"
