#!/usr/bin/env bash
# Fresh clone of /work/main, cold ccache and cold PoCL kernel cache, then the README's two commands.
set -u
D=/work/fresh-cold
rm -rf "$D" /work/ccache-cold /work/pocl-cold
git clone -q /work/main "$D" && git -C "$D" checkout -q ${REV:-HEAD}
cd "$D"
export CCACHE_DIR=/work/ccache-cold POCL_CACHE_DIR=/work/pocl-cold
mkdir -p "$CCACHE_DIR" "$POCL_CACHE_DIR"
( while sleep 20; do echo "$(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; done ) > ${RES:-/work/res-cold}/load.txt &
sampler=$!
s=$(date +%s); echo "test start $(date -u +%T) commit $(git rev-parse --short HEAD)" > ${RES:-/work/res-cold}/times.txt
bash scripts/test.sh 2>&1 | awk '{ print strftime("%T", systime(), 1), $0; fflush() }' > ${RES:-/work/res-cold}/test-sh.log; rc=${PIPESTATUS[0]}
e=$(date +%s); echo "test end $(date -u +%T) rc $rc wall $((e-s)) s" >> ${RES:-/work/res-cold}/times.txt
echo "cli linked $(date -u -r build/harness/stagebench +%T)" >> ${RES:-/work/res-cold}/times.txt
grep -h "Start testing\|End testing" build/Testing/Temporary/LastTest*.log >> ${RES:-/work/res-cold}/times.txt
s=$(date +%s); echo "main start $(date -u +%T)" >> ${RES:-/work/res-cold}/times.txt
bash scripts/run-default.sh 2>&1 | awk '{ print strftime("%T", systime(), 1), $0; fflush() }' > ${RES:-/work/res-cold}/run-default.log; rc=${PIPESTATUS[0]}
e=$(date +%s); echo "main end $(date -u +%T) rc $rc wall $((e-s)) s" >> ${RES:-/work/res-cold}/times.txt
kill $sampler
