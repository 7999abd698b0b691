#!/usr/bin/env bash
# The main job on a fresh machine: install, build, then the Enformer and Geneformer inference
# ladders and the DeepFM training ladder at `small` on the CPU and on the default OpenCL device
# (PoCL when there is no GPU), and the DynUNet training ladder (small on the CPU, tiny on
# OpenCL). Prints the ladder tables and writes results/latest.json (Enformer),
# results/latest-geneformer.json, results/latest-deepfm.json and results/latest-dynunet*.json.
# Extra arguments go to every `stagebench run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
# A 2-core VM cannot reach the 1% default noise target in minutes (CV ~10%): 5% is recorded.
./build/harness/stagebench run enformer --size small --backend all --noise 0.05 --max-time 150 \
  -o results/latest.json "$@"
./build/harness/stagebench run geneformer --size small --backend all --noise 0.05 --max-time 90 \
  -o results/latest-geneformer.json "$@"
./build/harness/stagebench run deepfm --size small --backend all --noise 0.05 --max-time 60 \
  -o results/latest-deepfm.json "$@"
# DynUNet: small on the CPU; on OpenCL tiny, because a PoCL training step at small takes ~6 s
# (results/cpu-2core/dynunet-2026-11-24/dynunet-small-pocl.txt) and the ladder would need ten
# minutes.
./build/harness/stagebench run dynunet --size small --backend cpu --noise 0.05 --max-time 60 \
  -o results/latest-dynunet.json "$@"
./build/harness/stagebench run dynunet --size tiny --backend opencl --noise 0.05 --max-time 30 \
  -o results/latest-dynunet-opencl.json "$@"
