#!/usr/bin/env bash
# The first name of `scripts/gpu.sh wgmma` (docs/scripts.md), kept for the commands that
# results/ cite: STAGEBENCH_WGMMA off against on: gemm shapes, then ladders in the order off, on, on, off.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" wgmma "$@"
