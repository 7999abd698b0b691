#!/usr/bin/env bash
# The project's own performance and correctness gate: runs a tiny sweep (.ci/gate-sweep.json:
# Enformer tiny, cpu and opencl, three stages, a few seconds each) and compares it with the
# committed baseline (results/ci-baseline.json) under loose thresholds (.ci/thresholds.txt, in
# docs/compare.md's format: correctness floors from docs/method.md, memory, and speedup floors far
# below what is measured, because the machine is shared and noisy). Time is gated by the A/B
# run of scripts/ab-gate.sh, not here. Exit status is `stagebench compare`'s: 0 pass,
# 1 regression (a suspected one, anything the baseline measured that vanished, or a sweep job
# that failed), 2 invalid input (or the sweep could not run), 3 undecidable: some gated comparisons could not be judged (too few samples; the
# sweep's min_samples 12 keeps them decidable, .ci/thresholds.txt's policy line says so).
#
# Usage: scripts/ci-gate.sh            (expects build/harness/stagebench: scripts/build.sh)
#   STAGEBENCH_BIN=path/to/stagebench  another binary
#   STAGEBENCH_GATE_OUT=dir            where the candidate goes (default build/ci-gate)
#   STAGEBENCH_GATE_UPDATE=1           refresh the baseline from this machine instead of
#                                      comparing (do it on purpose, and commit the result)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${STAGEBENCH_BIN:-build/harness/stagebench}
out=${STAGEBENCH_GATE_OUT:-build/ci-gate}
sweep=.ci/gate-sweep.json
baseline=results/ci-baseline.json
thresholds=.ci/thresholds.txt

if [[ ! -x "$bin" ]]; then
  echo "ci-gate: $bin not found; build first (scripts/build.sh) or set STAGEBENCH_BIN" >&2
  exit 2
fi
mkdir -p "$out"
# One OpenMP thread: on a shared 2-core machine more threads fight other jobs and the numbers
# swing by several times. The baseline is measured the same way.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

sweep_rc=0
"$bin" sweep "$sweep" --restart -o "$out/candidate.json" || sweep_rc=$?
# 1 means a stage failed or a backend was missing: the gate fails, after compare has said what.
if [[ $sweep_rc -ne 0 && $sweep_rc -ne 1 ]]; then
  echo "ci-gate: the sweep did not finish (exit $sweep_rc)" >&2
  exit 2
fi

if [[ "${STAGEBENCH_GATE_UPDATE:-0}" == 1 ]]; then
  # A baseline is the reference every later submission is held to: only from a sweep that
  # passed, built from a clean tree, so its commit is one the A/B gate can build
  # (docs/compare.md#re-baselining).
  [[ $sweep_rc -eq 0 ]] || { echo "ci-gate: the sweep failed; the baseline is unchanged" >&2; exit 1; }
  if ! grep -q '"git_dirty": false' "$out/candidate.json"; then
    echo "ci-gate: $bin was not built from a clean, committed tree; the baseline is unchanged" >&2
    exit 1
  fi
  cp "$out/candidate.json" "$baseline"
  echo "ci-gate: baseline refreshed: $baseline (commit it)"
  exit 0
fi

for f in "$baseline" "$thresholds"; do
  if [[ ! -f "$f" ]]; then
    echo "ci-gate: $f is missing" >&2
    exit 2
  fi
done
rc=0
"$bin" compare "$baseline" "$out/candidate.json" --thresholds "$thresholds" || rc=$?
if [[ $sweep_rc -ne 0 && $rc -eq 0 ]]; then
  echo "ci-gate: the sweep failed (exit $sweep_rc): a failed job fails the gate" >&2
  rc=1
fi
exit "$rc"
