#!/usr/bin/env bash
# dyn33's part of the lead's merged device call (the session's device budget left no call of its
# own): source this file, then `dyn33_call BUNDLE_DIR OUT_DIR` from the repository root of the
# merged main. Checks, in this order, each bounded by its own timeout (about 60-80 s of device
# commands once the programs are built; cut from the end if time is short):
#   1. ops_test, one process: OpsOpenCL.ConvLinesMultipliesBf16Values (conv3d_lines_bf16_16:
#      16 -> 16 and 32 -> 16 forwards and a 16 -> 16 data gradient against double references,
#      launch counts, the same bits twice) and the op table's opencl_instance_norm* cases (the
#      four-elements-an-item kernels);
#   2. DynUNet full's best stage (dataloader) with STAGEBENCH_CONV_LINES and
#      STAGEBENCH_INORM_VEC4 on (set explicitly: CONV_LINES is off by default on main until measured), then both off: training step and inference
#      forward, --repeat 1 --max-time 2, each reported to markdown;
#   3. one --timeline sample of that stage each way, ranked per kernel (sbgpu kernels) and its
#      forward kernels alone (probes/conv3d/forward_kernels.py: the inference forward's share);
#   4. cuDNN's time on the same 16-channel 64^3 shapes (probes/conv3d/cudnn_conv_time.py);
#   5. one more timeline with 16 line pairs a work-group (the default is 4), for the choice.
# PyTorch's peer is not run here (the lead's merged call has it).
dyn33_call() {
  local B=${1:?bundle dir} O=${2:?out dir}
  local root t0
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
  mkdir -p "$O"
  O=$(cd "$O" && pwd) B=$(cd "$B" && pwd)  # absolute: the commands below run from the root
  t0=$(date +%s)
  d33_log() { echo "$(date -u +%T) [$(($(date +%s) - t0))s] $*" | tee -a "$O/call.log"; }
  (
    cd "$root" || exit 1
    # shellcheck disable=SC1091
    . "$B/nvidia-opencl-env.sh"
    (nvidia_opencl_env "$B/lib"
      timeout -s INT 150 "$B/ops_test" \
        --gtest_filter='OpsOpenCL.ConvLines*:Backends/OpTable.MatchesTheReference/opencl_instance_norm*' \
        > "$O/ops_test.txt" 2>&1)
    d33_log "ops_test rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$O/ops_test.txt" | tr '\n' ' ')"
    local v name lines vec4
    for v in new:on:on old:off:off; do
      IFS=: read -r name lines vec4 <<< "$v"
      timeout -s INT 60 env STAGEBENCH_CONV_LINES="$lines" STAGEBENCH_INORM_VEC4="$vec4" \
        "$B/gpu-run.sh" run dynunet --size full --backend opencl --stages dataloader --repeat 1 \
        --max-time 2 -q -o "$O/dynunet-$name.json" > "$O/dynunet-$name.log" 2>&1
      d33_log "dataloader $name (STAGEBENCH_CONV_LINES=$lines STAGEBENCH_INORM_VEC4=$vec4) rc=$?"
      [ -s "$O/dynunet-$name.json" ] &&
        "$B/gpu-run.sh" report "$O/dynunet-$name.json" > "$O/dynunet-$name.md" 2>> "$O/call.log"
    done
    for v in new:on:on old:off:off; do
      IFS=: read -r name lines vec4 <<< "$v"
      local f="$O/timeline-$name"
      timeout -s INT 40 env STAGEBENCH_CONV_LINES="$lines" STAGEBENCH_INORM_VEC4="$vec4" \
        "$B/gpu-run.sh" run dynunet --size full --backend opencl --stages dataloader \
        --max-time 1 --max-samples 3 --warmup 2 -q -o "$f.json" --timeline "$f.trace.json" \
        > "$f.txt" 2>&1
      d33_log "timeline $name rc=$?"
      PYTHONPATH=scripts python3 -m sbgpu kernels "$f.trace.json" 40 > "$f-kernels.txt" 2>&1
      python3 probes/conv3d/forward_kernels.py "$f.trace.json" dataloader > "$f-forward.txt" 2>&1
      gzip -f "$f.trace.json"
    done
    timeout -s INT 45 python3 probes/conv3d/cudnn_conv_time.py > "$O/cudnn.txt" 2>&1
    d33_log "cudnn rc=$?"
    # Last (cut first if time is short): the line-pair count, 16 against the default 4.
    local f="$O/timeline-lines16"
    timeout -s INT 40 env STAGEBENCH_CONV_LINES=16 "$B/gpu-run.sh" run dynunet --size full \
      --backend opencl --stages dataloader --max-time 1 --max-samples 3 --warmup 2 -q \
      -o "$f.json" --timeline "$f.trace.json" > "$f.txt" 2>&1
    d33_log "timeline lines16 rc=$?"
    PYTHONPATH=scripts python3 -m sbgpu kernels "$f.trace.json" 40 > "$f-kernels.txt" 2>&1
    gzip -f "$f.trace.json"
    grep -hE "conv3d_lines|unavailable" "$O"/dynunet-*.log "$O"/timeline-*.txt 2>/dev/null | head -5
    for name in new old; do head -12 "$O/timeline-$name-forward.txt"; done
    cat "$O/cudnn.txt"
  )
}
