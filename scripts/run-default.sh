#!/usr/bin/env bash
# The main job on a fresh machine: install, build, then the Enformer and Geneformer inference
# ladders and the DeepFM training ladder at `small` on the CPU and on the default OpenCL device
# (PoCL when there is no GPU). Prints the ladder tables and writes results/latest.json (Enformer),
# results/latest-geneformer.json and results/latest-deepfm.json. Extra arguments go to every
# `stagebench run`.
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
