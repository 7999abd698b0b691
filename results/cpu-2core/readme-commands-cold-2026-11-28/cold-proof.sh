#!/usr/bin/env bash
# Fresh clone of /work/main, cold ccache and cold PoCL kernel cache, then the README's two commands.
set -u
D=/work/fresh-cold
rm -rf "$D" /work/ccache-cold /work/pocl-cold
git clone -q /work/main "$D"
cd "$D"
export CCACHE_DIR=/work/ccache-cold POCL_CACHE_DIR=/work/pocl-cold
mkdir -p "$CCACHE_DIR" "$POCL_CACHE_DIR"
( while sleep 20; do echo "$(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; done ) > /work/cold-load.txt &
sampler=$!
s=$(date +%s); echo "test start $(date -u +%T) commit $(git rev-parse --short HEAD)" > /work/cold-times.txt
bash scripts/test.sh 2>&1 | awk '{ print strftime("%T", systime(), 1), $0; fflush() }' > /work/cold-test.log; rc=${PIPESTATUS[0]}
e=$(date +%s); echo "test end $(date -u +%T) rc $rc wall $((e-s)) s" >> /work/cold-times.txt
echo "cli linked $(date -u -r build/harness/stagebench +%T)" >> /work/cold-times.txt
grep -h "Start testing\|End testing" build/Testing/Temporary/LastTest*.log >> /work/cold-times.txt
s=$(date +%s); echo "main start $(date -u +%T)" >> /work/cold-times.txt
bash scripts/run-default.sh 2>&1 | awk '{ print strftime("%T", systime(), 1), $0; fflush() }' > /work/cold-main.log; rc=${PIPESTATUS[0]}
e=$(date +%s); echo "main end $(date -u +%T) rc $rc wall $((e-s)) s" >> /work/cold-times.txt
kill $sampler
