#!/usr/bin/env bash
# scripts/gpu.sh end to end on this machine's OpenCL (PoCL), no NVIDIA: the gemm benchmark's
# tiny ladder, two timeline variants summed per kernel, and the tar; then its refusals of bad
# input. Usage: gpu_driver_test.sh STAGEBENCH REPO. Proves the plumbing, not a figure.
set -uo pipefail
sb="${1:?stagebench binary}" repo="${2:?repository root}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; cat "$work/pocl/session.txt" "$work/stdout.txt" 2>/dev/null; exit 1; }
cd "$repo"
fast="--no-ceilings --min-samples 2 --max-samples 3 --warmup 0.1"
STAGES=fp32 RUN_ARGS="$fast --max-time 1" LADDER_ARGS="$fast --stages fp32" MAX_TIME=1 \
  VARIANTS="plain switched:STAGEBENCH_DRIVER_TEST=1,STAGEBENCH_DRIVER_TEST2=2" \
  bash scripts/gpu.sh --backend opencl --stagebench "$sb" --models gemm --size tiny --limit 120 \
  --dir pocl ceilings ladder timeline "$work" > "$work/stdout.txt" 2>&1 ||
  { cat "$work/stdout.txt"; fail "the driver exited $?"; }
o="$work/pocl"
[ -s "$work/pocl.tar.gz" ] || fail "no pocl.tar.gz"
tar tzf "$work/pocl.tar.gz" > "$work/tar.txt" || fail "pocl.tar.gz does not read"
grep -qx "pocl/gemm-tiny-opencl.json" "$work/tar.txt" || fail "the tar lacks the ladder"
grep -q '"id": "fp32"' "$o/gemm-tiny-opencl.json" || fail "the ladder has no fp32 stage"
grep -q "gemm-tiny-opencl (no variables) rc=0" "$o/session.txt" || fail "the ladder's log line"
grep -q "gemm peer skipped: the opencl backend has no CUDA" "$o/session.txt" || fail "peer not skipped"
grep -q "^commit [0-9a-f]\{40\}" "$o/session.txt" || fail "session.txt has no commit"
for v in plain switched; do
  grep -q "^## fp32: [0-9.]* ms of device commands" "$o/timeline-$v-kernels.txt" || fail "$v: no kernel sums"
  [ -s "$o/timeline-$v.trace.json.gz" ] || fail "$v: trace not kept"
done
grep -q "timeline switched (STAGEBENCH_DRIVER_TEST=1 STAGEBENCH_DRIVER_TEST2=2) rc=0" "$o/session.txt" ||
  fail "the variant's variables were not applied"

# Every old script name still runs its session: each preset, dry (commands logged, none run).
dry() {  # WRAPPER DIR EXPECTED-COMMAND-PATTERN
  local out="$work/dry-$1"
  LIMIT=600 bash "scripts/$1" --dry-run --stagebench "$sb" "$out" > "$out.txt" 2>&1 ||
    fail "$1 --dry-run exited $?"
  [ -s "$out/$2.tar.gz" ] || fail "$1: no $2.tar.gz"
  grep -qE "dry-run: .*$3" "$out/$2/session.txt" || fail "$1: no command like '$3' in its session"
}
dry gpu-check.sh check "run dynunet --size full --backend opencl --stages bf16-mixed,channels-last,compile"
dry gpu-ladders.sh ladders "run enformer --size full --backend opencl --repeat 2"
dry gpu-kernels.sh kernels "run gemm --size full --backend opencl"
dry gpu-wgmma.sh wgmma "env STAGEBENCH_WGMMA=off .* run gemm --size 8192x8192x8192"
dry gpu-conv-igemm.sh conv-igemm "env STAGEBENCH_CONV_IGEMM=on .* run dynunet .*--stages baseline"
dry gpu-checkpoints.sh checkpoints "checkpoints_torch.py versions"
dry gpu-tune.sh tune "tune --fraction 0.01 --size 2048"
dry gpu-session.sh enformer "probe --json"
dry gpu-geneformer.sh geneformer "run geneformer --size full .*--batch 32"
dry gpu-deepfm.sh deepfm "export-steps deepfm --size tiny"
dry gpu-dynunet.sh dynunet "dynunet_torch.py selftest"

# Bad input: exit 2 with the problem named.
expect2() {  # WHAT-IN-MESSAGE ARGS...
  local want=$1 msg rc; shift
  msg="$(bash scripts/gpu.sh "$@" 2>&1)"; rc=$?
  [ "$rc" = 2 ] || fail "gpu.sh $* exited $rc, not 2"
  grep -q -- "$want" <<< "$msg" || fail "gpu.sh $*: '$msg' does not say '$want'"
}
expect2 "neither a step nor a preset" --stagebench "$sb" "$work/a" "$work/b"
expect2 "backend must be nvidia or opencl" --backend cuda --stagebench "$sb" ladder "$work"
expect2 "no stagebench at" --stagebench "$work/none" ladder "$work"
expect2 "limit must be whole seconds" --limit soon --stagebench "$sb" ladder "$work"
PHASES=nope expect2 "unknown phase" --stagebench "$sb" conv-igemm "$work"
echo "PASS: $(grep -c . "$o/session.txt") session lines"
