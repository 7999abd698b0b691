#!/usr/bin/env bash
# DeepFM full on NVIDIA: our step with gemm_batched_small (new) and CLBlast's choice (old), the
# batched tests, and PyTorch's kernels a step for its CUDA-graph variant and fp32 eager.
set -u
B=build-lead/.gpu
O=$OUT/lead
mkdir -p "$O"
BUNDLE=$B MODEL=deepfm STAGES=preallocated-loss,amp,autotune \
  TESTS='OpsOpenCLClblast.*:Backends/OpTable.MatchesTheReference/opencl_gemm_batched' \
  VARIANTS="new old:STAGEBENCH_GEMM_BATCHED=library" \
  RUN_ARGS="--max-time 6 --max-samples 300 --warmup 1 --no-ceilings" LIMIT=120 \
  bash scripts/gpu.sh check --out "$O" --dir check > "$O/check.log" 2>&1
for v in compile-cuda-graph fp32-eager; do
  timeout -s KILL 110 python3 scripts/reference/step_profile.py --model deepfm --size full \
    --variant "$v" --json "$O/profile-$v.json" > "$O/profile-$v.txt" 2>&1
  echo "profile $v rc=$?" >> "$O/check.log"
done
tar czf "$OUT/lead.tar.gz" -C "$OUT" lead
