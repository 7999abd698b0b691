#!/usr/bin/env bash
# The first name of `scripts/gpu.sh conv-igemm` (docs/scripts.md), kept for the commands that
# results/ cite: conv3d's implicit GEMMs: PHASES shapes, tiles, bwd, timeline, ladder, final.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" conv-igemm "$@"
