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
#   MAX_TIME=s   measuring seconds per ladder and process (default 30)
set -uo pipefail
out="${1:-${OUT:?}}"
o="$out/ladders"
mkdir -p "$o"
sb="$PWD/.gpu/gpu-run.sh"
max_time="${MAX_TIME:-30}"
export PYTHONUNBUFFERED=1
{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv
  nproc
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  git rev-parse HEAD 2>/dev/null || echo "no git"
} > "$o/machine.txt" 2>&1
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -ge 1 ] || gpus=1
cores=$(nproc)
per=$(( cores / 4 )); [ "$per" -ge 1 ] || per=1

# lane INDEX MODEL PEER_DEADLINE RUN_ARGS...
lane() {
  local i=$1 model=$2 deadline=$3; shift 3
  local gpu=$(( i % gpus )) first=$(( i * per )) last=$(( i * per + per - 1 ))
  local log="$o/$model.log" json="$o/$model-full-opencl.json"
  (
    export CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=$per
    taskset -pc "$first-$last" $BASHPID > /dev/null 2>&1
    echo "$(date +%T) lane $i: $model on GPU $gpu, cores $first-$last" >> "$o/lanes.txt"
    bash "$sb" run "$model" --size full --backend opencl --repeat 2 --max-time "$max_time" -q \
      "$@" -o "$json" > "$log" 2>&1
    echo "$(date +%T) $model ladder rc=$?" >> "$o/lanes.txt"
    bash "$sb" peer "$model" --size full -o "$json" --deadline "$deadline" \
      --variant-budget 100 --autotune-budget 90 >> "$log" 2>&1
    echo "$(date +%T) $model peer rc=$?" >> "$o/lanes.txt"
    bash "$sb" report "$json" > "$o/$model-full-opencl.md" 2>> "$log"
  ) &
}
[ "$gpus" -ge 4 ] || echo "only $gpus GPU(s): lanes share them" >> "$o/lanes.txt"
lane 0 enformer 230
lane 1 geneformer 200
lane 2 deepfm 200
lane 3 dynunet 260 --max-samples 200
wait
tar czf "$out/ladders.tar.gz" -C "$out" ladders
