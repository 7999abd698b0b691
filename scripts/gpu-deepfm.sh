#!/usr/bin/env bash
# One device-machine session for DeepFM (run there from the repository root, .gpu/ carried): the
# port's training checked against the PyTorch reference on the same initial parameters and
# batches (tiny and small, 8 steps, no dropout), PyTorch's own training ladder at full size, and
# the stagebench ladder at full size on NVIDIA OpenCL, in the same session, then PyTorch's variants
# added to that result by `stagebench peer`. Everything lands in $1 (default: $OUT).
set -uo pipefail
out="${1:-${OUT:?}}"
sb=".gpu/gpu-run.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv > "$out/gpu.txt" 2>&1
for size in tiny small; do
  bash "$sb" export-steps deepfm --size "$size" --backend opencl --steps 8 --no-dropout --out "/tmp/dfm_$size" \
    2>&1 | tee -a "$out/deepfm_reference.txt"
  python3 scripts/reference/deepfm_torch.py check --dir "/tmp/dfm_$size" --device cuda \
    --json "/tmp/dfm_check_$size.json" > /dev/null 2>&1
  python3 -c "
import json; c = json.load(open('/tmp/dfm_check_$size.json'))
print('== $size: stagebench (opencl, baseline) vs PyTorch, %d steps: max rel loss diff %.3g, '
      'parameter cosine %.9f, max abs %.3g, pass %s' % (c['steps'], c['max_rel_loss_diff'],
      c['overall_cosine'], c['overall_max_abs'], c['pass']))" 2>&1 | tee -a "$out/deepfm_reference.txt"
done
python3 scripts/reference/deepfm_torch.py ladder --size full --budget-s "${TORCH_BUDGET:-40}" \
  --json "$out/deepfm_pytorch_full.json" > "$out/deepfm_pytorch_full.txt" 2>&1
bash "$sb" run deepfm --size full --backend opencl --max-time "${MAX_TIME:-150}" --noise "${NOISE:-0.02}" --max-samples 2000 -q \
  -o "$out/deepfm_full.json" 2>&1 | tee "$out/deepfm_full.txt"
bash "$sb" peer deepfm --size full -o "$out/deepfm_full.json" 2>&1 | tee "$out/deepfm_full_peer.txt"
