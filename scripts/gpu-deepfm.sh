#!/usr/bin/env bash
# The first name of `scripts/gpu.sh deepfm` (docs/scripts.md), kept for the commands that
# results/ cite: DeepFM's session: training checked against PyTorch, PyTorch's ladder, ours and peer.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" deepfm "$@"
