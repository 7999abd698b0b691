#!/usr/bin/env bash
# One device-machine session for Geneformer (run there from the repository root, .gpu/ carried):
# the port checked against the PyTorch reference on the same weights and ids, PyTorch's own
# fp32-eager and fp16-fused-attention throughput at full size, and the stagebench ladder at full
# size, batch ${BATCH:-32}, then PyTorch's variants added to that result by `stagebench peer`.
# Everything lands in $1 (default: $OUT).
set -uo pipefail
out="${1:-${OUT:?}}"
sb=".gpu/gpu-run.sh"
batch="${BATCH:-32}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv > "$out/gpu.txt" 2>&1
python3 -c "
import numpy as n
r = n.random.default_rng(1)
ids = n.stack([r.permutation(n.arange(2, 25426))[:512] for _ in range(2)])
ids[1, 300:] = 0  # a padded cell
n.save('/tmp/gf_ids.npy', ids)"
bash "$sb" infer geneformer --backend opencl --input /tmp/gf_ids.npy --output /tmp/gf_ours.safetensors \
  --export-weights /tmp/gf_w.safetensors --stage eager
echo "== stagebench (opencl, eager) vs PyTorch reference, 2 cells x 512 tokens" | tee "$out/reference.txt"
python3 scripts/reference/geneformer_torch.py --weights /tmp/gf_w.safetensors --ids /tmp/gf_ids.npy \
  --check /tmp/gf_ours.safetensors 2>&1 | tee -a "$out/reference.txt"
python3 scripts/reference/geneformer_torch.py --time --batch "$batch" 2>&1 | tee "$out/pytorch_full_b$batch.txt"
bash "$sb" run geneformer --size full --batch "$batch" --backend opencl --max-time "${MAX_TIME:-40}" -q \
  -o "$out/geneformer_full_b$batch.json" 2>&1 | tee "$out/geneformer_full_b$batch.txt"
bash "$sb" peer geneformer --size full -o "$out/geneformer_full_b$batch.json" 2>&1 |
  tee "$out/geneformer_full_b${batch}_peer.txt"
