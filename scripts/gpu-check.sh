#!/usr/bin/env bash
# The first name of `scripts/gpu.sh check` (docs/scripts.md), kept for the commands that
# results/ cite: op tests on NVIDIA, then per-kernel timelines of MODEL's STAGES per VARIANTS entry.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" check "$@"
