#!/usr/bin/env bash
# The steps of .ci/run after the README's test command, each timed, in the clone given. Each
# step's exit status is kept before anything else runs (an earlier version read $? after a
# command substitution in the same echo, so it printed date's 0 for every step).
cd "${1:?clone}" || exit 2
for step in "python3 tests/hostile/campaign.py" "bash scripts/oclgrind-ci.sh" "bash scripts/fuzz-ci.sh" \
            "bash scripts/ci-gate.sh" "bash scripts/ab-gate.sh" "bash scripts/package-ci.sh" \
            "python3 scripts/check_doc_figures.py"; do
  s=$(date +%s)
  $step > "/work/logs/ci-$(echo $step | tr ' /.' '___').log" 2>&1
  rc=$?
  echo "$(date -u +%T) rc=$rc $(( $(date +%s)-s ))s $step"
done
