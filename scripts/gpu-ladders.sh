#!/usr/bin/env bash
# One device-machine session for all four ladders at full size, each beside PyTorch at full
# strength on the same machine in the same session (issue 26): run there from the repository
# root with .gpu/ carried (scripts/gpu-bundle.sh). Each model gets a lane of its own: one GPU
# (CUDA_VISIBLE_DEVICES, which NVIDIA's OpenCL honours) and a slice of the cores, so that the four
# lanes fit one command's time limit on a 4-GPU machine; with fewer GPUs the lanes share them
# and the log says so. A lane runs the ladder with `--repeat 2` (two fresh processes merged:
# docs/method.md#repeats) and then `stagebench peer`, which adds PyTorch's variants to the same
# result after checking that PyTorch does the same work.
#
# Usage: scripts/gpu-ladders.sh OUT   (tars OUT/ladders into OUT/ladders.tar.gz)
#   BUNDLE=dir   the carried bundle, from the repository root (default .gpu), as gpu-check.sh
#   MAX_TIME=s   measuring seconds per ladder and process (default 30; DynUNet 50)
#   LIMIT=s      everything ends within this (default 540: the device call's limit is 600)
set -uo pipefail
out="${1:-${OUT:?}}"
o="$out/ladders"
mkdir -p "$o"
sb="$PWD/${BUNDLE:-.gpu}/gpu-run.sh"
max_time="${MAX_TIME:-30}"
export PYTHONUNBUFFERED=1
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv
  nproc
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} > "$o/machine.txt" 2>&1
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -ge 1 ] || gpus=1
cores=$(nproc)
per=$(( cores / 4 )); [ "$per" -ge 1 ] || per=1
start=$(date +%s)
limit="${LIMIT:-540}"  # seconds: everything, the tarball included, ends before the call's limit
left() { echo $(( limit - ($(date +%s) - start) )); }

# cuBLAS's GEMM ceilings on this GPU model, so that tensor-core stages get a roofline fraction.
ceilings=$(CUDA_VISIBLE_DEVICES=0 python3 scripts/reference/gemm_ceilings.py 2> "$o/ceilings.txt" | tail -n1)
echo "cuBLAS ceilings (GFLOP/s): $ceilings" >> "$o/ceilings.txt"
ceiling_args=()
IFS=',' read -ra pairs <<< "$ceilings"
for p in "${pairs[@]}"; do [ -n "$p" ] && ceiling_args+=(--ceiling "$p"); done

# lane INDEX MODEL LADDER_SECONDS PEER_SECONDS MAX_TIME RUN_ARGS...: the ladder within
# LADDER_SECONDS (interrupted there, it keeps what it measured), measuring MAX_TIME seconds a
# process, then the peer within what is left of PEER_SECONDS. LANES="enformer dynunet" runs those.
lane() {
  local i=$1 model=$2 ladder_s=$3 peer_s=$4 mt=$5; shift 5
  case " ${LANES:-enformer geneformer deepfm dynunet} " in *" $model "*) ;; *) return ;; esac
  local gpu=$(( i % gpus )) first=$(( i * per )) last=$(( i * per + per - 1 ))
  local log="$o/$model.log" json="$o/$model-full-opencl.json"
  (
    export CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=$per
    taskset -pc "$first-$last" $BASHPID > /dev/null 2>&1
    echo "$(date +%T) lane $i: $model on GPU $gpu, cores $first-$last" >> "$o/lanes.txt"
    timeout -s INT "$ladder_s" bash "$sb" run "$model" --size full --backend opencl --repeat 2 \
      --max-time "$mt" -q "${ceiling_args[@]}" "$@" -o "$json" > "$log" 2>&1
    echo "$(date +%T) $model ladder rc=$?" >> "$o/lanes.txt"
    local budget=$(( $(left) - 100 ))  # a variant started before the deadline may run past it
    [ "$budget" -gt "$peer_s" ] && budget=$peer_s
    if [ "$budget" -ge 60 ] && [ -s "$json" ]; then
      bash "$sb" peer "$model" --size full -o "$json" --deadline "$budget" \
        --variant-budget 90 --autotune-budget 80 >> "$log" 2>&1
      echo "$(date +%T) $model peer rc=$? (deadline ${budget}s)" >> "$o/lanes.txt"
    else
      echo "$(date +%T) $model peer not run: ${budget}s left" >> "$o/lanes.txt"
    fi
    bash "$sb" report "$json" > "$o/$model-full-opencl.md" 2>> "$log"
  ) &
}
[ "$gpus" -ge 4 ] || echo "only $gpus GPU(s): lanes share them" >> "$o/lanes.txt"
lane 0 enformer 240 230 "$max_time"
lane 1 geneformer 200 200 "$max_time"
# DeepFM's stages take ~5 ms: at the default 100 samples its stage 0 stopped at 1.2% noise and
# every verdict was withheld (results/h200/ladders-2026-11-27/deepfm-full-opencl.json); 400 cost
# about 2 s a stage.
lane 2 deepfm 200 200 "$max_time" --max-samples 400
lane 3 dynunet 270 220 50 --max-samples 200
while [ -n "$(jobs -rp)" ] && [ "$(left)" -gt 10 ]; do sleep 5; done
echo "$(date +%T) tar with $(jobs -rp | wc -l) lane(s) still running" >> "$o/lanes.txt"
tar czf "$out/ladders.tar.gz" -C "$out" ladders
