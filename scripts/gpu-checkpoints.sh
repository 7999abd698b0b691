#!/usr/bin/env bash
# The first name of `scripts/gpu.sh checkpoints` (docs/scripts.md), kept for the commands that
# results/ cite: users' own checkpoints against PyTorch, enformer-pytorch and transformers.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" checkpoints "$@"
