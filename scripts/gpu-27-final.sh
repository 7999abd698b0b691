#!/usr/bin/env bash
# Issue 27's closing call on the GPU machine, from the repository root with the bundle carried in
# build-gpu27/.gpu: DynUNet full's ladder beside PyTorch's peer block (scripts/gpu-ladders.sh,
# LANES=dynunet), then the NVIDIA-only convolution tests and the op table's changed ops on NVIDIA
# and one timeline sample of the compile stage (scripts/gpu-27-check.sh).
set -uo pipefail
out="${1:-${OUT:?}}"
ln -sfn build-gpu27/.gpu .gpu
LANES=dynunet LIMIT="${LIMIT:-470}" bash scripts/gpu-ladders.sh "$out"
T='Backends/OpTable.MatchesTheReference/opencl_'
TESTS="OpsOpenCL.ConvIgemm*:OpsOpenCL.ConvBackward*:OpsOpenCL.ConvTranspose*:${T}instance_norm*:${T}soft_dice*:${T}bce*:${T}sum_squares*:${T}conv3d*" \
  PRECISIONS=bf16 STAGES=compile BUNDLE=.gpu bash build-gpu27/gpu-27-check.sh "$out"
