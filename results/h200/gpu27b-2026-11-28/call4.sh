#!/usr/bin/env bash
# gpu27b call 4 (after the kernel rename conv3d_narrow -> conv3d_narrow_any): the conv op tests
# and one compile timeline on NVIDIA.
set -u
B=build-gpu27b
TESTS='OpsOpenCL.*Conv*:OpsOpenCL.FusedAttention*:Backends/OpTable.MatchesTheReference/opencl_conv3d*' \
  STAGES=compile VARIANTS=final BUNDLE=$B/.gpu bash $B/gpu-check.sh "$OUT"
o="$OUT/check"
cat "$o/session.txt"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|SKIPPED" "$o"/ops_test-default.txt | head
sed -n '/## compile/,$p' "$o/timeline-final-kernels.txt" | grep -E "compile|narrow"
grep "^| 1" "$o/timeline-final.txt"
mv "$OUT/check.tar.gz" "$OUT/call4.tar.gz"; rm -rf "$o"
