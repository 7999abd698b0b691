#!/usr/bin/env bash
# One device-machine session (run there from the repository root, .gpu/ carried): the probe,
# the port checked against the PyTorch reference on the same weights and input, PyTorch's fp32
# eager latency at full size, and the Enformer ladder at full size twice (the second run checks
# that every stage's speedup reproduces), each result then given PyTorch's own variants on this
# machine by `stagebench peer` (docs/method.md). Everything lands in $1 (default: $OUT).
set -uo pipefail
out="${1:-${OUT:?}}"
sb=".gpu/gpu-run.sh"
max_time="${MAX_TIME:-90}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv > "$out/gpu.txt" 2>&1
bash "$sb" probe --json "$out/probe.json" > "$out/probe.txt" 2>&1
for size in tiny small; do
  bp=$(python3 -c "print({'tiny': 4096, 'small': 32768}['$size'])")
  python3 -c "import numpy as n; n.save('/tmp/x_$size.npy', n.random.default_rng(1).integers(0, 4, (1, $bp)))"
  bash "$sb" infer enformer --backend opencl --input "/tmp/x_$size.npy" --output "/tmp/ours_$size.safetensors" \
    --export-weights "/tmp/w_$size.safetensors" --stage original
  echo "== $size: stagebench (opencl, original) vs PyTorch reference" | tee -a "$out/reference.txt"
  python3 scripts/reference/enformer_torch.py --size "$size" --weights "/tmp/w_$size.safetensors" \
    --input "/tmp/x_$size.npy" --check "/tmp/ours_$size.safetensors" 2>&1 | tee -a "$out/reference.txt"
done
python3 scripts/reference/enformer_torch.py --size full --time 2>&1 | tee "$out/pytorch_full.txt"
for i in 1 2; do
  bash "$sb" run enformer --size full --backend opencl --max-time "$max_time" -q \
    -o "$out/full_run$i.json" 2>&1 | tee "$out/full_run$i.txt"
done
for i in 1 2; do
  bash "$sb" peer enformer --size full -o "$out/full_run$i.json" 2>&1 | tee "$out/full_run${i}_peer.txt"
done
