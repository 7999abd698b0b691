#!/usr/bin/env bash
# Measures the CI time gate's false-alarm rate on this machine (docs/testing.md#the-time-gate):
# N A/A runs of scripts/ab-gate.sh (the same binary as base and candidate), then
# scripts/ab_aa_summary.py over their compare-ab.json: how many runs alarmed, the spread of
# process medians per stage, and the estimated false-alarm rate of the rule by resampling the
# pooled process medians.
#
# Usage: scripts/ab-aa.sh N [OUT]   (expects build/harness/stagebench; OUT default build/ab-aa)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: scripts/ab-aa.sh N [OUT]}
out=${2:-build/ab-aa}
bin=${STAGEBENCH_BIN:-build/harness/stagebench}
mkdir -p "$out"
alarms=0
for ((i = 1; i <= n; i++)); do
  rc=0
  STAGEBENCH_AB_BASE_BIN=$bin STAGEBENCH_AB_OUT="$out/run-$i" bash scripts/ab-gate.sh \
    >"$out/run-$i.txt" 2>&1 || rc=$?
  echo "A/A run $i: exit $rc ($(date +%T))"
  [[ $rc -eq 0 ]] || alarms=$((alarms + 1))
done
echo "A/A runs: $n, alarms: $alarms"
python3 scripts/ab_aa_summary.py "$out"/run-*/compare-ab.json
