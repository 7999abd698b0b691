#!/usr/bin/env bash
# gpu27b call 1: the op tests on NVIDIA with the bundle's embedded kernels and again with the
# folded conv kernel files (cl/, STAGEBENCH_CL_SOURCE_DIR), then one compile timeline each for
# narrow convolutions direct (new), igemm (old) and direct with the folded files (fold).
set -u
B=build-gpu27b
CL="$PWD/$B/cl"
export TESTS='OpsOpenCL.*:Backends/OpTable.MatchesTheReference/opencl_*'
export TEST_VARIANTS="default fold:STAGEBENCH_CL_SOURCE_DIR=$CL"
export STAGES=compile
export VARIANTS="new:STAGEBENCH_CONV_NARROW=direct old:STAGEBENCH_CONV_NARROW=igemm fold:STAGEBENCH_CL_SOURCE_DIR=$CL"
BUNDLE=$B/.gpu bash $B/gpu-check.sh "$OUT"
o="$OUT/check"
cat "$o/session.txt"
for f in "$o"/ops_test-*.txt; do echo "== $f"; grep -E "^\[  (PASSED|FAILED) |tests? ran|FAILED  \]" "$f" | head -20; done
for v in new old fold; do head -45 "$o/timeline-$v-kernels.txt" | sed -n '/## compile/,$p'; grep -iE "check|invalid|loss" "$o/timeline-$v.txt" | head -5; done
mv "$OUT/check.tar.gz" "$OUT/call1.tar.gz"; rm -rf "$o"
