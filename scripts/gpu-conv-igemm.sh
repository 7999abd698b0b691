#!/usr/bin/env bash
# Issue 27 on the device machine: conv3d's implicit-GEMM forward and backward paths
# (docs/wgmma.md) in one call on one GPU. Run from the repository root with the bundle carried (scripts/gpu-bundle.sh,
# plus build-portable/probes/conv3d/conv3d_igemm_check copied into it):
#   shapes: conv3d_igemm_check on DynUNet full's forward shapes (both paths' outputs compared
#           against each other and fp64, both timed), then cuDNN on the same shapes
#           (scripts/reference/conv3d_shapes.py);
#   tiles:  conv3d_igemm_check (tf32) with the tile height measured, then forced to 128 and 256;
#   bwd:    conv3d_igemm_check bwd: the backward passes (weight and data gradients) through
#           vol2col/col2vol and the implicit GEMMs, checked and timed, then cuDNN's backward
#           passes on the same shapes (conv3d_shapes.py --backward);
#   timeline: one DynUNet full training sample at STAGES_TL (default channels-last) with
#           STAGEBENCH_CONV_IGEMM=off and on, --timeline, summed per kernel
#           (probes/conv3d/timeline_by_kernel.py, from TOOLS, default probes/conv3d);
#   final:  one short call's whole picture: DynUNet full's ladder (every stage, the default
#           path: implicit GEMMs on), PyTorch's peer beside it, then the channels-last stage
#           alone with STAGEBENCH_CONV_IGEMM=off (the old path's figure in the same call);
#   ladder: `stagebench run dynunet --size full` with STAGEBENCH_CONV_IGEMM=off and on (the stages
#           in STAGES), then PyTorch's peer beside the "on" file while time allows.
# Everything lands in OUT/conv-igemm and is tarred into OUT/conv-igemm.tar.gz.
#   PHASES="shapes ladder" (default both; also tiles, bwd, timeline, final)  PEER=0 (no peer)
#   LIMIT=s (everything ends within it; default 560)  BWD_REPS=n (bwd: calls a timed round, 5)
#   TL_MODES="off on" (timeline's modes)  MAX_TIME, MAX_SAMPLES (ladder and final)
#   BUNDLE=folder holding stagebench, conv3d_igemm_check, lib/ (default .gpu)
#   SCRIPTS=folder holding this script's Python (default scripts/reference)
set -uo pipefail
out="${1:-${OUT:?}}"
o="$out/conv-igemm"
mkdir -p "$o"
bundle="$PWD/${BUNDLE:-.gpu}"
scripts="${SCRIPTS:-scripts/reference}"
limit="${LIMIT:-560}"
stages="${STAGES:-baseline,channels-last,compile}"
left() { echo $((limit - SECONDS)); }
log() { echo "$(date +%T) [${SECONDS}s] $*" | tee -a "$o/session.txt"; }
export PYTHONUNBUFFERED=1

# NVIDIA's OpenCL is installed but not registered with the ICD loader (as gpu-run.sh does).
. "$(dirname "$0")/nvidia-opencl-env.sh"
nvidia_opencl_env "$bundle/lib"

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$o/gpu.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' >> "$o/gpu.txt" 2>&1
log "$(tr '\n' ' ' < "$o/gpu.txt")"

for phase in ${PHASES:-shapes ladder}; do
  case "$phase" in
    shapes)
      for p in ${PRECISIONS:-tf32}; do
        timeout 150 "$bundle/conv3d_igemm_check" "$p" 20 > "$o/shapes-ours-$p.tsv" 2> "$o/shapes-ours-$p.err"
        log "conv3d_igemm_check $p rc=$? ($(tail -n1 "$o/shapes-ours-$p.tsv"))"
      done
      timeout 150 python3 "$scripts/conv3d_shapes.py" > "$o/shapes-cudnn.tsv" 2> "$o/shapes-cudnn.err"
      log "conv3d_shapes.py rc=$?"
      ;;
    bwd)
      timeout 200 "$bundle/conv3d_igemm_check" bwd tf32 "${BWD_REPS:-5}" > "$o/bwd-ours-tf32.tsv" 2> "$o/bwd-ours-tf32.err"
      log "conv3d_igemm_check bwd rc=$? ($(tail -n1 "$o/bwd-ours-tf32.tsv"))"
      timeout 120 python3 "$scripts/conv3d_shapes.py" --backward > "$o/bwd-cudnn.tsv" 2> "$o/bwd-cudnn.err"
      log "conv3d_shapes.py --backward rc=$?"
      ;;
    timeline)
      for mode in ${TL_MODES:-off on}; do
        STAGEBENCH_CONV_IGEMM=$mode timeout -s INT 150 "$bundle/stagebench" run dynunet --size full \
          --backend opencl --stages "${STAGES_TL:-channels-last}" --max-time 15 --max-samples 10 \
          --warmup 2 -q -o "$o/timeline-$mode.json" --timeline "$o/timeline-$mode.trace.json" \
          > "$o/timeline-$mode.txt" 2>&1
        log "timeline $mode rc=$?"
        python3 "${TOOLS:-probes/conv3d}/timeline_by_kernel.py" "$o/timeline-$mode.trace.json" 30 \
          > "$o/timeline-$mode-kernels.txt" 2>&1 && gzip -f "$o/timeline-$mode.trace.json"
      done
      ;;
    final)
      timeout -s INT 150 "$bundle/stagebench" run dynunet --size full --backend opencl \
        --max-time "${MAX_TIME:-30}" --max-samples "${MAX_SAMPLES:-100}" -q \
        -o "$o/dynunet-full-on.json" > "$o/dynunet-full-on.txt" 2>&1
      log "ladder on rc=$?"
      budget=$(($(left) - 75))  # the off stage and the reports after the peer
      if [ "$budget" -ge 60 ] && [ -s "$o/dynunet-full-on.json" ]; then
        timeout $((budget + 20)) "$bundle/stagebench" peer dynunet --size full \
          -o "$o/dynunet-full-on.json" --deadline "$budget" --variant-budget 90 \
          --autotune-budget 80 > "$o/dynunet-full-peer.txt" 2>&1
        log "peer rc=$? (deadline ${budget}s)"
      else
        log "peer not run: $(left)s left"
      fi
      STAGEBENCH_CONV_IGEMM=off timeout -s INT 50 "$bundle/stagebench" run dynunet --size full \
        --backend opencl --stages channels-last --max-time 12 --max-samples 10 -q \
        -o "$o/dynunet-full-off-cl.json" > "$o/dynunet-full-off-cl.txt" 2>&1
      log "channels-last, implicit GEMMs off: rc=$?"
      for f in on off-cl; do
        [ -s "$o/dynunet-full-$f.json" ] &&
          "$bundle/stagebench" report "$o/dynunet-full-$f.json" > "$o/dynunet-full-$f.md" 2>&1
      done
      ;;
    tiles)  # the measured tile height against each height forced (STAGEBENCH_CONV_IGEMM_TILE)
      for h in auto 128 256; do
        STAGEBENCH_CONV_IGEMM_TILE=$([ "$h" = auto ] || echo "$h") timeout 150 \
          "$bundle/conv3d_igemm_check" tf32 20 > "$o/tiles-$h.tsv" 2> "$o/tiles-$h.err"
        log "conv3d_igemm_check tf32 tile $h rc=$? ($(tail -n1 "$o/tiles-$h.tsv"))"
      done
      ;;
    ladder)
      for mode in off on; do
        if [ "$(left)" -lt 150 ]; then log "ladder $mode skipped: $(left)s left"; continue; fi
        STAGEBENCH_CONV_IGEMM=$mode timeout -s INT 200 "$bundle/stagebench" run dynunet --size full \
          --backend opencl --stages "$stages" --max-time "${MAX_TIME:-40}" \
          --max-samples "${MAX_SAMPLES:-100}" -q -o "$o/dynunet-full-$mode.json" \
          > "$o/dynunet-full-$mode.txt" 2>&1
        log "ladder $mode rc=$? $(grep -o '"gemm_calls": {[^}]*}' "$o/dynunet-full-$mode.json" 2>/dev/null | sort -u | tr '\n' ' ' | head -c 400)"
      done
      budget=$(($(left) - 30))
      if [ "${PEER:-1}" = 1 ] && [ "$budget" -ge 60 ] && [ -s "$o/dynunet-full-on.json" ]; then
        timeout $((budget + 20)) "$bundle/stagebench" peer dynunet --size full \
          -o "$o/dynunet-full-on.json" --deadline "$budget" > "$o/dynunet-full-peer.txt" 2>&1
        log "peer rc=$? (deadline ${budget}s)"
      else
        log "peer not run: $(left)s left"
      fi
      for mode in off on; do
        [ -s "$o/dynunet-full-$mode.json" ] &&
          "$bundle/stagebench" report "$o/dynunet-full-$mode.json" > "$o/dynunet-full-$mode.md" 2>&1
      done
      ;;
  esac
done
tar czf "$out/conv-igemm.tar.gz" -C "$out" conv-igemm
log "done"
