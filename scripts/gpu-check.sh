#!/usr/bin/env bash
# A check call on the GPU machine, for any model (issue 28: one script, not a copy per session).
# Run from the repository root with BUNDLE (default .gpu: stagebench, ops_test, lib/,
# gpu-run.sh, nvidia-opencl-env.sh; scripts/gpu-bundle.sh) carried: the op tests in TESTS on
# NVIDIA, then one timeline sample (`stagebench run --timeline`) of MODEL full's STAGES once per
# variant, each summed per kernel (probes/conv3d/timeline_by_kernel.py). Output in OUT/check,
# tarred into OUT/check.tar.gz.
#   MODEL       dynunet (default), geneformer, enformer, deepfm
#   STAGES      the stages to time (default: the model's reduced-precision stages below)
#   TESTS       a gtest filter for ops_test (default OpsOpenCL.*; "" skips the tests)
#   TEST_VARIANTS  as VARIANTS, for the tests (e.g. "auto mma-sync:STAGEBENCH_WGMMA=off")
#   VARIANTS    space-separated NAME or NAME:VAR=VALUE[,VAR=VALUE]: one timeline per entry with
#               those variables set (a before/after in one session: e.g. "on off:
#               STAGEBENCH_HALF_ACTIVATIONS=off")
#   PRECISIONS  DynUNet's shorthand: VARIANTS of STAGEBENCH_DYNUNET_REDUCED=each (default bf16 tf32)
#   RUN_ARGS    more arguments for stagebench run (default: --max-time 10 --max-samples 10
#               --warmup 2)
set -uo pipefail
out="${1:-${OUT:?}}"
o="$out/check"
mkdir -p "$o"
bundle="$PWD/${BUNDLE:-.gpu}"
model="${MODEL:-dynunet}"
log() { echo "$(date +%T) [${SECONDS}s] $*" | tee -a "$o/session.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$o/gpu.txt" 2>&1
case "$model" in
  dynunet) stages="${STAGES:-bf16-mixed,channels-last,compile}" ;;
  geneformer) stages="${STAGES:-engine-fp16}" ;;
  *) stages="${STAGES:?STAGES names the stages to time for $model}" ;;
esac
variants="${VARIANTS:-}"
if [ -z "$variants" ] && [ "$model" = dynunet ]; then
  for p in ${PRECISIONS:-bf16 tf32}; do variants+=" $p:STAGEBENCH_DYNUNET_REDUCED=$p"; done
fi
[ -n "$variants" ] || variants=default
# variables_of ENTRY: the NAME:VAR=VALUE,... entry's assignments, one a line.
variables_of() { [ "$1" != "${1%%:*}" ] && tr ',' '\n' <<< "${1#*:}"; }
if [ -n "${TESTS-OpsOpenCL.*}" ]; then
  for v in ${TEST_VARIANTS:-default}; do
    name="${v%%:*}"
    mapfile -t envs < <(variables_of "$v")
    (
      . "$bundle/nvidia-opencl-env.sh"
      nvidia_opencl_env "$bundle/lib"
      env "${envs[@]}" timeout 200 "$bundle/ops_test" --gtest_filter="${TESTS-OpsOpenCL.*}" \
        > "$o/ops_test-$name.txt" 2>&1
      echo "ops_test $name (${envs[*]:-no variables}) rc=$?" >> "$o/session.txt"
    )
  done
  log "tests done"
fi
read -ra run_args <<< "${RUN_ARGS:---max-time 10 --max-samples 10 --warmup 2}"
for v in $variants; do
  name="${v%%:*}"
  mapfile -t envs < <(variables_of "$v")
  env "${envs[@]}" timeout -s INT 150 bash "$bundle/gpu-run.sh" run "$model" --size full \
    --backend opencl --stages "$stages" "${run_args[@]}" -q -o "$o/timeline-$name.json" \
    --timeline "$o/timeline-$name.trace.json" > "$o/timeline-$name.txt" 2>&1
  log "timeline $name (${envs[*]:-no variables}) rc=$?"
  python3 probes/conv3d/timeline_by_kernel.py "$o/timeline-$name.trace.json" 30 \
    > "$o/timeline-$name-kernels.txt" 2>&1 && gzip -f "$o/timeline-$name.trace.json"
done
tar czf "$out/check.tar.gz" -C "$out" check
