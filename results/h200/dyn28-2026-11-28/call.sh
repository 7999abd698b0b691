#!/usr/bin/env bash
# dyn28's device call, copied to build-dyn28/ with the bundle (.gpu) and this branch's scripts/,
# and run from there (`bash build-dyn28/call.sh`), so that `stagebench peer` finds this branch's
# scripts/reference/dynunet_torch.py (the first place it looks is ./scripts/reference). In order:
# dynunet_torch.py's selftest on the CPU (beside the tests), the conv and op-table tests on
# NVIDIA, one compile timeline each for this branch's code (new), the same with the stride-2
# data gradient spread as before (narrow: STAGEBENCH_CONV_DILATE=bf16) and gpu27b's kernels
# (old: also STAGEBENCH_CONV_NARROW=v1), then DynUNet's ladder beside PyTorch's peer in what is
# left of 565 s, with the default settings unless the tests failed or `new` had more device time
# than `narrow` (knob.txt says which ran). Only the tars and the selftest come back.
set -u
t0=$(date +%s)
cd "$(dirname "$0")"
OMP_NUM_THREADS=4 PYTHONUNBUFFERED=1 timeout 150 python3 scripts/reference/dynunet_torch.py \
  selftest --json "$OUT/selftest.json" > "$OUT/selftest.log" 2>&1 &
sp=$!
old="STAGEBENCH_CONV_NARROW=v1,STAGEBENCH_CONV_DILATE=bf16"
TESTS='OpsOpenCL.*Conv*:OpsOpenCL.HeldTensor*:Backends/OpTable.MatchesTheReference/opencl_*' \
  STAGES=compile VARIANTS="new narrow:STAGEBENCH_CONV_DILATE=bf16 old:$old" \
  LIMIT=250 BUNDLE=.gpu bash scripts/gpu-check.sh "$OUT"
wait $sp
echo "selftest rc=$? after $(($(date +%s) - t0)) s"
python3 -c "import json; d = json.load(open('$OUT/selftest.json')); print('selftest pass', d['pass'], 'peer order problems', d.get('peer_order_problems'))"
o="$OUT/check"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|SKIPPED" "$o"/ops_test-default.txt | head -20
ms() { sed -n 's/^## compile: \([0-9.]*\) ms.*/\1/p' "$o/timeline-$1-kernels.txt"; }
for v in new narrow old; do
  sed -n '/## compile/,$p' "$o/timeline-$v-kernels.txt" | head -12
  grep -E "narrow|dw_tf32|phase|dilate|256x16" "$o/timeline-$v-kernels.txt" | grep -v "^## "
  grep "^| 3" "$o/timeline-$v.txt"
done
knob="default (STAGEBENCH_CONV_DILATE=phases)"
if ! grep -q "^\[  PASSED  \]" "$o/ops_test-default.txt" || grep -q "^\[  FAILED  \]" "$o/ops_test-default.txt"; then
  export STAGEBENCH_CONV_DILATE=bf16; knob="STAGEBENCH_CONV_DILATE=bf16: the tests did not pass"
elif awk -v a="$(ms new)" -v b="$(ms narrow)" 'BEGIN{exit !(a == "" || a > b)}'; then
  export STAGEBENCH_CONV_DILATE=bf16; knob="STAGEBENCH_CONV_DILATE=bf16: new had more device time"
fi
echo "ladder with $knob (compile device ms: new $(ms new), narrow $(ms narrow), old $(ms old))" | tee "$OUT/knob.txt"
tar czf "$OUT/check.tar.gz" -C "$OUT" check; rm -rf "$o"
left=$((565 - ($(date +%s) - t0)))
echo "ladders with ${left}s"
LANES=dynunet LIMIT=$left BUNDLE=.gpu bash scripts/gpu-ladders.sh "$OUT"
cat "$OUT/ladders/lanes.txt"
grep -E "^\| [0-9]|PyTorch on this machine" "$OUT/ladders/dynunet-full-opencl.md" | head -50
rm -rf "$OUT/ladders"
ls -la "$OUT"
