#!/usr/bin/env bash
# gpu27b call 2 (the final commit's bundle): the conv and attention op tests on NVIDIA, one
# compile timeline each for narrow convolutions direct (new) and igemm (old), then DynUNet's
# ladder beside PyTorch's peer (gpu-ladders.sh, LIMIT from the caller), run with the narrow
# setting whose compile sample had less device time (said in knob.txt).
set -u
B=build-gpu27b
export TESTS='OpsOpenCL.*Conv*:OpsOpenCL.FusedAttention*:OpsOpenCL.HeldTensor*:Backends/OpTable.MatchesTheReference/opencl_conv3d*'
export STAGES=compile
export VARIANTS="new:STAGEBENCH_CONV_NARROW=direct old:STAGEBENCH_CONV_NARROW=igemm"
BUNDLE=$B/.gpu bash $B/gpu-check.sh "$OUT"
o="$OUT/check"
cat "$o/session.txt"
grep -E "^\[  (PASSED|FAILED) |tests? ran|FAILED  \]" "$o"/ops_test-default.txt | head
for v in new old; do sed -n '/## compile/,$p' "$o/timeline-$v-kernels.txt" | head -14; done
ms() { sed -n 's/^## compile: \([0-9.]*\) ms.*/\1/p' "$o/timeline-$1-kernels.txt"; }
knob=direct
awk -v a="$(ms new)" -v b="$(ms old)" 'BEGIN{exit !(a > b)}' && knob=igemm
echo "ladder with STAGEBENCH_CONV_NARROW=$knob (compile device ms: direct $(ms new), igemm $(ms old))" | tee "$o/knob.txt"
export STAGEBENCH_CONV_NARROW=$knob
LANES=${LANES:-dynunet} LIMIT=${LIMIT:-470} BUNDLE=$B/.gpu bash $B/gpu-ladders.sh "$OUT"
cp "$o/knob.txt" "$OUT/ladders/"
tar czf "$OUT/call2-check.tar.gz" -C "$OUT" check; rm -rf "$o"
cat "$OUT/ladders/lanes.txt"
for m in ${LANES:-dynunet}; do grep -E "^\| [0-9]|peer|PyTorch" "$OUT/ladders/$m-full-opencl.md" | head -40; done
tar czf "$OUT/call2-ladders.tar.gz" -C "$OUT" ladders; rm -rf "$OUT/ladders" "$OUT/ladders.tar.gz"
