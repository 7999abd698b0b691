#!/usr/bin/env bash
# The first name of `scripts/gpu.sh geneformer` (docs/scripts.md), kept for the commands that
# results/ cite: Geneformer's session: reference check, PyTorch's timing, ladder and peer.
d="$(dirname "$0")"; [ -f "$d/gpu.sh" ] || d=scripts; exec bash "$d/gpu.sh" geneformer "$@"
