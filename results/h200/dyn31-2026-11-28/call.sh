#!/usr/bin/env bash
# dyn31's one call: the tap-staging bf16 weight gradients (STAGEBENCH_CONV_DW_TAPS=ring|lines)
# against the im2col-tile kernel (off), same call. NVIDIA ops tests of the conv paths (with the
# build log: ptxas registers), the DynUNet ladder (baseline, compile, dataloader) with the ring
# (new) and with the knob off (old), PyTorch's peer into the new ladder, then one compile-stage
# timeline each of ring, off and lines. Adapted from results/h200/lead30-2026-11-28/dyn/call.sh.
set -u
B=build-dyn31/.gpu
ring="STAGEBENCH_CONV_DW_TAPS=ring"
off="STAGEBENCH_CONV_DW_TAPS=off"
lines="STAGEBENCH_CONV_DW_TAPS=lines"
TESTS='OpsOpenCL.ConvWeightGrad*:OpsOpenCL.ConvBackwardIgemm*:OpsOpenCL.ConvIgemm*:OpsOpenCL.HeldTensor*:Backends/OpTable.MatchesTheReference/opencl_conv3d*' \
  TEST_VARIANTS="default:STAGEBENCH_CL_BUILD_LOG=1" \
  LANES=dynunet MODEL=dynunet LADDER_VARIANTS="new:$ring old:$off" PEER_VARIANT=new \
  LADDER_STAGES=baseline,compile,dataloader REPEAT=1 MAX_TIME=12 STAGES=compile \
  VARIANTS="ring:$ring old:$off lines:$lines" LOG_KEYS=gemm_calls LIMIT=420 BUNDLE=$B \
  bash scripts/gpu.sh --dir dyn tests ladder timeline "$OUT"
tail -40 "$OUT/dyn/session.txt" 2>/dev/null
grep -A2 -E "entry function '(conv3d_dw_taps|conv3d_dw_bf16_(16|32))" "$OUT"/dyn/ops_test-*.txt | grep -E "entry|Used" | head -24
grep -E "^\[  (PASSED|FAILED)|^\[  FAILED" "$OUT"/dyn/ops_test-*.txt | head
for f in "$OUT"/dyn/dynunet-full-*.md; do echo "== $f"; grep -E "^\| [0-9]|PyTorch|vs our" "$f" | head -40; done
for v in ring old lines; do head -22 "$OUT/dyn/timeline-$v-kernels.txt" 2>/dev/null; done
rm -rf "$OUT/dyn"; ls -la "$OUT"
