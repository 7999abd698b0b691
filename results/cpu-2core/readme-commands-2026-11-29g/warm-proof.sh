#!/usr/bin/env bash
# Fresh clone of /work/main at REV with the session's warm ccache, then the README's two commands
# and .ci/run's other steps (ci-rest.sh), each timed into RES.
set -u
D=/work/fresh-final; RES=${RES:?}
rm -rf "$D"; git clone -q /work/main "$D" && git -C "$D" checkout -q ${REV:-HEAD}
cd "$D"
s=$(date +%s); echo "test start $(date -u +%T) commit $(git rev-parse --short HEAD)" > $RES/times.txt
bash scripts/test.sh > $RES/test-sh.log 2>&1; rc=$?
echo "test end $(date -u +%T) rc $rc wall $(( $(date +%s)-s )) s" >> $RES/times.txt
s=$(date +%s); bash scripts/run-default.sh > $RES/run-default.log 2>&1; rc=$?
echo "main end $(date -u +%T) rc $rc wall $(( $(date +%s)-s )) s" >> $RES/times.txt
bash /work/tools/ci-rest.sh "$D" > $RES/ci-steps.txt 2>&1
echo "all done $(date -u +%T)" >> $RES/times.txt
