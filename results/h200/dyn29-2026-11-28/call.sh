#!/usr/bin/env bash
# dyn29's device call, copied to build-dyn29/ with the bundle (.gpu) and run from the checkout's
# root (`bash build-dyn29/call.sh`): the checkout's scripts/gpu.sh and
# scripts/reference/dynunet_torch.py (dyn29 changes neither). One call of a 520 s cap, start-up
# included, so in this order: (1) one compile timeline each for this branch's code (new, with
# ptxas's register report in its build log) and with the new paths off (old: the f32_to_bf16
# passes and conv3d_phase_scatter, as dyn28); (2) DynUNet's ladder (stages baseline, compile,
# dataloader, one repeat: the whole ladder and a 240 s peer do not fit the cap) beside PyTorch's
# peer, its deadline >= 240 s, with the default settings unless `new` failed or lost (knob.txt);
# (3) the NVIDIA op tests with what is left. Only the tars come back.
set -u
t0=$(date +%s)
B=build-dyn29/.gpu
old="STAGEBENCH_CONV_BF16_PRODUCERS=off,STAGEBENCH_CONV_PHASE_STORE=off"
STAGES=compile VARIANTS="new:STAGEBENCH_CL_BUILD_LOG=1 old:$old" LIMIT=70 BUNDLE=$B \
  bash scripts/gpu.sh --dir check timeline "$OUT"
o="$OUT/check"
ms() { sed -n 's/^## compile: \([0-9.]*\) ms.*/\1/p' "$o/timeline-$1-kernels.txt" 2>/dev/null; }
for v in new old; do
  sed -n '/## compile/,$p' "$o/timeline-$v-kernels.txt" | head -40
  grep -E "^\| 1 \| compile|^- compile" "$o/timeline-$v.txt"
done
grep -iE "narrow_dw_k3|registers|spill" "$o/timeline-new.txt" | grep -B1 -A2 -i "narrow_dw_k3" | head -12
knob="default (bf16 producers, phase store)"
# new's compile stage must have run and passed its check (invalid by noise alone is fine)
if [ -z "$(ms new)" ] || ! grep -qE "^\| 1 \| compile +\| (ok|invalid) " "$o/timeline-new.txt" ||
  grep -E "^- compile: (failed|invalid)" "$o/timeline-new.txt" | grep -qv "noise"; then
  export STAGEBENCH_CONV_BF16_PRODUCERS=off STAGEBENCH_CONV_PHASE_STORE=off
  knob="$old: the new timeline failed"
elif awk -v a="$(ms new)" -v b="$(ms old)" 'BEGIN{exit !(a > b)}'; then
  export STAGEBENCH_CONV_BF16_PRODUCERS=off STAGEBENCH_CONV_PHASE_STORE=off
  knob="$old: new had more device time"
fi
echo "ladder with $knob (compile device ms: new $(ms new), old $(ms old)) after $(($(date +%s) - t0)) s" | tee "$OUT/knob.txt"
tar czf "$OUT/check.tar.gz" -C "$OUT" check; rm -rf "$o"
LANES=dynunet LADDER_STAGES=baseline,compile,dataloader REPEAT=1 MAX_TIME=15 LIMIT=420 \
  BUNDLE=$B bash scripts/gpu-ladders.sh "$OUT"
cat "$OUT/ladders/session.txt" | tail -6
grep -E "^\| [0-9]|PyTorch on this machine|not run" "$OUT/ladders/dynunet-full-opencl.md" | head -60
rm -rf "$OUT/ladders"
left=$((455 - ($(date +%s) - t0)))
echo "tests with ${left}s"
if [ "$left" -gt 30 ]; then
  TESTS='OpsOpenCL.*Conv*:OpsOpenCL.HeldTensor*:OpsOpenCL.Noticed*:Backends/OpTable.MatchesTheReference/opencl_conv3d*:Backends/OpTable.MatchesTheReference/opencl_instance_norm*' \
    LIMIT=$left BUNDLE=$B bash scripts/gpu.sh --dir tests tests "$OUT"
  grep -E "^\[  (PASSED|FAILED) |FAILED  \]|SKIPPED \]" "$OUT/tests/ops_test-default.txt" | head -20
  rm -rf "$OUT/tests"
fi
echo "call took $(($(date +%s) - t0)) s"
ls -la "$OUT"
