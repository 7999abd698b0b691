#!/usr/bin/env bash
# The CI time gate: an A/B run of two builds on this machine, in the manner of asv's continuous
# benchmarking. The base is the commit results/ci-baseline.json was measured from (its
# context.build.git), so a slowdown anywhere in a submission's commits is caught, not only in
# its last one. Both binaries run the gated ladders in back-to-back pairs of processes (base
# then candidate, then candidate then base, ...), and `stagebench compare-ab` fails a stage whose
# median paired ratio is >= 1.25 with its interval above 1x, or one that vanished
# (docs/testing.md#the-time-gate, docs/compare.md).
#
# Usage: scripts/ab-gate.sh          (expects build/harness/stagebench: scripts/build.sh)
#   STAGEBENCH_BIN=path              the candidate binary
#   STAGEBENCH_AB_BASE_BIN=path      a base binary already built (skips building the base)
#   STAGEBENCH_AB_ROUNDS=5           processes per build and ladder
#   STAGEBENCH_AB_OUT=dir            where the results go (default build/ab-gate)
#   STAGEBENCH_AB_SLOWER=1.25        the ratio that fails
#   STAGEBENCH_AB_CANDIDATE_ENV="STAGEBENCH_SLOW_OP=linear:1.6"
#                                    extra environment for the candidate's processes only (the
#                                    proof that the gate catches a slowdown: docs/testing.md)
# Exit status is compare-ab's (0 pass, 1 slower or vanished, 2 bad input, 3 not gated), or 2
# when the base cannot be built, or 1 when a candidate process fails.
set -euo pipefail
cd "$(dirname "$0")/.."

cand=${STAGEBENCH_BIN:-build/harness/stagebench}
out=${STAGEBENCH_AB_OUT:-build/ab-gate}
rounds=${STAGEBENCH_AB_ROUNDS:-5}
slower=${STAGEBENCH_AB_SLOWER:-1.25}
baseline=results/ci-baseline.json
# The gated ladders: the CI sweep's models at tiny on the CPU and on the OpenCL device, a few
# seconds of measuring each. One thread: a shared 2-core machine (as scripts/ci-gate.sh).
ladders=(
  "enformer cpu original,fused-attention,graph-compile"
  "enformer opencl original,fused-attention,graph-compile"
  "geneformer cpu eager,onnx-graph,engine-fp32"
  "geneformer opencl eager,onnx-graph,engine-fp32"
)
run_args=(--size tiny --max-time 3 --min-samples 5 --max-samples 40 --warmup 0.2 -q)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

fail() { echo "ab-gate: $*" >&2; exit 2; }
[[ -x "$cand" ]] || fail "$cand not found; build first (scripts/build.sh) or set STAGEBENCH_BIN"
[[ "$rounds" =~ ^[0-9]+$ && "$rounds" -ge 3 ]] || fail "STAGEBENCH_AB_ROUNDS must be >= 3"

base_bin=${STAGEBENCH_AB_BASE_BIN:-}
if [[ -z "$base_bin" ]]; then
  commit=$(sed -nE 's/^ *"git": "([0-9a-f]{7,40})".*/\1/p' "$baseline" | head -1)
  [[ -n "$commit" ]] || fail "$baseline records no commit (context.build.git)"
  if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
    # A shallow clone may lack it: fetch the history once.
    git fetch --quiet --unshallow 2>/dev/null || git fetch --quiet origin 2>/dev/null || true
    git cat-file -e "$commit^{commit}" 2>/dev/null ||
      fail "the baseline's commit $commit is not in this repository's history"
  fi
  src=build-ab/src
  if [[ "$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null || true)" != "${commit:0:12}" ]]; then
    git worktree remove --force "$src" 2>/dev/null || rm -rf "$src"
    git worktree prune
    git worktree add --detach --quiet "$src" "$commit"
  fi
  echo "ab-gate: building the base ($commit) in $src" >&2
  start=$(date +%s)
  # The candidate's preset and flags, so ccache serves what both share (CMakeLists.txt).
  (cd "$src" && cmake --preset release -DSTAGEBENCH_TESTS=OFF -DSTAGEBENCH_GUI=OFF >/dev/null &&
    cmake --build --preset release --target stagebench -j "$(nproc)" >/dev/null) ||
    fail "the base commit $commit did not build"
  echo "ab-gate: base built in $(($(date +%s) - start)) s" >&2
  base_bin=$src/build/harness/stagebench
fi

rm -rf "$out"
mkdir -p "$out"
read -r -a cand_env <<<"${STAGEBENCH_AB_CANDIDATE_ENV:-}"
start=$(date +%s)
failed=0
# One process of one build on one ladder; a process that fails is recorded, its file is
# whatever it wrote (compare-ab counts what is missing as vanished).
run_one() {
  local side=$1 bin=$2 model=$3 backend=$4 stages=$5 round=$6 rc=0
  local name="$out/$side-$model-$backend-$round" stage_list env_list=()
  read -r -a stage_list <<<"${stages//,/ }"
  [[ $side == candidate ]] && env_list=("${cand_env[@]}")
  env "${env_list[@]}" "$bin" run "$model" --backend "$backend" --stages "${stage_list[@]}" \
    "${run_args[@]}" -o "$name.json" >"$name.log" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "ab-gate: $side $model/$backend round $round exited $rc" >&2
    tail -3 "$name.log" >&2
    [[ $side == candidate ]] && failed=1
  fi
  return 0
}
for ((round = 1; round <= rounds; round++)); do
  for ladder in "${ladders[@]}"; do
    read -r model backend stages <<<"$ladder"
    if ((round % 2)); then
      run_one base "$base_bin" "$model" "$backend" "$stages" "$round"
      run_one candidate "$cand" "$model" "$backend" "$stages" "$round"
    else
      run_one candidate "$cand" "$model" "$backend" "$stages" "$round"
      run_one base "$base_bin" "$model" "$backend" "$stages" "$round"
    fi
  done
done
echo "ab-gate: $rounds rounds in $(($(date +%s) - start)) s" >&2

shopt -s nullglob
base_files=("$out"/base-*.json)
cand_files=("$out"/candidate-*.json)
rc=0
"$cand" compare-ab --base "${base_files[@]}" --candidate "${cand_files[@]}" --slower "$slower" \
  -o "$out/compare-ab.md" || rc=$?
"$cand" compare-ab --base "${base_files[@]}" --candidate "${cand_files[@]}" --slower "$slower" \
  --format json -o "$out/compare-ab.json" || true
cat "$out/compare-ab.md"
if [[ $failed -ne 0 && $rc -eq 0 ]]; then
  echo "ab-gate: a candidate process failed" >&2
  rc=1
fi
exit "$rc"
