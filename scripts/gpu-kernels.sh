#!/usr/bin/env bash
# The GPU kernels' session (issue 11), run on the device machine from the repository root with a
# bundle carried (BUNDLE, default .gpu/ from scripts/gpu-bundle.sh; ops_test beside stagebench
# adds the OpenCL op tests): cuBLAS's GEMM ceilings through PyTorch, the op tests on the
# tensor-core paths, the GEMM ladder at 8192^3, and the Geneformer and Enformer ladders at full
# size each followed by `stagebench peer` (PyTorch's variants on the same GPU, into the same
# result). Then, while BUDGET_S seconds (default 540) allow, each ladder once more: the second
# run checks that the speedups reproduce. Everything lands in $1 (default: $OUT).
set -uo pipefail
out="${1:-${OUT:?}}"
bundle="${BUNDLE:-.gpu}"
sb="$bundle/gpu-run.sh"
budget="${BUDGET_S:-540}"
mkdir -p "$out"
log() { echo "$(date +%T) $*" | tee -a "$out/session.txt"; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv > "$out/gpu.txt" 2>&1
ceilings=$(python3 scripts/reference/gemm_ceilings.py 2> "$out/ceilings-int8.txt" | tail -n1)
log "cuBLAS ceilings (GFLOP/s): $ceilings"
args=()
IFS=',' read -ra pairs <<< "$ceilings"
for p in "${pairs[@]}"; do args+=(--ceiling "$p"); done

if [ -x "$bundle/ops_test" ]; then
  . "$(dirname "$0")/nvidia-opencl-env.sh"
  nvidia_opencl_env "$bundle/lib"
  STAGEBENCH_CL_BUILD_LOG=1 timeout 200 "$bundle/ops_test" --gtest_filter='*OpenCL*:*opencl*' > "$out/ops-test.txt" 2>&1
  log "ops_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$out/ops-test.txt" | tr '\n' ' ')"
fi

ladder() {  # model, max seconds, output name
  timeout 240 bash "$sb" run "$1" --size full --backend opencl --max-time "$2" "${args[@]}" -q \
    -o "$out/$3.json" > "$out/$3.txt" 2>&1
  log "$3 rc=$?"
}
peer() {
  timeout 200 bash "$sb" peer "$1" --size full -o "$out/$2.json" > "$out/$2-peer.txt" 2>&1
  log "$2 peer rc=$?"
}
ladder gemm 10 gemm-full
ladder geneformer 15 geneformer-full
peer geneformer geneformer-full
ladder enformer 20 enformer-full
peer enformer enformer-full
if [ "$SECONDS" -lt $((budget - 150)) ]; then ladder geneformer 15 geneformer-full-run2; fi
if [ "$SECONDS" -lt $((budget - 200)) ]; then ladder enformer 20 enformer-full-run2; fi
log "done in ${SECONDS}s"
