#!/usr/bin/env bash
# dyn32's one call: DynUNet's k2 s2 transposed convolutions on the bf16 implicit GEMMs
# (STAGEBENCH_CONV_TRANSPOSE_IGEMM=on, the default) against the CLBlast fp32 path (=off), same
# call. NVIDIA ops tests of the conv paths (the new transposed ones among them), PyTorch's peer
# (compile-fp16, training and inference), the DynUNet full ladder (baseline, compile, dataloader;
# --repeat 1 --max-time 12) with the new path and with the knob off, then one compile-stage
# timeline each and one with instance_norm.cl as before. Adapted from
# results/h200/lead31-2026-11-28/final/call.sh.
set -u
N=build-dyn32/.gpu
O=$OUT/dyn
mkdir -p "$O"
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
log() { echo "$(date -u +%T) [$(el)s] $*" | tee -a "$O/call.log"; }
. "$N/nvidia-opencl-env.sh"
gpu_facts "$O/gpu.txt"
log "clocks at the start: $(gpu_clocks)"
TESTS='OpsOpenCL.ConvTranspose3d*:OpsOpenCLConvTransposeKnob.*:OpsOpenCL.ConvBackwardIgemm*:OpsOpenCL.ConvWeightGrad*:OpsOpenCL.HeldTensor*:Backends/OpTable.MatchesTheReference/opencl_conv*:Backends/OpTable.MatchesTheReference/opencl_instance_norm*'
(nvidia_opencl_env "$N/lib"
  timeout -s INT 150 "$N/ops_test" --gtest_filter="$TESTS" > "$O/ops_test.txt" 2>&1)
log "ops_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$O/ops_test.txt" | tr '\n' ' ')"
T=510  # the command's own limit (the run's timeout leaves the start-up room)
cap() { local l=$((T - $(el) - $2)); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }  # MAX RESERVE
ladder() {  # NAME KNOB MAX-SECONDS RESERVE
  local secs; secs=$(cap "$3" "$4")
  [ "$secs" -ge 20 ] || { log "ladder $1 skipped: ${secs}s left"; return; }
  timeout -s INT "$secs" env STAGEBENCH_CONV_TRANSPOSE_IGEMM="$2" "$N/gpu-run.sh" run dynunet \
    --size full --backend opencl --stages baseline,compile,dataloader --repeat 1 --max-time 12 \
    -q -o "$O/dynunet-full-$1.json" > "$O/dynunet-full-$1.log" 2>&1
  log "ladder $1 (STAGEBENCH_CONV_TRANSPOSE_IGEMM=$2) rc=$? (limit ${secs}s)"
}
# PyTorch first after the tests (110 s at most, 220 kept for the rest), so that a slow ladder
# cannot squeeze it out (dyn31's call lost it).
budget=$(cap 110 220)
log "peer deadline ${budget}s"
[ "$budget" -ge 40 ] || budget=40  # its floor: the ladders' limits below shrink instead
timeout -s INT $((budget + 15)) python3 scripts/reference/dynunet_torch.py peer --size full \
  --device cuda --variants compile-fp16 --deadline-s "$budget" --variant-budget-s "$budget" \
  --peer-json "$O/dynunet-peer.json" > "$O/dynunet-peer.log" 2>&1
log "peer rc=$?"
ladder new on 170 80
ladder old off 60 50
# inorm-old: the new path with instance_norm.cl as before dyn32 (build-dyn32/oldcl/, the kernel
# file at c789530, through STAGEBENCH_CL_SOURCE_DIR), for instance_norm_partials' A/B.
for v in new:on old:off inorm-old:on; do
  f="$O/timeline-${v%%:*}"
  src=""; [ "${v%%:*}" != inorm-old ] || src=STAGEBENCH_CL_SOURCE_DIR=$PWD/build-dyn32/oldcl
  secs=$(cap 30 5)
  [ "$secs" -ge 15 ] || { log "timeline ${v%%:*} skipped: ${secs}s left"; continue; }
  timeout -s INT "$secs" env $src STAGEBENCH_CONV_TRANSPOSE_IGEMM="${v#*:}" "$N/gpu-run.sh" run dynunet \
    --size full --backend opencl --stages compile --max-time 10 --max-samples 10 --warmup 2 -q \
    -o "$f.json" --timeline "$f.trace.json" > "$f.txt" 2>&1
  log "timeline ${v%%:*} rc=$?"
  PYTHONPATH=scripts python3 -m sbgpu kernels "$f.trace.json" 40 > "$f-kernels.txt" 2>&1 &&
    gzip -f "$f.trace.json"
  head -1 "$f-kernels.txt"
done
for f in "$O"/dynunet-full-new.json "$O"/dynunet-full-old.json; do
  [ -s "$f" ] && "$N/gpu-run.sh" report "$f" > "${f%.json}.md" 2>> "$O/call.log"
  echo "== $(basename "$f")"; grep -E "^\| [0-9]" "${f%.json}.md" | head -8 | cut -c1-110
done
tail -8 "$O/dynunet-peer.log"
grep -E "^\[  (PASSED|FAILED)|^\[  FAILED" "$O/ops_test.txt" | head
for v in new old inorm-old; do head -30 "$O/timeline-$v-kernels.txt" | cut -c1-110; done
log "clocks at the end: $(gpu_clocks)"
log "done"
tar czf "$OUT/dyn.tar.gz" -C "$OUT" dyn && rm -rf "$O"
