#!/usr/bin/env bash
# The first name of `scripts/gpu.sh ladders` (docs/scripts.md), kept for the commands that
# results/ cite: the full ladders, a lane a model, each with PyTorch's peer.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" ladders "$@"
