#!/usr/bin/env bash
# Issue 27's check call on the GPU machine, from the repository root with BUNDLE (default .gpu:
# stagebench, ops_test, lib/, gpu-run.sh) carried: the NVIDIA-only convolution tests and the op
# table's norm and conv cases on NVIDIA, then one DynUNet full training sample per stage in
# STAGES with --timeline, once per reduced precision in PRECISIONS (STAGEBENCH_DYNUNET_REDUCED),
# summed per kernel (probes/conv3d/timeline_by_kernel.py). Everything lands in OUT/check and is
# tarred into OUT/check.tar.gz.
set -uo pipefail
out="${1:-${OUT:?}}"
o="$out/check"
mkdir -p "$o"
bundle="$PWD/${BUNDLE:-.gpu}"
log() { echo "$(date +%T) [${SECONDS}s] $*" | tee -a "$o/session.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$o/gpu.txt" 2>&1
(
  . "$bundle/nvidia-opencl-env.sh"
  nvidia_opencl_env "$bundle/lib"
  timeout 200 "$bundle/ops_test" --gtest_filter="${TESTS:-OpsOpenCL.Conv*:Backends/OpTable.MatchesTheReference/opencl_instance_norm*:Backends/OpTable.MatchesTheReference/opencl_conv3d*}" \
    > "$o/ops_test.txt" 2>&1
  echo "ops_test rc=$?" >> "$o/session.txt"
)
log "tests done"
for p in ${PRECISIONS:-bf16 tf32}; do
  STAGEBENCH_DYNUNET_REDUCED=$p timeout -s INT 150 bash "$bundle/gpu-run.sh" run dynunet \
    --size full --backend opencl --stages "${STAGES:-bf16-mixed,channels-last,compile}" \
    --max-time 10 --max-samples 10 --warmup 2 -q -o "$o/timeline-$p.json" \
    --timeline "$o/timeline-$p.trace.json" > "$o/timeline-$p.txt" 2>&1
  log "timeline $p rc=$?"
  python3 probes/conv3d/timeline_by_kernel.py "$o/timeline-$p.trace.json" 30 \
    > "$o/timeline-$p-kernels.txt" 2>&1 && gzip -f "$o/timeline-$p.trace.json"
done
tar czf "$out/check.tar.gz" -C "$out" check
