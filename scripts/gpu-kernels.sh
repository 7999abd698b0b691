#!/usr/bin/env bash
# The first name of `scripts/gpu.sh kernels` (docs/scripts.md), kept for the commands that
# results/ cite: ceilings, OpenCL op tests, the gemm, Geneformer and Enformer ladders with peers.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" kernels "$@"
