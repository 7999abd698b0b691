#!/usr/bin/env bash
# The project's own performance and correctness gate: runs a tiny sweep (.ci/gate-sweep.json:
# Enformer tiny, cpu and opencl, three stages, a few seconds each) and compares it with the
# committed baseline (results/ci-baseline.json) under loose thresholds (.ci/thresholds.txt, in
# docs/compare.md's format: correctness floors from docs/method.md, memory, and speedup floors far
# below what is measured, because the machine is shared and noisy). Exit status is
# `stagebench compare`'s: 0 pass, 1 regression (or a suspected one), 2 invalid input (or the sweep
# could not run), 3 undecidable: some gated comparisons could not be judged (too few samples; the
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

rc=0
"$bin" sweep "$sweep" --restart -o "$out/candidate.json" || rc=$?
# 1 means a stage failed or a backend was missing: still compare, the gate reports it.
if [[ $rc -ne 0 && $rc -ne 1 ]]; then
  echo "ci-gate: the sweep did not finish (exit $rc)" >&2
  exit 2
fi

if [[ "${STAGEBENCH_GATE_UPDATE:-0}" == 1 ]]; then
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
exec "$bin" compare "$baseline" "$out/candidate.json" --thresholds "$thresholds"
